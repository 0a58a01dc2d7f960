"""What changed between two commits (or trees): the files, their status, and the
added and deleted line counts, as ``git diff --numstat -M`` reports them.

Statuses are Forgejo's (``ChangedFile.status``): added, deleted, modified, renamed.
Renames are found as git's ``-M`` finds them (50% similarity); git without ``-C``
reports no copies, so dulwich's copies count as added files.  A binary file (a NUL in
its first 8000 bytes, git's test) counts no lines; a submodule counts its
``Subproject commit`` line.
"""
from __future__ import annotations

from dataclasses import dataclass

from dulwich.diff_tree import (CHANGE_ADD, CHANGE_COPY, CHANGE_DELETE, CHANGE_RENAME,
                               RenameDetector, TreeChange, tree_changes)
from dulwich.object_store import BaseObjectStore
from dulwich.objects import S_ISGITLINK, TreeEntry

from chalicelib.gitops.linecount import count_changes
from chalicelib.gitops.objects import read_commit

# git diff's default rename similarity (``-M`` = ``-M50%``).
RENAME_SIMILARITY = 50
# git's binary test reads this much of a blob.
BINARY_PROBE = 8000


@dataclass(frozen=True)
class FileChange:
    path: str                    # the file's path after the change (before, if deleted)
    previous_path: str | None    # renamed: where it came from
    status: str                  # added, deleted, modified, renamed
    additions: int
    deletions: int
    binary: bool
    old_mode: int | None
    new_mode: int | None
    old_id: str | None
    new_id: str | None

    @property
    def changes(self) -> int:
        return self.additions + self.deletions


@dataclass(frozen=True)
class DiffStats:
    files: tuple[FileChange, ...]

    @property
    def additions(self) -> int:
        return sum(f.additions for f in self.files)

    @property
    def deletions(self) -> int:
        return sum(f.deletions for f in self.files)

    @property
    def total(self) -> int:
        return self.additions + self.deletions

    @property
    def files_changed(self) -> int:
        return len(self.files)


def _content(store: BaseObjectStore, entry: TreeEntry | None) -> bytes:
    if entry is None or entry.sha is None:
        return b""
    if S_ISGITLINK(entry.mode):
        return b"Subproject commit " + entry.sha + b"\n"
    return store[entry.sha].as_raw_string()


def _is_binary(data: bytes) -> bool:
    return b"\x00" in data[:BINARY_PROBE]


def _path(entry: TreeEntry | None) -> str | None:
    return entry.path.decode("utf-8", "replace") if entry is not None and entry.path else None


def _file_change(store: BaseObjectStore, status: str, old: TreeEntry | None,
                 new: TreeEntry | None) -> FileChange:
    old_data, new_data = _content(store, old), _content(store, new)
    binary = _is_binary(old_data) or _is_binary(new_data)
    added, deleted = (0, 0) if binary else count_changes(old_data, new_data)
    return FileChange(
        path=_path(new) or _path(old), previous_path=_path(old) if status == "renamed" else None,
        status=status, additions=added, deletions=deleted, binary=binary,
        old_mode=old.mode if old else None, new_mode=new.mode if new else None,
        old_id=old.sha.decode() if old else None, new_id=new.sha.decode() if new else None)


def _pairs(changes: list[TreeChange]) -> list[tuple[str, TreeEntry | None, TreeEntry | None]]:
    """(status, old entry, new entry) per file.  dulwich splits a change of file type
    (file <-> symlink) into a delete and an add at one path; git shows one change."""
    deleted = {c.old.path: c.old for c in changes if c.type == CHANGE_DELETE}
    pairs = []
    for change in changes:
        old = change.old if change.old is not None and change.old.path is not None else None
        new = change.new if change.new is not None and change.new.path is not None else None
        if change.type == CHANGE_DELETE:
            continue  # emitted below unless an add at the same path takes it
        if change.type == CHANGE_ADD and new.path in deleted:
            pairs.append(("modified", deleted.pop(new.path), new))
        elif change.type == CHANGE_ADD or change.type == CHANGE_COPY:
            pairs.append(("added", None, new))
        elif change.type == CHANGE_RENAME:
            pairs.append(("renamed", old, new))
        else:
            pairs.append(("modified", old, new))
    pairs.extend(("deleted", old, None) for old in deleted.values())
    return pairs


def diff_trees(store: BaseObjectStore, old_tree: bytes | None, new_tree: bytes, *,
               find_renames: bool = True) -> DiffStats:
    """The changes from ``old_tree`` (None: the empty tree) to ``new_tree``."""
    detector = (RenameDetector(store, rename_threshold=RENAME_SIMILARITY)
                if find_renames and old_tree is not None else None)
    changes = list(tree_changes(store, old_tree, new_tree, rename_detector=detector))
    files = [_file_change(store, status, old, new) for status, old, new in _pairs(changes)]
    files.sort(key=lambda f: f.path)
    return DiffStats(tuple(files))


def diff_commits(store: BaseObjectStore, old: bytes | str | None, new: bytes | str, *,
                 find_renames: bool = True) -> DiffStats:
    """The changes from commit ``old`` (None: nothing, as for a root commit) to ``new``."""
    old_tree = read_commit(store, old).tree if old is not None else None
    return diff_trees(store, old_tree, read_commit(store, new).tree, find_renames=find_renames)


def commit_stats(store: BaseObjectStore, commit_id: bytes | str) -> DiffStats:
    """A commit's own changes, against its first parent (``git show --numstat``)."""
    commit = read_commit(store, commit_id)
    parent = commit.parents[0] if commit.parents else None
    return diff_commits(store, parent, commit.id)


def changed_paths(store: BaseObjectStore, old: bytes | str | None,
                  new: bytes | str) -> list[str]:
    """The paths ``git diff --name-only --no-renames old new`` lists (a rename as its
    old and new path), sorted; ``old`` None: every file of ``new``.  Reads trees only,
    never a blob (branch protection's file patterns look at names, not contents)."""
    old_tree = read_commit(store, old).tree if old is not None else None
    found = set()
    for change in tree_changes(store, old_tree, read_commit(store, new).tree):
        for entry in (change.old, change.new):
            if entry is not None and entry.path is not None:
                found.add(entry.path.decode("utf-8", "replace"))
    return sorted(found)
