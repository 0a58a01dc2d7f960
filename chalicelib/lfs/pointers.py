"""Git LFS pointer files: the small blob git stores in place of a file kept in LFS.

    version https://git-lfs.github.com/spec/v1
    oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393
    size 12345

Parsed strictly, as git-lfs's own spec says (docs/spec.md), so that an ordinary small
text file that merely mentions a pointer is never taken for one: every line is
``key value`` ending in a newline, ``version`` comes first, the other keys follow in
ascending order (extension keys such as ``ext-0-foo`` are allowed, ours are ``oid`` and
``size``), keys use ``[a-z0-9.-]`` only, the ``oid`` is ``sha256:`` and 64 lower-case
hex characters and the ``size`` is decimal digits.  A pointer is smaller than
``MAX_SIZE`` bytes (git-lfs reads no further), so only blobs below it need reading.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# git-lfs's blobSizeCutoff: a blob this large or larger is never a pointer.
MAX_SIZE = 1024
VERSIONS = (b"https://git-lfs.github.com/spec/v1", b"https://hawser.github.com/spec/v1")
_KEY = re.compile(rb"^[a-z0-9.-]+$")
_OID = re.compile(rb"^sha256:([0-9a-f]{64})$")
_SIZE = re.compile(rb"^[0-9]{1,19}$")


@dataclass(frozen=True)
class Pointer:
    """The object a pointer names: its SHA-256 (hex) and its size in bytes."""
    oid: str
    size: int


def maybe(size: int) -> bool:
    """Whether a blob of ``size`` bytes can be a pointer at all (before reading it)."""
    return 0 < size < MAX_SIZE


def parse(data: bytes) -> Pointer | None:
    """The pointer ``data`` is, or None when it is anything else."""
    if not maybe(len(data)) or not data.endswith(b"\n") or b"\r" in data:
        return None
    pairs = []
    for line in data[:-1].split(b"\n"):
        key, sep, value = line.partition(b" ")
        if not sep or not _KEY.match(key) or not value or value.startswith(b" "):
            return None
        pairs.append((key, value))
    if len(pairs) < 3 or pairs[0][0] != b"version" or pairs[0][1] not in VERSIONS:
        return None
    rest = [key for key, _ in pairs[1:]]
    if rest != sorted(rest) or len(set(rest)) != len(rest) or b"version" in rest:
        return None
    values = dict(pairs[1:])
    oid, size = _OID.match(values.get(b"oid", b"")), values.get(b"size", b"")
    if oid is None or not _SIZE.match(size):
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return Pointer(oid.group(1).decode("ascii"), int(size))
