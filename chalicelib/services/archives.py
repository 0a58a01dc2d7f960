"""Source archives (.zip, .tar.gz, .bundle) of a commit, built once and kept in S3.

The cache key is the resolved commit, so a branch that moves gets a new archive and an
old archive stays valid for its commit.  Large archives are answered in AWS with a
presigned S3 URL, because a Lambda response carries at most 6 MB.
"""
from __future__ import annotations

import io
import os
import time
import zipfile
from dataclasses import dataclass

from chalicelib import aws
from chalicelib.services.errors import BadInput
from chalicelib.services.repo_files import open_git, resolve
from chalicelib.settings import get_settings
from chalicelib.store.table import Repo

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


def _walk(git, tree_id: bytes, prefix: str):
    """(path, mode, blob bytes) of every file under a tree, depth first."""
    from dulwich.objects import S_ISGITLINK, Tree

    tree = git[tree_id]
    for entry in tree.iteritems():
        path = f"{prefix}{entry.path.decode('utf-8', 'replace')}"
        if S_ISGITLINK(entry.mode):
            continue  # submodules are not part of an archive
        obj = git[entry.sha]
        if isinstance(obj, Tree):
            yield from _walk(git, entry.sha, path + "/")
        else:
            yield path, entry.mode, obj.as_raw_string()


def _build_zip(git, commit, prefix: str) -> bytes:
    out = io.BytesIO()
    stamp = time.gmtime(max(commit.commit_time, 315532800))[:6]  # zip cannot go before 1980
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for path, mode, data in _walk(git, commit.tree, prefix):
            info = zipfile.ZipInfo(path, date_time=stamp)
            info.external_attr = (mode & 0xFFFF) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return out.getvalue()


def _build_tar_gz(git, commit, prefix: str) -> bytes:
    from dulwich.archive import tar_stream

    chunks = tar_stream(git.object_store, git[commit.tree], commit.commit_time,
                        prefix=prefix.encode(), format="gz")
    return b"".join(chunks)


def _build_bundle(git, commit) -> bytes:
    """A bundle with one branch, ``bundle``, and HEAD at the commit (as Forgejo's)."""
    from types import SimpleNamespace

    from dulwich.bundle import create_bundle_from_repo, write_bundle
    from dulwich.refs import DictRefsContainer

    only = SimpleNamespace(
        refs=DictRefsContainer({b"refs/heads/bundle": commit.id, b"HEAD": commit.id}),
        generate_pack_data=git.generate_pack_data, object_format=git.object_format)
    bundle = create_bundle_from_repo(only, refs=[b"refs/heads/bundle", b"HEAD"])
    out = io.BytesIO()
    write_bundle(out, bundle)
    return out.getvalue()


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
        data = _build(git, commit_id, fmt, repo.name)
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


def _build(git, commit_id: str, fmt: str, repo_name: str) -> bytes:
    commit = git[commit_id.encode()]
    prefix = f"{repo_name}/"
    if fmt == "zip":
        return _build_zip(git, commit, prefix)
    if fmt == "tar.gz":
        return _build_tar_gz(git, commit, prefix)
    return _build_bundle(git, commit)


def forget(repo: Repo) -> None:
    """Drop every cached archive of a repository (it is being deleted)."""
    s3, bucket = aws.client("s3"), get_settings().aws.BUCKET
    paginator = s3.get_paginator("list_objects_v2")
    for page in paginator.paginate(Bucket=bucket, Prefix=f"archives/{int(repo.id)}/"):
        objects = [{"Key": o["Key"]} for o in page.get("Contents", [])]
        if objects:
            s3.delete_objects(Bucket=bucket, Delete={"Objects": objects})
