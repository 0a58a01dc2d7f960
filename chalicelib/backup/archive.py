"""The dump's one file: a tar archive (gzip-compressed when its name ends in ``.gz`` or
``.tgz``) whose members are, in this order::

    FORMAT                    {"format": "nimbus-dump", "version": 1}: read first, so an
                              archive of another version is refused before anything else
    secrets.json              the SSM parameters' names (values only when asked for):
                              a restore puts the keys back before anything could use them
    table/scan-<n>.jsonl      the table's items, one Scan page each (DynamoDB JSON)
    objects/<S3 key>          every object copied, its bytes as they are in the bucket
    table/closing.jsonl       the items read again after the scan (cut.py says which)
    table/outbox.jsonl        events raised but not yet relayed: written last by a restore
    manifest.json             what the dump holds: counts, the source's settings, and the
                              SHA-256 and size of every member above

The manifest comes last because it names every member's hash.  Reading
(``verified``) hashes every member and compares the lot with the manifest before a
restore writes anything: a member cut short, a member whose bytes changed, a member
missing or one the manifest does not name, a missing manifest (the archive ends early)
or another format version is refused with one line that says which.

A dump is written to ``<name>.partial`` and renamed into place once the manifest is in
it, so a dump that failed half-way never leaves a file that looks like a dump.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import tarfile
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

FORMAT = "nimbus-dump"
VERSION = 1
FORMAT_MEMBER = "FORMAT"
MANIFEST_MEMBER = "manifest.json"
OBJECTS_DIR = "objects/"
CHUNK = 1 << 20
# gzip's fastest level: most of a dump is packs and LFS objects, compressed already.
GZIP_LEVEL = 1


class ArchiveRefused(Exception):
    """The archive cannot be restored; the message says why."""


def _compressed(path: Path) -> bool:
    return path.name.endswith((".gz", ".tgz"))


class _Hashing:
    """Reads ``stream`` for tarfile, hashing what passes through."""

    def __init__(self, stream: IO[bytes]):
        self.stream, self.digest, self.size = stream, hashlib.sha256(), 0

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        self.digest.update(data)
        self.size += len(data)
        return data


class ArchiveWriter:
    """Members added one after another; ``finish`` writes the manifest and puts the
    file in place."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.partial = self.path.with_name(self.path.name + ".partial")
        self.members: dict[str, dict] = {}
        self.mtime = int(time.time())
        mode, options = ("w:gz", {"compresslevel": GZIP_LEVEL}) if _compressed(self.path) \
            else ("w", {})
        # Open until finish() or abandon() closes it.
        self._tar = tarfile.open(self.partial, mode, format=tarfile.PAX_FORMAT,  # noqa: SIM115
                                 **options)

    def _info(self, name: str, size: int) -> tarfile.TarInfo:
        if name in self.members or name == MANIFEST_MEMBER:
            raise ValueError(f"member {name} written twice")
        info = tarfile.TarInfo(name)
        info.size, info.mtime, info.mode = size, self.mtime, 0o644
        return info

    def add_bytes(self, name: str, data: bytes) -> None:
        self._tar.addfile(self._info(name, len(data)), io.BytesIO(data))
        self.members[name] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}

    def add_stream(self, name: str, stream: IO[bytes], size: int) -> None:
        """``size`` bytes from ``stream`` (tarfile fails on a shorter stream)."""
        reader = _Hashing(stream)
        self._tar.addfile(self._info(name, size), reader)
        self.members[name] = {"sha256": reader.digest.hexdigest(), "size": reader.size}

    def finish(self, manifest: dict) -> None:
        body = json.dumps({**manifest, "members": self.members}, indent=1,
                          sort_keys=True).encode()
        info = tarfile.TarInfo(MANIFEST_MEMBER)
        info.size, info.mtime, info.mode = len(body), self.mtime, 0o644
        self._tar.addfile(info, io.BytesIO(body))
        self._tar.close()
        with open(self.partial, "rb") as written:
            os.fsync(written.fileno())
        os.replace(self.partial, self.path)

    def abandon(self) -> None:
        with contextlib.suppress(Exception):  # already failing: the partial file goes anyway
            self._tar.close()
        self.partial.unlink(missing_ok=True)


def format_member() -> bytes:
    return json.dumps({"format": FORMAT, "version": VERSION}).encode()


def _check_format(data: bytes, where: str) -> None:
    try:
        said = json.loads(data)
        found, version = said["format"], said["version"]
    except (ValueError, KeyError, TypeError):
        raise ArchiveRefused(f"{where} is not a Nimbus dump's") from None
    if found != FORMAT:
        raise ArchiveRefused(f"not a Nimbus dump (format {found!r})")
    if version != VERSION:
        raise ArchiveRefused(f"unknown dump format version {version!r} (this Nimbus "
                             f"reads version {VERSION})")


@dataclass
class VerifiedArchive:
    path: Path
    manifest: dict

    def members(self) -> Iterator[tuple[str, IO[bytes]]]:
        """Every member but the manifest, in the archive's order, as a stream."""
        with tarfile.open(self.path, "r:*") as tar:
            for info in tar:
                if info.isfile() and info.name != MANIFEST_MEMBER:
                    yield info.name, tar.extractfile(info)


_DAMAGED = (tarfile.TarError, EOFError, zlib.error, OSError)


def verified(path: Path) -> VerifiedArchive:
    """The archive at ``path`` once every member matched its manifest; ArchiveRefused
    otherwise."""
    path = Path(path)
    if not path.is_file():
        raise ArchiveRefused(f"{path} is not a file")
    seen: dict[str, dict] = {}
    manifest_data = None
    try:
        with tarfile.open(path, "r:*") as tar:
            for position, info in enumerate(tar):
                if not info.isfile():
                    raise ArchiveRefused(f"{info.name} is not a file member")
                stream, digest, size = tar.extractfile(info), hashlib.sha256(), 0
                if position == 0:
                    if info.name != FORMAT_MEMBER:
                        raise ArchiveRefused(f"the archive does not start with "
                                             f"{FORMAT_MEMBER}: not a Nimbus dump")
                    _check_format(stream.read(CHUNK), FORMAT_MEMBER)
                    stream.seek(0)
                if info.name == MANIFEST_MEMBER:
                    manifest_data = stream.read()
                    continue
                while chunk := stream.read(CHUNK):
                    digest.update(chunk)
                    size += len(chunk)
                if info.name in seen:
                    raise ArchiveRefused(f"{info.name} appears twice")
                seen[info.name] = {"sha256": digest.hexdigest(), "size": size}
    except ArchiveRefused:
        raise
    except _DAMAGED as exc:
        raise ArchiveRefused(f"the archive is truncated or damaged ({exc})") from None
    if manifest_data is None:
        raise ArchiveRefused("the archive has no manifest: it is truncated")
    try:
        manifest = json.loads(manifest_data)
        listed = manifest["members"]
    except (ValueError, KeyError, TypeError):
        raise ArchiveRefused("the manifest is damaged") from None
    if not isinstance(listed, dict):
        raise ArchiveRefused("the manifest is damaged")
    _check_format(manifest_data, MANIFEST_MEMBER)
    for name, expected in listed.items():
        found = seen.get(name)
        if found is None:
            raise ArchiveRefused(f"{name} is missing: the archive is truncated")
        if found != expected:
            raise ArchiveRefused(f"{name} does not match the manifest's SHA-256 and size: "
                                 "the archive was altered or damaged")
    unlisted = sorted(set(seen) - set(listed))
    if unlisted:
        raise ArchiveRefused(f"{unlisted[0]} is not in the manifest: the archive was altered")
    return VerifiedArchive(path, manifest)


def object_member(key: str) -> str:
    return OBJECTS_DIR + key
