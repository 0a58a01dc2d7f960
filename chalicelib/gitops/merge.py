"""Merge bases and three-way merges on trees in the object store (no work tree).

The tree merge is dulwich's (``dulwich.merge``: recursive into directories, ``merge3``
for file contents), gone one step further where git does: a directory deleted on one
side and changed on the other is merged file by file, and a mode changed on one side
only is no conflict; criss-cross histories (several
merge bases) merge against the bases merged together, as dulwich's recursive merge.  Merge drivers
from ``.gitattributes`` are never run: they would be commands chosen by a repository's
content.  A merge happens in its own staging area: a clean merge hands its new blobs
and trees to the caller's store; a conflicting one adds nothing anywhere.
"""
from __future__ import annotations

import stat
from dataclasses import dataclass

from dulwich.graph import can_fast_forward, find_merge_base
from dulwich.merge import MergeConflictInfo, Merger
from dulwich.object_store import BaseObjectStore, commit_tree_changes, tree_lookup_path
from dulwich.objects import S_ISGITLINK, Blob, Tree
from dulwich.repo import ParentsProvider

from chalicelib.gitops.objects import StagedObjects, read_commit, read_tree
from chalicelib.gitops.trees import DIRECTORY

Side = tuple[int, str] | None  # (mode, object id) on one side, None where the path is absent


@dataclass(frozen=True)
class Conflict:
    path: str
    kind: str     # content, add/add, modify/delete, delete/modify, mode, file/directory, submodule
    base: Side
    ours: Side
    theirs: Side


@dataclass(frozen=True)
class MergeResult:
    tree: bytes | None                # the merged tree; None when there are conflicts
    conflicts: tuple[Conflict, ...]
    bases: tuple[bytes, ...] = ()     # the merge bases used (commit merges)

    @property
    def clean(self) -> bool:
        return not self.conflicts


class _History:
    """The part of a repository dulwich's graph functions read: objects and parents."""

    def __init__(self, store: BaseObjectStore):
        self.object_store = store

    def parents_provider(self) -> ParentsProvider:
        return ParentsProvider(self.object_store)


def _id(sha: bytes | str) -> bytes:
    return sha.encode("ascii") if isinstance(sha, str) else sha


def merge_bases(store: BaseObjectStore, a: bytes | str, b: bytes | str) -> list[bytes]:
    """Every best common ancestor of two commits (``git merge-base --all``)."""
    for sha in (a, b):
        read_commit(store, sha)  # a typed error for an unknown id, not dulwich's KeyError
    return find_merge_base(_History(store), [_id(a), _id(b)])


def merge_base(store: BaseObjectStore, a: bytes | str, b: bytes | str) -> bytes | None:
    """A best common ancestor of two commits, or None for unrelated histories."""
    found = merge_bases(store, a, b)
    return found[0] if found else None


def is_ancestor(store: BaseObjectStore, ancestor: bytes | str, descendant: bytes | str) -> bool:
    """Whether ``descendant`` contains ``ancestor`` (moving a ref from one to the other
    is a fast-forward)."""
    for sha in (ancestor, descendant):
        read_commit(store, sha)
    return can_fast_forward(_History(store), _id(ancestor), _id(descendant))


def _side(mode_sha: tuple[int | None, bytes | None]) -> Side:
    mode, sha = mode_sha
    return None if mode is None or sha is None else (mode, sha.decode("ascii"))


def _kind(info: MergeConflictInfo) -> str:
    base, ours, theirs = info.ancestor[0], info.ours[0], info.theirs[0]
    present = [mode for mode in (ours, theirs) if mode is not None]
    if any(S_ISGITLINK(mode) for mode in present):
        return "submodule"
    if len(present) == 2 and stat.S_ISDIR(present[0]) != stat.S_ISDIR(present[1]):
        return "file/directory"
    if base is None:
        return "add/add"
    if ours is None:
        return "delete/modify"
    if theirs is None:
        return "modify/delete"
    return "mode" if ours != theirs and base not in (ours, theirs) else "content"


def _pick(base, ours, theirs):
    """The three-way choice for one value: a side that changed it wins; both changing
    it alike is fine; both changing it differently gives None."""
    if ours == theirs or theirs == base:
        return ours
    return theirs if ours == base else None


def _is_file(mode: int | None) -> bool:
    return mode is not None and (stat.S_ISREG(mode) or stat.S_ISLNK(mode))


def _merge_mode_change(scratch: StagedObjects, merger: Merger,
                       info: MergeConflictInfo) -> tuple[int, bytes] | None:
    """dulwich calls any mode difference a conflict; git merges the mode like any value
    (``chmod +x`` on one side, an edit on the other is clean).  The merged (mode, blob),
    or None for a real conflict."""
    (base_mode, base_sha), (ours_mode, ours_sha), (theirs_mode, theirs_sha) = (
        info.ancestor, info.ours, info.theirs)
    if not all(_is_file(mode) for mode in (base_mode, ours_mode, theirs_mode)):
        return None
    mode, sha = _pick(base_mode, ours_mode, theirs_mode), _pick(base_sha, ours_sha, theirs_sha)
    if mode is None:
        return None
    if sha is None:  # both edited the content too: merge it when all three are plain files
        if not all(stat.S_ISREG(m) for m in (base_mode, ours_mode, theirs_mode)):
            return None
        content, conflicted = merger.merge_blobs(scratch[base_sha], scratch[ours_sha],
                                                 scratch[theirs_sha], info.path)
        if conflicted:
            return None
        blob = Blob.from_string(content)
        scratch.add_object(blob)
        sha = blob.id
    return mode, sha


def _directory_removed_on_one_side(info: MergeConflictInfo) -> bool:
    """A directory one side deleted and the other changed: dulwich reports the directory;
    git goes inside it, where unchanged files delete cleanly and changed ones conflict."""
    modes = (info.ancestor[0], info.ours[0], info.theirs[0])
    return (modes[0] is not None and stat.S_ISDIR(modes[0]) and modes.count(None) == 1
            and all(stat.S_ISDIR(mode) for mode in modes if mode is not None))


def _subtree(store: BaseObjectStore, side: tuple[int | None, bytes | None]) -> Tree:
    return read_tree(store, side[1]) if side[1] is not None else Tree()


def _merge_level(scratch: StagedObjects, base: Tree | None, ours: Tree, theirs: Tree,
                 prefix: bytes = b"") -> tuple[bytes, list[Conflict]]:
    """dulwich's tree merge, with what it calls a conflict and git does not resolved
    (a directory deleted on one side, a mode changed on one side) and spliced back into
    the result.  Returns (tree id, conflicts)."""
    merger = Merger(scratch)
    merged, paths = merger.merge_trees(base, ours, theirs)
    scratch.add_object(merged)
    conflicts: list[Conflict] = []
    splices: list[tuple[bytes, int | None, bytes | None]] = []
    for path in paths:
        info = merger.conflict_info.get(path)
        full = prefix + path
        if info is None:  # dulwich records every conflict it names; be safe anyway
            conflicts.append(Conflict(full.decode("utf-8", "replace"), "content", None, None, None))
        elif _directory_removed_on_one_side(info):
            sub_id, sub_conflicts = _merge_level(
                scratch, _subtree(scratch, info.ancestor), _subtree(scratch, info.ours),
                _subtree(scratch, info.theirs), full + b"/")
            conflicts.extend(sub_conflicts)
            empty = not read_tree(scratch, sub_id).items()
            splices.append((path, None if empty else DIRECTORY, None if empty else sub_id))
        elif (entry := _merge_mode_change(scratch, merger, info)) is not None:
            splices.append((path, *entry))
        else:
            conflicts.append(Conflict(full.decode("utf-8", "replace"), _kind(info),
                                      _side(info.ancestor), _side(info.ours), _side(info.theirs)))
    return _splice(scratch, merged.id, splices), conflicts


def _splice(store: BaseObjectStore, tree_id: bytes,
            changes: list[tuple[bytes, int | None, bytes | None]]) -> bytes:
    """Set or remove (mode None) paths in a tree; removing an absent path is a no-op
    (dulwich leaves out some of the entries it reports as conflicts)."""
    def present(path: bytes) -> bool:
        try:
            tree_lookup_path(store.__getitem__, tree_id, path)
        except KeyError:
            return False
        return True

    changes = [change for change in changes if change[1] is not None or present(change[0])]
    return commit_tree_changes(store, tree_id, changes) if changes else tree_id


def _result(store: BaseObjectStore, scratch: StagedObjects, tree_id: bytes,
            conflicts: list[Conflict], bases: tuple[bytes, ...]) -> MergeResult:
    """Hand a clean result's blobs and trees (not virtual base commits) to ``store``; a
    conflicting result hands over nothing."""
    if conflicts:
        return MergeResult(None, tuple(sorted(conflicts, key=lambda c: c.path)), bases)
    for obj in scratch.new.values():
        if isinstance(obj, (Blob, Tree)):
            store.add_object(obj)
    return MergeResult(tree_id, (), bases)


def merge_trees(store: BaseObjectStore, base: bytes | None, ours: bytes,
                theirs: bytes) -> MergeResult:
    """Three-way merge of trees (``base`` None: no common ancestor)."""
    scratch = StagedObjects(store)
    tree_id, conflicts = _merge_level(
        scratch, read_tree(scratch, base) if base is not None else None,
        read_tree(scratch, ours), read_tree(scratch, theirs))
    return _result(store, scratch, tree_id, conflicts, ())


def _virtual_base(scratch: StagedObjects, bases: list[bytes]) -> Tree | None:
    """The tree to merge against: the merge base's; for criss-cross histories (several
    bases) the bases merged together, conflicts and all, as dulwich's recursive merge
    does; None for unrelated histories."""
    if not bases:
        return None
    tree = read_tree(scratch, read_commit(scratch, bases[0]).tree)
    for other in bases[1:]:
        tree, _ = Merger(scratch).merge_trees(None, tree, read_tree(
            scratch, read_commit(scratch, other).tree))
        scratch.add_object(tree)
    return tree


def merge_commits(store: BaseObjectStore, ours: bytes | str, theirs: bytes | str) -> MergeResult:
    """Merge ``theirs`` into ``ours`` (``git merge-tree --write-tree ours theirs``): the
    merged tree, or the conflicts.  The merge commit is the caller's to write."""
    scratch = StagedObjects(store)
    ours_commit, theirs_commit = read_commit(scratch, ours), read_commit(scratch, theirs)
    bases = find_merge_base(_History(scratch), [ours_commit.id, theirs_commit.id])
    tree_id, conflicts = _merge_level(scratch, _virtual_base(scratch, bases),
                                      read_tree(scratch, ours_commit.tree),
                                      read_tree(scratch, theirs_commit.tree))
    return _result(store, scratch, tree_id, conflicts, tuple(bases))
