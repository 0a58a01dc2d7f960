"""Source archives (.zip, .tar.gz, .bundle) of a commit, built once (by
``chalicelib.gitops.archives``) and kept in S3.

The cache key is the resolved commit, so a branch that moves gets a new archive and an
old archive stays valid for its commit.  Large archives are answered in AWS with a
presigned S3 URL, because a Lambda response carries at most 6 MB.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib import aws
from chalicelib.errors import BadInput
from chalicelib.contents.files import open_git, resolve
from chalicelib.settings import get_settings

if TYPE_CHECKING:
    from chalicelib.repos.store import Repo

FORMATS = {".zip": ("zip", "application/zip"), ".tar.gz": ("tar.gz", "application/gzip"),
           ".bundle": ("bundle", "application/octet-stream")}
# Responses above this leave through S3 when running in Lambda (6 MB payload limit).
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
        from chalicelib.gitops.archives import build_archive

        data = build_archive(git.object_store, commit_id, fmt, prefix=f"{repo.name}/")
        # Content-addressed by commit: a concurrent identical build is harmless.
        s3.put_object(Bucket=bucket, Key=key, Body=data, ContentType=content_type)
        size, created = len(data), int(time.time())
    if _in_lambda() and size > DIRECT_LIMIT:
        url = s3.generate_presigned_url("get_object", ExpiresIn=300, Params={
            "Bucket": bucket, "Key": key,
            "ResponseContentDisposition": f'attachment; filename="{filename}"'})
        return Archive(filename, content_type, None, url, commit_id, created)
    if data is None:
        data = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
    return Archive(filename, content_type, data, None, commit_id, created)


def forget_repo(repo_id: int) -> None:
    """Drop every cached archive of a repository (it was deleted); ObjectsNotDeleted
    if S3 refused any (the cleanup consumer fails and its event is retried)."""
    s3, bucket = aws.client("s3"), get_settings().aws.BUCKET
    paginator = s3.get_paginator("list_objects_v2")
    for page in paginator.paginate(Bucket=bucket, Prefix=f"archives/{int(repo_id)}/"):
        aws.delete_objects(bucket, [o["Key"] for o in page.get("Contents", [])])
