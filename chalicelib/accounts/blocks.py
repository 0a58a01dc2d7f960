"""Blocking users (Forgejo's "Blocking a user"): block, unblock, list, and the check
other domains make before a blocked user acts on the blocker's things.

A user blocks for themselves (``/user/block/{username}``), an organization's owners
block for the organization (``/orgs/{org}/block/{username}``); either way the blocker
is an account and the repositories it owns are the ones the block protects.  What a
block forbids is enforced where it happens, each through ``check_not_blocked`` with the
repository's owner as the blocker: opening issues and pull requests, commenting (the
issue's poster blocks too), starring and watching (``repos.access``), and being added
as a collaborator (both ways, staged in the collaborator's transaction); following
either way (``accounts.follows``).  A block ends the follows between the two, both ways,
in its own transaction (``block_store``).

Not done here, though Forgejo does it: a block does not yet remove the blocked user's
watches and collaborations on the blocker's repositories.  Those are the repositories
domain's items, above this bottom domain; a ``UserBlocked`` event and a consumer there
would do it (until then a collaborator stays one, but can no longer star, watch, open
issues or comment).

Forgejo's answers: blocking twice or unblocking someone not blocked is a 204 that
changes nothing; an unknown (or invisible) user is a 404.  Where Forgejo would block
quietly or fail, this refuses with a 422: oneself (Forgejo answers 204 and does
nothing), an organization (Forgejo's settings page refuses it too), and a site
administrator (Forgejo leaves "should admins be immune" open; here they are, so a
block never hides content from the people who moderate it).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib import clock
from chalicelib.accounts import block_store, store
from chalicelib.accounts.service import can_see
from chalicelib.errors import (ConditionFailed, ConflictError, InvalidInput, NotFoundError,
                               PermissionDenied)
from chalicelib.http import formats, schemas
from chalicelib.http.schema_types import I, T
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from collections.abc import Iterable

    from chalicelib.accounts.models import Account

# Forgejo's ErrBlockedByUser, answered with 403 by every refused action.
BLOCKED = "user is blocked by the poster or repository owner"
BLOCK_LABEL = block_store.BLOCK
# Each retry of a block means a follow between the two changed meanwhile.
RETRIES = 8


@dataclass(frozen=True)
class Blocked:
    """One entry of a blocker's list: Forgejo's BlockedUser (the blocked user's id)."""
    user_id: int
    created: int


# Forgejo's BlockedUser record (structs.BlockedUser), declared beside its one builder,
# which the users' and the organizations' routes share.
SCHEMAS = schemas.declare({"BlockedUser": {"block_id": I, "created_at": T}},
                          lists=("BlockedUser",))


def blocked_user_record(entry: Blocked) -> dict:
    """A BlockedUser: ``block_id`` is the blocked user's id, as Forgejo fills it."""
    return {"block_id": entry.user_id, "created_at": formats.rfc3339(entry.created)}


def _target(actor: Account | None, blocker: Account, name: str) -> Account:
    """The user ``name`` as a block's target, or the error Forgejo's callers expect."""
    account = store.get_by_name(name)
    if account is None or not can_see(actor, account):
        raise NotFoundError(f"user redirect does not exist [name: {name}]")
    if account.account_type != "user":
        raise InvalidInput(f"{account.login} is an organization")
    if int(account.id) in {int(blocker.id), int(actor.id) if actor is not None else None}:
        raise InvalidInput("you cannot block yourself")
    if account.is_admin:
        raise InvalidInput("a site administrator cannot be blocked")
    return account


def block_user(actor: Account, blocker: Account, name: str) -> Account:
    """userBlockUser / orgBlockUser (the caller's right to act for ``blocker`` is the
    route's).  One batch read of the follows between the two, then one transaction:
    the block and the end of those follows; blocking twice writes nothing."""
    target = _target(actor, blocker, name)
    for _ in range(RETRIES):
        # Only users follow and are followed: an organization's block reads nothing.
        follows = block_store.follows_between(int(blocker.id), int(target.id)) \
            if blocker.account_type == "user" else {}
        try:
            with unit_of_work.writing():
                block_store.stage_block(int(blocker.id), int(target.id), clock.seconds(),
                                        follows)
        except ConditionFailed as failed:
            if failed.label == block_store.TARGET:
                raise NotFoundError(f"user redirect does not exist [name: {name}]") from None
            if failed.label == block_store.FOLLOWS:
                continue        # a follow came or went meanwhile: read them again
            if failed.label != block_store.BLOCK:
                raise
            # Blocked already: Forgejo answers 204 and keeps the first block's date.
        return target
    raise ConflictError("the follows between these users keep changing; try again")


def unblock_user(actor: Account, blocker: Account, name: str) -> Account:
    """userUnblockUser / orgUnblockUser: one delete, which finds nothing when the user
    was not blocked (no error, as in Forgejo)."""
    target = _target(actor, blocker, name)
    with unit_of_work.writing():
        block_store.stage_unblock(int(blocker.id), int(target.id))
    return target


def blocked_users(blocker: Account) -> list[Blocked]:
    """userListBlockedUsers / orgListBlockedUsers, in the order the blocks were made."""
    return [Blocked(int(b.blocked_id), int(b.created))
            for b in block_store.blocks_of(int(blocker.id))]


# The check other domains make ---------------------------------------------------------------

def is_blocked(blocker_id: int, user_id: int) -> bool:
    """Whether ``blocker_id`` blocks ``user_id``: one GetItem, none when preloaded."""
    if int(blocker_id) == int(user_id):
        return False
    return block_store.get_block(blocker_id, user_id) is not None


def check_not_blocked(blocker_ids: Iterable[int], user_id: int | None) -> None:
    """Raise Forgejo's 403 when any of ``blocker_ids`` (a repository's owner, an issue's
    poster) blocks ``user_id``; the keys not preloaded are read in one batch."""
    if user_id is not None and block_store.blocked_by_any(blocker_ids, int(user_id)):
        raise PermissionDenied(BLOCKED)


def refusal(failed: ConditionFailed) -> PermissionDenied | None:
    """The 403 for a ``stage_not_blocked`` condition that failed, else None."""
    return PermissionDenied(BLOCKED) if failed.label == BLOCK_LABEL else None
