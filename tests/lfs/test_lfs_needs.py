"""What repositories need of their pool's Git LFS objects, under moto: a push naming an
object storage lacks is refused; the objects a push points at count once per owner in
``size:git:lfs`` and in the repository's ``size``; forks need what their parent needed;
deleting the last repository that needs an object leaves it idle, and the collection
removes it after the grace period, never before and never one a batch named meanwhile.
"""
from __future__ import annotations

import time

import pytest

from chalicelib import clock
from chalicelib.jobs import consumers
from chalicelib.lfs import collect, s3_objects
from chalicelib.lfs.store import LfsObject, object_key
from chalicelib.store import outbox
from tests.lfs.test_batch import batch, blob, lfs, pool_of, pushed, upload_to_s3
from tests.test_iam import bench_git

GRACE = 86_400


def pointer(oid: str, size: int) -> bytes:
    return f"version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {size}\n".encode()


def head(api, token, repo="alice/open") -> str | None:
    r = api.get(f"/repos/{repo}/branches/main", token=token)
    return r.json["commit"]["id"] if r.status == 200 else None


def push(api, token, files: dict[str, bytes], repo="alice/open"):
    return api.post(f"/{repo}.git/git-receive-pack", raw=True, token=token,
                    body=bench_git().receive_pack_body(files, head(api, token, repo)),
                    headers={"Content-Type": "application/x-git-receive-pack-request"})


def run_events() -> None:
    """What the queue worker would do with every event waiting (forks, deletions)."""
    while True:
        items = list(outbox.pending(older_than=time.time() + 3600))
        if not items:
            return
        outbox.remove(items)
        for item in items:
            consumers.handle_message(outbox.message_of(item))


def usage(owner_id: int) -> int:
    from chalicelib.quota import store as quota_store
    return quota_store.get_usage(owner_id, consistent=True).counts["git_lfs"]


def record(pool_id: int, oid: str) -> LfsObject | None:
    try:
        return LfsObject.get(*object_key(pool_id, oid), consistent_read=True)
    except LfsObject.DoesNotExist:
        return None


def in_s3(pool_id: int, oid: str) -> bool:
    return s3_objects.head(pool_id, oid) is not None


def account_id(api, login: str) -> int:
    from chalicelib.accounts import store as account_store
    return int(account_store.get_by_name(login).id)


def test_a_push_naming_an_object_storage_lacks_is_refused(api, tokens):
    token = tokens["alice"]
    _, oid = blob(2048)                                # never uploaded
    r = push(api, token, {"big.bin": pointer(oid, 2048)})
    assert r.status == 200 and b"pre-receive hook declined" in r.body, r.body
    # (What git prints, "remote: ... not stored here", is test_lfs_git's.)
    assert head(api, token) is None                    # no ref moved
    data, stored = pushed(api, tokens, size=100)
    r = push(api, token, {"big.bin": pointer(stored, 101)})   # a size that is not its size
    assert b"pre-receive hook declined" in r.body, r.body
    r = push(api, token, {"big.bin": pointer(stored, 100), "notes.txt": b"plain\n"})
    assert b"ok refs/heads/main" in r.body, r.body


def test_pointers_in_plain_files_that_are_not_pointers_are_ignored(api, tokens):
    # The version line alone, or a pointer with a malformed oid, is just a file.
    r = push(api, tokens["alice"], {
        "doc.md": b"version https://git-lfs.github.com/spec/v1\nThis explains the format.\n",
        "odd": b"version https://git-lfs.github.com/spec/v1\noid sha256:xyz\nsize 1\n"})
    assert b"ok refs/heads/main" in r.body, r.body


@pytest.mark.usefixtures("immediate_deletion")   # what deleting removes at once
def test_needs_count_once_per_owner_and_go_with_the_last_repository(api, tokens):
    alice = tokens["alice"]
    pool = pool_of(api, alice)
    _, oid = pushed(api, tokens, size=3000)
    assert record(pool, oid).gsi2pk == "LFSIDLE"       # verified, needed by nobody yet
    assert b"ok refs/heads/main" in push(api, alice, {"a.bin": pointer(oid, 3000)}).body
    alice_id = account_id(api, "alice")
    assert usage(alice_id) == 3000
    assert record(pool, oid).gsi2pk is None and record(pool, oid).needed_by
    from chalicelib.repos import store as repo_store
    assert int(repo_store.get("alice", "open").lfs_size) == 3000
    # A second push of the same pointer costs nothing more.
    assert b"ok refs/heads/main" in push(api, alice, {"b.bin": pointer(oid, 3000)}).body
    assert usage(alice_id) == 3000

    # An organization of alice's forks it, then alice forks the fork back under a new
    # name: one pool, one object, counted once for each owner.
    assert api.post("/orgs", token=alice, json={"username": "studio"}).status == 201
    assert api.post("/repos/alice/open/forks", token=alice,
                    json={"organization": "studio"}).status == 202
    run_events()
    assert api.post("/repos/studio/open/forks", token=alice, json={"name": "again"}).status == 202
    run_events()
    studio_id = account_id(api, "studio")
    assert usage(studio_id) == 3000 and usage(alice_id) == 3000
    assert len(record(pool, oid).needed_by) == 3

    # Deleting repositories: usage drops only when the owner's last one goes; the
    # object is idle only when every repository that needed it has gone.
    for repo, owner_usage in (("alice/open", 3000), ("alice/again", 0)):
        assert api.delete(f"/repos/{repo}", token=alice).status == 204
        run_events()
        assert usage(alice_id) == owner_usage
    assert record(pool, oid).gsi2pk is None            # studio/open still needs it
    assert collect.collect(time.time() + 10 * GRACE) == 0 and in_s3(pool, oid)
    assert api.delete("/repos/studio/open", token=alice).status == 204
    run_events()
    assert usage(studio_id) == 0
    assert record(pool, oid).gsi2pk == "LFSIDLE"
    # Within the grace period nothing goes; after it, the bytes and the record do.
    assert collect.collect(time.time() + GRACE - 60) == 0 and in_s3(pool, oid)
    assert collect.collect(time.time() + GRACE + 60) == 1
    assert not in_s3(pool, oid) and record(pool, oid) is None


def test_a_batch_naming_an_idle_object_keeps_it_from_the_collection(api, tokens, monkeypatch):
    alice = tokens["alice"]
    pool = pool_of(api, alice)
    _, named = pushed(api, tokens, size=500)
    _, forgotten = pushed(api, tokens, size=600)
    later = time.time() + GRACE / 2
    with clock.frozen(later):
        [answer] = batch(api, "upload", [{"oid": named, "size": 500}],
                         token=alice).json["objects"]
    assert "actions" not in answer                     # held: nothing to send
    assert collect.collect(time.time() + GRACE + 60) == 1
    assert record(pool, forgotten) is None and not in_s3(pool, forgotten)
    assert record(pool, named) is not None and in_s3(pool, named)
    assert b"ok refs/heads/main" in push(api, alice, {"n.bin": pointer(named, 500)}).body


def test_an_object_being_collected_is_absent_to_batches_verify_and_pushes(api, tokens):
    alice = tokens["alice"]
    pool = pool_of(api, alice)
    data, oid = pushed(api, tokens, size=700)
    LfsObject(*object_key(pool, oid)).update(actions=[LfsObject.doomed.set(True)])
    [answer] = batch(api, "upload", [{"oid": oid, "size": 700}], token=alice).json["objects"]
    assert "upload" in answer["actions"]               # upload it again
    upload_to_s3(pool, oid, data)
    r = lfs(api, "/alice/open.git/info/lfs/verify", {"oid": oid, "size": 700}, token=alice)
    assert r.status == 409 and "try again" in r.json["message"], r
    assert b"pre-receive hook declined" in push(api, alice, {"x.bin": pointer(oid, 700)}).body
    # The collection finishes it (a run that stopped after marking it); then the
    # upload is verified afresh.
    assert collect.collect(time.time() + GRACE + 60) >= 1 and record(pool, oid) is None
    upload_to_s3(pool, oid, data)
    assert lfs(api, "/alice/open.git/info/lfs/verify", {"oid": oid, "size": 700},
               token=alice).status == 200
    assert in_s3(pool, oid)


def test_uploads_never_verified_go_after_the_grace_period(api, tokens):
    alice = tokens["alice"]
    pool = pool_of(api, alice)
    data, oid = blob(300)
    upload_to_s3(pool, oid, data)
    assert s3_objects.head(pool, oid, incoming=True) is not None
    assert collect.collect(time.time() + 60) == 0
    assert collect.collect(time.time() + GRACE + 60) == 1
    assert s3_objects.head(pool, oid, incoming=True) is None


def test_an_upload_batch_over_the_lfs_quota_is_413(api, tokens, monkeypatch):
    from chalicelib.settings import reset_settings_cache
    from tests.conftest import ADMIN
    monkeypatch.setenv("NIMBUS__QUOTA__ENABLED", "true")
    reset_settings_cache()
    try:
        admin = api.create_token(*ADMIN, name="quota-admin")
        assert api.post("/admin/quota/rules", token=admin, json={
            "name": "lfs", "limit": 5000, "subjects": ["size:git:lfs"]}).status == 201
        assert api.post("/admin/quota/groups", token=admin, json={
            "name": "small", "rules": [{"name": "lfs"}]}).status == 201
        assert api.put("/admin/quota/groups/small/users/alice", token=admin).status == 204
        alice = tokens["alice"]
        ok = batch(api, "upload", [{"oid": blob(10)[1], "size": 4000}], token=alice)
        assert ok.status == 200, ok
        over = batch(api, "upload", [{"oid": blob(10)[1], "size": 6000}], token=alice)
        assert over.status == 413, over
    finally:
        monkeypatch.delenv("NIMBUS__QUOTA__ENABLED")
        reset_settings_cache()


def test_two_repositories_of_one_owner_racing_count_the_object_once(api, tokens, monkeypatch):
    """Both pushes read "the owner does not need it yet" before either writes: the
    owner's item is a conditional put, so one of them fails, reads again, and joins."""
    import threading

    from chalicelib.lfs import need_store, needs
    from chalicelib.repos import store as repo_store

    alice = tokens["alice"]
    _, oid = pushed(api, tokens, size=900)
    # A fork of alice's own under another name: one pool, one owner.
    assert api.post("/repos/alice/open/forks", token=alice, json={"name": "copy"}).status == 202
    other = repo_store.get("alice", "copy")
    barrier = threading.Barrier(2, timeout=10)
    real = need_store.stage_repo_need
    waited = set()

    def after_reading(repo, oid_, size):
        if repo.id not in waited:
            waited.add(repo.id)
            barrier.wait()
        real(repo, oid_, size)

    monkeypatch.setattr(need_store, "stage_repo_need", after_reading)
    repos = [repo_store.get("alice", "open"), other]
    failures = []

    def need(repo):
        try:
            assert needs.add(repo, {oid: 900}) == []
        except Exception as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    threads = [threading.Thread(target=need, args=(repo,)) for repo in repos]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures
    assert usage(account_id(api, "alice")) == 900
    owned = need_store.OwnerNeed.get(*need_store.owner_need_key(
        account_id(api, "alice"), int(other.pool_id), oid), consistent_read=True)
    assert owned.repo_ids == {int(repo.id) for repo in repos}


def test_a_pointer_made_through_the_contents_api_keeps_its_object(api, tokens):
    """The object a pointer file written through the API names is needed from then on:
    the collection leaves it, and the owner's quota counts it."""
    import base64

    alice = tokens["alice"]
    pool = pool_of(api, alice)
    _, oid = pushed(api, tokens, size=1500)
    r = api.post("/repos/alice/open/contents/kept.bin", token=alice, json={
        "content": base64.b64encode(pointer(oid, 1500)).decode(), "message": "kept"})
    assert r.status == 201, r
    assert record(pool, oid).gsi2pk is None
    assert collect.collect(time.time() + GRACE + 60) == 0 and in_s3(pool, oid)
    assert usage(account_id(api, "alice")) == 1500
