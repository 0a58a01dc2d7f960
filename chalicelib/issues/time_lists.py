"""Lists of tracked times beyond one issue: a repository's (repoTrackedTimes, its
``user`` filter and the deprecated userTrackedTimes) and the caller's own in every
repository (userCurrentTrackedTimes), in creation order.

Each tracked time is written with two index entries (``comment_store.new_time``): gsi1
``RTIMES#<repo>`` and gsi2 ``UTIMES#<user>``, both sorted by ``<created>#<id>``, so
``since``/``before`` are a key range and a page reads its index a DynamoDB page at a
time, stopping one match past the page (the total is exact when the matches end there,
else one more than the page's end: a client still gets its ``next`` link).  One user's
times in one repository walk the user's index and keep that repository's.  Times
written before the indexes existed get their keys from ``admin repair``.

Who sees what (Forgejo's): writers of the issues unit and site admins list everyone's
times and may filter by user; others see only their own (403 when they ask for
someone else's).  userTrackedTimes takes a repository admin, a site admin or the user.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib import accounts
from chalicelib.accounts import Account
from chalicelib.errors import PermissionDenied
from chalicelib.issues import time_store
from chalicelib.issues.context import Ctx
from chalicelib.store import pages

if TYPE_CHECKING:
    from chalicelib.issues.models import TrackedTime

AHEAD = 1
# Re-exported for the routes, which read no storage themselves.
issues_of = time_store.issues_of
repo_id_of = time_store.repo_id_of


def _user_id(name: str, viewer: Account) -> int:
    return int(accounts.get_user(name, viewer).id)


def repo_times(ctx: Ctx, user_name: str, since: int | None, before: int | None,
               offset: int, limit: int) -> tuple[list[TrackedTime], int]:
    """repoTrackedTimes: a page and its total (see the module notes)."""
    me = ctx.user
    if me is None:
        raise PermissionDenied("user is not allowed to list time")
    user_id = _user_id(user_name, me) if user_name else 0
    if not (me.is_admin or ctx.can_write or (user_id and user_id == int(me.id))):
        if user_id:
            raise PermissionDenied("query by user not allowed; not enough rights")
        user_id = int(me.id)
    wanted = offset + limit + AHEAD
    if user_id:
        found = time_store.user_walk(user_id, since, before, wanted, repo_id=ctx.repo_id)
    else:
        found = time_store.repo_walk(ctx.repo_id, since, before, wanted)
    return pages.window(found, offset, limit, ahead=AHEAD)


def user_times_in_repo(ctx: Ctx, user_name: str, offset: int,
                       limit: int) -> tuple[list[TrackedTime], int]:
    """userTrackedTimes (deprecated): one user's times in the repository."""
    me = ctx.user
    if me is None:
        raise PermissionDenied("user is not allowed to list time")
    user_id = _user_id(user_name, me)
    if not (ctx.is_admin or me.is_admin or user_id == int(me.id)):
        raise PermissionDenied("query user not allowed not enouth rights")
    found = time_store.user_walk(user_id, None, None, offset + limit + AHEAD,
                                 repo_id=ctx.repo_id)
    return pages.window(found, offset, limit, ahead=AHEAD)


def my_times(user: Account, since: int | None, before: int | None, offset: int,
             limit: int) -> tuple[list[TrackedTime], int]:
    """userCurrentTrackedTimes: the caller's times in every repository."""
    found = time_store.user_walk(int(user.id), since, before, offset + limit + AHEAD)
    return pages.window(found, offset, limit, ahead=AHEAD)
