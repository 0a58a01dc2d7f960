"""What a pull request shows besides its record: its commits, changed files, diff and
patch, and the repositories its head and base are in.  All read from the object
store at the tips last examined (``refs/pull/<n>/head`` keeps the head's objects
reachable in the base repository)."""
from __future__ import annotations

import io
from typing import TYPE_CHECKING

from chalicelib import contents
from chalicelib.errors import NotFoundError
from chalicelib.issues import Ctx
from chalicelib.pulls import store
from chalicelib.repos import RepoView, find_repo_by_id

if TYPE_CHECKING:
    from chalicelib.issues import Issue

MAX_COMMITS = 250     # Forgejo's limit on a pull request's commit list


def head_repo_view(ctx: Ctx, issue: Issue) -> RepoView | None:
    """The head repository as the caller sees it (None: gone, or not visible)."""
    pull = store.fields_of(issue)
    if pull.head_repo_id == ctx.repo_id:
        return ctx.view
    return find_repo_by_id(ctx.caller, pull.head_repo_id)


def _range(ctx: Ctx, issue: Issue) -> tuple[object, str, str]:
    pull = store.fields_of(issue)
    if not pull.head_sha:
        raise NotFoundError("the pull request's head is unknown")
    git = contents.open_git(ctx.repo)
    return git, pull.merge_base or pull.base_sha, pull.head_sha


def commits(ctx: Ctx, issue: Issue) -> list:
    """The commits the pull request brings (merged: as they were at the merge), oldest
    first, at most MAX_COMMITS."""
    from dulwich.walk import Walker

    git, base, head = _range(ctx, issue)
    found = [entry.commit for entry in Walker(git.object_store, include=[head.encode()],
                                              exclude=[base.encode()] if base else [],
                                              max_entries=MAX_COMMITS)]
    found.reverse()
    return found


def files(ctx: Ctx, issue: Issue):
    """(the changes from the merge base to the head, the head sha)."""
    from chalicelib.gitops import diff

    git, base, head = _range(ctx, issue)
    return diff.diff_commits(git.object_store, base or None, head).files, head


def diff_or_patch(ctx: Ctx, issue: Issue, kind: str) -> bytes:
    """``git diff base...head`` (diff) or ``git format-patch`` of its commits (patch)."""
    from dulwich.patch import write_tree_diff

    from chalicelib.gitops.objects import read_commit

    git, base, head = _range(ctx, issue)
    store_ = git.object_store
    out = io.BytesIO()
    if kind == "diff":
        old_tree = read_commit(store_, base).tree if base else None
        write_tree_diff(out, store_, old_tree, read_commit(store_, head).tree)
        return out.getvalue()
    series = commits(ctx, issue)
    for number, commit in enumerate(series, 1):
        body = io.BytesIO()
        parent_tree = read_commit(store_, commit.parents[0]).tree if commit.parents else None
        write_tree_diff(body, store_, parent_tree, commit.tree)
        out.write(contents.patch_mail(commit, body.getvalue(), number, len(series)))
    return out.getvalue()
