"""Reading single objects of a big remote pack with S3 ranged GETs.

``RangedPackData`` is a dulwich ``PackData`` that has not downloaded its file: reading
one object (what ``get_raw``, ``peel``, thin-pack base resolution and API blob reads
do) fetches only the 64 KiB blocks holding it, kept in a bounded in-memory block cache,
so a delta chain that sits together in the pack costs one or two GETs.  Anything that
scans the whole pack (clone/fetch pack generation, checksums) asks for the mapped
buffer, which downloads the whole file once into the disk cache and switches to it.
"""
from __future__ import annotations

import threading
import zlib
from collections import OrderedDict
from typing import Callable

from dulwich.pack import (DEFAULT_DELTA_BASE_CACHE_LIMIT, OFS_DELTA, REF_DELTA, PackData,
                          UnpackedObject, take_msb_bytes_at, unpack_object_at)

BLOCK_SIZE = 64 * 1024
MAX_CACHED_BYTES = 16 * 1024 * 1024


class RangeReader:
    """Block-aligned reads of a remote file; contiguous missing blocks in one GET."""

    def __init__(self, fetch: Callable[[int, int], bytes], size: int,
                 block_size: int = BLOCK_SIZE, max_cached_bytes: int = MAX_CACHED_BYTES):
        self._fetch = fetch          # fetch(start, end) -> bytes [start, end)
        self.size = size
        self.block_size = block_size
        self._max_blocks = max(2, max_cached_bytes // block_size)
        self._blocks: OrderedDict[int, bytes] = OrderedDict()
        self._lock = threading.Lock()
        self.requests = 0

    def read(self, start: int, end: int) -> bytes:
        end = min(end, self.size)
        if start >= end:
            return b""
        bs = self.block_size
        first, last = start // bs, (end - 1) // bs
        if last - first + 1 > self._max_blocks // 2:
            # Bigger than the cache could sensibly hold: fetch exactly, keep nothing.
            self.requests += 1
            return self._fetch(start, end)
        with self._lock:
            missing = [i for i in range(first, last + 1) if i not in self._blocks]
        if missing:
            lo, hi = missing[0], missing[-1]
            self.requests += 1
            data = self._fetch(lo * bs, min((hi + 1) * bs, self.size))
            with self._lock:
                for i in range(lo, hi + 1):
                    self._blocks[i] = data[(i - lo) * bs:(i - lo + 1) * bs]
                    self._blocks.move_to_end(i)
                while len(self._blocks) > self._max_blocks:
                    self._blocks.popitem(last=False)
        with self._lock:
            parts = []
            for i in range(first, last + 1):
                block = self._blocks.get(i)
                if block is None:  # evicted by a concurrent reader: fetch it again
                    block = self._fetch(i * bs, min((i + 1) * bs, self.size))
                self._blocks[i] = block
                self._blocks.move_to_end(i)
                parts.append(block)
        data = b"".join(parts)
        offset = start - first * bs
        return data[offset:offset + (end - start)]


def _deflate_bound(size: int) -> int:
    # zlib's compressBound(): the most a zlib stream of ``size`` bytes can take.
    return size + (size >> 12) + (size >> 14) + (size >> 25) + 13


class RangedPackData(PackData):
    """A pack's data read by ranges until something needs the whole file."""

    def __init__(self, filename: str, object_format, *, size: int, num_objects: int,
                 checksum: bytes, reader: RangeReader, materialize: Callable[[], PackData]):
        # PackData.__init__ maps the whole file, which is what we avoid: set up the same
        # state by hand (dulwich reads it through the methods overridden below).
        self._filename = filename
        self.object_format = object_format
        self._header_size = 12
        self.delta_window_size = self.window_memory = self.delta_cache_size = None
        self.depth = self.threads = self.big_file_threshold = None
        self.delta_base_cache_limit = None
        self._file = None
        self._close_file = False
        self._contents = None
        self._size = size
        self._num_objects = num_objects
        self._checksum = checksum
        self._reader = reader
        self._materialize = materialize
        self._full: PackData | None = None
        self._full_lock = threading.Lock()
        self._init_offset_cache(DEFAULT_DELTA_BASE_CACHE_LIMIT)

    @property
    def materialized(self) -> bool:
        return self._full is not None

    def _buffer(self):
        # Whole-pack operations land here: download once, then serve from the mapping.
        with self._full_lock:
            if self._full is None:
                self._full = self._materialize()
        return self._full._buffer()

    def read_range(self, start: int, end: int) -> bytes:
        """Bytes [start, end) of the pack without downloading it (through the block
        cache), or from the downloaded file once something needed it whole."""
        with self._full_lock:
            full = self._full
            if full is not None:
                return bytes(full._buffer()[start:end])
        return self._reader.read(start, end)

    def get_stored_checksum(self) -> bytes:
        return self._checksum

    def get_unpacked_object_at(self, offset: int, *, include_comp: bool = False) -> UnpackedObject:
        if self._full is not None:
            return self._full.get_unpacked_object_at(offset, include_comp=include_comp)
        end_of_objects = self._size - self.object_format.oid_length
        head = self._reader.read(offset, min(offset + 64, end_of_objects))
        raw, pos, _ = take_msb_bytes_at(head, 0)
        type_num = (raw[0] >> 4) & 0x07
        size = raw[0] & 0x0F
        for i, byte in enumerate(raw[1:]):
            size += (byte & 0x7F) << (4 + 7 * i)
        if type_num == OFS_DELTA:
            _, pos, _ = take_msb_bytes_at(head, pos)
        elif type_num == REF_DELTA:
            pos += self.object_format.oid_length
        # Up to the file's end, not the objects': dulwich's inflater sees a stream end
        # only with bytes after it, which the checksum gives the pack's last object.
        end = min(offset + pos + _deflate_bound(size) + 1, self._size)
        data = self._reader.read(offset, end)
        try:
            unpacked, _ = unpack_object_at(data, 0, self.object_format.hash_func,
                                           include_comp=include_comp)
        except zlib.error:
            # A stream larger than zlib's bound (another compressor): read the whole pack.
            self._buffer()
            return self._full.get_unpacked_object_at(offset, include_comp=include_comp)
        unpacked.offset = offset
        return unpacked

    def close(self) -> None:
        with self._full_lock:
            if self._full is not None:
                self._full.close()
                self._full = None
