"""Scenarios for blocking users: alice's own blocks and her organization's.

Each block measures a user of its own (a second block of the same user would measure
the repeat); an unblock first blocks the user it then unblocks, unmeasured.
"""
from __future__ import annotations

from scenarios_orgs import org
from scene import Req, Scene, after


def blocked_user(s: Scene, where: str = "/user") -> str:
    """A new user, blocked by alice (``/user``) or her organization (``/orgs/<org>``)."""
    name = s.new_user()
    s.must("PUT", f"{where}/block/{name}", "token", expect=204)
    return name


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {
        "userBlockUser": lambda s: [Req("PUT", f"/user/block/{s.new_user()}", "token",
                                        expect=204)],
        "userUnblockUser": lambda s: [Req("PUT", f"/user/unblock/{blocked_user(s)}", "token",
                                          expect=204)],
        "userListBlockedUsers": lambda s: after(blocked_user(s), [
            Req("GET", "/user/list_blocked", "token")]),
        "orgBlockUser": lambda s: [Req("PUT", f"/orgs/{org(s)}/block/{s.new_user()}", "token",
                                       expect=204)],
        "orgUnblockUser": lambda s: [Req(
            "PUT", f"/orgs/{org(s)}/unblock/{blocked_user(s, f'/orgs/{org(s)}')}", "token",
            expect=204)],
        "orgListBlockedUsers": lambda s: after(blocked_user(s, f"/orgs/{org(s)}"), [
            Req("GET", f"/orgs/{org(s)}/list_blocked", "token")]),
    }


# Reads before the write: the token and the caller, the target's name (one Query of the
# name index); a user's block reads the follows between the two (one batch), then one
# transaction (the block, the end of those follows, the target's existence).  An
# organization adds itself (its name) and alice's membership, and has no follows.
BUDGETS = {
    ("userBlockUser", "token"): 5,
    ("userUnblockUser", "token"): 4,
    ("userListBlockedUsers", "token"): 3,
    ("orgBlockUser", "token"): 6,
    ("orgUnblockUser", "token"): 6,
    ("orgListBlockedUsers", "token"): 5,
}
