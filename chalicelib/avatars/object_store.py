"""Uploaded avatars in S3, under ``avatars/`` (``links.AvatarKey.object_key``).

Every function is one S3 call.  An object is written before the item that names it
(a record never points at a missing picture) and removed after the item stops naming
it, best effort: a picture left behind costs storage, never correctness.
"""
from __future__ import annotations

import logging

from chalicelib import aws
from chalicelib.settings import get_settings

log = logging.getLogger("nimbus.avatars")

_MISSING = ("404", "NoSuchKey", "NotFound")


def _s3():
    return aws.client("s3"), get_settings().aws.BUCKET


def put(object_key: str, png: bytes) -> None:
    s3, bucket = _s3()
    s3.put_object(Bucket=bucket, Key=object_key, Body=png, ContentType="image/png")


def read(object_key: str) -> bytes | None:
    """The object's bytes, None when there is none."""
    s3, bucket = _s3()
    try:
        return s3.get_object(Bucket=bucket, Key=object_key)["Body"].read()
    except s3.exceptions.ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in _MISSING:
            return None
        raise


def copy(source_key: str, target_key: str) -> None:
    """The object at ``source_key`` copied to ``target_key`` inside the bucket (the bytes
    never pass through the function)."""
    s3, bucket = _s3()
    s3.copy_object(Bucket=bucket, Key=target_key, ContentType="image/png",
                   MetadataDirective="REPLACE",
                   CopySource={"Bucket": bucket, "Key": source_key})


def remove(object_key: str) -> None:
    s3, bucket = _s3()
    try:
        s3.delete_object(Bucket=bucket, Key=object_key)
    except Exception:  # noqa: BLE001 - the item no longer names it; log the leftover
        log.exception("could not delete the avatar %s", object_key)
