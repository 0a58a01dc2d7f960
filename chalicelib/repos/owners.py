"""An owner's new name: renaming a user or an organization (``adminRenameUser``,
``renameOrg``) and moving its repositories, which are keyed by their owner's name.

The account's rename commits first, on its own (``accounts.rename_account``: the claim,
the redirect from the old name, ``AccountRenamed``).  Its repositories then move in
transactions of ``MOVES_PER_COMMIT``, each repository's item only if unchanged since
read (a move that loses a race is read again and retried).  Should the request die in
between, the ``AccountRenamed`` event's consumer (``on_event``) moves what is left: the
move is idempotent, it takes the repositories whose key is not their owner's name.
Until a repository has moved, its old address still finds it through the redirect.

Everything else about a repository is keyed by its id: git data, issues, hooks,
collaborations, forks' links, which follow the id link (``store.linked``).
"""
from __future__ import annotations

import logging

from chalicelib import accounts, events
from chalicelib.accounts import Account
from chalicelib.errors import ConditionFailed, ConflictError
from chalicelib.repos import store
from chalicelib.store import unit_of_work

log = logging.getLogger("nimbus.repos.owners")

# Three items per repository (old item, new item, id link) in one 100-item transaction.
MOVES_PER_COMMIT = 30
# A repository busy enough to change between every read and move is given up on here;
# the event's redelivery, or the next rename, tries again.
ATTEMPTS = 5


def rename_owner(actor: Account | None, account: Account, new_name: str, *,
                 field: str = "NewName") -> None:
    """Rename the user or organization ``account`` (its rights already checked), then
    move its repositories under the new name."""
    if accounts.rename_account(actor, account, new_name, field=field) is not None:
        move_owned(account)


def move_owned(owner: Account) -> int:
    """Move every repository of ``owner`` that is not under its current name; returns
    how many moved.  Reads the owner's repositories a page at a time (its index)."""
    moved = 0
    stale = [repo for repo in store.owned_by(int(owner.id))
             if repo.pk != store.key(owner.lower_name, repo.lower_name)[0]]
    for start in range(0, len(stale), MOVES_PER_COMMIT):
        moved += _move_batch(owner, stale[start:start + MOVES_PER_COMMIT])
    return moved


def _move_batch(owner: Account, repos: list) -> int:
    try:
        with unit_of_work.writing():
            for repo in repos:
                store.stage_move(repo, store.moved_record(repo, owner))
        return len(repos)
    except ConditionFailed:
        # One of them changed since the index was read: each on its own, read again.
        return sum(_move_one(owner, int(repo.id)) for repo in repos)


def _move_one(owner: Account, repo_id: int) -> int:
    for _ in range(ATTEMPTS):
        current = store.get_many_by_id([repo_id], consistent=True)
        if not current or current[0].owner_id != owner.id:
            return 0        # deleted, or moved to another owner, meanwhile
        repo = current[0]
        if repo.pk == store.key(owner.lower_name, repo.lower_name)[0]:
            return 0        # moved by someone else (the consumer, a retry)
        try:
            with unit_of_work.writing():
                store.stage_move(repo, store.moved_record(repo, owner))
            return 1
        except ConditionFailed as exc:
            if exc.label != store.REPO:
                raise
    raise ConflictError(f"the repository changed while its owner was renamed [id: {repo_id}]")


def on_event(event: events.Event) -> None:
    """``AccountRenamed``: finish the move the request began (a no-op when it got there
    first).  The account as it is now: a second rename since moves to that name."""
    owner = accounts.account_by_id(int(event.account_id), consistent=True)
    if owner is None:
        return
    moved = move_owned(owner)
    if moved:
        log.info("moved %d repositories of %s after its rename", moved, owner.login)
