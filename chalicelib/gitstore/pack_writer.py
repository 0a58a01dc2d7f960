"""The pack of a fetch or clone, written from the stored packs in bounded pieces.

``write_pack(store, objects, known=...)`` yields a complete pack: a header, one entry
per object of ``objects``, a trailer.  An object goes out as its pack stores it: the
entry's compressed bytes are read in pieces of ``PIECE`` bytes and sent under a new
entry header, so memory holds a piece or two whatever the object's size, and nothing
is inflated or compressed again.  A stored delta is kept when the client will have its
base: sent in the same pack (the base is then written first, and the delta names it as
an OFS_DELTA for clients that take them, else as a REF_DELTA) or, for a thin pack,
known to the client (``known``: a REF_DELTA).  Otherwise the object is rebuilt from the
store and compressed afresh in pieces: the one case that holds an object whole, as
applying a delta needs its base whole.

An entry's compressed bytes end where the next entry of its pack begins (the index's
offsets, sorted); the last one ends at the trailer.  For a pack of a few objects, a
small entry's end is found by inflating it instead, sorting no index.  A pack in the
local disk cache is read through a file handle of its own, not dulwich's memory map,
whose touched pages would stay in the process; a pack not downloaded is read by ranges
(``RangedPackData``), unless the pack being written carries a good part of the store (a
clone): then it is downloaded once first, as dulwich's whole-pack scans did, rather
than fetched in thousands of small GETs.

Deltas sent never form a loop: each object comes from the first pack (in one fixed
order) that holds it, and a delta is kept only when its base is in the same pack.  So a
base comes from that pack or an earlier one, and within one pack the stored deltas
resolve (the pack is valid).
"""
from __future__ import annotations

import os
import struct
import sys
import zlib
from array import array
from bisect import bisect_right
from dataclasses import dataclass
from typing import Callable, Iterator, Mapping

from dulwich.objects import hex_to_sha, sha_to_hex
from dulwich.pack import REF_DELTA, PackIndex2, pack_object_header

from chalicelib.gitstore.object_sizes import OFS_DELTA, EntryHeader, entry_header
from chalicelib.gitstore.ranged import RangedPackData

__all__ = ["write_pack", "names_by_offset", "HashedChunks", "PIECE", "SCAN_FRACTION"]

# What is read, compressed or sent at a time.
PIECE = 1 << 20
# The first read of an entry when its extent is known: the whole of most entries.
FIRST_READ = 1 << 16
# The first read when it is not: the header, and the whole of most small entries.
HEAD_READ = 1 << 12
# An entry inflating to at most this is inflated to find its end (a few objects).
SMALL_ENTRY = 1 << 16
# A pack with at least 1/SCAN_FRACTION of the stored objects downloads the packs it reads.
SCAN_FRACTION = 4

Read = Callable[[int, int], bytes]


def write_pack(store, objects: Mapping[bytes, int], *,
               known: set[bytes] | frozenset[bytes] = frozenset(),
               ofs_delta: bool = False) -> Iterator[bytes]:
    """The pack of ``objects`` ({hex id: type number}) as chunks of about PIECE bytes.
    ``known``: objects the client has, which stored deltas may keep as bases (a thin
    pack); empty for a complete pack.  ``ofs_delta``: the client reads OFS_DELTA entries.

    Objects go in the order given, except that a delta kept against a base that is sent
    too goes after it, the base first (as git's pack-objects does): then it can be an
    OFS_DELTA, a few bytes where a REF_DELTA names its base in 20."""
    sources = _Sources(store, objects, known)
    out = HashedChunks(store.object_format.hash_func())
    sent: dict[bytes, int] = {}   # binary id -> where its entry starts
    try:
        yield from out.put(b"PACK" + struct.pack(">LL", 2, len(objects)))
        for sha in objects:
            raw = hex_to_sha(sha)
            if raw in sent:
                continue
            for item in sources.with_bases(raw, sent):
                sent[item.raw] = out.total
                base_at = sent.get(item.base) if ofs_delta and item.base else None
                for data in sources.write(item, out.total, base_at):
                    yield from out.put(data)
                    del data   # not held while the next piece is read
        yield from out.flush()
        yield out.hasher.digest()
    finally:
        sources.close()


class HashedChunks:
    """Hashes what goes out (the pack's trailer) and gathers small pieces into chunks of
    about ``size``; anything longer goes out in pieces of ``size``."""

    def __init__(self, hasher, size: int = PIECE):
        self.hasher = hasher
        self.chunk_size = size
        self.parts: list[bytes] = []
        self.size = 0
        self.total = 0

    def put(self, data: bytes) -> Iterator[bytes]:
        if not data:
            return
        self.hasher.update(data)
        self.total += len(data)
        if len(data) >= self.chunk_size:
            yield from self.flush()
            if len(data) == self.chunk_size:
                yield data
            else:
                for start in range(0, len(data), self.chunk_size):
                    yield data[start:start + self.chunk_size]
            return
        self.parts.append(data)
        self.size += len(data)
        if self.size >= self.chunk_size:
            yield from self.flush()

    def flush(self) -> Iterator[bytes]:
        if self.parts:
            data = self.parts[0] if len(self.parts) == 1 else b"".join(self.parts)
            self.parts, self.size = [], 0
            yield data


@dataclass
class _Item:
    """One object to send: its stored entry (header, first bytes, where the rest starts,
    where it ends) in ``source``, None to send it whole; ``base``: the binary id of the
    base it is kept against, None for a whole entry."""
    raw: bytes
    source: _StoredPack | None
    stored: tuple[EntryHeader, bytes, int, int] | None
    base: bytes | None


class _Sources:
    """The store's packs, opened for reading as entries are asked for."""

    def __init__(self, store, objects: Mapping[bytes, int], known):
        self.store = store
        self.format = store.object_format
        self.packs = list(getattr(store, "packs", ()))
        self.objects = objects
        self.known = known
        self.opened: dict[int, _StoredPack | None] = {}
        self._bulk: bool | None = None

    def close(self) -> None:
        for source in self.opened.values():
            if source is not None:
                source.close()
        self.opened.clear()

    def locate(self, raw: bytes) -> _Item:
        """How the object ``raw`` (binary id) goes: its stored entry, kept as a delta
        when the client will have the base, or (``stored`` None) whole."""
        for i, pack in enumerate(self.packs):
            try:
                offset = pack.index.object_offset(raw)
            except KeyError:
                continue
            source = self._open(i)
            stored = source.entry(offset) if source is not None else None
            if stored is None:
                break
            head = stored[0]
            if head.base is None:
                return _Item(raw, source, stored, None)
            base = source.name_at(head.base) if head.kind == OFS_DELTA else head.base
            if base is None:
                break
            base_hex = sha_to_hex(base)
            # Kept only against a base of this same pack: no loop (module docstring).
            if base_hex in self.objects and (head.kind == OFS_DELTA or source.holds(base)):
                return _Item(raw, source, stored, base)
            if base_hex in self.known:
                return _Item(raw, source, stored, base)
            break
        return _Item(raw, None, None, None)

    def with_bases(self, raw: bytes, sent: Mapping[bytes, int]) -> Iterator[_Item]:
        """The object, after the bases it is kept against that are still to be sent
        (a chain of deltas, deepest base first)."""
        item = self.locate(raw)
        chain = [raw]
        base = item.base
        # Only ids are kept along the chain, so a deep one holds no entry's first bytes.
        while (base is not None and base not in sent and sha_to_hex(base) in self.objects
               and base not in chain):
            chain.append(base)
            base = self.locate(base).base
        for link in reversed(chain[1:]):
            yield self.locate(link)
        yield item

    def write(self, item: _Item, at: int, base_at: int | None) -> Iterator[bytes]:
        """The entry of ``item`` written at offset ``at``; ``base_at``: where its base's
        entry starts in this pack, when OFS_DELTA may name it so."""
        if item.stored is None:
            return self._whole(item.raw)
        head, first, start, end = item.stored
        if item.base is None:
            header = pack_object_header(head.kind, None, head.size, self.format)
        elif base_at is not None:
            header = pack_object_header(OFS_DELTA, at - base_at, head.size, self.format)
        else:
            header = pack_object_header(REF_DELTA, item.base, head.size, self.format)
        item.stored = None   # the first bytes go with the entry, not with the item
        return item.source.copy(bytes(header), first, start, end)

    def _whole(self, raw: bytes) -> Iterator[bytes]:
        type_num, data = self.store.get_raw(sha_to_hex(raw))
        yield bytes(pack_object_header(type_num, None, len(data), self.format))
        deflate = zlib.compressobj()
        view = memoryview(data)
        for start in range(0, len(data), PIECE):
            yield deflate.compress(view[start:start + PIECE])
        yield deflate.flush()

    def _open(self, i: int) -> _StoredPack | None:
        if i not in self.opened:
            self.opened[i] = _StoredPack.open(self.packs[i], self.format, self._bulk_read())
        return self.opened[i]

    def _bulk_read(self) -> bool:
        """Whether the pack being written carries a good part of what is stored: packs
        read by ranges are then downloaded first, and entry extents come from the
        sorted offsets of the whole index."""
        if self._bulk is None:
            stored = sum(len(pack.index) for pack in self.packs)
            self._bulk = len(self.objects) * SCAN_FRACTION >= stored
        return self._bulk


class _StoredPack:
    """One stored pack, read in place: entry extents, names at offsets, byte ranges."""

    def __init__(self, pack, fmt, read: Read, size: int, *, bulk: bool, file=None):
        self.pack = pack
        self.format = fmt
        self.read = read
        self.end_of_entries = size - fmt.oid_length
        self.bulk = bulk
        self.file = file
        self._starts: array | None = None
        self._name_at: Callable[[int], bytes] | None = None

    @classmethod
    def open(cls, pack, fmt, bulk: bool) -> _StoredPack | None:
        """None when the pack cannot be read in place (a cached file evicted meanwhile):
        its objects are then read whole."""
        data = pack.data
        if isinstance(data, RangedPackData):
            if bulk:
                download_whole(data)
            return cls(pack, fmt, data.read_range, ranged_size(data), bulk=bulk)
        try:
            f = open(data.path, "rb")
        except (OSError, TypeError, AttributeError):
            return None
        fd = f.fileno()
        return cls(pack, fmt, lambda start, end: os.pread(fd, end - start, start),
                   os.fstat(fd).st_size, bulk=bulk, file=f)

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None

    def entry_end(self, offset: int) -> int:
        """Where the entry at ``offset`` ends: where the next one starts."""
        if self._starts is None:
            self._starts = sorted_offsets(self.pack.index)
        at = bisect_right(self._starts, offset)
        return self._starts[at] if at < len(self._starts) else self.end_of_entries

    def name_at(self, offset: int) -> bytes | None:
        if self._name_at is None:
            self._name_at = names_by_offset(self.pack.index)
        try:
            return self._name_at(offset)
        except (KeyError, IndexError):
            return None

    def holds(self, raw: bytes) -> bool:
        try:
            self.pack.index.object_offset(raw)
        except KeyError:
            return False
        return True

    def entry(self, offset: int) -> tuple[EntryHeader, bytes, int, int] | None:
        """(the entry's header, its first compressed bytes, where the rest starts, where
        the entry ends); None when it does not parse as git writes entries.

        A pack read for a few objects finds where a small entry ends by inflating it
        (it is read whole anyway), rather than sorting the offsets of the whole index:
        a fetch of a few objects from a pack of a million would spend longer sorting
        than sending."""
        end = self.entry_end(offset) if self.bulk else None
        stop = min(end if end is not None else self.end_of_entries,
                   offset + (FIRST_READ if self.bulk else HEAD_READ))
        first = self.read(offset, stop)
        head = entry_header(lambda start, stop: first[start - offset:stop - offset], offset,
                            self.format.oid_length)
        if head is None:
            return None
        if end is None and head.size <= SMALL_ENTRY:
            need = min(head.data_offset + deflate_bound(head.size), self.end_of_entries)
            if need > offset + len(first):
                first += self.read(offset + len(first), need)
            end = stream_end(first, head.data_offset - offset, head.size)
            end = end + offset if end is not None else None
        if end is None:
            end = self.entry_end(offset)
        if head.data_offset >= end:
            return None
        first = first[:end - offset]
        return head, first[head.data_offset - offset:], offset + len(first), end

    def copy(self, header: bytes, first: bytes, start: int, end: int) -> Iterator[bytes]:
        yield header
        yield first
        del first
        while start < end:
            piece = self.read(start, min(end, start + PIECE))
            if not piece:
                raise OSError(f"pack entry cut short at {start} of {end}")
            start += len(piece)
            yield piece
            del piece


def deflate_bound(size: int) -> int:
    """The most a zlib stream of ``size`` bytes takes (zlib's compressBound)."""
    return size + (size >> 12) + (size >> 14) + (size >> 25) + 13


def stream_end(data: bytes, start: int, size: int) -> int | None:
    """Where the zlib stream at ``start`` of ``data`` ends, given the ``size`` it
    inflates to; None when it does not end within ``data`` or does not inflate."""
    inflate = zlib.decompressobj()
    try:
        inflate.decompress(memoryview(data)[start:], size + 1)
    except zlib.error:
        return None
    if not inflate.eof:
        return None
    return len(data) - len(inflate.unused_data)


def download_whole(data: RangedPackData) -> None:
    # RangedPackData downloads its pack into the disk cache (and reads it from there
    # from then on) when asked for its buffer; it has no public call for that.
    data._buffer()


def ranged_size(data: RangedPackData) -> int:
    # The pack's size in bytes (where its trailer ends): dulwich's PackData keeps it in
    # ``_size`` with no accessor, and RangedPackData sets it from the pack's item.
    return data._size


def _offset_table(index) -> array | None:
    """The entries' offsets in index order, read in one go from a v2 index (a few ms for
    100,000 objects, where dulwich's entry-by-entry iteration takes about 2 µs an
    object); None for an index with offsets past 2 GiB (a second table) or of another
    version.  dulwich has no public call for the table."""
    if not isinstance(index, PackIndex2) or array("I").itemsize != 4:
        return None
    count = len(index)
    start = index._pack_offset_table_offset
    table = array("I", bytes(index._contents[start:start + 4 * count]))
    if sys.byteorder == "little":
        table.byteswap()
    if table and max(table) >= 1 << 31:
        return None
    return table


def names_by_offset(index) -> Callable[[int], bytes]:
    """The object name (binary) at a pack offset."""
    table = _offset_table(index)
    if table is not None:
        positions = dict(zip(table, range(len(table))))
        return lambda offset: index._unpack_name(positions[offset])
    names = {at: name for name, at, _ in index.iterentries()}
    return names.__getitem__


def sorted_offsets(index) -> array:
    """Where each entry of the pack starts, in increasing order."""
    table = _offset_table(index)
    offsets = table if table is not None else (at for _, at, _ in index.iterentries())
    return array("Q", sorted(offsets))
