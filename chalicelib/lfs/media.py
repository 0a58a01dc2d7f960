"""Git LFS files where a repository's files show: which blobs are pointers to objects
the pool holds, and their bytes for a media answer or an archive.

A blob stands for an LFS file only when it parses as a pointer (``pointers``) *and* the
pool holds the object it names, with the size it names: a pointer whose object was
never uploaded (or a file that merely looks like one) is shown as what git holds,
as Forgejo shows it.  Knowing which objects the pool holds is one BatchGetItem for any
number of pointers (``store.known``), and only blobs below ``pointers.MAX_SIZE`` are
candidates, so a repository without LFS files pays nothing.

A media answer carries the object's bytes when they fit in a buffered Lambda answer
(``inline_limit``), else it redirects to a presigned S3 GET, as large archives do.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass

from chalicelib.lfs import pointers, s3_objects, store
from chalicelib.settings import get_settings

# The proxy result's JSON around the body (status, headers), as for git's answers.
RESULT_OVERHEAD = 4096


@dataclass(frozen=True)
class Held:
    """An LFS object the pool holds, named by a pointer blob."""
    pool_id: int
    oid: str
    size: int


def inline_limit() -> int:
    """The largest object a media answer carries itself: a buffered Lambda answer is at
    most ``[server] BUFFERED_RESPONSE_LIMIT`` bytes of JSON with the body in base64
    (4 bytes per 3).  Applied everywhere, not only in AWS, so the local runtime answers
    as a deployment does."""
    limit = get_settings().server.BUFFERED_RESPONSE_LIMIT
    return max((limit - RESULT_OVERHEAD) * 3 // 4, 0)


def held_many(pool_id: int, blobs: Mapping[Hashable, bytes]) -> dict[Hashable, Held]:
    """The blobs of ``blobs`` (any key -> bytes) that are pointers to objects the pool
    holds; one BatchGetItem per 100 pointers, none when no blob is a pointer."""
    found = {k: p for k, p in ((k, pointers.parse(data)) for k, data in blobs.items())
             if p is not None}
    if not found:
        return {}
    sizes = store.known(int(pool_id), (p.oid for p in found.values()))
    return {k: Held(int(pool_id), p.oid, p.size) for k, p in found.items()
            if sizes.get(p.oid) == p.size}


def held(pool_id: int, data: bytes) -> Held | None:
    """The object ``data`` points to, when it is a pointer and the pool holds it."""
    return held_many(pool_id, {0: data}).get(0)


def read(obj: Held) -> bytes:
    return s3_objects.read(obj.pool_id, obj.oid)


def chunks(obj: Held) -> Iterator[bytes]:
    return s3_objects.chunks(obj.pool_id, obj.oid)


def url(obj: Held, filename: str, *, attachment: bool = False) -> str:
    return s3_objects.download_url(obj.pool_id, obj.oid, filename=filename,
                                   attachment=attachment)
