"""Git LFS pointer files, as git sees them: small blobs that name an object by its
SHA-256 and size (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md).

Received packs are indexed object by object (pack_index.py); a blob under
``MAX_POINTER_SIZE`` that starts with the version line is parsed here, so a push tells
which LFS objects it points at without reading anything again: the LFS domain refuses a
push that names an object storage does not hold, and counts what each repository needs.
"""
from __future__ import annotations

import re
from typing import NamedTuple

# git-lfs never writes a pointer of 1024 bytes or more, and reads none.
MAX_POINTER_SIZE = 1024
PREFIX = b"version https://git-lfs.github.com/spec/v1\n"
# The spec: "version" first, then the other keys sorted, one "key value" per line, LF
# ended; oid and size are required.  Extension lines ("ext-0-…") sort before "oid".
_LINE = re.compile(rb"^([a-z0-9.-]+) ([^\r\n]*)$")
_OID = re.compile(rb"^sha256:([0-9a-f]{64})$")
_SIZE = re.compile(rb"^(0|[1-9][0-9]{0,18})$")


class Pointer(NamedTuple):
    oid: str
    size: int


def looks_like_pointer(raw: bytes) -> bool:
    """The cheap test run on every small received blob."""
    return len(raw) < MAX_POINTER_SIZE and raw.startswith(PREFIX)


def parse(raw: bytes) -> Pointer | None:
    """The pointer a blob is, or None when it is not exactly one."""
    if not looks_like_pointer(raw) or not raw.endswith(b"\n"):
        return None
    fields: dict[bytes, bytes] = {}
    keys: list[bytes] = []
    for line in raw[len(PREFIX):-1].split(b"\n"):
        found = _LINE.match(line)
        if found is None or found.group(1) in fields or found.group(1) == b"version":
            return None
        keys.append(found.group(1))
        fields[found.group(1)] = found.group(2)
    if keys != sorted(keys):
        return None
    oid = _OID.match(fields.get(b"oid", b""))
    size = _SIZE.match(fields.get(b"size", b""))
    if oid is None or size is None:
        return None
    return Pointer(oid.group(1).decode("ascii"), int(size.group(1)))
