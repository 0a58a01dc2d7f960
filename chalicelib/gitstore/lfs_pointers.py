"""Git LFS pointer files, as git sees them: small blobs that name an object by its
SHA-256 and size (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md).

Received packs are indexed object by object (pack_index.py); a blob under
``MAX_POINTER_SIZE`` that starts with the version line is parsed here, so a push tells
which LFS objects it points at without reading anything again: the LFS domain refuses a
push that names an object storage does not hold, and counts what each repository needs.
The same parser tells the LFS domain which files to show as their objects
(``chalicelib.lfs.pointers``).
"""
from __future__ import annotations

import re
from typing import NamedTuple

# git-lfs's blobSizeCutoff: a blob this large or larger is never a pointer.
MAX_POINTER_SIZE = 1024
VERSIONS = (b"https://git-lfs.github.com/spec/v1", b"https://hawser.github.com/spec/v1")
PREFIXES = tuple(b"version " + version + b"\n" for version in VERSIONS)
_KEY = re.compile(rb"^[a-z0-9.-]+$")
_OID = re.compile(rb"^sha256:([0-9a-f]{64})$")
_SIZE = re.compile(rb"^[0-9]{1,19}$")


class Pointer(NamedTuple):
    """The object a pointer names: its SHA-256 (hex) and its size in bytes."""
    oid: str
    size: int


def looks_like_pointer(raw: bytes) -> bool:
    """The cheap test run on every small received blob."""
    return len(raw) < MAX_POINTER_SIZE and raw.startswith(PREFIXES)


def parse(data: bytes) -> Pointer | None:
    """The pointer ``data`` is, or None when it is anything else.  Strict, as git-lfs's
    spec has it, so an ordinary small file that mentions a pointer is never one: every
    line ``key value`` ending in a newline, ``version`` first, the other keys (extension
    keys such as ``ext-0-foo`` too) in ascending order, keys of ``[a-z0-9.-]``, ``oid``
    ``sha256:`` and 64 lower-case hex characters, ``size`` decimal digits, UTF-8."""
    if not looks_like_pointer(data) or not data.endswith(b"\n") or b"\r" in data:
        return None     # most small files end here, on the version line
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
