"""Blob-less partial clones (``git clone --filter=blob:none``) cut from the main pack.

Such a clone wants the commits, trees and tags a full clone gets, and the main pack
holds exactly those (``pack_reuse.py``: it is closed over its tips, and the same rule
decides whether this client may have all of them).  Walking every commit and parsing
every tree of the history in Python to rediscover that set took seconds on a history
of 5,000 commits, for an answer git gives in a fraction of one.  Here the pack's
entries are read in the order they are stored, and every entry that is not a blob is
copied: its compressed bytes as stored, under the stored header, which is rewritten
only for an OFS_DELTA (the distance to its base shrinks by the blobs left out between
them).  A delta has its base's type, so the base of a kept delta is kept too and the
result is a valid pack by itself.  What was pushed since the main pack is added as a
clone adds it, blobs left out.

Only the plain ``blob:none`` clone takes this path: wanted blobs (a partial clone's lazy
fetches), haves, shallow requests, other filters, and clients without ofs-delta get the
pack built by walking (``upload_pack.objects_to_send``), as does a main pack that is too
big for the local disk cache or that does not parse as git writes packs.  Memory holds a
window of the pack (``WINDOW``) and a byte and an offset per stored entry.
"""
from __future__ import annotations

import os
import struct
from array import array
from bisect import bisect_left
from typing import Iterator

from dulwich.objects import hex_to_sha
from dulwich.pack import pack_object_header

from chalicelib.gitstore import pack_reuse, packdb
from chalicelib.gitstore.object_sizes import BLOB, OFS_DELTA, REF_DELTA, entry_header
from chalicelib.gitstore.pack_filter import ObjectFilter
from chalicelib.gitstore.pack_writer import PIECE, HashedChunks, sorted_offsets
from chalicelib.gitstore.repo import NimbusRepo

__all__ = ["blobless_stream"]

WINDOW = 1 << 20
# Longest chain of REF_DELTA bases resolved for an entry's type (git's own limit is
# 4095; a loop or a longer chain makes the pack unusable here).
MAX_REF_CHAIN = 4096


def blobless_stream(repo: NimbusRepo, wants: set[bytes], haves: set[bytes], *,
                    shallow: bool, filter_spec: ObjectFilter | None, include_tag: bool,
                    ofs_delta: bool) -> Iterator[bytes] | None:
    """The pack for a ``blob:none`` clone of ``wants`` cut from the main pack, or None
    when the caller must build it (module docstring)."""
    if (haves or shallow or not ofs_delta or not wants or filter_spec is None
            or filter_spec.blob_limit != 0 or filter_spec.tree_depth is not None):
        return None
    planned = pack_reuse.plan_clone(repo, wants, include_tag=include_tag)
    if planned is None:
        return None
    main, pack, plan = planned
    if any(kind == BLOB for sha, kind in plan.kinds.items() if sha in wants):
        return None
    store = repo.object_store
    if main.size > store.cache.max_bytes // 2:
        return None
    f = store.cache.open(f"{store.pool_id}/{main.name}.pack",
                         fill=lambda out: packdb.download(store.pool_id, main.name, "pack", out),
                         opener=lambda path: open(path, "rb"))
    try:
        entries = _Entries(f, pack, store.object_format.oid_length)
        if not entries.scan() or any(entries.kind_of(hex_to_sha(sha)) == BLOB
                                     for sha in wants if sha not in plan.extra_set):
            f.close()
            return None
    except BaseException:
        f.close()
        raise
    extras = [sha for sha in plan.extras if plan.kinds[sha] != BLOB]
    return _stream(store, main.name, pack, entries, extras)


class _Entries:
    """The main pack's entries in stored order, with the type each one rebuilds."""

    def __init__(self, f, pack, oid_length: int):
        self.file = f
        self.fd = f.fileno()
        self.pack = pack
        self.oid_length = oid_length
        self.offsets = sorted_offsets(pack.index)
        self.end_of_entries = os.fstat(self.fd).st_size - oid_length
        self.kinds = bytearray(len(self.offsets))
        # The position of each OFS_DELTA's base (-1: not an OFS_DELTA).
        self.ofs_bases = array("l", [-1]) * len(self.offsets)
        self._start = 0
        self._data = b""

    def read(self, start: int, end: int) -> bytes:
        """Bytes [start, end) of the pack, through a window read ahead of them."""
        if start < self._start or end > self._start + len(self._data):
            if end - start >= WINDOW:
                return os.pread(self.fd, end - start, start)
            self._data = os.pread(self.fd, WINDOW, start)
            self._start = start
        return self._data[start - self._start:end - self._start]

    def position(self, offset: int) -> int | None:
        at = bisect_left(self.offsets, offset)
        return at if at < len(self.offsets) and self.offsets[at] == offset else None

    def kind_of(self, raw: bytes) -> int | None:
        try:
            at = self.position(self.pack.index.object_offset(raw))
        except KeyError:
            return None
        return None if at is None else self.kinds[at]

    def scan(self) -> bool:
        """Find each entry's type from the headers alone (an OFS_DELTA's base comes
        before it; a REF_DELTA's may come anywhere); False when an entry does not
        parse or a delta's base is not an entry of the pack."""
        kinds, ofs_bases, read = self.kinds, self.ofs_bases, self.read
        pending: dict[int, int] = {}   # position of a REF_DELTA -> position of its base
        for i, offset in enumerate(self.offsets):
            head = entry_header(read, offset, self.oid_length)
            if head is None:
                return False
            if head.kind == OFS_DELTA:
                base = self.position(head.base)
                if base is None or not kinds[base]:
                    return False
                kinds[i] = kinds[base]
                ofs_bases[i] = base
            elif head.kind == REF_DELTA:
                try:
                    base = self.position(self.pack.index.object_offset(head.base))
                except KeyError:
                    return False
                if base is None:
                    return False
                if kinds[base]:
                    kinds[i] = kinds[base]
                else:
                    pending[i] = base
            else:
                kinds[i] = head.kind
        for i in pending:
            chain = [i]
            while not kinds[chain[-1]]:
                if len(chain) > MAX_REF_CHAIN or chain[-1] not in pending:
                    return False
                chain.append(pending[chain[-1]])
            for link in chain:
                kinds[link] = kinds[chain[-1]]
        return True

    def kept(self) -> int:
        return len(self.kinds) - self.kinds.count(BLOB)

    def copy_kept(self, out: HashedChunks, fmt) -> Iterator[bytes]:
        """Every entry that is not a blob, as stored.  Consecutive kept entries go out
        as one run of bytes; only an OFS_DELTA whose base moved by another distance
        than it did (blobs left out between them) gets a new header."""
        offsets, kinds, ofs_bases = self.offsets, self.kinds, self.ofs_bases
        moved = array("Q", bytes(8 * len(offsets)))   # where each kept entry now starts
        run = None                                    # where the run being gathered starts
        for i, offset in enumerate(offsets):
            if kinds[i] == BLOB:
                if run is not None:
                    yield from self._copy(out, run, offset)
                    run = None
                continue
            moved[i] = out.total + (offset - run if run is not None else 0)
            base = ofs_bases[i]
            if base < 0 or moved[i] - moved[base] == offset - offsets[base]:
                run = offset if run is None else run
                continue
            if run is not None:
                yield from self._copy(out, run, offset)
            head = entry_header(self.read, offset, self.oid_length)
            yield from out.put(bytes(pack_object_header(OFS_DELTA, moved[i] - moved[base],
                                                        head.size, fmt)))
            run = head.data_offset
        if run is not None:
            yield from self._copy(out, run, self.end_of_entries)

    def _copy(self, out: HashedChunks, start: int, end: int) -> Iterator[bytes]:
        while start < end:
            piece = self.read(start, min(end, start + PIECE))
            if not piece:
                raise OSError(f"pack entries cut short at {start} of {end}")
            start += len(piece)
            yield from out.put(piece)


class _KeptInPack:
    """Membership in what the subset sends of the main pack (a base an object pushed
    since may be sent against)."""

    def __init__(self, entries: _Entries):
        self.entries = entries

    def __contains__(self, raw: bytes) -> bool:
        kind = self.entries.kind_of(raw)
        return kind is not None and kind != BLOB


def _stream(store, name: str, pack, entries: _Entries, extras: list[bytes]) -> Iterator[bytes]:
    out = HashedChunks(store.object_format.hash_func(), pack_reuse.CHUNK_SIZE)
    try:
        yield from out.put(b"PACK" + struct.pack(">LL", 2, entries.kept() + len(extras)))
        yield from entries.copy_kept(out, store.object_format)
        others = [p for other, p in pack_reuse.live_packs(store) if other != name]
        kept, sent = _KeptInPack(entries), set()
        for sha in extras:
            yield from out.put(pack_reuse.entry_for(store, kept, others, sent, sha))
            sent.add(hex_to_sha(sha))
        yield from out.flush()
        yield out.hasher.digest()
    finally:
        entries.file.close()
