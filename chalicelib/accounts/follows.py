"""Users following users (Forgejo's ``models/user/follow.go`` and the API's
``user/follower.go``): follow, unfollow, check, and the two lists.

Forgejo's rules: following yourself, following someone already followed and unfollowing
someone not followed all answer 204 and change nothing; a user the caller may not see
(private, or limited to signed-in users) is 404 as if missing, and so is an
organization (a user is followed, not an organization); a follow between users one of
whom blocks the other is Forgejo's 403 (checked in the follow's transaction, so a block
committed first wins).  The lists show individuals
the viewer may see (Forgejo's ``isUserVisibleToViewerCond``).

Forgejo's list queries name no order; here they are in user id order (the order the
accounts were created), which holds from page to page.  ``X-Total-Count`` is the
account's counter (its ``followers_count``/``following_count``), so a page may hold
fewer users than the viewer's ``limit`` when some are hidden from the viewer.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib import clock
from chalicelib.accounts import block_store, follow_store, store
from chalicelib.accounts.blocks import refusal
from chalicelib.accounts.service import can_see, get_visible_user
from chalicelib.errors import ConditionFailed, ConflictError, NotFoundError, PermissionDenied
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts.store import Account


@dataclass(frozen=True)
class People:
    """A page of a follow list as the viewer may see it, and the list's length."""
    shown: list[Account]
    total: int


def _signed_in(actor: Account | None) -> Account:
    if actor is None:
        raise PermissionDenied("only signed in user is allowed")
    return actor


def follow(actor: Account | None, name: str) -> None:
    """userCurrentPutFollow.  One transaction, no read of the follow first: the put of
    the follow is conditional, so two racing requests count once."""
    user = _signed_in(actor)
    target = get_visible_user(user, name)
    if int(target.id) == int(user.id):
        return
    _change(user, target, _stage_follow, int(user.id), int(target.id), clock.seconds())


def _stage_follow(user_id: int, target_id: int, now: int) -> None:
    follow_store.stage_follow(user_id, target_id, now)
    block_store.stage_not_blocked(target_id, user_id)
    block_store.stage_not_blocked(user_id, target_id)


def unfollow(actor: Account | None, name: str) -> None:
    """userCurrentDeleteFollow: nothing to undo is no error."""
    user = _signed_in(actor)
    target = get_visible_user(user, name)
    if int(target.id) == int(user.id):
        return
    _change(user, target, follow_store.stage_unfollow, int(user.id), int(target.id))


def _change(user: Account, target: Account, stage, *args) -> None:
    try:
        with unit_of_work.writing():
            stage(*args)
    except ConditionFailed as failed:
        if failed.label == follow_store.FOLLOWING:
            return          # already (or no longer) following: nothing changed
        blocked = refusal(failed)
        if blocked is not None:
            raise blocked from None
        if failed.label == follow_store.GONE:
            raise NotFoundError(f"user redirect does not exist [name: {target.login}]") from None
        raise ConflictError("the follow changed while it was being made") from None


def is_following(viewer: Account | None, name: str, target_name: str) -> bool:
    """userCheckFollowing: whether ``name`` follows ``target_name`` (both must be users
    the viewer may see, else 404)."""
    user = get_visible_user(viewer, name)
    target = get_visible_user(viewer, target_name)
    return follow_store.is_following(int(user.id), int(target.id))


def am_following(actor: Account | None, name: str) -> bool:
    """userCurrentCheckFollowing."""
    user = _signed_in(actor)
    target = get_visible_user(user, name)
    return follow_store.is_following(int(user.id), int(target.id))


def _page(viewer: Account | None, ids: list[int], offset: int, total: int) -> People:
    accounts = store.get_many(ids[offset:])
    shown = [a for a in accounts if a.account_type == "user" and can_see(viewer, a)]
    return People(shown, max(int(total or 0), 0))


def followers(viewer: Account | None, user: Account, offset: int, limit: int) -> People:
    """userListFollowers / userCurrentListFollowers: one page of who follows ``user``."""
    ids = follow_store.follower_ids(int(user.id), offset + limit)
    return _page(viewer, ids, offset, user.num_followers)


def following(viewer: Account | None, user: Account, offset: int, limit: int) -> People:
    """userListFollowing / userCurrentListFollowing: one page of whom ``user`` follows."""
    ids = follow_store.following_ids(int(user.id), offset + limit)
    return _page(viewer, ids, offset, user.num_following)


def visible_user(viewer: Account | None, name: str) -> Account:
    """The user whose lists a path names (404 when the viewer may not see it)."""
    return get_visible_user(viewer, name)
