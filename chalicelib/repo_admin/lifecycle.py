"""The repository lifecycle: creating, forking and deleting a repository's records, and
cleaning up after a deletion.  ``repos`` (the API's create, fork, delete) and
``migrations`` (a migrated repository) both build on these.

Each write is one unit of work with its event:
- ``create``: the repository, its id link, the owner's ``num_repos`` and its new object
  pool, with ``RepositoryCreated`` (one transaction), and no redirect from its address
  any more (``transfer_store``; so for every way a repository appears);
- ``fork``: the copied refs and branch records, then the fork with its link, the shared
  pool's member count and the parent's ``num_forks``, with ``RepositoryForked``; one
  transaction while it fits 100 items, else the unit of work's sequence with the records
  last, so the fork appears only once its refs exist (a failure discards them);
- ``remove``: the records and counters, with forks made independent, and
  ``RepositoryDeleted`` carrying the repository's snapshot (``repoDelete`` keeps it
  restorable instead while ``[repository] DELETED_RETENTION_DAYS`` > 0: ``deletion.py``,
  ``deleted_purge.py``).  Everything else the
  repository leaves (refs, its ``R#`` partition, deploy-key claims, an unused object
  pool, archives, the mirror schedule) is removed by the repository-cleanup consumer
  of that event (``chalicelib/repo_admin/consumers.py`` -> ``purge``), off the request path and
  again if it is redelivered.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from chalicelib import clock, contents, events, quota, repos
from chalicelib.errors import (
    ConditionFailed,
    ConflictError,
    InvalidInput,
    NotFoundError,
    ServiceError,
)
from chalicelib.repo_admin import transfer_store
from chalicelib.settings import get_settings
from chalicelib.store import ids, unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.repos import Repo

NAME_TAKEN = "The repository with the same name already exists."
MAX_NAME = 100
_NAME = re.compile(r"^[A-Za-z0-9._-]+$")
_RESERVED = {".", "..", "-"}
_RESERVED_SUFFIXES = (".git", ".wiki", ".rss", ".atom")



def validate_name(name: str) -> str:
    """A repository name as Forgejo allows it (422 otherwise)."""
    if not name:
        raise InvalidInput("[Name]: Required")
    if len(name) > MAX_NAME:
        raise InvalidInput("[Name]: MaxSize")
    if not _NAME.match(name):
        raise InvalidInput("[Name]: AlphaDashDot")
    if name.lower() in _RESERVED:
        raise InvalidInput(f"name is reserved [name: {name}]")
    if name.lower().endswith(_RESERVED_SUFFIXES):
        raise InvalidInput(f"name pattern is not allowed [pattern: *{name[name.rfind('.'):]}]")
    return name


def new_record(owner: Account, name: str, *, description: str = "", private: bool = False,
               default_branch: str = "", template: bool = False) -> Repo:
    """A repository of ``owner`` with a fresh id, not yet written."""
    return repos.new_repo_record(
        ids.next_id("repo"), owner, name, created=clock.seconds(), description=description,
        private=private, template=template,
        default_branch=default_branch or get_settings().repository.DEFAULT_BRANCH)


def stage_creation(repo: Repo, *, parent: Repo | None = None) -> None:
    """Stage the repository's records (see ``repos.store.stage_create``) and the removal
    of a redirect from its address (a repository lives there now, as Forgejo deletes the
    redirect of a name taken again); commit with ``creation_error`` translating a
    failure."""
    repos.stage_create_repo(repo, parent=parent)
    transfer_store.stage_forget_redirect(int(repo.owner_id), repo.lower_name)


def creation_size(*, fork: bool) -> int:
    """How many items ``stage_creation`` stages (transaction budgets)."""
    return repos.creation_size(fork=fork) + 1


def creation_error(failed: ConditionFailed) -> ServiceError:
    """The error a failed creation reports, as Forgejo words it."""
    if failed.label in (repos.REPO_CHANGED, repos.REPO_ID_TAKEN):
        return ConflictError(NAME_TAKEN)
    if failed.label == repos.OWNER_GONE:
        return NotFoundError("the owner does not exist")
    if failed.label in (repos.PARENT_GONE, repos.POOL_GONE):
        return NotFoundError("the repository being forked no longer exists")
    return failed


def create(repo: Repo, *, actor: Account | None) -> None:
    """Write a new repository with ``RepositoryCreated``; its git side (HEAD, an initial
    commit) is ``repo_init``'s, once the record exists."""
    try:
        with unit_of_work.writing() as uow:
            stage_creation(repo)
            uow.raise_event(events.RepositoryCreated(**contents.push_event_fields(repo, actor)))
    except ConditionFailed as failed:
        raise creation_error(failed) from None


def fork(repo: Repo, parent: Repo, *, actor: Account | None) -> None:
    """Write ``repo`` (a fork record of ``parent``, sharing its pool) with a copy of the
    parent's refs and branch records.  O(refs), never O(data)."""
    from chalicelib.gitstore import refdb

    refs = refdb.load_refs(int(parent.id))
    records = {b.name: b for b in contents.branch_infos(parent.id, consistent=True)}
    plain = [(name, contents.ZERO, value.sha) for name, value in refs.items() if value.sha]
    peeled = {name: value.peeled for name, value in refs.items() if value.peeled}
    copies = _branch_copies(repo, parent, plain, records)
    size = len(refs) + len(copies) + creation_size(fork=True) + 1  # + event
    try:
        with unit_of_work.writing() as uow:
            refdb.stage_updates(uow, repo.id, plain, peeled=peeled)
            for name, value in refs.items():
                if value.symref:
                    refdb.stage_symref(uow, repo.id, name, value.symref)
            for record in copies:
                contents.stage_put_branch(record)
            stage_creation(repo, parent=parent)
            uow.raise_event(events.RepositoryForked(
                **contents.push_event_fields(repo, actor), parent_id=int(parent.id),
                parent=contents.repo_snapshot(parent)))
    except BaseException as exc:
        if size > contents.TRANSACTION_LIMIT:   # committed in chunks: some may have landed
            discard_git_side(repo, pool_too=False)
        if isinstance(exc, ConditionFailed):
            raise creation_error(exc) from None
        raise


def _branch_copies(repo: Repo, parent: Repo, plain: list, records: dict) -> list:
    """The parent's branch records for the fork; a record that lags its ref (a push
    landed between the two reads) is rebuilt from the commit."""
    git, copies = None, []
    for ref, _, sha in plain:
        if not ref.startswith(contents.HEADS):
            continue
        name = ref[len(contents.HEADS):]
        record = records.get(name)
        if record is not None and record.commit_id == sha:
            copies.append(contents.copy_branch_record(record, repo.id))
            continue
        if git is None:
            from chalicelib.gitstore import repo as gitrepo
            git = gitrepo.open_repo(int(parent.id), int(parent.pool_id))
        copies.append(contents.new_branch_record(repo.id, name,
                                              **contents.commit_fields(git[sha.encode()])))
    return copies


def remove(repo: Repo, *, actor: Account | None) -> None:
    """Delete the repository's records with ``RepositoryDeleted`` (its snapshot); its
    forks become independent repositories, as in Forgejo.  (A deletion someone asks for
    is kept restorable instead while ``[repository] DELETED_RETENTION_DAYS`` > 0:
    ``deletion.hide``.)"""
    parent, forks = relatives(repo)
    try:
        with unit_of_work.writing() as uow:
            for child in forks:
                repos.stage_detach_fork(child)
            repos.stage_delete_repo(repo, parent=parent)
            quota.stage_charge_release(repo)
            uow.raise_event(events.RepositoryDeleted(**contents.push_event_fields(repo, actor)))
    except ConditionFailed:
        raise ConflictError("the repository changed while it was being deleted") from None


def relatives(repo: Repo) -> tuple[Repo | None, list[Repo]]:
    """The repository's parent (if it is a fork and the parent exists) and its forks."""
    parent = repos.repo_by_id(int(repo.parent_id)) if repo.fork and repo.parent_id else None
    return parent, (repos.forks_of(repo) if repo.num_forks else [])


def discard_git_side(repo: Repo, *, pool_too: bool) -> None:
    """Undo the git side of a creation whose records were never written: its refs, its
    branch records and (``pool_too``, a pool of its own) its packs."""
    from chalicelib import gitstore

    gitstore.delete_repo_refs(int(repo.id))
    with unit_of_work.writing():
        for record in contents.branch_infos(repo.id, consistent=True):
            contents.stage_delete_branch(repo.id, record.name)
    if pool_too:
        gitstore.delete_pool(int(repo.pool_id))


def purge(repo_id: int, pool_id: int) -> None:
    """What a deleted repository leaves, removed (the repository-cleanup consumer):
    refs, deploy keys with the claims still theirs, the rest of its ``R#`` partition, and
    its object pool if no repository uses it any more.  Idempotent."""
    from chalicelib import gitstore

    gitstore.delete_repo_refs(int(repo_id))
    for key in repos.deploy_keys_of(int(repo_id)):
        _delete_deploy_key(key)
    with unit_of_work.writing():
        repos.stage_purge_partition(int(repo_id))
    pool = repos.pool_by_id(int(pool_id)) if pool_id else None
    if pool is not None and int(pool.members) <= 0:
        gitstore.delete_pool(int(pool_id))
        try:
            with unit_of_work.writing():
                repos.stage_delete_pool(pool)
        except ConditionFailed:
            pass    # a redelivery deleted it first


def _delete_deploy_key(key) -> None:
    try:
        with unit_of_work.writing():
            repos.stage_delete_deploy_key(key)
    except ConditionFailed as failed:
        if failed.label != "claim":
            return              # the key is gone already
        with unit_of_work.writing():    # the claim is someone else's now: keep it
            repos.stage_delete_deploy_key(key, with_claim=False)
