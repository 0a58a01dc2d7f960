"""User webhook scenarios and budgets for bench/aws_calls.py (imported there):
``/user/hooks`` (userListHooks, userCreateHook, userGetHook, userEditHook,
userDeleteHook), the signed-in user's own hooks.

A user's hooks live in the account's partition beside an organization's, so they cost
what the organization's do, without the organization's membership reads: the caller's
token, then the caller's account (with the hook the path names, in the same batch),
then one Query of the hooks (a list), one transaction (a create, an edit, a delete; a
create may also take a block of hook ids, once per 16 hooks per process).

An event of the user's repositories finds these hooks with the query that already reads
the owner's partition for an organization's (``webhooks.service.hooks_in_scope``): no
event costs a call more for them.
"""
from __future__ import annotations

from scenarios_repos import HOOK, new_hook
from scene import Req, Scene, after

BUDGETS = {
    ("userListHooks", "token"): 3,
    ("userCreateHook", "token"): 4,
    ("userGetHook", "token"): 2,
    ("userEditHook", "token"): 3,
    ("userDeleteHook", "token"): 3,
}


def any_user_hook(s: Scene) -> int:
    return s.once("user_hook", lambda: new_hook(s, "/user"))


def scenarios() -> dict:
    """operationId -> scenario, as in aws_calls.SCENARIOS."""
    return {
        "userListHooks": lambda s: after(any_user_hook(s), [Req("GET", "/user/hooks", "token")]),
        "userCreateHook": lambda s: [Req("POST", "/user/hooks", "token", HOOK, 201)],
        "userGetHook": lambda s: [Req("GET", f"/user/hooks/{any_user_hook(s)}", "token")],
        "userEditHook": lambda s: [Req("PATCH", f"/user/hooks/{any_user_hook(s)}", "token",
                                       {"active": True})],
        "userDeleteHook": lambda s: [Req("DELETE", f"/user/hooks/{new_hook(s, '/user')}",
                                         "token", expect=204)],
    }
