"""The bytes of attachments (of releases, issues and comments) in S3:
``attachments/<repo id>/<uuid>``.

One prefix per repository, so deleting a repository drops every attachment's bytes at
once (``remove_repo``), whichever domain recorded them.  The records stay the domains'
own; this module only moves bytes.  Every function is one S3 call (or none:
presigning is local).
"""
from __future__ import annotations

import logging
from urllib.parse import quote

from chalicelib import aws
from chalicelib.settings import get_settings

log = logging.getLogger("nimbus.attachments")

DOWNLOAD_URL_SECONDS = 300
UPLOAD_URL_SECONDS = 3600
_MISSING = ("404", "NoSuchKey", "NotFound")


def _s3():
    return aws.client("s3"), get_settings().aws.BUCKET


def key(repo_id: int, uuid: str) -> str:
    return f"attachments/{int(repo_id)}/{uuid}"


def put(object_key: str, data: bytes) -> None:
    s3, bucket = _s3()
    s3.put_object(Bucket=bucket, Key=object_key, Body=data,
                  ContentType="application/octet-stream")


def read(object_key: str) -> bytes:
    s3, bucket = _s3()
    return s3.get_object(Bucket=bucket, Key=object_key)["Body"].read()


def read_head(object_key: str, size: int) -> bytes:
    """The first ``size`` bytes (a ranged GetObject)."""
    s3, bucket = _s3()
    return s3.get_object(Bucket=bucket, Key=object_key, Range=f"bytes=0-{size - 1}")["Body"].read()


def size_of(object_key: str) -> int | None:
    """The object's real size (HeadObject), None when nothing was uploaded."""
    s3, bucket = _s3()
    try:
        return int(s3.head_object(Bucket=bucket, Key=object_key)["ContentLength"])
    except s3.exceptions.ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in _MISSING:
            return None
        raise


def upload_url(object_key: str) -> str:
    """A presigned PUT URL for the object (in AWS: S3's endpoint; locally: embedded moto's)."""
    return aws.presigner().generate_presigned_url(
        "put_object", ExpiresIn=UPLOAD_URL_SECONDS,
        Params={"Bucket": get_settings().aws.BUCKET, "Key": object_key})


def download_url(object_key: str, name: str) -> str:
    """A short-lived presigned GET URL that saves the object as ``name``."""
    return aws.presigner().generate_presigned_url("get_object", ExpiresIn=DOWNLOAD_URL_SECONDS, Params={
        "Bucket": get_settings().aws.BUCKET, "Key": object_key,
        "ResponseContentDisposition": content_disposition(name),
        "ResponseContentType": "application/octet-stream"})


def content_disposition(name: str) -> str:
    plain = name.encode("ascii", "replace").decode().replace('"', "'").replace("\\", "_")
    return f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(name, safe='')}"


def remove(object_keys: list[str]) -> None:
    """Delete objects whose records are gone (best effort: an object left behind costs
    storage, never correctness)."""
    keys = [k for k in object_keys if k]
    if not keys:
        return
    _, bucket = _s3()
    try:
        aws.delete_objects(bucket, keys)
    except Exception:  # noqa: BLE001 - the records are gone; log the leftovers
        log.exception("could not delete %d attachment objects", len(keys))


def remove_repo(repo_id: int) -> None:
    """Every object of a deleted repository; ObjectsNotDeleted if S3 refused any (the
    cleanup consumer fails and its event is retried)."""
    s3, bucket = _s3()
    for page in s3.get_paginator("list_objects_v2").paginate(
            Bucket=bucket, Prefix=f"attachments/{int(repo_id)}/"):
        aws.delete_objects(bucket, [o["Key"] for o in page.get("Contents", [])])
