"""Scenarios for the pages of the undo and the audit log (docs/extensions.md): deleted
repositories in alice's settings and her organization's, a repository's ref history,
and the organization's audit log.  ``scenarios_web`` merges them into its tables (the
page-weight bench reads those); the set-ups hand the waiting events to the ref history's
and the audit log's consumers (``scenarios_ref_history.moved_repo``,
``scenarios_audit.recorded``), as the event worker would.
"""
from __future__ import annotations

from scenarios_audit import recorded
from scenarios_ref_history import moved_repo
from scenarios_web import both, org_page
from scene import Req, Scene, after


def deleted_web_repo(s: Scene) -> str:
    """A repository of alice's deleted (restorable), once, and her session."""
    def build() -> str:
        name = s.new_repo(auto_init=True)
        s.must("DELETE", f"/repos/alice/{name}", "token", expect=204)
        return name
    found = s.once("web_deleted_repo", build)
    s.session_cookie()
    return found


def scenarios() -> dict:
    return {
        # The organization's audit log, its changes recorded: the whole log, and one
        # repository's (by its bare name) newest first.
        "webOrgAudit": lambda s: after(recorded(s), [
            Req("GET", org_page(s, "settings", "audit"), "session"),
            Req("GET", org_page(s, "settings", "audit") + f"?repo={recorded(s)}"
                "&action=repository", "session")]),
        # Deleted repositories: alice's (one deleted here) and her organization's.
        "webUserDeletedRepos": lambda s: after(deleted_web_repo(s), [
            Req("GET", "/user/settings/repos/deleted", "session")]),
        "webOrgDeletedRepos": lambda s: [Req("GET", org_page(s, "settings", "repos",
                                                             "deleted"), "session")],
        # The ref history (a branch created and deleted, recorded), all of it and
        # filtered, anonymous and signed in.
        "webRepoRefHistory": lambda s: after(s.session_cookie(), both(
            f"/alice/{moved_repo(s)}/activity/refs") + [
            Req("GET", f"/alice/{moved_repo(s)}/activity/refs?ref=main&forced=false",
                "session"),
            Req("GET", f"/alice/{moved_repo(s)}/activity/refs?forced=true", "session")]),
    }


EXEMPT = {
    "webAdminAudit": "a site admin's page: the bench's sessions are alice's, who gets its "
                     "404 (tests/web/test_web_audit.py counts its calls: 2, 4 with filters)",
    **{op: "a form POST needs a session cookie and its CSRF token "
           "(tests/web/test_web_undo.py)" for op in (
        "webUserDeletedRepoRestore", "webOrgDeletedRepoRestore", "webRepoRefRestore")},
}

BUDGETS = {
    # The organization's audit log: the session's account, the organization by name and
    # the caller's membership, then one Query of the log (one GetItem more resolves a
    # ``repo`` or ``actor`` filter).
    ("webOrgAudit", "session"): 5,
    # Deleted repositories: the session's account, the owner by name (Query), one Query
    # of the owner's deleted records (a page and one more); an organization's adds its
    # header's reads (the organization, the caller's membership) and the service's
    # owner test (the membership again).
    ("webUserDeletedRepos", "session"): 3,
    ("webOrgDeletedRepos", "session"): 5,
    # The ref history: the two preload batches (the session's account in the second),
    # one Query of the history's index (the ref's or the forced moves' when filtered);
    # the movers' batch only when someone else moved a ref of the page.
    ("webRepoRefHistory", "anon"): 4,
    ("webRepoRefHistory", "session"): 4,
}
