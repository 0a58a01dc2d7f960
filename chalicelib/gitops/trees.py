"""Building a tree from file edits on top of a base tree, without a work tree.

An edit is one of Forgejo's file operations (``ChangeFileOperation``): ``create`` (the
file must not exist), ``update`` (it must; optionally moved from ``from_path``, and
checked against the blob id the caller read), ``delete``, plus ``write`` (create or
replace, no checks: generated content such as the initial commit).  Edits apply in
order; only the directories on an edited path are read and rewritten, and a directory
left empty disappears, as git never stores one.
"""
from __future__ import annotations

import stat
from dataclasses import dataclass, field

from dulwich.object_store import BaseObjectStore
from dulwich.objects import Blob, Tree

from chalicelib.errors import InvalidInput
from chalicelib.gitops.errors import (FileAlreadyExists, FileMissing, InvalidPath, PathConflict,
                                      ShaMismatch)
from chalicelib.gitops.objects import read_tree

REGULAR = 0o100644
EXECUTABLE = 0o100755
SYMLINK = 0o120000
DIRECTORY = 0o040000
SUBMODULE = 0o160000
FILE_MODES = (REGULAR, EXECUTABLE, SYMLINK)
ACTIONS = ("create", "update", "delete", "write")


@dataclass(frozen=True)
class FileEdit:
    action: str                   # one of ACTIONS
    path: str
    content: bytes = b""
    mode: int | None = None       # None: the file's current mode, REGULAR for a new file
    from_path: str | None = None  # update: the file's current path when it moves
    sha: str | None = None        # update/delete: the blob id the caller last read

    def __post_init__(self):
        if self.action not in ACTIONS:
            raise InvalidInput(f"unknown file operation {self.action!r}")
        if self.mode is not None and self.mode not in FILE_MODES:
            raise InvalidInput(f"unsupported file mode {self.mode:o}")


def create(path: str, content: bytes, mode: int = REGULAR) -> FileEdit:
    return FileEdit("create", path, content, mode)


def update(path: str, content: bytes, *, sha: str | None = None, from_path: str | None = None,
           mode: int | None = None) -> FileEdit:
    return FileEdit("update", path, content, mode, from_path=from_path, sha=sha)


def delete(path: str, *, sha: str | None = None) -> FileEdit:
    return FileEdit("delete", path, sha=sha)


def write(path: str, content: bytes, mode: int = REGULAR) -> FileEdit:
    return FileEdit("write", path, content, mode)


def split_path(path: str) -> tuple[bytes, ...]:
    """The components of a repository path; empty components (``a//b``, a leading or
    trailing slash) are dropped, and what a tree cannot hold is refused."""
    parts = tuple(part for part in path.split("/") if part)
    if not parts or any(part in (".", "..") or part.lower() == ".git" or "\x00" in part
                        for part in parts):
        raise InvalidPath(path)
    return tuple(part.encode("utf-8") for part in parts)


@dataclass
class _Directory:
    """A tree being edited: entries as stored, subdirectories loaded on first use."""
    entries: dict[bytes, tuple[int, bytes]]
    opened: dict[bytes, "_Directory"] = field(default_factory=dict)


class _TreeEditor:
    def __init__(self, store: BaseObjectStore, base_tree: bytes | None):
        self.store = store
        self.root = self._load(base_tree)

    def _load(self, tree_id: bytes | None) -> _Directory:
        if tree_id is None:
            return _Directory({})
        tree = read_tree(self.store, tree_id)
        return _Directory({entry.path: (entry.mode, entry.sha) for entry in tree.iteritems()})

    def _directory(self, parts: tuple[bytes, ...], path: str, *, make: bool) -> _Directory | None:
        """The directory holding ``parts[-1]``; None when it does not exist and ``make``
        is false."""
        node = self.root
        for name in parts[:-1]:
            child = node.opened.get(name)
            if child is None:
                mode, sha = node.entries.get(name, (None, None))
                if mode is None:
                    if not make:
                        return None
                    child = _Directory({})
                elif stat.S_ISDIR(mode):
                    child = self._load(sha)
                elif make:
                    raise PathConflict(path, file_in_the_way=True)
                else:
                    return None
                node.opened[name] = child
            node = child
        return node

    def existing_file(self, path: str, expected_sha: str | None) -> tuple[int, bytes]:
        parts = split_path(path)
        node = self._directory(parts, path, make=False)
        found = node.entries.get(parts[-1]) if node is not None else None
        if found is None or parts[-1] in node.opened or stat.S_ISDIR(found[0]):
            raise FileMissing(path)
        mode, sha = found
        if expected_sha and expected_sha != sha.decode("ascii"):
            raise ShaMismatch(path, expected_sha, sha.decode("ascii"))
        return mode, sha

    def remove(self, path: str) -> None:
        parts = split_path(path)
        node = self._directory(parts, path, make=False)
        node.entries.pop(parts[-1], None)

    def put(self, path: str, mode: int, blob_id: bytes, *, must_be_new: bool) -> None:
        parts = split_path(path)
        node = self._directory(parts, path, make=True)
        current = node.entries.get(parts[-1])
        if parts[-1] in node.opened or (current and stat.S_ISDIR(current[0])):
            raise PathConflict(path, file_in_the_way=False)
        if current is not None and must_be_new:
            raise FileAlreadyExists(path)
        node.entries[parts[-1]] = (mode, blob_id)

    def write_trees(self) -> bytes:
        return self._write(self.root) or self._store(Tree())

    def _write(self, node: _Directory) -> bytes | None:
        """Store a directory and its opened subdirectories bottom up; None when empty."""
        for name, child in node.opened.items():
            child_id = self._write(child)
            if child_id is None:
                node.entries.pop(name, None)
            else:
                node.entries[name] = (DIRECTORY, child_id)
        node.opened.clear()
        if not node.entries:
            return None
        tree = Tree()
        for name, (mode, sha) in node.entries.items():
            tree.add(name, mode, sha)
        return self._store(tree)

    def _store(self, obj) -> bytes:
        self.store.add_object(obj)
        return obj.id


def build_tree(store: BaseObjectStore, base_tree: bytes | None, edits: list[FileEdit]) -> bytes:
    """Apply ``edits`` to ``base_tree`` (None: an empty tree); new blobs and trees go to
    ``store`` (use ``objects.staged`` to write them as one pack).  Returns the tree id."""
    editor = _TreeEditor(store, base_tree)
    for edit in edits:
        if edit.action == "delete":
            editor.existing_file(edit.path, edit.sha)
            editor.remove(edit.path)
            continue
        mode, moved = edit.mode, False
        if edit.action == "update":
            source = edit.from_path or edit.path
            current_mode, _ = editor.existing_file(source, edit.sha)
            mode = mode or current_mode
            moved = split_path(source) != split_path(edit.path)
            if moved:
                editor.remove(source)
        blob = Blob.from_string(edit.content)
        store.add_object(blob)
        # A moved file must not land on another one (Forgejo refuses that too).
        editor.put(edit.path, mode or REGULAR, blob.id,
                   must_be_new=edit.action == "create" or moved)
    return editor.write_trees()


def entry_at(store: BaseObjectStore, tree_id: bytes, path: str) -> tuple[int, bytes] | None:
    """(mode, id) of what ``path`` names under a tree, or None."""
    node_id, mode = tree_id, DIRECTORY
    for name in split_path(path):
        if not stat.S_ISDIR(mode):
            return None
        found = {entry.path: entry for entry in read_tree(store, node_id).iteritems()}.get(name)
        if found is None:
            return None
        node_id, mode = found.sha, found.mode
    return mode, node_id
