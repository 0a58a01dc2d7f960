"""A project migration's git side (``chalicelib.migrations``): fetch into the new
repository's pool and write its refs without the repository record, which the migration
writes last, once the tracker, pull requests and releases are in; and undo it all when
a failed migration is discarded.  The fetch itself is ``migrations``'s: the same network
guard, pinned connections and Git LFS download as a plain migration.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from chalicelib import contents, events, quota
from chalicelib import lfs as git_lfs
from chalicelib.gitstore import refdb
from chalicelib.repo_admin import lfs_fetch
from chalicelib.repo_admin import lifecycle as repo_lifecycle
from chalicelib.repo_admin.migrations import (
    PULL_PREFIX,
    WANTED_PREFIXES,
    add_needs,
    fetch_lfs_objects,
    fetch_refs,
    record_lfs,
    ref_chunks,
    remote_changes,
)
from chalicelib.repo_admin.remotes import Remote
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.repos import Repo


@dataclass
class GitImport:
    """What a project migration's git step fetched: the remote's default branch and the
    Git LFS objects stored for the repository (recorded once it exists)."""
    head: str | None
    lfs_stored: dict[str, int] = field(default_factory=dict)
    lfs_held: dict[str, int] = field(default_factory=dict)


def import_git(repo: Repo, remote: Remote, *, actor: Account | None, pull_refs: bool,
               lfs_url: str = "") -> GitImport:
    """A project migration's git step: fetch branches and tags (and, ``pull_refs``, the
    remote's ``refs/pull/<n>/head``) into ``repo``'s pool and write its refs and branch
    records, but not the repository record: the migration writes it last, once
    everything else is in (``stage_finished_repo``).  The packs are charged with the
    last chunk, so ``repo`` comes back with its ``quota_size``, ``size`` and ``empty``.
    Fetching again after a crash finds what is already there and writes only what is
    missing."""
    from chalicelib.gitstore import repo as gitrepo

    git = gitrepo.open_repo(int(repo.id), int(repo.pool_id))
    prefixes = WANTED_PREFIXES + ((PULL_PREFIX,) if pull_refs else ())
    result = fetch_refs(remote, git, prefixes)
    updates, head = remote_changes(git, result, prefixes)
    fetched = fetch_lfs_objects(remote, lfs_url, repo, git) if lfs_url else None
    chunks = ref_chunks(updates)
    for chunk in chunks[:-1]:
        contents.commit_ref_changes(contents.prepare_ref_changes(
            repo, git, chunk, actor=actor, announce=False, creates_repo=True, charge=False))
    contents.commit_ref_changes(contents.prepare_ref_changes(
        repo, git, chunks[-1], actor=actor, announce=False, creates_repo=True))
    if fetched is None:
        return GitImport(head)
    return GitImport(head, dict(fetched.stored), dict(fetched.held))


def stage_finished_repo(repo: Repo, *, actor: Account | None) -> None:
    """The repository record of a finished project migration, its HEAD and
    ``RepositoryMigrated``, staged in the current unit of work (its refs are there
    already: ``import_git``)."""
    uow = unit_of_work.current()
    refdb.stage_symref(uow, repo.id, "HEAD", f"refs/heads/{repo.default_branch}")
    repo_lifecycle.stage_creation(repo)
    uow.raise_event(events.RepositoryMigrated(**contents.push_event_fields(repo, actor),
                                              mirror=False))


def record_imported_lfs(repo: Repo, stored: dict[str, int], held: dict[str, int]) -> None:
    """Once a migrated repository exists: record its Git LFS objects and its needs."""
    fetched = lfs_fetch.Outcome(stored=dict(stored), held=dict(held))
    if record_lfs(repo, fetched):
        add_needs(repo, fetched.held)


def discard_import(repo: Repo) -> None:
    """Undo the git side of a project migration that never finished: refs, branch
    records, Git LFS bytes and the pool's packs, with the quota they were charged."""
    repo_lifecycle.discard_git_side(repo, pool_too=True)
    git_lfs.discard_pool(int(repo.pool_id))
    if int(repo.quota_size or 0):
        with unit_of_work.writing():
            quota.stage_charge_release(repo)


def fetch_wiki_refs(remote: Remote, target) -> dict[str, str]:
    """Fetch a source wiki's branches into ``target`` (the wiki's dulwich repository):
    {ref: sha} to set there."""
    result = fetch_refs(remote, target, (b"refs/heads/",))
    return {ref.decode(): sha.decode() for ref, sha in result.refs.items()
            if ref.startswith(b"refs/heads/") and sha}
