"""Git LFS in migrations and pull mirrors, in process: the git remote is C git's
``http-backend`` with LFS pointer files, the LFS server a small fake on loopback whose
answers each test shapes (wrong bytes, errors, hrefs to where the guard must not let
the migration go).  tests/lfs/test_lfs_migrate_git.py runs the real thing end to end.
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from chalicelib import aws as aws_clients
from chalicelib import settings as settings_module
from chalicelib.lfs import s3_objects
from chalicelib.repo_admin import lfs_fetch
from chalicelib.settings import get_settings
from tests.git_backend import serve_http_backend
from tests.lfs.test_batch import batch
from tests.repo_admin.test_migrations import alice, git, local_networks_allowed  # noqa: F401

MEDIA = "application/vnd.git-lfs+json"


def pointer(data: bytes) -> tuple[str, bytes]:
    oid = hashlib.sha256(data).hexdigest()
    text = f"version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {len(data)}\n"
    return oid, text.encode()


class FakeLfs:
    """A Git LFS server: ``objects`` (oid -> bytes) are offered for download at
    ``<base>/obj/<oid>`` (``base``: this server unless a test points it elsewhere);
    ``served`` replaces the bytes a download sends; ``errors`` answers an object with
    an error; ``fail_batch`` answers every batch with that status."""

    def __init__(self):
        self.objects: dict[str, bytes] = {}
        self.served: dict[str, bytes] = {}
        self.errors: dict[str, tuple[int, str]] = {}
        self.redirects: dict[str, str] = {}
        self.fail_batch = 0
        self.requests: list[tuple[str, str, dict, bytes]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _answer(self, status, body=b"", headers=()):
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                fake.requests.append(("POST", self.path, dict(self.headers), body))
                if fake.fail_batch:
                    return self._answer(fake.fail_batch, b'{"message": "no"}')
                asked = json.loads(body)
                found = [fake.answer(obj["oid"], obj["size"]) for obj in asked["objects"]]
                self._answer(200, json.dumps({"transfer": "basic", "objects": found}).encode(),
                             [("Content-Type", MEDIA)])

            def do_GET(self):
                fake.requests.append(("GET", self.path, dict(self.headers), b""))
                oid = self.path.rsplit("/", 1)[1]
                if self.path.startswith("/redirect/"):
                    return self._answer(302, headers=[("Location", fake.redirects[oid])])
                if oid not in fake.objects:
                    return self._answer(404)
                self._answer(200, fake.served.get(oid, fake.objects[oid]))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_port}"
        self.endpoint = f"{self.base}/lfs"
        self.href_base = f"{self.base}/obj"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, oid: str, size: int) -> dict:
        if oid in self.errors:
            code, message = self.errors[oid]
            return {"oid": oid, "size": size, "error": {"code": code, "message": message}}
        if oid not in self.objects:
            return {"oid": oid, "size": size, "error": {"code": 404, "message": "Not found"}}
        base = f"{self.base}/redirect" if oid in self.redirects else self.href_base
        return {"oid": oid, "size": size, "actions": {"download": {
            "href": f"{base}/{oid}", "header": {"X-Download-Token": "secret-ish"}}}}

    def gets(self) -> list[str]:
        return [path for method, path, _, _ in self.requests if method == "GET"]

    def batches(self) -> list[dict]:
        return [json.loads(body) for method, _, _, body in self.requests if method == "POST"]


@pytest.fixture
def fake_lfs():
    fake = FakeLfs()
    yield fake
    fake.server.shutdown()


@pytest.fixture
def lfs_remote(tmp_path, fake_lfs):
    """A git remote whose main branch has two LFS pointer files (and a plain file); the
    fake LFS server holds both objects."""
    root = tmp_path / "served"
    root.mkdir()
    bare = root / "src.git"
    git("init", "-q", "--bare", "-b", "main", str(bare))
    work = tmp_path / "work"
    git("init", "-q", "-b", "main", str(work))
    blobs = {}
    for name, data in (("a.bin", os.urandom(3000)), ("b.bin", os.urandom(70_000))):
        oid, text = pointer(data)
        (work / name).write_bytes(text)
        fake_lfs.objects[oid] = data
        blobs[name] = (oid, data)
    (work / "README").write_text("plain\n")
    git("add", ".", cwd=work)
    git("commit", "-q", "-m", "lfs files", cwd=work)
    git("push", "-q", str(bare), "main", cwd=work)
    server, url = serve_http_backend(root)
    yield {"url": f"{url}/src.git", "bare": bare, "work": work, "blobs": blobs}
    server.shutdown()


def migrate(api, token, remote, fake, name="copy", **extra):
    return api.post("/repos/migrate", token=token, json={
        "clone_addr": remote["url"], "repo_name": name, "lfs": True,
        "lfs_endpoint": fake.endpoint, **extra})


def stored(pool_id: int, oid: str) -> bytes | None:
    s3 = aws_clients.client("s3")
    try:
        return s3.get_object(Bucket=get_settings().aws.BUCKET,
                             Key=s3_objects.key(pool_id, oid))["Body"].read()
    except s3.exceptions.NoSuchKey:
        return None


def lfs_keys() -> list[str]:
    found = aws_clients.client("s3").list_objects_v2(Bucket=get_settings().aws.BUCKET,
                                                     Prefix="lfs/")
    return [item["Key"] for item in found.get("Contents", [])]


def downloadable(api, token, repo, oid, size) -> bool:
    [found] = batch(api, "download", [{"oid": oid, "size": size}], token=token,
                    path=f"/{repo}.git/info/lfs/objects/batch").json["objects"]
    return "download" in found.get("actions", {})


def pool_of(owner, name) -> int:
    from chalicelib.repos import store
    return int(store.get(owner, name).pool_id)


def test_migration_with_lfs_stores_the_objects_the_pointers_name(
        api, alice, lfs_remote, fake_lfs, local_networks_allowed):  # noqa: F811
    r = migrate(api, alice, lfs_remote, fake_lfs)
    assert r.status == 201, r
    pool = pool_of("alice", "copy")
    for oid, data in lfs_remote["blobs"].values():
        assert stored(pool, oid) == data
        assert downloadable(api, alice, "alice/copy", oid, len(data))
    # One batch named exactly the two pointers' objects; each object's download got the
    # action's header (and no credentials: there were none).
    [asked] = fake_lfs.batches()
    assert asked["operation"] == "download" and asked["transfers"] == ["basic"]
    assert sorted(o["oid"] for o in asked["objects"]) == \
        sorted(oid for oid, _ in lfs_remote["blobs"].values())
    downloads = [h for m, _, h, _ in fake_lfs.requests if m == "GET"]
    assert len(downloads) == 2 and all(h["X-Download-Token"] == "secret-ish" for h in downloads)
    post_headers = fake_lfs.requests[0][2]
    assert post_headers["Accept"] == MEDIA and post_headers["Content-Type"] == MEDIA
    # The repository needs them (its size counts them; no collection takes them).
    from chalicelib.repos import store
    assert int(store.get("alice", "copy").lfs_size) == \
        sum(len(data) for _, data in lfs_remote["blobs"].values())


def test_without_lfs_no_object_is_fetched(api, alice, lfs_remote, fake_lfs,
                                          local_networks_allowed):  # noqa: F811
    r = migrate(api, alice, lfs_remote, fake_lfs, lfs=False)
    assert r.status == 201, r
    assert fake_lfs.requests == [] and lfs_keys() == []
    oid, data = lfs_remote["blobs"]["a.bin"]
    assert not downloadable(api, alice, "alice/copy", oid, len(data))


def test_lfs_is_ignored_while_the_server_runs_no_lfs(api, alice, lfs_remote, fake_lfs,
                                                    local_networks_allowed,  # noqa: F811
                                                    monkeypatch):
    monkeypatch.setenv("NIMBUS__SERVER__LFS_START_SERVER", "false")
    settings_module.reset_settings_cache()
    try:
        assert migrate(api, alice, lfs_remote, fake_lfs).status == 201
    finally:
        monkeypatch.delenv("NIMBUS__SERVER__LFS_START_SERVER")
        settings_module.reset_settings_cache()
    assert fake_lfs.requests == [] and lfs_keys() == []


@pytest.mark.parametrize("served", ["other bytes", "short"])
def test_bytes_that_are_not_the_object_are_not_stored(
        api, alice, lfs_remote, fake_lfs, local_networks_allowed, served):  # noqa: F811
    oid, data = lfs_remote["blobs"]["b.bin"]
    fake_lfs.served[oid] = os.urandom(len(data)) if served == "other bytes" else data[:-1]
    r = migrate(api, alice, lfs_remote, fake_lfs)
    # As Forgejo: an object that cannot be stored fails the migration, and a failed
    # migration leaves nothing (no repository, no object bytes).
    assert r.status == 422, r
    assert r.json["message"].startswith("Migration failed: LFS object " + oid), r.json
    assert api.get("/repos/alice/copy", token=alice).status == 404
    assert lfs_keys() == []


def test_an_object_the_remote_lacks_is_skipped(api, alice, lfs_remote, fake_lfs,
                                                local_networks_allowed):  # noqa: F811
    missing, _ = lfs_remote["blobs"]["a.bin"]
    del fake_lfs.objects[missing]
    assert migrate(api, alice, lfs_remote, fake_lfs).status == 201
    oid, data = lfs_remote["blobs"]["b.bin"]
    assert downloadable(api, alice, "alice/copy", oid, len(data))
    assert stored(pool_of("alice", "copy"), missing) is None


def test_another_object_error_fails_the_migration(api, alice, lfs_remote, fake_lfs,
                                                  local_networks_allowed):  # noqa: F811
    oid, _ = lfs_remote["blobs"]["a.bin"]
    fake_lfs.errors[oid] = (500, "storage exploded")
    r = migrate(api, alice, lfs_remote, fake_lfs)
    assert r.status == 422 and "storage exploded" in r.json["message"], r
    assert api.get("/repos/alice/copy", token=alice).status == 404


@pytest.fixture
def only_localhost(monkeypatch):
    """Migrations may reach ``localhost`` (named in the allow list), and no other local
    address: 127.0.0.1 by number is refused."""
    monkeypatch.setenv("NIMBUS__MIGRATIONS__ALLOWED_DOMAINS", "localhost")
    settings_module.reset_settings_cache()
    yield
    monkeypatch.delenv("NIMBUS__MIGRATIONS__ALLOWED_DOMAINS")
    settings_module.reset_settings_cache()


def by_name(url: str) -> str:
    return url.replace("127.0.0.1", "localhost")


@pytest.mark.parametrize("how", ["href", "redirect"])
def test_the_guard_refuses_a_download_at_a_private_address(
        api, alice, lfs_remote, fake_lfs, only_localhost, how):
    remote = {**lfs_remote, "url": by_name(lfs_remote["url"])}
    fake_lfs.endpoint = by_name(fake_lfs.endpoint)
    oid, _ = lfs_remote["blobs"]["a.bin"]
    # "href": the batch answer sends the download to 127.0.0.1, not allowed here;
    # "redirect": to localhost, which redirects there.
    if how == "redirect":
        fake_lfs.base = by_name(fake_lfs.base)
        fake_lfs.href_base = by_name(fake_lfs.href_base)
        fake_lfs.redirects[oid] = f"http://127.0.0.1:{fake_lfs.server.server_port}/obj/{oid}"
    r = migrate(api, alice, remote, fake_lfs)
    assert r.status == 422, r
    assert "You can not import from disallowed hosts" in r.json["message"], r.json
    assert f"/obj/{oid}" not in fake_lfs.gets()      # never connected
    assert api.get("/repos/alice/copy", token=alice).status == 404


def test_a_given_endpoint_is_checked_up_front(api, alice, lfs_remote, fake_lfs, only_localhost):
    remote = {**lfs_remote, "url": by_name(lfs_remote["url"])}
    r = migrate(api, alice, remote, fake_lfs)      # the endpoint names 127.0.0.1
    assert r.status == 422 and r.json["message"] == "You can not import from disallowed hosts."
    assert fake_lfs.requests == []
    r = migrate(api, alice, remote, fake_lfs, lfs_endpoint="ftp://localhost/x")
    assert r.status == 422, r
    r = migrate(api, alice, remote, fake_lfs, lfs="yes")
    assert r.status == 422 and r.json["message"] == "[LFS]: expected true or false"


def test_credentials_go_to_the_clone_origin_only(api, alice, lfs_remote, fake_lfs,
                                                 local_networks_allowed):  # noqa: F811
    r = migrate(api, alice, lfs_remote, fake_lfs, auth_username="u", auth_password="pw")
    assert r.status == 201, r
    # The LFS server is another origin (port) than the clone address: no Authorization.
    assert all("Authorization" not in headers for _, _, headers, _ in fake_lfs.requests)


def test_mirror_sync_fetches_the_new_objects(api, alice, lfs_remote, fake_lfs,
                                             local_networks_allowed):  # noqa: F811
    r = migrate(api, alice, lfs_remote, fake_lfs, name="mirror", mirror=True,
                mirror_interval="10m")
    assert r.status == 201, r
    work = lfs_remote["work"]
    data = os.urandom(5000)
    oid, text = pointer(data)
    (work / "c.bin").write_bytes(text)
    fake_lfs.objects[oid] = data
    git("add", ".", cwd=work)
    git("commit", "-q", "-m", "another", cwd=work)
    git("push", "-q", str(lfs_remote["bare"]), "main", cwd=work)
    fake_lfs.requests.clear()
    assert api.post("/repos/alice/mirror/mirror-sync", token=alice).status == 200
    assert downloadable(api, alice, "alice/mirror", oid, len(data))
    from chalicelib.repos import store
    assert int(store.get("alice", "mirror").lfs_size) == len(data) + \
        sum(len(blob) for _, blob in lfs_remote["blobs"].values())
    # Only the new pointer's object was asked for: the others came with the migration.
    [asked] = fake_lfs.batches()
    assert [o["oid"] for o in asked["objects"]] == [oid]


def test_a_sync_keeps_its_git_part_when_lfs_fails_and_the_next_one_retries(
        api, alice, lfs_remote, fake_lfs, local_networks_allowed):  # noqa: F811
    from chalicelib.jobs import schedules
    from chalicelib.repos import store as repo_store
    from chalicelib.repo_admin.models import keys
    from chalicelib.repo_admin.models import MirrorDue

    assert migrate(api, alice, lfs_remote, fake_lfs, name="mirror", mirror=True).status == 201
    work = lfs_remote["work"]
    data = os.urandom(100)
    oid, text = pointer(data)
    (work / "d.bin").write_bytes(text)
    git("add", ".", cwd=work)
    git("commit", "-q", "-m", "more", cwd=work)
    git("push", "-q", str(lfs_remote["bare"]), "main", cwd=work)
    fake_lfs.fail_batch = 503
    repo = repo_store.get("alice", "mirror")
    MirrorDue(*keys.mirror_due(repo.id), repo_pk=repo.pk, due=1).save()
    assert schedules.sync_mirrors() == 1
    assert api.get("/repos/alice/mirror/raw/d.bin").body == text    # the pointer, synced
    assert not downloadable(api, alice, "alice/mirror", oid, len(data))
    assert fake_lfs.batches()     # it was tried
    # The next sync brings no new pack, and asks for the object again.
    fake_lfs.fail_batch = 0
    fake_lfs.objects[oid] = data
    fake_lfs.requests.clear()
    MirrorDue(*keys.mirror_due(repo.id), repo_pk=repo.pk, due=1).save()
    assert schedules.sync_mirrors() == 1
    assert downloadable(api, alice, "alice/mirror", oid, len(data))
    assert [o["oid"] for o in fake_lfs.batches()[0]["objects"]] == [oid]
    # Nothing is left to ask for: a third sync sends no batch.
    fake_lfs.requests.clear()
    assert api.post("/repos/alice/mirror/mirror-sync", token=alice).status == 200
    assert fake_lfs.requests == []


@pytest.mark.parametrize("clone, given, expected", [
    ("https://example.com/o/r", "", "https://example.com/o/r.git/info/lfs"),
    ("https://example.com/o/r/", "", "https://example.com/o/r.git/info/lfs"),
    ("https://example.com/o/r.git", "", "https://example.com/o/r.git/info/lfs"),
    ("git://example.com/o/r.git", "", "https://example.com/o/r.git/info/lfs"),
    ("https://example.com/o/r", "https://lfs.example.com/x/", "https://lfs.example.com/x"),
])
def test_the_endpoint_is_derived_as_git_lfs_does(clone, given, expected):
    assert lfs_fetch.endpoint(clone, given) == expected
