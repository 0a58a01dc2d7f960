"""Migration and pull mirrors, against C git's own HTTP server on loopback."""
import os
import subprocess

import pytest

from chalicelib import settings as settings_module
from tests.git_backend import serve_http_backend


def git(*args, cwd=None):
    env = {**os.environ, "GIT_AUTHOR_NAME": "Src", "GIT_AUTHOR_EMAIL": "src@example.com",
           "GIT_COMMITTER_NAME": "Src", "GIT_COMMITTER_EMAIL": "src@example.com",
           "GIT_TERMINAL_PROMPT": "0"}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture
def remote(tmp_path):
    """A source repository served by `git http-backend`, with two branches and a tag."""
    root = tmp_path / "served"
    root.mkdir()
    bare = root / "src.git"
    git("init", "-q", "--bare", "-b", "main", str(bare))
    git("-C", str(bare), "config", "http.receivepack", "true")
    work = tmp_path / "work"
    git("init", "-q", "-b", "main", str(work))
    (work / "hello.txt").write_text("hello\n")
    git("add", ".", cwd=work)
    git("commit", "-q", "-m", "first", cwd=work)
    git("branch", "dev", cwd=work)
    git("tag", "v1", cwd=work)
    git("push", "-q", str(bare), "main", "dev", "v1", cwd=work)
    server, url = serve_http_backend(root)
    yield {"url": f"{url}/src.git", "bare": bare, "work": work}
    server.shutdown()


@pytest.fixture
def local_networks_allowed(monkeypatch):
    monkeypatch.setenv("NIMBUS__MIGRATIONS__ALLOW_LOCALNETWORKS", "true")
    settings_module.reset_settings_cache()
    yield
    monkeypatch.delenv("NIMBUS__MIGRATIONS__ALLOW_LOCALNETWORKS")
    settings_module.reset_settings_cache()


@pytest.fixture
def alice(api):
    api.create_user("alice")
    return api.create_token("alice")


def test_migrate_copy(api, alice, remote, local_networks_allowed):
    r = api.post("/repos/migrate", token=alice, json={
        "clone_addr": remote["url"], "repo_name": "copy", "description": "migrated"})
    assert r.status == 201, r
    repo = r.json
    assert repo["full_name"] == "alice/copy" and repo["mirror"] is False
    assert repo["empty"] is False and repo["original_url"] == remote["url"]
    assert api.get("/repos/alice/copy/raw/hello.txt").body == b"hello\n"
    assert sorted(b["name"] for b in api.get("/repos/alice/copy/branches").json) == ["dev", "main"]
    assert api.get("/repos/alice/copy/raw/hello.txt?ref=v1").status == 200
    assert api.post("/repos/alice/copy/mirror-sync", token=alice).status == 400


def test_migrate_mirror_and_sync(api, alice, remote, local_networks_allowed):
    r = api.post("/repos/migrate", token=alice, json={
        "clone_addr": remote["url"], "repo_name": "mirror", "mirror": True,
        "mirror_interval": "10m"})
    assert r.status == 201, r
    assert r.json["mirror"] is True and r.json["mirror_interval"] == "10m0s"
    work = remote["work"]
    (work / "hello.txt").write_text("hello again\n")
    git("commit", "-q", "-am", "second", cwd=work)
    git("push", "-q", str(remote["bare"]), "main", cwd=work)
    git("push", "-q", str(remote["bare"]), "--delete", "dev", cwd=work)
    assert api.post("/repos/alice/mirror/mirror-sync", token=alice).status == 200
    assert api.get("/repos/alice/mirror/raw/hello.txt").body == b"hello again\n"
    assert [b["name"] for b in api.get("/repos/alice/mirror/branches").json] == ["main"]
    # A mirror takes no pushes, and strangers may not trigger a sync.
    api.create_user("bob")
    assert api.post("/repos/alice/mirror/mirror-sync", token=api.create_token("bob")).status == 403


def test_scheduled_sync_picks_due_mirrors(api, alice, remote, local_networks_allowed):
    from chalicelib.jobs import schedules
    from chalicelib.repos import store as repo_store

    api.post("/repos/migrate", token=alice, json={
        "clone_addr": remote["url"], "repo_name": "auto", "mirror": True,
        "mirror_interval": "10m"})
    work = remote["work"]
    (work / "new.txt").write_text("new\n")
    git("add", ".", cwd=work)
    git("commit", "-q", "-m", "third", cwd=work)
    git("push", "-q", str(remote["bare"]), "main", cwd=work)
    assert schedules.sync_mirrors() == 0  # not due yet
    repo = repo_store.get("alice", "auto")
    from chalicelib.repo_admin.models import MirrorDue
    from chalicelib.repo_admin.models import keys
    MirrorDue(*keys.mirror_due(repo.id), repo_pk=repo.pk, due=1).save()
    assert schedules.sync_mirrors() == 1
    assert api.get("/repos/alice/auto/raw/new.txt").body == b"new\n"


def test_migration_refusals(api, alice, remote):
    # Loopback is not an allowed migration source by default.
    r = api.post("/repos/migrate", token=alice, json={
        "clone_addr": remote["url"], "repo_name": "nope"})
    assert r.status == 422 and r.json["message"] == "You can not import from disallowed hosts."
    for addr in ("file:///etc", "/srv/git/x.git", "ssh://git@example.com/x.git"):
        r = api.post("/repos/migrate", token=alice, json={"clone_addr": addr, "repo_name": "x"})
        assert r.status == 422, addr
    assert api.post("/repos/migrate", json={"clone_addr": remote["url"],
                                            "repo_name": "x"}).status == 401
    assert api.post("/repos/migrate", token=alice, json={"repo_name": "x"}).status == 422
    assert api.get("/repos/alice/nope", token=alice).status == 404


def test_migration_failures_leave_nothing(api, alice, remote, local_networks_allowed):
    r = api.post("/repos/migrate", token=alice, json={
        "clone_addr": remote["url"].replace("src.git", "missing.git"), "repo_name": "gone"})
    assert r.status == 422 and r.json["message"].startswith("Migration failed")
    assert api.get("/repos/alice/gone", token=alice).status == 404
    r = api.post("/repos/migrate", token=alice, json={
        "clone_addr": remote["url"], "repo_name": "fast", "mirror": True,
        "mirror_interval": "1m"})
    assert r.status == 422
    assert api.get("/repos/alice/fast", token=alice).status == 404


def test_a_mirror_keeps_its_credentials_sealed(api, alice, remote, local_networks_allowed):
    """The remote's password reaches the remote on every sync and is never stored in
    the clear."""
    from chalicelib import repos
    from tests.git_backend import serve_http_backend

    server, url = serve_http_backend(remote["bare"].parent, credentials=("src", "s3cret-pass"))
    try:
        made = api.post("/repos/migrate", token=alice, json={
            "clone_addr": f"{url}/src.git", "repo_name": "guarded", "mirror": True,
            "auth_username": "src", "auth_password": "s3cret-pass"})
        assert made.status == 201, made
        stored = repos.repo_by_name("alice", "guarded")
        assert stored.mirror_auth and "s3cret-pass" not in stored.mirror_auth
        git("commit", "-q", "--allow-empty", "-m", "more", cwd=remote["work"])
        git("push", "-q", str(remote["bare"]), "main", cwd=remote["work"])
        assert api.post("/repos/alice/guarded/mirror-sync", token=alice).status == 200
        head = git("rev-parse", "HEAD", cwd=remote["work"])
        branch = api.get("/repos/alice/guarded/branches/main", token=alice).json
        assert branch["commit"]["id"] == head
    finally:
        server.shutdown()
