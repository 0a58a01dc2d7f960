"""Fork sync (Forgejo's repoSyncForkDefaultInfo, repoSyncForkDefault,
repoSyncForkBranchInfo, repoSyncForkBranch): bring a fork's branch up to its parent's
branch of the same name.

Only a fast-forward, as Forgejo's (it pushes the parent's branch into the fork without
force): ``allowed`` when the fork's commit is in the parent's branch and behind it.  A
fork and its parent share one object pool, so the sync is a ref move alone: a
compare-and-swap from the commit the info was read at (a branch moved meanwhile answers
409, nothing moves), with the branch record and push events in the same write
(``contents.apply_ref_updates``; the branch protection rules apply, as to a push).

Who: anyone who reads the fork sees the info; writers of the fork sync it.  Not a fork:
400 "The Repo must be a fork"; a branch the fork lacks: 404; an archived fork is never
``allowed``.
"""
from __future__ import annotations

from dataclasses import dataclass

from chalicelib import contents, repos
from chalicelib.errors import BadInput, NotFoundError
from chalicelib.repos import Caller, RepoView

NOT_A_FORK = "The Repo must be a fork"
NOT_ALLOWED = "You can't sync this branch"


@dataclass
class SyncInfo:
    allowed: bool = False
    commits_behind: int = 0
    base_commit: str = ""
    fork_commit: str = ""


def _tip(git, branch: str) -> str | None:
    try:
        sha = git.refs[f"refs/heads/{branch}".encode()]
    except KeyError:
        return None
    return sha.decode() if sha else None


def sync_info(view: RepoView, branch: str) -> SyncInfo:
    """Where the fork's ``branch`` stands against its parent's."""
    from chalicelib.gitops import merge

    repo = view.repo
    if not repo.fork:
        raise BadInput(NOT_A_FORK)
    info = SyncInfo()
    fork_git = contents.open_git(repo)
    fork_commit = _tip(fork_git, branch)
    if fork_commit is None:
        raise NotFoundError(f"branch does not exist [repo_id: {repo.id} name: {branch}]")
    if repo.archived:
        return info
    info.fork_commit = fork_commit
    parent = repos.repo_by_id(int(repo.parent_id)) if repo.parent_id else None
    if parent is None:
        return info
    base_git = contents.open_git(parent)
    base_commit = _tip(base_git, branch)
    if base_commit is None:
        return info
    info.base_commit = base_commit
    if base_commit == fork_commit or fork_commit.encode() not in base_git.object_store:
        return info
    if not merge.is_ancestor(base_git.object_store, fork_commit, base_commit):
        return info
    info.allowed = True
    info.commits_behind = _behind(base_git.object_store, fork_commit, base_commit)
    return info


def _behind(store, fork_commit: str, base_commit: str) -> int:
    from dulwich.walk import Walker

    return sum(1 for _ in Walker(store, [base_commit.encode()], exclude=[fork_commit.encode()]))


def sync_branch(caller: Caller, view: RepoView, branch: str) -> None:
    """Fast-forward the fork's ``branch`` to its parent's (400 when not allowed)."""
    contents.require_ref_writer(caller, view, "branches")
    info = sync_info(view, branch)
    if not info.allowed:
        raise BadInput(NOT_ALLOWED)
    git = contents.open_git(view.repo)
    ref = f"refs/heads/{branch}"
    contents.apply_ref_updates(view.repo, git, [(ref, info.fork_commit, info.base_commit)],
                               actor=caller.user)
