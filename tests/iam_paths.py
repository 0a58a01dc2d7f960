"""The paths a function takes only in some states, set up for tests/test_iam.py: a merge
scheduled until the checks pass (the event worker merges and signs), a deleted
repository with cached archives and release attachments (the event worker removes
them), a pool of sixty packs with orphaned uploads and a publication that races a sweep
(compaction), and a mirror sync whose pack list names packs swept since it was read;
push mirrors and a pull mirror behind Basic auth (their credentials sealed with the
session key), a project migration run as queued turns from an in-memory source, and a
wiki of several packs.

What is set up here runs outside any function's role (the state a stack would be in);
what the functions then do runs under enforcement in the test.
"""
from __future__ import annotations

import base64
import contextlib
import time
import types
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.iam_harness import Stack

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


def run_compactions(stack: Stack, pack_compaction, mirror_pool: int, monkeypatch) -> dict:
    """Two daily runs of compaction.  The first retires demo's sixty-odd packs (more than
    one transaction holds), publishes their garbage while another run's sweep of the same
    name ends, sweeps orphaned uploads and compacts demo's wiki (a pool of its own); the
    second sweeps what the first retired.
    Returns the mirror pool's pack list from before them: packs now swept."""
    from chalicelib import clock
    from chalicelib.gitstore import packdb
    from chalicelib.repos import store as repo_store
    from tests.iam_harness import schedule_event

    demo_pool = int(repo_store.get("alice", "demo").pool_id)
    orphans = many_packs_and_orphans(demo_pool)
    wiki = wiki_packs(int(repo_store.get("alice", "demo").id))
    assert len(wiki) >= 2, wiki
    retiring, stale = packdb.list_packs(demo_pool), packdb.list_packs(mirror_pool)
    assert len(retiring) > PACKS_TO_RETIRE and stale
    for days in (2, 4):
        racing = publication_racing_a_sweep(monkeypatch) if days == 2 else \
            contextlib.nullcontext([])
        with clock.frozen(time.time() + days * 86400), racing as raced, \
                stack.run_as("PackCompaction"):
            assert pack_compaction(schedule_event(), None)["compacted"] >= 1
        if days == 2:
            assert raced and not set(retiring) & set(packdb.list_packs(demo_pool))
            # The wiki's own pool was compacted too (its refs only under REFS#wiki-<id>).
            assert not set(wiki) & set(wiki_packs(
                int(repo_store.get("alice", "demo").id)))
            assert not set(orphans) & set(s3_keys(f"packs/{demo_pool}/"))
    swept = s3_keys(f"packs/{mirror_pool}/")
    assert not [name for name in stale if any(name in key for key in swept)]
    return stale


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




# --- remotes behind Basic auth, project migrations, wikis -----------------------------

PULL_AUTH = ("puller", "s3cret-pull-pass")
PUSH_AUTH = ("pusher", "s3cret-push-pass")
PUSH_TARGETS = ("onpush", "scheduled")


@contextlib.contextmanager
def guarded_remotes(source_root: Path, scratch: Path, git):
    """C git's http-backend behind Basic auth twice: the pull mirror's source (the same
    bare repositories as ``source_root``) and empty targets for push mirrors.  Yields
    {"pull": base URL, "push": base URL, "targets": {name: bare path}}."""
    from tests.git_backend import serve_http_backend

    root = scratch / "push-targets"
    root.mkdir()
    targets = {}
    for name in PUSH_TARGETS:
        targets[name] = root / f"{name}.git"
        git("init", "-q", "--bare", "-b", "main", str(targets[name]))
        git("-C", str(targets[name]), "config", "http.receivepack", "true")
    pulls, pull_url = serve_http_backend(source_root, credentials=PULL_AUTH)
    pushes, push_url = serve_http_backend(root, credentials=PUSH_AUTH)
    try:
        yield {"pull": pull_url, "push": push_url, "targets": targets}
    finally:
        pulls.shutdown()
        pushes.shutdown()


def add_push_mirrors(api, must, token: str, repo: str, guarded: dict) -> None:
    """One push mirror that syncs on every push (the event worker's ``push-mirrors``
    consumer) and one on a schedule, due at once (the mirror sync)."""
    for name in PUSH_TARGETS:
        must(api.post(f"{repo}/push_mirrors", token=token, json={
            "remote_address": f"{guarded['push']}/{name}.git",
            "remote_username": PUSH_AUTH[0], "remote_password": PUSH_AUTH[1],
            "sync_on_commit": name == "onpush",
            "interval": "0" if name == "onpush" else "10m"}))


def push_mirrors_synced(repo_id: int, git, guarded: dict) -> None:
    """Both mirrors pushed without an error, and each target has our branches."""
    from chalicelib import contents
    from chalicelib.repo_admin import push_mirror_store

    mirrors = push_mirror_store.list_mirrors(repo_id)
    assert len(mirrors) == 2 and all(m.last_update and not m.last_error for m in mirrors), \
        [(m.remote_address, m.last_error) for m in mirrors]
    ours = {b.name for b in contents.branch_infos(repo_id, consistent=True)}
    for bare in guarded["targets"].values():
        theirs = {line.split("refs/heads/", 1)[1] for line in
                  git("for-each-ref", "--format=%(refname)", "refs/heads/",
                      cwd=bare).splitlines()}
        assert theirs and theirs <= ours, (bare, theirs, ours)


def start_project_migration(api, must, token: str, name: str, clone_addr: str) -> None:
    """A project migration (gitea, with its wiki and releases) whose first turn is
    queued (``INLINE_SECONDS`` 0), the token sealed with the session key."""
    made = must(api.post("/repos/migrate", token=token, json={
        "clone_addr": clone_addr, "repo_name": name, "service": "gitea",
        "auth_token": "s3cret-token-value", "releases": True, "wiki": True}), 201)
    assert made["full_name"] == f"alice/{name}"
    status = must(api.get(f"/repos/alice/{name}/migration", token=token))
    assert status["status"] == "queued", status


def migration_status(api, must, token: str, name: str) -> dict:
    return must(api.get(f"/repos/alice/{name}/migration", token=token))


def wiki_pages(api, must, token: str, repo: str) -> None:
    """Two wiki commits: two packs in the wiki's own pool, for compaction."""
    for title in ("Home", "Second"):
        must(api.post(f"{repo}/wiki/new", token=token, json={
            "title": title, "message": f"add {title}",
            "content_base64": base64.b64encode(f"# {title}\n".encode()).decode()}), 201)


def oauth2_tokens(api, must, token: str) -> None:
    """An OAuth2 application, alice's consent and a code exchanged for tokens with an
    ID token (the first one makes the ID token key), then a refresh."""
    from tests.oauth2.test_provider import REDIRECT, code_for, exchange, token_request
    from tests.web.test_web_actions import WebUser

    app = must(api.post("/user/applications/oauth2", token=token, json={
        "name": "ci", "redirect_uris": [REDIRECT]}), 201)
    code, verifier = code_for(WebUser(api).sign_in("alice"), app)
    issued = must(exchange(api, app, code, verifier))
    assert issued["id_token"]
    must(token_request(api, {"grant_type": "refresh_token",
                             "refresh_token": issued["refresh_token"]},
                       auth=(app["client_id"], app["client_secret"])))
    must(api.request("GET", "/login/oauth/keys", raw=True))


def wiki_packs(repo_id: int) -> list[str]:
    from chalicelib.gitstore import packdb
    from chalicelib.wiki.gitrepo import wiki_id_of

    return sorted(packdb.list_packs(wiki_id_of(repo_id)))
