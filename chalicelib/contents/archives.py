"""Source archives (.zip, .tar.gz, .bundle) of a commit, built once (by
``chalicelib.gitops.archives``) and kept in S3.

The cache key is the resolved commit, so a branch that moves gets a new archive and an
old archive stays valid for its commit.  Large archives are answered in AWS with a
presigned S3 URL, because a Lambda response carries at most 6 MB; they are built into
a spooled file (memory up to ``direct_limit()``, then /tmp) and uploaded from it.  Git
LFS files carry their objects' bytes, copied from S3 while the archive is written.
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib import aws, clock
from chalicelib.contents.files import open_git, resolve
from chalicelib.errors import BadInput
from chalicelib.settings import get_settings

if TYPE_CHECKING:
    from chalicelib.repos import Repo

FORMATS = {".zip": ("zip", "application/zip"), ".tar.gz": ("tar.gz", "application/gzip"),
           ".bundle": ("bundle", "application/octet-stream")}
# Responses above this (or above what a buffered answer carries: direct_limit) leave
# through S3 in Lambda (6 MB payload limit) and in a runtime enforcing its limits.
DIRECT_LIMIT = 5 * 1024 * 1024


@dataclass(frozen=True)
class Archive:
    filename: str
    content_type: str
    data: bytes | None           # the bytes, or None when ``url`` should be followed
    url: str | None
    commit_id: str
    created: int


def split_name(archive: str) -> tuple[str, str]:
    """``main.tar.gz`` -> ("main", "tar.gz"); other suffixes are a 400."""
    for suffix in FORMATS:
        if archive.endswith(suffix) and len(archive) > len(suffix):
            return archive[:-len(suffix)], suffix
    raise BadInput(f"unknown format: {archive}")


def _key(repo: Repo, commit_id: str, fmt: str) -> str:
    return f"archives/{int(repo.id)}/{commit_id}.{fmt}"


def _in_lambda() -> bool:
    return bool(os.environ.get("AWS_LAMBDA_FUNCTION_NAME"))


def _redirects() -> bool:
    """Whether a large archive leaves through S3: in AWS, and in the local runtime
    when it enforces AWS's limits (so a laptop answers as a deployment does)."""
    return _in_lambda() or get_settings().server.ENFORCE_AWS_LIMITS


def direct_limit() -> int:
    """The largest archive answered in the body: ``DIRECT_LIMIT``, within what a
    buffered Lambda answer carries once in base64 (as a media file's)."""
    from chalicelib import lfs

    return min(DIRECT_LIMIT, lfs.inline_limit())


def get_archive(repo: Repo, archive: str) -> Archive:
    ref, suffix = split_name(archive)
    fmt, content_type = FORMATS[suffix]
    git = open_git(repo)
    commit_id = resolve(git, repo, ref).decode()
    s3, bucket, key = aws.client("s3"), get_settings().aws.BUCKET, _key(repo, commit_id, fmt)
    filename = f"{repo.name}-{ref.replace('/', '-')}{suffix}"
    try:
        head = s3.head_object(Bucket=bucket, Key=key)
        size, created = head["ContentLength"], int(head["LastModified"].timestamp())
        data = None
    except s3.exceptions.ClientError as exc:
        if exc.response.get("Error", {}).get("Code") not in ("404", "NoSuchKey", "NotFound"):
            raise
        data, size = _build(s3, bucket, key, repo, git, commit_id, fmt, content_type)
        created = clock.seconds()
    if _redirects() and size > direct_limit():
        url = s3.generate_presigned_url("get_object", ExpiresIn=300, Params={
            "Bucket": bucket, "Key": key,
            "ResponseContentDisposition": f'attachment; filename="{filename}"'})
        return Archive(filename, content_type, None, url, commit_id, created)
    if data is None:
        data = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
    return Archive(filename, content_type, data, None, commit_id, created)


def _build(s3, bucket: str, key: str, repo: Repo, git, commit_id: str, fmt: str,
           content_type: str) -> tuple[bytes | None, int]:
    """Build the archive into S3; its bytes when small enough to answer with (None
    above: the answer is the presigned URL, and the archive was never held whole)."""
    from chalicelib.gitops.archives import build_archive

    limit = direct_limit()
    with tempfile.SpooledTemporaryFile(max_size=limit) as out:
        build_archive(git.object_store, commit_id, fmt, prefix=f"{repo.name}/", out=out,
                      substitutions=_lfs(repo))
        size = out.tell()
        out.seek(0)
        if size <= limit or not _redirects():
            data = out.read()
            # Content-addressed by commit: a concurrent identical build is harmless.
            s3.put_object(Bucket=bucket, Key=key, Body=data, ContentType=content_type)
            return data, size
        s3.upload_fileobj(out, bucket, key, ExtraArgs={"ContentType": content_type})
        return None, size


def _lfs(repo: Repo):
    """Git LFS files carry their objects (Forgejo's archives do): a pointer blob whose
    object the pool holds is replaced by the object's bytes, read from S3 as the
    archive is written; all the pointers of a commit are one BatchGetItem, and a
    commit without any costs nothing more."""
    from chalicelib import lfs
    from chalicelib.gitops.archives import Substitute, Substitutions

    def find(blobs: dict[bytes, bytes]) -> dict[bytes, Substitute]:
        held = lfs.held_many(int(repo.pool_id), blobs)
        return {sha: Substitute(obj.size, lambda obj=obj: lfs.chunks(obj))
                for sha, obj in held.items()}

    return Substitutions(lambda data: lfs.parse_pointer(data) is not None, find)


def forget_repo(repo_id: int) -> None:
    """Drop every cached archive of a repository (it was deleted); ObjectsNotDeleted
    if S3 refused any (the cleanup consumer fails and its event is retried)."""
    s3, bucket = aws.client("s3"), get_settings().aws.BUCKET
    paginator = s3.get_paginator("list_objects_v2")
    for page in paginator.paginate(Bucket=bucket, Prefix=f"archives/{int(repo_id)}/"):
        aws.delete_objects(bucket, [o["Key"] for o in page.get("Contents", [])])
