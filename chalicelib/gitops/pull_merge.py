"""The git side of merging a pull request, for every Forgejo merge style, on the object
store alone (no work tree, no ``git``).

Forgejo (``services/pull/merge*.go``) merges in a temporary clone with the git CLI;
this module makes the same commits:

* ``merge``             - ``git merge --no-ff``: a commit with parents [base, head]
* ``squash``            - ``git merge --squash`` + commit: one parent (base), the merged tree
* ``rebase``            - ``git rebase base``, then a fast-forward of the base branch
* ``rebase-merge``      - the rebase, then a ``--no-ff`` merge commit of [base, rebased tip]
* ``fast-forward-only`` - ``git merge --ff-only``: no new commit

New objects are staged (``objects.StagedObjects``) and reach the caller's store as one
pack only when the whole operation succeeded: a conflict in the third of five rebased
commits leaves the store as it was.  Moving the branch is the caller's (a compare-and-
swap on the ref), as is choosing the message (``default_message``), the identities and
whether to sign.
"""
from __future__ import annotations

from dataclasses import dataclass

from dulwich.object_store import BaseObjectStore
from dulwich.objects import Commit
from dulwich.walk import Walker

from chalicelib import clock
from chalicelib.gitops.commits import Identity, Signer, write_commit
from chalicelib.gitops.errors import (MergeConflict, NotFastForward, NothingToMerge,
                                      UnknownMergeStyle, UnrelatedHistories)
from chalicelib.gitops.merge import (MergeResult, is_ancestor, merge_bases, merge_commits,
                                     merge_trees)
from chalicelib.gitops.objects import StagedObjects, read_commit

STYLES = ("merge", "rebase", "rebase-merge", "squash", "fast-forward-only")


@dataclass(frozen=True)
class MergeOutcome:
    new_head: bytes                      # where the base branch must point afterwards
    merge_commit: bytes | None           # Forgejo's merge_commit_sha: the base branch's new tip
    commits_created: tuple[bytes, ...]   # every new commit, oldest first


def _id(sha: bytes | str) -> bytes:
    return sha.encode("ascii") if isinstance(sha, str) else sha


def commits_between(store: BaseObjectStore, base: bytes | str, head: bytes | str,
                    limit: int | None = None) -> list[Commit]:
    """The commits of ``head`` that ``base`` lacks, oldest first, in the order ``git
    rebase`` replays them (``git rev-list --topo-order --reverse base..head``); for a
    linear PR that is ``git log --reverse base..head``.  With ``limit``, the newest
    ``limit`` of them (git applies ``-n`` before ``--reverse`` too)."""
    base, head = _id(base), _id(head)
    read_commit(store, base)  # typed errors for unknown ids, not dulwich's
    read_commit(store, head)
    newest_first = _graph_order([entry.commit for entry in
                                 Walker(store, [head], exclude=[base])])
    return newest_first[:max(limit, 0) if limit is not None else None][::-1]


def _graph_order(commits: list[Commit]) -> list[Commit]:
    """git's ``--topo-order`` (``sort_in_topological_order``, REV_SORT_IN_GRAPH_ORDER):
    a commit after all its children, and a merge's parents taken from a stack, so the
    line merged in (second parent) comes right after the merge, newest first.  dulwich's
    topological order breaks ties by date instead, which changes the order in which a
    rebase replays two lines of history, and with it the intermediate trees."""
    inside = {commit.id: commit for commit in commits}
    indegree = dict.fromkeys(inside, 1)
    for commit in commits:
        for parent in commit.parents:
            if parent in indegree:
                indegree[parent] += 1
    stack = [commit for commit in reversed(commits) if indegree[commit.id] == 1]
    ordered: list[Commit] = []
    while stack:
        commit = stack.pop()
        for parent in commit.parents:
            if not indegree.get(parent):
                continue  # outside the range, or emitted already
            indegree[parent] -= 1
            if indegree[parent] == 1:
                stack.append(inside[parent])
        indegree[commit.id] = 0
        ordered.append(commit)
    return ordered


def default_message(style: str, *, title: str, index: int, head_label: str, base_branch: str,
                    fork_label: str | None = None) -> str:
    """Forgejo's message when the merge form leaves the title empty (``getMergeMessage``
    without templates): ``fork_label`` is ``owner/repo`` of a head in another repository
    (``<deleted>`` when that repository is gone)."""
    if style not in STYLES:
        raise UnknownMergeStyle(style)
    if style == "squash":
        return f"{title} (#{index})"
    if style in ("rebase", "fast-forward-only"):
        return ""  # the commits are kept as they are; no commit gets this message
    head = f"{fork_label}:{head_label}" if fork_label else head_label
    return f"Merge pull request '{title}' (#{index}) from {head} into {base_branch}"


def merge_pull(store: BaseObjectStore, *, style: str, base: bytes | str, head: bytes | str,
               author: Identity, committer: Identity, message: str, sign: Signer | None = None,
               squash_author: Identity | None = None) -> MergeOutcome:
    """Merge the PR head ``head`` into the base branch tip ``base`` in ``style``.

    ``sign`` signs the merge and squash commits it is given for (Forgejo's MERGES
    rule); rebased commits are never signed.  ``squash_author`` is the squash commit's
    author (Forgejo: the PR poster), ``author`` otherwise.  Raises MergeConflict,
    UnrelatedHistories, NothingToMerge, NotFastForward or UnknownMergeStyle; nothing is
    written to ``store`` then."""
    if style not in STYLES:
        raise UnknownMergeStyle(style)
    base, head = _id(base), _id(head)
    scratch = StagedObjects(store)
    read_commit(scratch, base)
    read_commit(scratch, head)
    # git checks for unrelated histories before anything else, --ff-only included.
    if not merge_bases(scratch, base, head):
        raise UnrelatedHistories(style)
    if is_ancestor(scratch, head, base):
        raise NothingToMerge()
    fast_forward = is_ancestor(scratch, base, head)
    if style == "fast-forward-only":
        if not fast_forward:
            raise NotFastForward()
        return MergeOutcome(head, head, ())
    if style in ("merge", "squash"):
        tree = _merged_tree(merge_commits(scratch, base, head), style)
        parents = [base, head] if style == "merge" else [base]
        made = write_commit(scratch, tree=tree, parents=parents,
                            author=(squash_author or author) if style == "squash" else author,
                            committer=committer, message=message, sign=sign)
        outcome = MergeOutcome(made.id, made.id, (made.id,))
    else:
        tip, created = _rebase(scratch, base, head, committer, fast_forward, style)
        if style == "rebase-merge" and tip != base:
            made = write_commit(scratch, tree=read_commit(scratch, tip).tree, parents=[base, tip],
                                author=author, committer=committer, message=message, sign=sign)
            tip, created = made.id, (*created, made.id)
        # A rebase whose every commit was already upstream leaves the branch where it
        # was (and rebase-merge then has nothing to merge: "Already up to date").
        outcome = MergeOutcome(tip, tip, created)
    scratch.write()
    return outcome


def _merged_tree(result: MergeResult, style: str, commit: bytes | None = None) -> bytes:
    if not result.clean:
        raise MergeConflict([conflict.path for conflict in result.conflicts], style=style,
                            commit=commit.decode("ascii") if commit else None)
    return result.tree


def _rebase(scratch: StagedObjects, base: bytes, head: bytes, committer: Identity,
            fast_forward: bool, style: str) -> tuple[bytes, tuple[bytes, ...]]:
    """``git rebase base`` of ``head``: (the new tip, the commits made).

    Like git's default rebase: a head already on top of base is left as it is ("Current
    branch is up to date"); merge commits are dropped and the history linearised; each
    other commit is cherry-picked (a three-way merge against its parent) keeping its
    author, date and message; a commit that becomes empty, its change being upstream
    already, is dropped, while one that was empty to begin with is kept."""
    if fast_forward:
        return head, ()
    now = clock.seconds()  # one committer date for the whole rebase, as git's is
    tip = read_commit(scratch, base)
    created: list[bytes] = []
    for original in commits_between(scratch, base, head):
        if len(original.parents) > 1:
            continue
        parent_tree = read_commit(scratch, original.parents[0]).tree if original.parents else None
        tree = _merged_tree(merge_trees(scratch, parent_tree, tip.tree, original.tree),
                            style, original.id)
        if tree == tip.tree and original.tree != parent_tree:
            continue
        tip = _replayed(scratch, original, tip.id, tree, committer, now)
        created.append(tip.id)
    return tip.id, tuple(created)


def _replayed(scratch: StagedObjects, original: Commit, parent: bytes, tree: bytes,
              committer: Identity, now: int) -> Commit:
    """``original`` on a new parent: the author line is copied byte for byte (not parsed
    into an Identity and rebuilt), the committer is the merger's, and no signature."""
    commit = Commit()
    commit.tree = tree
    commit.parents = [parent]
    commit.author = original.author
    commit.author_time, commit.author_timezone = original.author_time, original.author_timezone
    commit.committer = committer.raw
    commit.commit_time = committer.time if committer.time is not None else now
    commit.commit_timezone = committer.timezone
    commit.encoding = original.encoding
    commit.message = original.message
    scratch.add_object(commit)
    return commit
