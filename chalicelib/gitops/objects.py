"""Objects a git operation makes, held back until the operation has succeeded.

Every object written to the S3 store is a pack upload and a DynamoDB publish
(``S3ObjectStore.add_object`` makes one pack per object), and dulwich's merge writes
each merged blob and subtree as it goes.  ``StagedObjects`` keeps new objects in memory
over a base store, reads fall through to the base, and ``write()`` stores everything
in ONE pack.  An operation that fails (a conflicting merge, a refused edit) writes
nothing: ``staged()`` writes only when its block ends without an exception.
"""
from __future__ import annotations

import contextlib
from typing import Iterator

from dulwich.object_store import BaseObjectStore
from dulwich.objects import Blob, Commit, ShaFile, Tree, sha_to_hex

from chalicelib.gitops.errors import ObjectMissing, WrongObjectType


class StagedObjects(BaseObjectStore):
    """An object store whose new objects stay in memory until ``write()``."""

    def __init__(self, base: BaseObjectStore):
        super().__init__(object_format=base.object_format)
        self.base = base
        self.new: dict[bytes, ShaFile] = {}

    def _hex(self, sha: bytes) -> bytes:
        return sha_to_hex(sha) if len(sha) == self.object_format.oid_length else sha

    # -- writes (kept) ---------------------------------------------------------------
    def add_object(self, obj: ShaFile) -> None:
        self.new[obj.id] = obj

    def add_objects(self, objects, progress=None) -> None:
        for obj, _path in objects:
            self.add_object(obj)

    def write(self) -> int:
        """Store the new objects in the base store as one pack; how many were written."""
        pending = list(self.new.values())
        if pending:
            self.base.add_objects([(obj, None) for obj in pending])
            self.new.clear()
        return len(pending)

    def discard(self) -> None:
        self.new.clear()

    # -- reads (new objects first, then the base) ------------------------------------
    def contains_loose(self, sha: bytes) -> bool:
        return self._hex(sha) in self.new or self.base.contains_loose(sha)

    def contains_packed(self, sha: bytes) -> bool:
        return self.base.contains_packed(sha)

    def __contains__(self, sha: bytes) -> bool:
        return self._hex(sha) in self.new or sha in self.base

    def get_raw(self, name: bytes) -> tuple[int, bytes]:
        obj = self.new.get(self._hex(name))
        if obj is not None:
            return obj.type_num, obj.as_raw_string()
        return self.base.get_raw(name)

    def __getitem__(self, sha: bytes) -> ShaFile:
        obj = self.new.get(self._hex(sha))
        # A copy, as dulwich's stores give: callers edit trees they read in place.
        return obj.copy() if obj is not None else self.base[sha]

    def __iter__(self) -> Iterator[bytes]:
        yield from self.new
        yield from (sha for sha in self.base if sha not in self.new)

    @property
    def packs(self):
        return self.base.packs


@contextlib.contextmanager
def staged(store: BaseObjectStore) -> Iterator[StagedObjects]:
    """``with staged(git.object_store) as objects:`` build trees and commits in
    ``objects``; they are stored in one pack when the block ends without an error."""
    objects = StagedObjects(store)
    try:
        yield objects
    except BaseException:
        objects.discard()
        raise
    objects.write()


def read_object(store: BaseObjectStore, sha: bytes | str, kind: type[ShaFile]) -> ShaFile:
    """The object ``sha`` of type ``kind`` (Blob, Tree, Commit), or a typed error."""
    sha = sha.encode("ascii") if isinstance(sha, str) else sha
    try:
        obj = store[sha]
    except KeyError:
        raise ObjectMissing(f"object does not exist [id: {sha.decode('ascii', 'replace')}]") \
            from None
    if not isinstance(obj, kind):
        raise WrongObjectType(f"object {obj.id.decode()} is a {obj.type_name.decode()}, "
                              f"not a {kind.type_name.decode()}")
    return obj


def read_commit(store: BaseObjectStore, sha: bytes | str) -> Commit:
    return read_object(store, sha, Commit)


def read_tree(store: BaseObjectStore, sha: bytes | str) -> Tree:
    return read_object(store, sha, Tree)


def read_blob(store: BaseObjectStore, sha: bytes | str) -> Blob:
    return read_object(store, sha, Blob)
