"""An object's type and size from its pack entry header, without inflating the object.

Git writes an object's type and size in the header of its pack entry, and a delta's
data starts with the size of the object it rebuilds, so a few dozen bytes of the pack
(and a few hundred bytes of a delta inflated) measure any object.  Tree pages measure
every blob they list, language statistics every file of a tree: reading each object
whole would inflate every file and resolve every delta chain.

Packs are read where they are: a pack in the local disk cache by its file (opened once
per ``with ObjectSizes(...)`` block), a pack not downloaded through its S3 ranged reads
(``RangedPackData.read_range``: the entry's blocks only, never the whole pack).  The
type of a delta is its chain's base's, so it costs a header read per link; the size
never needs the chain.  An entry that does not parse as git writes them (truncated,
an unknown type, a delta that does not inflate) is measured by reading the object
whole, as any other read would.
"""
from __future__ import annotations

import zlib
from typing import Callable, NamedTuple

# Pack entry types (git's pack format).
COMMIT, TREE, BLOB, TAG, OFS_DELTA, REF_DELTA = 1, 2, 3, 4, 6, 7
TYPE_NAMES = {COMMIT: "commit", TREE: "tree", BLOB: "blob", TAG: "tag"}
WHOLE_TYPES = frozenset(TYPE_NAMES)
# git itself refuses chains deeper than this (pack.depth's hard limit is 4095, but its
# default is 50); a longer one, or a loop of REF deltas, is measured by a whole read.
MAX_DELTA_DEPTH = 64
# A header is one byte of type and size, then up to 9 more size bytes (64-bit sizes),
# then an offset (at most 10 bytes) or a base id.
HEADER_BYTES = 20
# A delta's two sizes are its first inflated bytes; deflate yields them within a few
# hundred bytes of input (a dynamic block's code tables come first).
DELTA_READ = 512
DELTA_READ_LIMIT = 4096
DELTA_SIZES_BYTES = 32

Read = Callable[[int, int], bytes]


class EntryHeader(NamedTuple):
    # A tuple, not a frozen dataclass: a partial clone reads tens of thousands of them.
    kind: int                    # one of the pack entry types above
    size: int                    # the entry's inflated size (a delta's own size)
    base: int | bytes | None     # a delta base's offset (OFS) or id (REF); None if whole
    data_offset: int             # where the zlib stream starts


def entry_header(read: Read, offset: int, oid_length: int) -> EntryHeader | None:
    """The header of the pack entry at ``offset``; None when it does not parse."""
    head = read(offset, offset + HEADER_BYTES + oid_length)
    if not head:
        return None
    byte = head[0]
    kind, size, shift, pos = (byte >> 4) & 7, byte & 0x0F, 4, 1
    while byte & 0x80:
        if pos >= len(head) or shift > 63:
            return None
        byte = head[pos]
        pos += 1
        size |= (byte & 0x7F) << shift
        shift += 7
    base: int | bytes | None = None
    if kind == OFS_DELTA:
        if pos >= len(head):
            return None
        byte = head[pos]
        pos += 1
        back = byte & 0x7F
        while byte & 0x80:
            if pos >= len(head):
                return None
            byte = head[pos]
            pos += 1
            back = ((back + 1) << 7) | (byte & 0x7F)
        if not 0 < back <= offset:
            return None
        base = offset - back
    elif kind == REF_DELTA:
        base = bytes(head[pos:pos + oid_length])
        if len(base) != oid_length:
            return None
        pos += oid_length
    elif kind not in WHOLE_TYPES:
        return None
    return EntryHeader(kind, size, base, offset + pos)


def varints(raw: bytes, count: int) -> list[int] | None:
    """The first ``count`` of a delta header's sizes (7 bits a byte, least significant
    first); None when ``raw`` ends before them."""
    values, value, shift = [], 0, 0
    for byte in raw:
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            values.append(value)
            if len(values) == count:
                return values
            value, shift = 0, 0
    return None


def delta_result_size(read: Read, data_offset: int) -> int | None:
    """The size of the object a delta rebuilds (the second size of the delta's header),
    inflating only the delta's first bytes; None when they do not inflate to one."""
    inflate = zlib.decompressobj()
    out, at = b"", data_offset
    while at - data_offset < DELTA_READ_LIMIT:
        chunk = read(at, at + DELTA_READ)
        if not chunk:
            return None
        at += len(chunk)
        try:
            out += inflate.decompress(bytes(chunk), DELTA_SIZES_BYTES - len(out))
        except zlib.error:
            return None
        sizes = varints(out, 2)
        if sizes is not None:
            return sizes[1]
        if inflate.eof or len(out) >= DELTA_SIZES_BYTES:
            return None
    return None


class ObjectSizes:
    """Types and sizes of a store's objects from their pack entries.  Use it as a
    context manager: local pack files stay open until the block ends."""

    def __init__(self, store):
        self.store = store
        fmt = getattr(store, "object_format", None)
        self.oid_length = fmt.oid_length if fmt is not None else 20
        # id(pack) -> (the pack, kept so the id is not reused; its reader; a file to close)
        self._readers: dict[int, tuple[object, Read | None, object]] = {}

    def __enter__(self) -> ObjectSizes:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for _, _, f in self._readers.values():
            if f is not None:
                f.close()
        self._readers.clear()

    def _reader(self, pack) -> Read | None:
        """``read(start, end)`` over the pack's bytes, or None when it cannot be read in
        place (a cached file evicted meanwhile)."""
        key = id(pack)
        found = self._readers.get(key)
        if found is None:
            found = self._readers[key] = (pack, *self._open_reader(pack.data))
        return found[1]

    @staticmethod
    def _open_reader(data) -> tuple[Read | None, object]:
        # Imported here: gitstore.ranged loads dulwich, which the API's route modules
        # must not import at cold start (bench/cold_start.py).
        from chalicelib.gitstore.ranged import RangedPackData

        if isinstance(data, RangedPackData):
            return data.read_range, None
        try:
            f = open(data.path, "rb")
        except (OSError, TypeError, AttributeError):
            return None, None

        def read(start: int, end: int) -> bytes:
            f.seek(start)
            return f.read(end - start)
        return read, f

    def _locate(self, sha: bytes):
        """(the pack holding ``sha``, the entry's offset), or None."""
        for pack in getattr(self.store, "packs", ()):
            try:
                return pack, pack.index.object_offset(sha)
            except KeyError:
                continue
        return None

    def size(self, sha: bytes) -> int | None:
        """The object's size, None when the store does not have it; a delta's chain is
        not walked."""
        found = self._measure(sha, want_type=False)
        return found[1] if found else None

    def info(self, sha: bytes) -> tuple[int, int] | None:
        """(type, size) of the object, None when the store does not have it."""
        return self._measure(sha, want_type=True)

    def _measure(self, sha: bytes, *, want_type: bool) -> tuple[int | None, int] | None:
        # Without want_type a delta's type is not looked up: None.
        located = self._locate(sha)
        if located is None:
            return self._unpacked(sha)
        pack, offset = located
        read = self._reader(pack)
        head = entry_header(read, offset, self.oid_length) if read else None
        if head is None:
            return self._whole(sha)
        if head.base is None:
            return head.kind, head.size
        size = delta_result_size(read, head.data_offset)
        if size is None:
            return self._whole(sha)
        if not want_type:
            return None, size
        kind = self._base_kind(read, head.base)
        return (kind, size) if kind is not None else self._whole(sha)

    def _base_kind(self, read: Read, base: int | bytes) -> int | None:
        """The type at the end of a delta chain (bounded); None when it cannot be
        followed in place."""
        for _ in range(MAX_DELTA_DEPTH):
            if isinstance(base, bytes):
                located = self._locate(base)
                if located is None:
                    return None
                pack, base = located
                read = self._reader(pack)
                if read is None:
                    return None
            head = entry_header(read, base, self.oid_length)
            if head is None:
                return None
            if head.base is None:
                return head.kind
            base = head.base
        return None

    def _unpacked(self, sha: bytes) -> tuple[int, int] | None:
        # An id in no pack is looked for loose only: a whole read of a missing object
        # would rescan the pool's pack list (an AWS call) to be sure.
        if hasattr(self.store, "packs") and not self.store.contains_loose(sha):
            return None
        return self._whole(sha)

    def _whole(self, sha: bytes) -> tuple[int, int] | None:
        try:
            kind, raw = self.store.get_raw(sha)
        except KeyError:
            return None
        return kind, len(raw)
