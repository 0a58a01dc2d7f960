"""Git LFS scenarios for bench/aws_calls.py (imported there): the batch API and verify
(issue 28).

A batch costs the gateway's two preload rounds and one BatchGetItem for the objects it
names, at any number of them up to the 100 a batch may name: the upload and download
URLs are presigned, which calls nothing (no S3 round trip per object).  Verify adds
the object's record (a repeated verify, or one being collected), one HeadObject of
the upload, its move from ``lfs/incoming/`` to the object's key (CopyObject and
DeleteObject inside S3), and one conditional write.  A batch naming objects the pool
holds but nobody needs yet adds one transaction for all of them (the collection's
race: chalicelib/lfs/collect.py).

A media file costs what the raw file costs when it is no pointer (nothing is asked of
the table or S3 for a blob that does not parse as one); an LFS file adds one
BatchGetItem (does the pool hold the object?) and the GetObject of its bytes.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os

from scene import Req, Scene

LFS = "/alice/demo.git/info/lfs"
MEDIA = "application/vnd.git-lfs+json"
OBJECTS = 5     # per measured batch: the count must not depend on it


def _blob(size: int = 256) -> tuple[bytes, dict]:
    data = os.urandom(size)
    return data, {"oid": hashlib.sha256(data).hexdigest(), "size": size}


def _put(data: bytes, pointer: dict) -> None:
    """What git-lfs does with an upload action (moto in process takes no presigned
    request): the object at its key, with the SHA-256 S3 checks."""
    from chalicelib import aws
    from chalicelib.lfs import s3_objects
    from chalicelib.repos import store
    from chalicelib.settings import get_settings

    pool = int(store.get("alice", "demo").pool_id)
    aws.client("s3").put_object(
        Bucket=get_settings().aws.BUCKET, Key=s3_objects.incoming_key(pool, pointer["oid"]),
        Body=data, ChecksumAlgorithm="SHA256",
        ChecksumSHA256=base64.b64encode(hashlib.sha256(data).digest()).decode())


def _lfs(path: str, auth: str, body: dict, expect_body: bytes) -> Req:
    return Req("POST", f"{LFS}/{path}", auth, data=json.dumps(body).encode(),
               content_type=MEDIA, expect_body=expect_body)


def stored(s: Scene) -> list[dict]:
    """``OBJECTS`` objects uploaded and verified in alice/demo (made once)."""
    def make() -> list[dict]:
        pointers = []
        for _ in range(OBJECTS):
            data, pointer = _blob()
            _put(data, pointer)
            status, out = s.call("POST", f"{LFS}/verify", "token", data=json.dumps(
                pointer).encode(), content_type=MEDIA)
            assert status == 200, (status, out[:200], s.errors.last)
            pointers.append(pointer)
        return pointers
    return s.once("lfs_stored", make)


def batch_requests(s: Scene) -> list[Req]:
    """An upload of objects the pool does not hold (token), a download of objects it
    holds (anonymous: demo is public)."""
    new = [_blob()[1] for _ in range(OBJECTS)]
    return [_lfs("objects/batch", "token", {"operation": "upload", "objects": new},
                 b'"upload"'),
            _lfs("objects/batch", "anon", {"operation": "download", "objects": stored(s)},
                 b'"download"')]


def verify_request(s: Scene) -> list[Req]:
    data, pointer = _blob()
    _put(data, pointer)
    return [_lfs("verify", "token", pointer, pointer["oid"].encode())]


LFS_BRANCH = "lfs-files"


def lfs_file(s: Scene) -> str:
    """The path of a pointer to a stored object, committed once on demo's branch
    ``lfs-files`` (main stays without LFS files: its archive and listings measure what a
    repository without any pays)."""
    def make() -> str:
        pointer = stored(s)[0]
        text = (f"version https://git-lfs.github.com/spec/v1\noid sha256:{pointer['oid']}\n"
                f"size {pointer['size']}\n")
        s.must("POST", "/repos/alice/demo/contents/lfs-object.bin", "token",
               {"content": base64.b64encode(text.encode()).decode(),
                "new_branch": LFS_BRANCH}, expect=201)
        return "lfs-object.bin"
    return s.once("lfs_file", make)


def media_requests(s: Scene) -> list[Req]:
    """A file that is no pointer (anonymous: what every repository without LFS pays),
    and an LFS file carried in the answer (token)."""
    return [Req("GET", "/repos/alice/demo/media/README.md"),
            Req("GET", f"/repos/alice/demo/media/{lfs_file(s)}?ref={LFS_BRANCH}", "token")]


def web_media_requests(s: Scene) -> list[Req]:
    path = f"/alice/demo/media/branch/{LFS_BRANCH}/{lfs_file(s)}"
    return [Req("GET", path), Req("GET", path, "session")]


def scenarios() -> dict:
    return {"lfsBatch": batch_requests, "lfsVerify": verify_request,
            "repoGetRawFileOrLFS": media_requests, "webRepoMedia": web_media_requests}


BUDGETS = {
    # The preload (token and repository, then caller, owner and access), then one
    # BatchGetItem for the objects: issue 28's "one batch <= 3 AWS calls".
    ("lfsBatch", "token"): 3,
    ("lfsBatch", "anon"): 3,
    # The preload, the record, the upload's HeadObject, its move (copy, delete), one
    # conditional write (with the pool check).
    ("lfsVerify", "token"): 7,
    # A media file that is no pointer: the raw file's cost (the preload, the pool's
    # packs); an LFS file: one BatchGetItem more and the object's GetObject.
    ("repoGetRawFileOrLFS", "anon"): 4,
    ("repoGetRawFileOrLFS", "token"): 6,
    # The page's own open of the repository serves the path, then as the API's.
    ("webRepoMedia", "anon"): 6,
    ("webRepoMedia", "session"): 6,
    # An archive of a commit without LFS files (demo's main) costs what it did before
    # archives carried LFS objects: the pointers' BatchGetItem only when there are some.
    ("repoGetArchive", "anon"): 7,
}
