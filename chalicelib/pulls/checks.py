"""Whether a pull request can be merged, and what it changes: Forgejo's patch check
(fj:services/pull/check.go), done on trees in the object store with no work tree.

``examine`` is a pure function of the object store and two commits; it writes nothing
(the trial merge runs in a scratch area).  The pull request services call it when a
pull request is opened, when its base or head moves (the push consumer in
``pull_sync``) and again, on the refs as they are at that moment, before every merge:
the stored status is what clients are shown, never what a merge trusts.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from chalicelib.pulls.store import ANCESTOR, CONFLICT, EMPTY, MERGEABLE

if TYPE_CHECKING:
    from dulwich.object_store import BaseObjectStore

# Forgejo records up to this many conflicting paths.
MAX_CONFLICTED = 10
# Counting commits ahead stops here (the number is shown, not used).
MAX_COUNTED = 10_000
WIP_PREFIXES = ("WIP:", "[WIP]")


@dataclass(frozen=True)
class Examination:
    base_sha: str
    head_sha: str
    merge_base: str
    status: str
    conflicted: list[str] = field(default_factory=list)
    additions: int = 0
    deletions: int = 0
    changed_files: int = 0
    commits: int = 0


def examine(store: BaseObjectStore, base_sha: str, head_sha: str) -> Examination:
    from chalicelib.gitops import diff
    from chalicelib.gitops.merge import merge_base, merge_commits
    from chalicelib.gitops.objects import StagedObjects, read_commit

    base_id = merge_base(store, base_sha, head_sha)
    common = base_id.decode() if base_id else ""
    if not common:
        return Examination(base_sha, head_sha, "", CONFLICT)
    stats = diff.diff_commits(store, common, head_sha)
    counts = dict(additions=stats.additions, deletions=stats.deletions,
                  changed_files=stats.files_changed, commits=count_ahead(store, base_sha, head_sha))
    if common == head_sha:
        return Examination(base_sha, head_sha, common, ANCESTOR, **counts)
    trial = merge_commits(StagedObjects(store), base_sha, head_sha)
    if not trial.clean:
        paths = sorted({c.path for c in trial.conflicts})[:MAX_CONFLICTED]
        return Examination(base_sha, head_sha, common, CONFLICT, paths, **counts)
    if trial.tree == read_commit(store, base_sha).tree:
        return Examination(base_sha, head_sha, common, EMPTY, **counts)
    return Examination(base_sha, head_sha, common, MERGEABLE, **counts)


def count_ahead(store: BaseObjectStore, base_sha: str, head_sha: str) -> int:
    """Commits reachable from the head and not from the base (``git rev-list --count``)."""
    from dulwich.walk import Walker

    count = 0
    for _ in Walker(store, include=[head_sha.encode()], exclude=[base_sha.encode()]):
        count += 1
        if count >= MAX_COUNTED:
            break
    return count


def is_work_in_progress(title: str) -> bool:
    return title.upper().startswith(tuple(p.upper() for p in WIP_PREFIXES))


def is_mergeable(status: str, title: str) -> bool:
    """Forgejo's API ``mergeable``: not checking, conflicting or failed, and not WIP
    (EMPTY and ANCESTOR show true)."""
    return status in (MERGEABLE, EMPTY, ANCESTOR) and not is_work_in_progress(title)
