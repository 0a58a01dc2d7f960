"""The paths a function takes only in some states, set up for tests/test_iam.py: a merge
scheduled until the checks pass (the event worker merges and signs), a deleted
repository with cached archives and release attachments (the event worker removes
them), a pool of sixty packs with orphaned uploads and a publication that races a sweep
(compaction), and a mirror sync whose pack list names packs swept since it was read.

What is set up here runs outside any function's role (the state a stack would be in);
what the functions then do runs under enforcement in the test.
"""
from __future__ import annotations

import contextlib
import time
import types

PACKS_TO_RETIRE = 60   # more than one retirement transaction holds (49 packs)
ORPHANS = 2


def s3_keys(prefix: str) -> list[str]:
    from chalicelib import aws
    from chalicelib.settings import get_settings

    pages = aws.client("s3").get_paginator("list_objects_v2").paginate(
        Bucket=get_settings().aws.BUCKET, Prefix=prefix)
    return [o["Key"] for page in pages for o in page.get("Contents", [])]


def schedule_merge(api, must, token: str, repo: str) -> int:
    """A pull request whose merge waits for its checks, then a green status: the event
    worker completes the merge (pulls/consumers.py).  Its number."""
    import base64

    must(api.post(f"{repo}/contents/auto.md", token=token, json={
        "content": base64.b64encode(b"# scheduled\n").decode(), "message": "auto",
        "new_branch": "auto"}), 201)
    pull = must(api.post(f"{repo}/pulls", token=token, json={
        "title": "auto", "head": "auto", "base": "main"}), 201)
    scheduled = api.post(f"{repo}/pulls/{pull['number']}/merge", token=token,
                         json={"Do": "merge", "merge_when_checks_succeed": True})
    assert scheduled.status == 201, scheduled
    head = must(api.get(f"{repo}/branches/auto"))["commit"]["id"]
    status = api.post(f"{repo}/statuses/{head}", token=token,
                      json={"state": "success", "context": "ci"})
    assert status.status in (200, 201), status
    return int(pull["number"])


def archive_and_attach(api, must, form, token: str, repo: str) -> int:
    """A cached archive and a release attachment of ``repo`` in S3; the repository's id."""
    from chalicelib.repos import store as repo_store

    assert api.get(f"{repo}/archive/main.zip").status in (200, 302)
    release = must(api.post(f"{repo}/releases", token=token, json={"tag_name": "v1", "name": "v1"}), 201)
    body, headers = form(b"attached\n")
    must(api.post(f"{repo}/releases/{release['id']}/assets", token=token, body=body,
                  headers=headers), 201)
    owner, name = repo.split("/")[-2:]
    repo_id = int(repo_store.get(owner, name).id)
    assert s3_keys(f"archives/{repo_id}/") and s3_keys(f"attachments/{repo_id}/")
    return repo_id


def drop_signing_key() -> None:
    """A stack whose first signed commit is a scheduled merge (its repositories were
    pushed or migrated, none created with files): the worker makes the instance key."""
    from chalicelib import aws
    from chalicelib.settings import get_settings

    aws.client("ssm").delete_parameter(Name=get_settings().aws.SIGNING_KEY_PARAMETER)


def many_packs_and_orphans(pool_id: int) -> list[str]:
    """Sixty packs of objects no ref reaches (pushes to a branch since deleted) and the
    files of pushes that failed before publishing (no item names them); the orphans'
    keys."""
    from dulwich.objects import Blob

    from chalicelib import aws
    from chalicelib.gitstore.models import gitkeys
    from chalicelib.gitstore.objects import S3ObjectStore
    from chalicelib.settings import get_settings

    store = S3ObjectStore(pool_id)
    try:
        for n in range(PACKS_TO_RETIRE):
            store.add_objects([(Blob.from_string(f"unreachable {n}\n".encode()), None)])
    finally:
        store.close()
    s3, orphans = aws.client("s3"), []
    for n in range(ORPHANS):
        name = f"pack-{n:040x}"
        for ext in ("pack", "idx"):
            orphans.append(gitkeys.s3_key(pool_id, name, ext))
            s3.put_object(Bucket=get_settings().aws.BUCKET, Key=orphans[-1], Body=b"partial")
    return orphans


@contextlib.contextmanager
def publication_racing_a_sweep(monkeypatch):
    """The first pack published finds another run of compaction deleting files of the
    same name (an identical upload that never got published, claimed as an orphan): it
    waits for that sweep to end, reading the tombstone, uploads again and publishes.
    Yields the names that raced."""
    from chalicelib.gitstore import packdb
    from chalicelib.gitstore.models import RetiredPack, gitkeys

    publish, sweeping, raced = packdb.publish_pack, [], []

    def racing(pool_id, info, upload):
        if not raced:
            now = time.time()
            tomb = RetiredPack(*gitkeys.retired(pool_id, info.name), retired_at=now,
                               deleting_since=now)
            tomb.save()
            sweeping.append((pool_id, tomb))
            raced.append(info.name)
        return publish(pool_id, info, upload)

    def sleep(seconds: float) -> None:
        if sweeping:            # the other run finishes while this one waits
            packdb._finish_deletion(*sweeping.pop())

    with monkeypatch.context() as patch:
        patch.setattr(packdb, "publish_pack", racing)
        patch.setattr(packdb, "time", types.SimpleNamespace(
            time=time.time, monotonic=time.monotonic, sleep=sleep))
        yield raced


@contextlib.contextmanager
def listing_read_before_a_sweep(monkeypatch, pool_id: int, stale: dict):
    """The mirror sync's first list of ``pool_id`` still names ``stale`` packs, which a
    compaction retired and swept while the sync ran: reading them answers 404, and the
    store reads the list again (dulwich drops a pack whose file disappeared).  Yields
    the pools listed."""
    from chalicelib.gitstore import packdb

    list_packs, calls = packdb.list_packs, []

    def listed(pool):
        current = list_packs(pool)
        first = int(pool) == int(pool_id) and int(pool_id) not in calls
        calls.append(int(pool))
        return {**stale, **current} if first else current

    with monkeypatch.context() as patch:
        patch.setattr(packdb, "list_packs", listed)
        yield calls


def lfs_objects(api, must, token: str, push_body) -> str:
    """Git LFS in alice/demo: an object uploaded, verified and pushed (a pointer), then
    forked into an organization (the event worker gives the fork the object's need); one
    verified and never pushed, one uploaded and never verified (both for the collection).
    Returns the pushed object's id."""
    import base64
    import hashlib
    import json
    import os

    from chalicelib import aws
    from chalicelib.lfs import s3_objects
    from chalicelib.repos import store
    from chalicelib.settings import get_settings

    pool = int(store.get("alice", "demo").pool_id)
    media = {"Content-Type": "application/vnd.git-lfs+json"}
    oids = []
    for verify in (True, True, False):
        data = os.urandom(200)
        oid = hashlib.sha256(data).hexdigest()
        # The client's upload through the presigned URL (the API role's signature).
        aws.client("s3").put_object(
            Bucket=get_settings().aws.BUCKET, Key=s3_objects.incoming_key(pool, oid), Body=data,
            ChecksumAlgorithm="SHA256", ChecksumSHA256=base64.b64encode(
                hashlib.sha256(data).digest()).decode())
        if verify:
            must(api.post("/alice/demo.git/info/lfs/verify", raw=True, token=token, headers=media,
                          body=json.dumps({"oid": oid, "size": 200}).encode()))
        oids.append(oid)
    head = must(api.get("/repos/alice/demo/branches/main"))["commit"]["id"]
    pointer = (f"version https://git-lfs.github.com/spec/v1\noid sha256:{oids[0]}\n"
               "size 200\n").encode()
    pushed = api.post("/alice/demo.git/git-receive-pack", body=push_body({"a.bin": pointer}, head),
                      token=token, raw=True,
                      headers={"Content-Type": "application/x-git-receive-pack-request"})
    assert b"ok refs/heads/main" in pushed.body, pushed
    must(api.post("/orgs", token=token, json={"username": "forkers"}), 201)
    must(api.post("/repos/alice/demo/forks", token=token, json={"organization": "forkers"}), 202)
    return oids[0]


