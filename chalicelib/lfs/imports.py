"""Git LFS objects that come from another server (a migration, a pull mirror's sync),
stored as an upload and verify would store them.

The client that downloads them is the migration's (``repo_admin.lfs_fetch``): it
checks every connection with the network guard and hashes what it reads.  Here:

- ``plan``: which of the objects the fetched pointers name to download (the pool may
  hold some already; an object above ``service.max_object_size()`` is skipped, as
  Forgejo skips objects above ``LFS_MAX_FILE_SIZE``);
- ``put``: the bytes into S3 under ``incoming/``, as an upload lands, with their size
  and SHA-256, so S3 itself refuses other bytes under the id;
- ``record``: as verify, the upload moved to the object's key and the object's item
  written (``store.stage_record``), which needs the pool's item: a migration puts the
  bytes before the repository (and its pool) is written, and records them once it is;
  an object the pool holds already is not written again, and one being collected is
  not recorded (its key may lose its bytes any moment);
- ``discard_pool``: a migration that fails removes the uploads it put (nothing was
  recorded: the pool never existed).

The caller then tells ``needs`` what the repository points at (an object stays idle
until then, as an upload does until its push).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import BinaryIO

from chalicelib import aws
from chalicelib.lfs import s3_objects, store
from chalicelib.lfs.service import POOL_GONE, RECORDED, REFUSED, max_object_size, record_upload
from chalicelib.settings import get_settings

log = logging.getLogger("nimbus.lfs")

__all__ = ["Plan", "plan", "put", "record", "store_object", "discard_pool",
           "RECORDED", "REFUSED", "POOL_GONE"]


@dataclass
class Plan:
    """``held``: objects the pool holds already (oid -> size); ``fetch``: to download;
    ``too_large``: above the largest object this server takes, not fetched."""
    held: dict[str, int] = field(default_factory=dict)
    fetch: dict[str, int] = field(default_factory=dict)
    too_large: dict[str, int] = field(default_factory=dict)


def plan(pool_id: int, pointers: dict[str, int]) -> Plan:
    """What to download of ``pointers`` (oid -> size, as the pointer blobs say)."""
    found = Plan()
    known = store.known(int(pool_id), pointers) if pointers else {}
    limit = max_object_size()
    for oid, size in pointers.items():
        if oid in known:
            found.held[oid] = known[oid]
        elif size > limit:
            log.info("LFS object %s (%d bytes) not fetched: more than the %d an object may "
                     "have here", oid, size, limit)
            found.too_large[oid] = size
        else:
            found.fetch[oid] = size
    return found


def put(pool_id: int, oid: str, size: int, file: BinaryIO) -> None:
    """The object's bytes (read from ``file``'s start) into S3 as an upload waiting for
    ``record``.  S3 checks them against the size and the SHA-256 the id is, and refuses
    anything else."""
    file.seek(0)
    aws.client("s3").put_object(
        Bucket=get_settings().aws.BUCKET, Key=s3_objects.incoming_key(int(pool_id), oid),
        Body=file, ContentLength=int(size), ChecksumAlgorithm="SHA256",
        ChecksumSHA256=s3_objects.sha256_header(oid))


def record(pool_id: int, oid: str, size: int) -> str:
    """Record a ``put`` object as verify records an upload (``service.record_upload``)."""
    return record_upload(pool_id, oid, size)


def store_object(pool_id: int, oid: str, size: int, file: BinaryIO) -> str:
    """``put`` and ``record``: the object of a pool that exists (a mirror's sync)."""
    put(pool_id, oid, size, file)
    return record(pool_id, oid, size)


def discard_pool(pool_id: int) -> None:
    """Remove the uploads of a pool that was never written (a failed migration's: its
    objects were put but never recorded)."""
    bucket = get_settings().aws.BUCKET
    pages = aws.client("s3").get_paginator("list_objects_v2").paginate(
        Bucket=bucket, Prefix=s3_objects.incoming_key(int(pool_id), ""))
    for page in pages:
        aws.delete_objects(bucket, [found["Key"] for found in page.get("Contents", [])])
