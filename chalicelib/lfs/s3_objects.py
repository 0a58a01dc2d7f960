"""The bytes of Git LFS objects in S3: ``lfs/<pool id>/<oid[0:2]>/<oid[2:4]>/<oid>``,
and uploads not yet verified at ``lfs/incoming/<pool id>/<oid>``.

Content-addressed per object pool, like the packs: a fork shares its parent's pool, so
it shares the objects too, and one upload serves every repository of the pool.  The
two levels of prefix keep S3's per-prefix request rates spread over a busy pool.

The bytes never pass through Lambda: clients PUT and GET them with presigned URLs.  An
upload URL is signed for one key, its exact ``Content-Length`` and its SHA-256 (the
``x-amz-checksum-sha256`` header, which S3 checks against the body and records), so it
cannot write another key, another size or other bytes.  Presigning makes no AWS call.

Uploads land under ``incoming/`` and verify moves them to the object's key (a copy
inside S3): so what is under an object's key was always verified, an upload never
overwrites an object being collected, and what was uploaded but never verified is
found by listing ``incoming/`` alone (``collect``), never the whole store.

Reads: ``head`` (verify), and ``read``/``chunks`` (GetObject), by which media
answers and archives carry an object's bytes.
"""
from __future__ import annotations

import base64
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import quote

from chalicelib import aws
from chalicelib.settings import get_settings

PREFIX = "lfs/"
INCOMING = f"{PREFIX}incoming/"
# Long enough for a slow upload of a large object to start; short enough that a URL
# copied out of a log is soon useless.
UPLOAD_URL_SECONDS = 3600
DOWNLOAD_URL_SECONDS = 3600
# S3 takes at most 5 GiB in one PUT; the basic transfer is one PUT per object.
S3_SINGLE_PUT_LIMIT = 5 * 1024 ** 3
READ_CHUNK = 1024 * 1024
_MISSING = ("404", "NoSuchKey", "NotFound")


@dataclass(frozen=True)
class Stored:
    """What S3 holds at an object's key: its size and the SHA-256 it checked on upload
    (base64, as S3 reports it; None when the object was written without one)."""
    size: int
    sha256: str | None


def key(pool_id: int, oid: str) -> str:
    return f"{PREFIX}{int(pool_id)}/{oid[0:2]}/{oid[2:4]}/{oid}"


def incoming_key(pool_id: int, oid: str) -> str:
    return f"{INCOMING}{int(pool_id)}/{oid}"


def sha256_header(oid: str) -> str:
    """The object id (hex SHA-256) as S3's checksum header spells it (base64)."""
    return base64.b64encode(bytes.fromhex(oid)).decode("ascii")


def upload_headers(oid: str) -> dict[str, str]:
    """The headers an upload must send: signed into its URL, so S3 refuses it without
    them; with them S3 refuses a body whose SHA-256 is not ``oid``."""
    return {"x-amz-checksum-sha256": sha256_header(oid),
            "x-amz-sdk-checksum-algorithm": "SHA256"}


def upload_url(pool_id: int, oid: str, size: int) -> str:
    return aws.presigner().generate_presigned_url("put_object", ExpiresIn=UPLOAD_URL_SECONDS, Params={
        "Bucket": get_settings().aws.BUCKET, "Key": incoming_key(pool_id, oid), "ContentLength": size,
        "ChecksumSHA256": sha256_header(oid), "ChecksumAlgorithm": "SHA256"})


def download_url(pool_id: int, oid: str, *, filename: str | None = None,
                 attachment: bool = False) -> str:
    """A presigned GET; ``filename``: the name S3 gives the download (a media file's
    redirect), inline unless ``attachment``."""
    params = {"Bucket": get_settings().aws.BUCKET, "Key": key(pool_id, oid),
              "ResponseContentType": "application/octet-stream"}
    if filename is not None:
        kind = "attachment" if attachment else "inline"
        params["ResponseContentDisposition"] = f"{kind}; filename*=UTF-8''{quote(filename)}"
    return aws.presigner().generate_presigned_url("get_object", ExpiresIn=DOWNLOAD_URL_SECONDS,
                                                  Params=params)


def read(pool_id: int, oid: str) -> bytes:
    """The object's bytes (one GetObject): for answers small enough to carry them."""
    return aws.client("s3").get_object(Bucket=get_settings().aws.BUCKET,
                                       Key=key(pool_id, oid))["Body"].read()


def chunks(pool_id: int, oid: str, size: int = READ_CHUNK) -> Iterator[bytes]:
    """The object's bytes in pieces of ``size`` (one GetObject, read as it is
    consumed): an archive copies a large object without holding it whole."""
    body = aws.client("s3").get_object(Bucket=get_settings().aws.BUCKET,
                                       Key=key(pool_id, oid))["Body"]
    try:
        while True:
            piece = body.read(size)
            if not piece:
                return
            yield piece
    finally:
        body.close()


def head(pool_id: int, oid: str, *, incoming: bool = False) -> Stored | None:
    """What S3 holds for the object (one HeadObject), None when nothing is there;
    ``incoming``: the upload waiting for verify."""
    s3 = aws.client("s3")
    where = incoming_key(pool_id, oid) if incoming else key(pool_id, oid)
    try:
        found = s3.head_object(Bucket=get_settings().aws.BUCKET, Key=where,
                               ChecksumMode="ENABLED")
    except s3.exceptions.ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in _MISSING:
            return None
        raise
    return Stored(int(found["ContentLength"]), found.get("ChecksumSHA256"))


def accept_incoming(pool_id: int, oid: str) -> None:
    """Move a verified upload to the object's key (CopyObject keeps the bytes in S3; S3
    computes the SHA-256 again for the copy), then remove the upload."""
    s3, bucket = aws.client("s3"), get_settings().aws.BUCKET
    s3.copy_object(Bucket=bucket, Key=key(pool_id, oid), ChecksumAlgorithm="SHA256",
                   CopySource={"Bucket": bucket, "Key": incoming_key(pool_id, oid)})
    s3.delete_object(Bucket=bucket, Key=incoming_key(pool_id, oid))


def delete(pool_id: int, oid: str) -> None:
    delete_key(key(pool_id, oid))


def stale_incoming(before: float, page: int = 1000):
    """Uploads never verified, last written before ``before`` (unix s): the keys, a
    listing page at a time."""
    s3, bucket = aws.client("s3"), get_settings().aws.BUCKET
    pages = s3.get_paginator("list_objects_v2").paginate(
        Bucket=bucket, Prefix=INCOMING, PaginationConfig={"PageSize": page})
    for listing in pages:
        for entry in listing.get("Contents", ()):
            if entry["LastModified"].timestamp() < before:
                yield entry["Key"]


def delete_keys(object_keys) -> int:
    """Delete keys, 1,000 a request (how many were asked for)."""
    return aws.delete_objects(get_settings().aws.BUCKET, object_keys)


def delete_key(object_key: str) -> None:
    aws.client("s3").delete_object(Bucket=get_settings().aws.BUCKET, Key=object_key)
