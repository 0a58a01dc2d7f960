"""A received pack indexed in one pass over its bytes.

dulwich's way (``PackStreamCopier`` then ``PackIndexer``) inflates every object twice
and builds several Python objects per entry on the way; on a history of 5,000 commits
(26,000 objects) that was most of a push's time, three times what C git takes for the
whole push.  Here the pack is copied to its file as it comes, then read through a
memory map:

1. the trailer is checked against the hash of everything before it;
2. one scan parses each entry header and inflates the entry once, which gives where it
   ends, its CRC32 for the index and, for a whole object, its id (objects that name
   others are parsed on the way, for the connectivity check and the tips record);
3. deltas are resolved depth first from their bases (an OFS_DELTA's base is an offset,
   a REF_DELTA's an id, for a thin pack possibly an object of the store: those are
   returned, ``extend_pack`` appends them), so a base is inflated once for all its
   deltas and memory holds the bases along one chain.

Inflating, applying deltas (dulwich's compiled ``apply_delta``), hashing and tree
parsing (dulwich's compiled ``parse_tree``) are C; what stays in Python is a few lines
per entry.
"""
from __future__ import annotations

import mmap
import struct
import zlib
from typing import Callable

from dulwich.errors import ChecksumMismatch, ObjectFormatException
from dulwich.objects import Blob, Commit, ShaFile, Tag, Tree, object_header, parse_tree
from dulwich.pack import UnresolvedDeltas, apply_delta

from chalicelib.gitstore.lfs_pointers import MAX_POINTER_SIZE

__all__ = ["index_pack", "parse_raw", "write_index_v2", "COPY_CHUNK"]

OFS_DELTA, REF_DELTA = 6, 7
WHOLE = (Commit.type_num, Tree.type_num, Blob.type_num, Tag.type_num)
# An object's id hashes "<type> <size>\0" then its bytes (dulwich's object_header,
# without a function call per object).
HEADERS = {t: object_header(t, 0)[:-2] for t in WHOLE}
COPY_CHUNK = 1 << 20
# zlib is first fed the entry's inflated size plus an eighth plus this: a deflated
# stream is hardly ever longer, so nearly every entry ends within it.  Not more: what
# follows the stream is copied into ``unused_data``; a fixed 64 KB feed copied 64 KB
# per entry (a fifth of indexing 40,000 small objects).
FIRST_FEED = 64
# Deltas are inflated once in the scan (to find where they end) and kept for their
# resolution up to this many bytes in all; past it they are inflated again.  Deltas are
# small beside the objects they make, so on real histories all of them fit.
KEPT_DELTA_BYTES = 64 << 20


def index_pack(f, object_format, *, get_raw: Callable[[bytes], tuple[int, bytes]],
               parsed, on_checked: Callable[[bytes], None] | None = None,
               ) -> tuple[bytes, list[tuple[bytes, int, int]], list[bytes]]:
    """(the pack's checksum, its entries as (binary id, offset, CRC32), the binary ids of
    external delta bases) of the pack written in ``f``; ``get_raw(hex id)`` reads an
    external base from the store; ``parsed.add_raw(type, raw, binary id, format)`` is
    told every object that is not a blob; ``on_checked(checksum)`` runs once the trailer matches
    the bytes, before the entries are read (the caller may start uploading them)."""
    f.flush()
    size = f.seek(0, 2)
    oid = object_format.oid_length
    if size < 12 + oid:
        raise ObjectFormatException("pack is too short")
    with mmap.mmap(f.fileno(), size, access=mmap.ACCESS_READ) as mm:
        view = memoryview(mm)
        try:
            return _Indexer(view, object_format, get_raw, parsed).run(on_checked)
        finally:
            view.release()



def entry_header(view, at: int) -> tuple[int, int, int]:
    """(type number, inflated size, where the data starts) of the pack entry at ``at``:
    a type in bits 4-6 of the first byte, the size in 7-bit groups after its low 4."""
    byte = view[at]
    type_num, size, shift = (byte >> 4) & 7, byte & 0x0F, 4
    at += 1
    while byte & 0x80:
        byte = view[at]
        at += 1
        size |= (byte & 0x7F) << shift
        shift += 7
    return type_num, size, at

class _Indexer:
    def __init__(self, view: memoryview, fmt, get_raw, parsed):
        self.view = view
        self.fmt = fmt
        self.oid = fmt.oid_length
        self.get_raw = get_raw
        self.parsed = parsed
        self.entries: list[tuple[bytes, int, int]] = []
        # Deltas waiting for their base: by the base's offset, by the base's id.
        self.by_offset: dict[int, list[tuple[int, int, int, int]]] = {}
        self.by_id: dict[bytes, list[tuple[int, int, int, int]]] = {}
        self.whole: list[tuple[int, int, int, bytes]] = []   # (type, offset, data start, id)
        self.kept = 0   # bytes of inflated deltas held (KEPT_DELTA_BYTES)

    def run(self, on_checked=None):
        view, oid = self.view, self.oid
        end_of_entries = len(view) - oid
        if bytes(view[:4]) != b"PACK":
            raise ObjectFormatException("not a pack")
        version, count = struct.unpack(">LL", view[4:12])
        if version not in (2, 3):
            raise ObjectFormatException(f"pack version {version} is not supported")
        checksum = bytes(view[end_of_entries:])
        actual = self.fmt.hash_func(view[:end_of_entries]).digest()
        if actual != checksum:
            raise ChecksumMismatch(checksum, actual)
        if on_checked is not None:
            on_checked(checksum)
        at = 12
        for _ in range(count):
            at = self._scan(at, end_of_entries)
        if at != end_of_entries:
            raise ObjectFormatException("pack has data after its last object")
        for type_num, offset, _, sha in self.whole:
            self._resolve_children(type_num, offset, sha, None)
        external = []
        for base in list(self.by_id):
            if base not in self.by_id:
                continue  # resolved as the child of another external base
            try:
                type_num, raw = self.get_raw(base.hex().encode("ascii"))
            except KeyError:
                continue  # reported below, with the others left
            external.append(base)
            self._resolve_children(type_num, None, base, raw)
        if self.by_offset or self.by_id:
            waiting = [*self.by_id, *(b"at %d" % o for o in self.by_offset)]
            raise UnresolvedDeltas([w.hex().encode() if len(w) == oid else w for w in waiting])
        return checksum, self.entries, external

    def _scan(self, at: int, end_of_entries: int) -> int:
        """Parse the entry at ``at``; return where the next one starts."""
        view = self.view
        start = at
        type_num, size, at = entry_header(view, at)
        base = None
        if type_num == OFS_DELTA:
            byte = view[at]
            at += 1
            back = byte & 0x7F
            while byte & 0x80:
                byte = view[at]
                at += 1
                back = ((back + 1) << 7) | (byte & 0x7F)
            if not 0 < back <= start:
                raise ObjectFormatException(f"bad delta base offset at {start}")
            base = start - back
        elif type_num == REF_DELTA:
            base = bytes(view[at:at + self.oid])
            at += self.oid
        elif type_num not in WHOLE:
            raise ObjectFormatException(f"unknown object type {type_num} at {start}")
        data_start = at
        # _inflate's first step, inline: one call less per entry, and most end here.
        inflate = zlib.decompressobj()
        feed = min(end_of_entries, at + size + (size >> 3) + FIRST_FEED)
        raw = inflate.decompress(view[at:feed])
        if inflate.eof and len(raw) == size:
            at = feed - len(inflate.unused_data)
        else:
            raw, at = self._inflate(data_start, size, end_of_entries)
        crc = zlib.crc32(view[start:at])
        if base is None:
            sha = self._record(type_num, raw, start, crc)
            self.whole.append((type_num, start, data_start, sha))
        else:
            if self.kept < KEPT_DELTA_BYTES:
                self.kept += len(raw)
            else:
                raw = None
            waiting = (self.by_offset if type_num == OFS_DELTA else self.by_id)
            waiting.setdefault(base, []).append((start, data_start, at, crc, raw))
        return at

    def _inflate(self, at: int, size: int, limit: int) -> tuple[bytes, int]:
        """(the inflated bytes of the zlib stream at ``at``, where it ends)."""
        inflate = zlib.decompressobj()
        feed = min(limit, at + size + (size >> 3) + FIRST_FEED)
        out = inflate.decompress(self.view[at:feed])
        parts = None
        while not inflate.eof:
            if feed >= limit:
                raise ObjectFormatException(f"object at {at} is cut short")
            more = min(limit, feed + COPY_CHUNK)
            if parts is None:
                parts = [out]
            parts.append(inflate.decompress(self.view[feed:more]))
            feed = more
        if parts is not None:
            out = b"".join(parts)
        if len(out) != size:
            raise ObjectFormatException(f"object at {at} inflates to {len(out)}, not {size}")
        return out, feed - len(inflate.unused_data)

    def _record(self, type_num: int, raw: bytes, offset: int, crc: int) -> bytes:
        hasher = self.fmt.hash_func(HEADERS[type_num] + b"%d\0" % len(raw))
        hasher.update(raw)
        sha = hasher.digest()
        self.entries.append((sha, offset, crc))
        if type_num != Blob.type_num:
            self.parsed.add_raw(type_num, raw, sha, self.fmt)
        elif len(raw) < MAX_POINTER_SIZE:
            self.parsed.add_blob(raw)
        return sha

    def _resolve_children(self, type_num: int, offset: int | None, sha: bytes,
                          raw: bytes | None) -> None:
        """Resolve every delta that rests, directly or through others, on the object at
        ``offset`` (None: outside the pack) with id ``sha``; ``raw``: its bytes when
        already at hand."""
        if offset not in self.by_offset and sha not in self.by_id:
            return
        if raw is None:
            raw = self._whole_at(offset)
        stack = [(raw, offset, sha)]
        while stack:
            base_raw, base_offset, base_sha = stack.pop()
            children = self.by_offset.pop(base_offset, []) if base_offset is not None else []
            children += self.by_id.pop(base_sha, [])
            for start, data_start, end, crc, delta in children:
                if delta is None:
                    delta, _ = self._inflate_delta(data_start, end)
                target = b"".join(apply_delta(base_raw, delta))
                child_sha = self._record(type_num, target, start, crc)
                if start in self.by_offset or child_sha in self.by_id:
                    stack.append((target, start, child_sha))

    def _inflate_delta(self, data_start: int, end: int) -> tuple[bytes, int]:
        inflate = zlib.decompressobj()
        return inflate.decompress(self.view[data_start:end]), end

    def _whole_at(self, offset: int) -> bytes:
        view = self.view
        _, size, at = entry_header(view, offset)
        raw, _ = self._inflate(at, size, len(view) - self.oid)
        return raw


def write_index_v2(f, entries: list[tuple[bytes, int, int]], pack_checksum: bytes,
                   hash_func) -> bytes:
    """A version 2 ``.idx`` of ``entries`` (sorted (binary id, offset, CRC32)) into
    ``f``, as dulwich's ``write_pack_index_v2`` writes it, in one write: that one makes
    three small writes per object through a hashing writer; returns the index's
    checksum."""
    count = len(entries)
    fanout = [0] * 256
    for sha, _, _ in entries:
        fanout[sha[0]] += 1
    total = 0
    for i in range(256):
        total += fanout[i]
        fanout[i] = total
    offsets = [offset for _, offset, _ in entries]
    large = [offset for offset in offsets if offset >= 1 << 31]
    if large:
        # Past 2 GiB an offset is an index into the table of 64-bit offsets.
        slots = iter(range(len(large)))
        offsets = [offset if offset < 1 << 31 else (1 << 31) + next(slots)
                   for offset in offsets]
    body = b"".join([
        b"\377tOc", struct.pack(">L", 2), struct.pack(">256L", *fanout),
        b"".join([sha for sha, _, _ in entries]),
        struct.pack(f">{count}L", *[crc for _, _, crc in entries]),
        struct.pack(f">{count}L", *offsets), struct.pack(f">{len(large)}Q", *large),
        pack_checksum])
    checksum = hash_func(body).digest()
    f.write(body)
    f.write(checksum)
    return checksum


def parse_raw(type_num: int, raw: bytes, oid_length: int, sha_hex: bytes, fmt=None):
    """A tree's entries as (name, mode, hex id), a commit's (tree, parents), or a tag
    as dulwich's object.  Trees are parsed by dulwich's parser (malformed ones raise);
    a commit's links are its ``tree`` and ``parent`` headers, which is all dulwich's
    parser takes from them too (it checks nothing more), without parsing identities,
    dates and the message of every commit of the history."""
    if type_num == Tree.type_num:
        try:
            return list(parse_tree(raw, oid_length))
        except ValueError as exc:
            raise ObjectFormatException(exc) from exc
    if type_num == Commit.type_num:
        tree, parents = None, []
        for line in raw.split(b"\n\n", 1)[0].split(b"\n"):
            if line.startswith(b"parent "):
                parents.append(line[7:])
            elif line.startswith(b"tree "):
                tree = line[5:]
        if tree is None:
            raise ObjectFormatException(f"commit {sha_hex.decode()} has no tree")
        return tree, parents
    return ShaFile.from_raw_string(type_num, raw, sha=sha_hex, object_format=fmt)
