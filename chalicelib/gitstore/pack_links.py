"""What a received pack's objects name, for the connectivity check and the tips record.

Every reference an object of a pushed pack makes must exist (in the pack or the
store), and a push into an empty pool whose pack holds exactly what its refs reach is
stored as a main pack (pack_tips.py).  Both used to walk the pack object by object in
Python (a hex-to-binary conversion and a lookup per object, a list of links per
object); here they are set operations over every name at once:

- *connected*: the names the pack's objects make, minus the pack's own ids, must be
  in the store;
- *closed* over tips: every object of the pack is a tip or named by an object of the
  pack, and nothing named is outside it.  That is the same as "the tips reach exactly
  the pack": an object nobody reaches would have, following the objects naming it
  upwards, a first one that no object names (ids are hashes of what they name, so
  naming has no cycles), which is then neither a tip nor named.

Blobs name nothing; nor does a submodule entry: its commit lives in another
repository, and git's walks (clone, rev-list --objects, compaction's) do not follow it
either, so a history with a submodule can still be closed.
"""
from __future__ import annotations

from binascii import Error as HexError
from binascii import unhexlify
from typing import Iterable

from dulwich.errors import ObjectFormatException
from dulwich.objects import S_ISGITLINK, Blob, Commit, Tag, Tree

from chalicelib.gitstore import lfs_pointers
from chalicelib.gitstore.pack_index import parse_raw
from chalicelib.gitstore.pack_tips import Tips, heads_of

__all__ = ["PackLinks"]

# Tree entry modes that are not a submodule: a regular file, an executable, a
# directory, a symbolic link.
_PLAIN_MODES = frozenset({0o100644, 0o100755, 0o040000, 0o120000})


class PackLinks:
    """Names (hex ids) made by a pack's objects; with ``keep_history``, each commit's
    parents and each tag's target, for the heads of a tips record."""

    def __init__(self, *, keep_history: bool):
        self.named: set[bytes] = set()
        self.keep_history = keep_history
        self.history: dict[bytes, list[bytes]] = {}
        self._binary: set[bytes] | None = None
        # Git LFS objects the pack's pointer blobs name: oid -> size.
        self.lfs_pointers: dict[str, int] = {}

    def add_raw(self, type_num: int, raw: bytes, sha: bytes, fmt) -> None:
        """An object by its type, bytes and binary id (``pack_index``): a tree's entries
        are read without making a Tree (nor sorting them, as its ``iteritems`` does)."""
        if type_num == Tree.type_num:
            parsed = parse_raw(type_num, raw, fmt.oid_length, b"", fmt)
            if parsed:
                # Column-wise (C loops): a tree costs no Python per entry unless it
                # has a mode other than a file's, a directory's or a link's.
                _, modes, links = zip(*parsed)
                if not _PLAIN_MODES.issuperset(modes) and any(
                        S_ISGITLINK(mode) for mode in set(modes)):
                    links = [child for _, mode, child in parsed if not S_ISGITLINK(mode)]
                self.named.update(links)
            return
        hex_sha = sha.hex().encode("ascii")
        parsed = parse_raw(type_num, raw, fmt.oid_length, hex_sha, fmt)
        if type_num == Commit.type_num:
            tree, parents = parsed
            self.named.add(tree)
            self.named.update(parents)
            if self.keep_history:
                self.history[hex_sha] = parents
            return
        self.add(parsed, hex_sha)

    def add_blob(self, raw: bytes) -> None:
        """A small blob: kept when it is a Git LFS pointer (``lfs_pointers``)."""
        if lfs_pointers.looks_like_pointer(raw):
            pointer = lfs_pointers.parse(raw)
            if pointer is not None:
                self.lfs_pointers[pointer.oid] = pointer.size

    def add(self, obj, sha: bytes | None = None) -> None:
        """A parsed object; ``sha``: its hex id when known (saves hashing it again)."""
        if isinstance(obj, Blob):
            if obj.raw_length() < lfs_pointers.MAX_POINTER_SIZE:
                self.add_blob(obj.as_raw_string())
            return
        if isinstance(obj, Tree):
            self.named.update(child for _, mode, child in obj.iteritems()
                              if not S_ISGITLINK(mode))
            return
        if isinstance(obj, Commit):
            history = obj.parents
            self.named.add(obj.tree)
        elif isinstance(obj, Tag):
            history = [obj.object[1]]
        else:
            return
        self.named.update(history)
        if self.keep_history:
            self.history[sha or obj.id] = history

    def _named_binary(self) -> set[bytes]:
        if self._binary is None:
            try:
                self._binary = set(map(unhexlify, self.named))
            except (HexError, ValueError) as exc:
                raise ObjectFormatException(f"malformed object id: {exc}") from exc
        return self._binary

    def outside(self, in_pack: set[bytes]) -> list[bytes]:
        """Hex ids named by the pack's objects that are not in it (binary ids)."""
        return [sha.hex().encode("ascii") for sha in self._named_binary() - in_pack]

    def closed_over(self, tips: Iterable[bytes], in_pack: set[bytes]) -> Tips | None:
        """The tips record when the pack's objects are exactly what ``tips`` (hex ids)
        reach (see the module docstring); ``in_pack``: the pack's binary ids."""
        tips = list(tips)
        if not self.keep_history or not tips:
            return None
        try:
            reach = self._named_binary() | set(map(unhexlify, tips))
        except (HexError, ValueError):
            return None
        if reach != in_pack:
            return None
        return heads_of(tips, lambda sha: self.history.get(sha, ()))
