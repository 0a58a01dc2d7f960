"""Push mirrors against C git's `git http-backend` on loopback (behind Basic auth), with
the local runtime's event pipeline running: a push to Nimbus with the git CLI reaches
the mirror through the consumer, a deleted branch is pruned there, the schedule pushes
when a mirror is due (and not before), a wrong password leaves a masked ``last_error``,
and no answer ever carries the password."""
from __future__ import annotations

import json
import time

import pytest

from chalicelib.local.event_pipeline import EventPipeline
from chalicelib.local.runtime import LocalRuntime
from tests.environment import settings_env
from tests.git_backend import serve_http_backend
from tests.local_server import ADMIN_PASSWORD, call, git, push_url, wait_until

PASSWORD = "s3cret-mirror-pass"
SETTINGS = {"NIMBUS__MIGRATIONS__ALLOW_LOCALNETWORKS": "true"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with settings_env(SETTINGS), LocalRuntime(
            port=0, data_dir=tmp_path_factory.mktemp("push-mirrors"), access_log=False) as runtime:
        for task in EventPipeline().tasks():
            runtime.add_background(task)
        from chalicelib.accounts.service import ensure_admin

        ensure_admin("root", ADMIN_PASSWORD, "root@example.test")
        yield runtime


@pytest.fixture
def target(tmp_path):
    """An empty bare repository served by `git http-backend`, pushes allowed, only with
    the mirror's credentials."""
    root = tmp_path / "served"
    root.mkdir()
    bare = root / "target.git"
    git("init", "-q", "--bare", "-b", "main", str(bare))
    git("-C", str(bare), "config", "http.receivepack", "true")
    httpd, url = serve_http_backend(root, credentials=("mirror", PASSWORD))
    yield {"url": f"{url}/target.git", "bare": bare}
    httpd.shutdown()


def refs_of(where: str) -> dict[str, str]:
    lines = git("ls-remote", "--heads", "--tags", where).splitlines()
    return {ref: sha for sha, ref in (line.split("\t") for line in lines)}


def new_repo(base: str, name: str) -> str:
    status, _ = call(base, "POST", "/api/v1/user/repos", {"name": name})
    assert status == 201
    return f"/api/v1/repos/root/{name}"


def commit(work, name: str, text: str) -> None:
    (work / name).write_text(text)
    git("add", name, cwd=work)
    git("commit", "-q", "-m", text, cwd=work)


def add_mirror(base: str, path: str, url: str, **fields) -> dict:
    body = {"remote_address": url, "remote_username": "mirror", "remote_password": PASSWORD,
            "interval": "0", "sync_on_commit": True, **fields}
    status, mirror = call(base, "POST", f"{path}/push_mirrors", body)
    assert status == 200, mirror
    return mirror


def test_a_push_reaches_the_mirror_and_deleted_branches_are_pruned(server, target, tmp_path):
    base = server.url
    path = new_repo(base, "onpush")
    mirror = add_mirror(base, path, target["url"])
    assert mirror["remote_name"].startswith("remote_mirror_") and len(mirror["remote_name"]) == 24
    assert mirror["remote_address"] == target["url"] and mirror["repo_name"] == "onpush"
    assert mirror["interval"] == "0s" and mirror["sync_on_commit"] is True
    assert mirror["last_update"] is None and mirror["last_error"] == ""
    assert mirror["public_key"] == "" and mirror["branch_filter"] == ""
    assert PASSWORD not in json.dumps(mirror)

    work = tmp_path / "work"
    git("init", "-q", "-b", "main", str(work))
    commit(work, "README.md", "first")
    git("branch", "dev", cwd=work)
    git("tag", "v1", cwd=work)
    remote = push_url(base, "/root/onpush.git")
    git("push", "-q", remote, "main", "dev", "v1", cwd=work)
    ours = refs_of(remote)
    assert set(ours) == {"refs/heads/main", "refs/heads/dev", "refs/tags/v1"}
    wait_until(lambda: refs_of(str(target["bare"])) == ours, "the mirror to receive the push")

    commit(work, "two.txt", "second")
    git("push", "-q", remote, "main", cwd=work)
    git("push", "-q", remote, "--delete", "dev", cwd=work)
    ours = refs_of(remote)
    assert "refs/heads/dev" not in ours
    wait_until(lambda: refs_of(str(target["bare"])) == ours, "dev to be pruned on the mirror")

    status, listed = call(base, "GET", f"{path}/push_mirrors")
    assert status == 200 and [m["remote_name"] for m in listed] == [mirror["remote_name"]]
    assert listed[0]["last_update"] and listed[0]["last_error"] == ""
    assert PASSWORD not in json.dumps(listed)
    one = f"{path}/push_mirrors/{mirror['remote_name']}"
    status, got = call(base, "GET", one)
    assert status == 200 and got["remote_address"] == target["url"]
    assert call(base, "DELETE", one)[0] == 204
    assert call(base, "GET", one)[0] == 404
    assert call(base, "DELETE", one)[0] == 204      # as Forgejo: no such name is no error
    assert call(base, "GET", f"{path}/push_mirrors")[1] == []


def test_the_schedule_pushes_when_due(server, target, tmp_path):
    from chalicelib import clock
    from chalicelib.repo_admin import push_mirror_store, push_mirror_sync

    base = server.url
    path = new_repo(base, "scheduled")
    mirror = add_mirror(base, path, target["url"], interval="10m", sync_on_commit=False)
    assert mirror["interval"] == "10m0s"
    work = tmp_path / "work"
    git("init", "-q", "-b", "main", str(work))
    commit(work, "README.md", "first")
    remote = push_url(base, "/root/scheduled.git")
    git("push", "-q", remote, "main", cwd=work)
    time.sleep(0.5)
    assert refs_of(str(target["bare"])) == {}      # no sync on commit: nothing yet

    now = clock.now() + 1
    assert push_mirror_sync.sync_due(now) >= 1     # due at once, as Forgejo's first run
    assert refs_of(str(target["bare"])) == refs_of(remote)
    commit(work, "two.txt", "second")
    git("push", "-q", remote, "main", cwd=work)
    assert push_mirror_sync.sync_due(now + 60) == 0           # not due again yet
    assert refs_of(str(target["bare"])) != refs_of(remote)
    assert push_mirror_sync.sync_due(now + 601) == 1
    assert refs_of(str(target["bare"])) == refs_of(remote)

    repo_id = call(base, "GET", path)[1]["id"]
    assert any(e.repo_id == repo_id for e in push_mirror_store.due_entries(now + 10_000))
    assert call(base, "DELETE", path)[0] == 204
    # A deleted repository stays restorable (its mirrors with it); the next run of the
    # schedule drops its entries and pushes nothing (a restore puts them back).
    before = refs_of(str(target["bare"]))
    assert push_mirror_sync.sync_due(now + 10_000) == 0
    assert not any(e.repo_id == repo_id for e in push_mirror_store.due_entries(now + 10_000))
    assert refs_of(str(target["bare"])) == before


def test_a_wrong_password_is_recorded_masked(server, target, tmp_path):
    base = server.url
    path = new_repo(base, "wrongpass")
    wrong = "not-the-" + PASSWORD
    mirror = add_mirror(base, path, target["url"], remote_password=wrong, sync_on_commit=False)
    work = tmp_path / "work"
    git("init", "-q", "-b", "main", str(work))
    commit(work, "README.md", "first")
    git("push", "-q", push_url(base, "/root/wrongpass.git"), "main", cwd=work)

    status, body = call(base, "POST", f"{path}/push_mirrors-sync")
    assert status == 500 and mirror["remote_name"] in body["message"]
    status, got = call(base, "GET", f"{path}/push_mirrors/{mirror['remote_name']}")
    assert status == 200 and got["last_error"] and got["last_update"]
    assert wrong not in json.dumps(got) and PASSWORD not in json.dumps(got)
    assert refs_of(str(target["bare"])) == {}

    # The right password in the address's userinfo: taken as the credentials, stored
    # apart and answered without them; a sync requested now pushes.
    url = target["url"].replace("http://", f"http://mirror:{PASSWORD}@")
    status, fixed = call(base, "POST", f"{path}/push_mirrors", {
        "remote_address": url, "interval": "0"})
    assert status == 200 and fixed["remote_address"] == target["url"]
    assert call(base, "DELETE", f"{path}/push_mirrors/{mirror['remote_name']}")[0] == 204
    assert call(base, "POST", f"{path}/push_mirrors-sync")[0] == 200
    assert "refs/heads/main" in refs_of(str(target["bare"]))
