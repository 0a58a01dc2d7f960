"""The write-ahead journal of the embedded moto: each AWS request that changed state.

``moto_backend.JournaledBackend`` appends a request here after moto applied it and
before its answer goes back to the client, and waits until the record is on disk
(``sync``); at start ``state.py`` replays the records into a moto restored from the
snapshot they follow.

A record is the request as moto's WSGI app saw it (its environ's text entries, the
original spelling of headers with underscores, the body), so replaying it takes the
same code path as the original.  On disk::

    record  = magic "NJR1" | payload length (u32, big-endian) | crc32(payload) (u32) | payload
    payload = meta length (u32) | meta (JSON) | body (raw bytes)

A crash in the middle of an append leaves a torn last record: a short header, a short
payload or a checksum that does not match.  Opening the journal finds the end of the
last whole record, cuts the file there (the torn record was never acknowledged: its
client was still waiting for the sync) and appends after it.

Durability is a group commit: appends only ``write()``; ``sync(position)`` makes sure
everything up to ``position`` reached the disk with one ``fdatasync`` that covers every
record appended so far, so concurrent writers share one flush.  ``sync=False`` leaves
the flushing to the OS: a killed process loses nothing (the page cache survives it),
a power cut may lose the last acknowledged writes.
"""
from __future__ import annotations

import io
import json
import logging
import os
import struct
import threading
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

log = logging.getLogger("nimbus.local")

MAGIC = b"NJR1"
_HEADER = struct.Struct(">4sII")
_META_LENGTH = struct.Struct(">I")
_READ_CHUNK = 1 << 20


class JournalClosed(RuntimeError):
    """The journal no longer takes records (the runtime is stopping)."""


@dataclass
class Record:
    """One request: ``environ`` holds the WSGI environ's text entries (PATH_INFO,
    QUERY_STRING, RAW_URI, HTTP_*, ...); ``header_names`` moto's record of header names
    spelt with underscores; ``upload_id`` the id moto answered a CreateMultipartUpload
    with (replay maps it to the new one)."""
    environ: dict[str, str]
    body: bytes = b""
    header_names: dict[str, str] = field(default_factory=dict)
    upload_id: str | None = None
    service: str | None = None

    def encode(self) -> bytes:
        meta = {"environ": self.environ, "service": self.service}
        if self.header_names:
            meta["header_names"] = self.header_names
        if self.upload_id:
            meta["upload_id"] = self.upload_id
        meta_bytes = json.dumps(meta, separators=(",", ":")).encode("utf-8")
        payload = b"".join((_META_LENGTH.pack(len(meta_bytes)), meta_bytes, self.body))
        return _HEADER.pack(MAGIC, len(payload), zlib.crc32(payload)) + payload

    @classmethod
    def decode(cls, payload: bytes) -> "Record":
        meta, body_start = _meta(payload)
        return cls(environ=meta["environ"], body=payload[body_start:],
                   header_names=meta.get("header_names") or {},
                   upload_id=meta.get("upload_id"), service=meta.get("service"))

    def describe(self) -> str:
        target = self.environ.get("HTTP_X_AMZ_TARGET")
        path = self.environ.get("PATH_INFO", "")
        return f"{self.environ.get('REQUEST_METHOD', '?')} {path} {target or ''}".rstrip()


def _meta(payload: bytes) -> tuple[dict, int]:
    """A payload's meta, and where its body starts."""
    (meta_length,) = _META_LENGTH.unpack_from(payload)
    start = _META_LENGTH.size
    return json.loads(payload[start:start + meta_length]), start + meta_length


def _read_exactly(fh: io.BufferedReader, size: int) -> bytes:
    data = fh.read(size)
    return data if len(data) == size else b""


def _whole_records(path: Path) -> Iterator[tuple[int, bytes]]:
    """(end offset, payload) of each whole record, stopping at the first torn one."""
    try:
        fh = open(path, "rb", buffering=_READ_CHUNK)
    except FileNotFoundError:
        return
    with fh:
        offset = 0
        while True:
            header = _read_exactly(fh, _HEADER.size)
            if not header:
                return
            magic, length, checksum = _HEADER.unpack(header)
            if magic != MAGIC:
                return
            payload = _read_exactly(fh, length)
            if len(payload) != length or zlib.crc32(payload) != checksum:
                return
            offset += _HEADER.size + length
            yield offset, payload


def read_records(path: Path) -> Iterator[Record]:
    """The whole records of the journal at ``path``, oldest first."""
    for _, payload in _whole_records(path):
        yield Record.decode(payload)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


class Journal:
    """The journal file of one snapshot generation, open for appending.  ``records``
    counts the records in it, ``services`` names the services they wrote to."""

    def __init__(self, path: Path, *, sync: bool = True):
        self.path = Path(path)
        self._sync_enabled = sync
        self.records = 0
        self.services: set[str | None] = set()
        end = 0
        for end, payload in _whole_records(self.path):
            self.records += 1
            self.services.add(_meta(payload)[0].get("service"))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o644)
        size = os.fstat(self._fd).st_size
        if size > end:
            log.warning("%s: dropping %d bytes after the last whole record (a write "
                        "interrupted by a crash; it was never acknowledged)",
                        self.path, size - end)
            os.ftruncate(self._fd, end)
        os.lseek(self._fd, end, os.SEEK_SET)
        os.fsync(self._fd)
        self._written = self._synced = end
        self._append_lock = threading.Lock()
        self._sync_lock = threading.Lock()
        self._closed = False

    @property
    def size(self) -> int:
        return self._written

    def append(self, record: Record) -> int:
        """Write ``record``; the position to pass to :meth:`sync`."""
        frame = record.encode()
        with self._append_lock:
            if self._closed:
                raise JournalClosed(str(self.path))
            try:
                _write_all(self._fd, frame)
            except BaseException:
                # Never leave half a record in the middle: later ones would be lost
                # behind it at replay.
                os.ftruncate(self._fd, self._written)
                os.lseek(self._fd, self._written, os.SEEK_SET)
                raise
            self._written += len(frame)
            self.records += 1
            self.services.add(record.service)
            return self._written

    def sync(self, position: int) -> None:
        """Return once everything up to ``position`` is on disk."""
        if not self._sync_enabled or self._synced >= position:
            return
        with self._sync_lock:
            # Closed: close() flushed it, or a newer snapshot holds these writes.
            if self._closed or self._synced >= position:
                return
            with self._append_lock:
                target = self._written
            os.fdatasync(self._fd)
            self._synced = target

    def close(self) -> None:
        """Flush and close; later appends raise :class:`JournalClosed`."""
        with self._sync_lock, self._append_lock:
            if self._closed:
                return
            self._closed = True
            try:
                os.fsync(self._fd)
            finally:
                os.close(self._fd)
