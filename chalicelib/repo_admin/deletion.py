"""Restorable deletion: a deleted repository kept for ``[repository]
DELETED_RETENTION_DAYS``, listed (``repoListDeleted``) and brought back as it was
(``repoRestoreDeleted``) until the purge schedule removes it (``deleted_purge.py``).

- ``hide`` (``repoDelete`` with retention > 0): one transaction removes what makes the
  repository visible and its name taken — the repository item, its id link, the owner's
  count, the parent's fork link and count — and puts its deleted-repository record
  (``repos.deleted_store``), with ``RepositoryDeleted(restorable=True)``.  Its forks
  become independent, as on any deletion, and the record remembers them.  Everything
  keyed by its id stays: refs, the ``R#<id>`` partition (issues, pull requests,
  reviews, releases, labels, milestones, hooks, collaborators, protection rules, stars,
  Git LFS needs), the wiki, release attachment bytes, its pool membership (compaction
  keeps its objects) and its quota charge (its bytes count until purged).
- ``restore``: one transaction deletes the record (on condition that it exists: of two
  restores, or a restore and a purge, one commits), puts the repository item back with
  the same id and attributes (a new ``name`` if given; the name must be free), its id
  link, the owner's count, its parent's link and count when the parent is still there
  in the same pool (else it comes back independent) and its forks that are still
  independent in its pool, with ``RepositoryRestored``.

Who may: the owner's admins — the user themself, an owner of the organization — and
site admins; listing every owner's is the site admins'.  Anyone else gets 403 for a list
and 404 for a restore (as for a repository they cannot see).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib import accounts, clock, contents, events, repos
from chalicelib.errors import (
    ConditionFailed,
    ConflictError,
    NotFoundError,
    PermissionDenied,
)
from chalicelib.repo_admin import lifecycle, push_mirror_store, transfer_store
from chalicelib.repos import Caller, RepoView
from chalicelib.settings import get_settings
from chalicelib.store import pages, unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.repos import Repo

DAY = 86400
NOT_DELETED = "deleted repository does not exist"
# A fork or parent that changed between the read and the write: read again, this often.
ATTEMPTS = 3
# Forks put back in the restore's one transaction (two items each, within DynamoDB's
# 100 with the rest); those past it stay independent.
MAX_REATTACHED = 40


def retention_days() -> int:
    return max(int(get_settings().repository.DELETED_RETENTION_DAYS or 0), 0)


@dataclass(frozen=True)
class DeletedListing:
    """A deleted repository as a caller may list it: ``owner_login``, its owner's name
    now (renamed since, perhaps: a restore puts it there)."""
    record: object          # repos.deleted_store.DeletedRepo
    size: int
    owner_login: str


def may_manage(user: Account | None, owner: Account) -> bool:
    """The owner's admins: the user themself, an organization's owners, site admins."""
    if user is None:
        return False
    if user.is_admin or int(user.id) == int(owner.id):
        return True
    return repos.is_org(owner) and repos.is_org_owner(owner, user)


# Deleting --------------------------------------------------------------------------------

def hide(repo: Repo, *, actor: Account | None, days: int) -> None:
    """Delete ``repo`` restorably for ``days`` (see the module doc); ``ConflictError``
    when it changed since it was read."""
    parent, forks = lifecycle.relatives(repo)
    now = clock.seconds()
    purge_at = now + days * DAY
    record = repos.deleted_repo_record(repo, deleted_at=now, purge_at=purge_at,
                                       deleted_by=actor, forks=[int(f.id) for f in forks])
    try:
        with unit_of_work.writing() as uow:
            for child in forks:
                repos.stage_detach_fork(child)
            repos.stage_hide_repo(repo, record, parent=parent)
            uow.raise_event(events.RepositoryDeleted(
                **contents.push_event_fields(repo, actor), restorable=True,
                purge_at=float(purge_at)))
    except ConditionFailed:
        raise ConflictError("the repository changed while it was being deleted") from None


# Listing ---------------------------------------------------------------------------------

def list_deleted(caller: Caller, owner_name: str | None, *, offset: int = 0,
                 limit: int = 50) -> tuple[list[DeletedListing], int]:
    """A page of the owner's deleted repositories (newest first), or of every owner's
    (site admins only; soonest purge first), and how many there are up to one past the
    page (whether another follows: the index is read only that far).  Those past their
    purge time are gone already."""
    user = caller.user
    if owner_name:
        owner = accounts.account_by_name(owner_name)
        if owner is None or not repos.can_see_account(user, owner):
            raise NotFoundError(f"user redirect does not exist [name: {owner_name}]")
        if not may_manage(user, owner):
            raise PermissionDenied("only the owner's admins may list its deleted repositories")
        records, login = repos.deleted_repos_of(int(owner.id), page_size=offset + limit + 1), \
            owner.login
    else:
        if user is None or not user.is_admin:
            raise PermissionDenied("only site admins may list every deleted repository; "
                                   "name an owner")
        records, login = repos.every_deleted_repo(page_size=offset + limit + 1), ""
    now = clock.now()
    listed = (record for record in records
              if record.purge_at > now and not (caller.public_only and record.private))
    shown, seen = pages.window(listed, offset, limit, ahead=1)
    return [DeletedListing(record, _size(record), login or record.owner_login)
            for record in shown], seen


def _size(record) -> int:
    """Bytes it holds: its packs' (``size``) and its Git LFS objects'."""
    stored = repos.deleted_repo_stored(record)
    return int(stored.size or 0) + int(stored.lfs_size or 0)


# Restoring -------------------------------------------------------------------------------

def restore(caller: Caller, repo_id: int, name: str | None = None) -> RepoView:
    """Bring the deleted repository back (see the module doc): its view as the caller
    now sees it.  404 when it is not deleted (restored or purged meanwhile) or not the
    caller's to restore, 409 when the name is taken."""
    for attempt in range(ATTEMPTS):
        record = repos.deleted_repo(int(repo_id))
        owner = _restorable_owner(caller, record, repo_id)
        stored = repos.deleted_repo_stored(record)
        new_name = lifecycle.validate_name(name.strip()) if name else stored.name
        try:
            return _put_back(caller, record, stored, owner, new_name)
        except ConditionFailed as failed:
            if failed.label == repos.DELETED_GONE:
                raise NotFoundError(f"{NOT_DELETED} [id: {repo_id}]") from None
            if failed.label in (repos.REPO_CHANGED, repos.REPO_ID_TAKEN):
                raise ConflictError(lifecycle.NAME_TAKEN) from None
            if attempt == ATTEMPTS - 1:
                raise ConflictError("the repository's owner, parent or forks changed "
                                    "meanwhile; try again") from None
    raise AssertionError("unreachable")


def _restorable_owner(caller: Caller, record, repo_id: int) -> Account:
    missing = NotFoundError(f"{NOT_DELETED} [id: {repo_id}]")
    if record is None or record.purge_at <= clock.now():
        raise missing
    owner = accounts.account_by_id(int(record.owner_id))
    if owner is None:                 # the owner was deleted: nowhere to put it back
        raise missing
    if not may_manage(caller.user, owner) or (caller.public_only and record.private):
        raise missing
    return owner


def _put_back(caller: Caller, record, stored: Repo, owner: Account, name: str) -> RepoView:
    repo = repos.restored_repo_record(stored, owner, name)
    parent = _parent_still_there(repo)
    if parent is None:
        repo.fork, repo.parent_id = False, 0
    reattached, dropped = _forks_to_reattach(record, repo)
    repo.num_forks = len(reattached)
    mirrors = push_mirror_store.list_mirrors(int(repo.id))
    with unit_of_work.writing() as uow:
        repos.stage_reveal_repo(record, repo, owner, parent=parent)
        for fork in reattached:
            repos.stage_reattach_fork(fork, int(repo.id))
        transfer_store.stage_forget_redirect(int(owner.id), repo.lower_name)
        # The schedule entries the mirror job dropped while the repository was away.
        push_mirror_store.stage_schedule_entries(repo, mirrors)
        uow.raise_event(events.RepositoryRestored(
            **contents.push_event_fields(repo, caller.user),
            deleted_at=float(record.deleted_at)))
    if dropped:
        # Links to forks that are not its any more: nothing else refers to them, so
        # they go after the restore, in as many writes as they take.
        with unit_of_work.writing():
            for fork_id in dropped:
                repos.stage_drop_fork_link(int(repo.id), fork_id)
    return repos.view_of(repo, caller, owner)


def _parent_still_there(repo: Repo) -> Repo | None:
    """The parent it was forked from, when it still exists and shares its pool."""
    if not repo.fork or not repo.parent_id:
        return None
    parent = repos.repo_by_id(int(repo.parent_id))
    if parent is None or int(parent.pool_id) != int(repo.pool_id):
        return None
    return parent


def _forks_to_reattach(record, repo: Repo) -> tuple[list[Repo], list[int]]:
    """The forks its deletion made independent that still are, in its pool; and the
    ids of those that are not (their links in its partition go)."""
    wanted = sorted(int(f) for f in (record.forks or ()))
    found = {int(r.id): r for r in repos.repos_by_ids(wanted, consistent=True)}
    back = [found[f] for f in wanted if f in found and not found[f].fork
            and not int(found[f].parent_id or 0) and int(found[f].pool_id) == int(repo.pool_id)]
    back = back[:MAX_REATTACHED]
    kept = {int(r.id) for r in back}
    return back, [f for f in wanted if f not in kept]
