"""The wiki's refs and the repository's ``has_wiki_contents``, written together.

Every move of a wiki ref is a compare-and-swap of the wiki's ref items
(``gitstore.refdb``), staged in the caller's unit of work beside the repository item's
``has_wiki_contents`` when the wiki's branch appears or goes, so the flag the
Repository record shows never disagrees with the wiki's git.  A stale ref fails the
commit with ``ConditionFailed`` labelled ``refdb.ref_label(ref)``; a repository deleted
meanwhile with ``WIKI_REPO``.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from chalicelib import repos
from chalicelib.gitstore import refdb
from chalicelib.store import unit_of_work
from chalicelib.wiki.gitrepo import ZERO, branch_ref, wiki_id, wiki_id_of

if TYPE_CHECKING:
    from chalicelib.repos import Repo

WIKI_REPO = "wiki repository"
# Ref changes per transaction when a migration sets a wiki's refs (the repository item
# and HEAD ride along; DynamoDB takes 100 items).
REFS_PER_WRITE = 90


def stage_ref_changes(repo: Repo, changes: Iterable[tuple[str, str, str]], *,
                      repo_written: bool = True) -> None:
    """Stage ``(ref, old, new)`` changes of the wiki (zeros: absent), each conditional
    on the ref holding ``old``; when the wiki's branch is created, HEAD points at it and
    the repository has wiki contents; when it is deleted, it has none.
    ``repo_written=False``: a migration's repository, whose record does not exist yet
    (it is written with its flag at the migration's end)."""
    uow = unit_of_work.current()
    checked = refdb.check_updates(changes)
    refdb.stage_updates(uow, wiki_id(repo), checked)
    branch = branch_ref(repo)
    for ref, old, new in checked:
        if ref != branch:
            continue
        if refdb.is_zero(old):
            refdb.stage_symref(uow, wiki_id(repo), "HEAD", branch)
            if repo_written:
                repos.stage_repo_wiki_contents(repo, True, label=WIKI_REPO)
        elif refdb.is_zero(new) and repo_written:
            repos.stage_repo_wiki_contents(repo, False, label=WIKI_REPO)


def commit_ref_changes(repo: Repo, changes: list[tuple[str, str, str]], *,
                       repo_written: bool = True) -> None:
    """Move the wiki's refs as one transaction (``stage_ref_changes``)."""
    with unit_of_work.writing():
        stage_ref_changes(repo, changes, repo_written=repo_written)


def current_refs(repo: Repo) -> dict[str, str]:
    """The wiki's plain refs (name -> sha), HEAD left out: one Query."""
    return {name: value.sha for name, value in refdb.load_refs(wiki_id(repo)).items()
            if value.sha is not None}


def set_refs(repo: Repo, wanted: dict[str, str], *, repo_written: bool = True) -> None:
    """Make the wiki's refs exactly ``wanted``, by compare-and-swap from what they hold
    now, in transactions of ``REFS_PER_WRITE``; the branch's own change goes last, so
    ``has_wiki_contents`` turns true with the last write."""
    now = current_refs(repo)
    changes = [(ref, now.get(ref, ZERO), sha) for ref, sha in sorted(wanted.items())
               if now.get(ref) != sha]
    changes += [(ref, old, ZERO) for ref, old in sorted(now.items()) if ref not in wanted]
    branch = branch_ref(repo)
    changes.sort(key=lambda change: change[0] == branch)
    for start in range(0, len(changes), REFS_PER_WRITE):
        commit_ref_changes(repo, changes[start:start + REFS_PER_WRITE],
                           repo_written=repo_written)
    if branch in wanted and now.get(branch) == wanted[branch]:
        # Nothing moved the branch: HEAD and the flag still have to say it is there.
        with unit_of_work.writing() as uow:
            refdb.stage_symref(uow, wiki_id(repo), "HEAD", branch)
            if repo_written:
                repos.stage_repo_wiki_contents(repo, True, label=WIKI_REPO)


def delete_wiki_of(repo_id: int) -> None:
    """Remove a deleted repository's wiki: its refs, then its pool's packs and files
    (nothing else shares the wiki's pool).  Idempotent."""
    from chalicelib import gitstore

    gitstore.delete_repo_refs(wiki_id_of(repo_id))
    gitstore.delete_pool(wiki_id_of(repo_id))
