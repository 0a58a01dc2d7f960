"""The bucket's objects in a dump: what is left out, and copying objects into the
archive and back into a bucket.

Everything in the bucket is copied but what ``LEFT_OUT`` names: packs (``packs/``), Git
LFS objects (``lfs/``), attachments (``attachments/``), avatars (``avatars/``), large
events (``events/``) and whatever a later version stores.  A restored object keeps its
content type and metadata, and its SHA-256 checksum when S3 recorded one (a Git LFS
object's upload is checked against it).
"""
from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from typing import IO

from chalicelib import aws
from chalicelib.backup.archive import ArchiveWriter, object_member
from chalicelib.settings import get_settings

# Prefix -> why a dump leaves it out (the modules that write them say more).
LEFT_OUT = {
    # contents/archives.py
    "archives/": "repository archives are caches, made again on request",
    # lfs/s3_objects.py
    "lfs/incoming/": "Git LFS uploads not verified yet: their clients verify them with "
                     "the instance they uploaded to",
    # git_transport/large_push.py
    "large-push/": "bundles of large pushes not applied yet: their clients apply them on "
                   "the instance they uploaded to",
}
# What GetObject reports of an object that PutObject takes back.
_KEPT = ("ContentType", "ContentEncoding", "ContentDisposition", "ContentLanguage",
         "CacheControl", "Metadata")
_MISSING = ("404", "NoSuchKey", "NotFound")
# Larger restored objects wait in a temporary file instead of memory.
SPOOL_BYTES = 64 * 1024 * 1024


def _s3():
    return aws.client("s3"), get_settings().aws.BUCKET


def left_out(key: str) -> bool:
    return key.startswith(tuple(LEFT_OUT))


def listed() -> Iterator[str]:
    """Every key of the bucket a dump copies, a listing page at a time."""
    s3, bucket = _s3()
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for entry in page.get("Contents", ()):
            if not left_out(entry["Key"]):
                yield entry["Key"]


def bucket_has_objects() -> bool:
    s3, bucket = _s3()
    return bool(s3.list_objects_v2(Bucket=bucket, MaxKeys=1).get("Contents"))


def copy_into(writer: ArchiveWriter, key: str) -> dict | None:
    """The object at ``key`` added to the archive; its description for the manifest,
    None when it is gone (deleted since it was listed)."""
    s3, bucket = _s3()
    try:
        found = s3.get_object(Bucket=bucket, Key=key, ChecksumMode="ENABLED")
    except s3.exceptions.ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in _MISSING:
            return None
        raise
    size = int(found["ContentLength"])
    try:
        writer.add_stream(object_member(key), found["Body"], size)
    finally:
        found["Body"].close()
    described = {"size": size, **{name: found[name] for name in _KEPT if found.get(name)}}
    if found.get("ChecksumSHA256"):
        described["checksum"] = "SHA256"
    return described


def put_back(key: str, stream: IO[bytes], described: dict) -> None:
    """Write an object read from the archive to the bucket, as it was described."""
    s3, bucket = _s3()
    extra = {name: described[name] for name in _KEPT if described.get(name)}
    if described.get("checksum") == "SHA256":
        extra["ChecksumAlgorithm"] = "SHA256"
    with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES) as spool:
        shutil.copyfileobj(stream, spool)
        spool.seek(0)
        s3.put_object(Bucket=bucket, Key=key, Body=spool, **extra)
