"""Restorable deletion end to end, against the local runtime and the git CLI (issue 42's
first acceptance point): a repository with issues, a merged pull request with a review,
a release with an asset, Git LFS files, a branch protection rule, a webhook, a
collaborator and a star is deleted, listed as deleted (its owner and a site admin; a
stranger is refused), restored with every API answer and a fresh ``git clone`` (Git LFS
files included) as they were; a second restore is 404, a restore onto a taken name 409
(and 201 under a new name); once the retention has passed the purge schedule removes
it: gone from the list, restore 404, its refs, partition, pool (packs in S3) and
attachment bytes gone, and its owner's quota usage back down.

The retention is 1 day; the purge runs with the service clock moved 2 days on.  The
event pipeline is run by hand (``settle``), so every consumer has finished before a
record is read."""
from __future__ import annotations

import os

import httpx
import pytest

from chalicelib import clock
from chalicelib.settings import ServerSettings
from tests.git_transport.test_git_http import TIMEOUT, git, git_env  # noqa: F401 - a fixture
from tests.lfs.git_support import digest, needs_git_lfs
from tests.pulls.test_pulls_git import runtime_with_users

pytestmark = needs_git_lfs
DAY = 86400
R = "/repos/alice/proj"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    settings = {"NIMBUS__SERVER__ROOT_URL": ServerSettings().ROOT_URL,
                "NIMBUS__REPOSITORY__DELETED_RETENTION_DAYS": "1"}
    with runtime_with_users(tmp_path_factory.mktemp("restorable"), settings,
                            users=("alice", "bob", "eve"), events=False) as runtime:
        from chalicelib.accounts.service import ensure_admin

        ensure_admin("boss", "boss-password", "boss@example.com")
        runtime.tokens["boss"] = httpx.post(
            f"{runtime.url}/api/v1/users/boss/tokens", auth=("boss", "boss-password"),
            json={"name": "admin", "scopes": ["all"]}, timeout=TIMEOUT).json()["sha1"]
        yield runtime


@pytest.fixture
def env(git_env):  # noqa: F811 - the imported fixture
    git(git_env, "lfs", "install", "--skip-repo")
    return git_env


def call(server, method, path, who="alice", **kw) -> httpx.Response:
    return httpx.request(method, f"{server.url}/api/v1{path}", timeout=TIMEOUT,
                         headers={"Authorization": f"token {server.tokens[who]}"}, **kw)


def ok(resp: httpx.Response, status: int | None = None):
    assert resp.status_code == status if status else resp.status_code < 300, \
        (resp.status_code, resp.text[:400])
    return resp.json() if resp.content else None


def remote(server, name="proj") -> str:
    host = server.url.split("://", 1)[1]
    return f"http://alice:{server.tokens['alice']}@{host}/alice/{name}.git"


def settle() -> None:
    """Every event waiting in the outbox through its consumers, until none is left (what
    the queue worker does moments after each commit; those of the purge were written
    with the clock moved on)."""
    from chalicelib.jobs import consumers
    from chalicelib.store import outbox

    for _ in range(20):
        items = list(outbox.pending(older_than=clock.now() + 10 * DAY))
        if not items:
            return
        outbox.remove(items)
        for item in items:
            consumers.handle_message(outbox.message_of(item))
    raise AssertionError("the events never settled")


def local(server, url: str) -> str:
    """A download address on the runtime's own host (ROOT_URL names another)."""
    return f"{server.url}/{url.split('://', 1)[1].split('/', 1)[1]}"


def build_project(server, env, tmp_path) -> dict:
    """alice/proj with every kind of record the acceptance names; what it made."""
    ok(call(server, "POST", "/user/repos", json={"name": "proj", "description": "kept"}))
    work = tmp_path / "work"
    git(env, "init", "-q", "-b", "main", str(work))
    git(env, "lfs", "track", "*.bin", cwd=work)
    lfs_bytes = os.urandom(200_000)
    (work / "big.bin").write_bytes(lfs_bytes)
    (work / "README.md").write_text("# proj\n")
    git(env, "add", ".", cwd=work)
    git(env, "commit", "-q", "-m", "first", cwd=work)
    git(env, "push", "-q", remote(server), "main", cwd=work)
    git(env, "checkout", "-q", "-b", "feature", cwd=work)
    (work / "feature.txt").write_text("a feature\n")
    git(env, "add", ".", cwd=work)
    git(env, "commit", "-q", "-m", "feature", cwd=work)
    git(env, "push", "-q", remote(server), "feature", cwd=work)
    ok(call(server, "PUT", f"{R}/collaborators/bob", json={"permission": "write"}))
    label = ok(call(server, "POST", f"{R}/labels", json={"name": "bug", "color": "#ee0701"}))
    milestone = ok(call(server, "POST", f"{R}/milestones", json={"title": "v1"}))
    issue = ok(call(server, "POST", f"{R}/issues", json={
        "title": "It breaks", "body": "steps", "labels": [label["id"]],
        "milestone": milestone["id"]}))
    ok(call(server, "POST", f"{R}/issues/{issue['number']}/comments", json={"body": "seen"}))
    pull = ok(call(server, "POST", f"{R}/pulls", json={
        "title": "Add a feature", "head": "feature", "base": "main"}))
    settle()
    ok(call(server, "POST", f"{R}/pulls/{pull['number']}/reviews", who="bob",
            json={"event": "APPROVED", "body": "looks good"}))
    ok(call(server, "POST", f"{R}/pulls/{pull['number']}/merge", json={"Do": "merge"}))
    release = ok(call(server, "POST", f"{R}/releases", json={"tag_name": "v1.0",
                                                             "name": "One"}))
    asset_bytes = os.urandom(3000)
    ok(call(server, "POST", f"{R}/releases/{release['id']}/assets", params={"name": "tool.bin"},
            files={"attachment": ("tool.bin", asset_bytes, "application/octet-stream")}))
    ok(call(server, "POST", f"{R}/branch_protections", json={"rule_name": "main",
                                                             "required_approvals": 1}))
    ok(call(server, "POST", f"{R}/hooks", json={
        "type": "forgejo", "active": True, "events": ["push"],
        "config": {"url": "https://hooks.example.com/proj", "content_type": "json"}}))
    ok(call(server, "PUT", "/user/starred/alice/proj", who="bob"))
    settle()
    return {"issue": issue["number"], "pull": pull["number"], "release": release["id"],
            "lfs": lfs_bytes, "asset": asset_bytes}


def answers(server, made: dict, name: str = "proj") -> dict:
    """Every API answer about the repository the acceptance lists (None-free)."""
    base = f"/repos/alice/{name}"
    paths = [base, f"{base}/issues?state=all&type=issues", f"{base}/issues/{made['issue']}",
             f"{base}/issues/{made['issue']}/comments", f"{base}/pulls?state=all",
             f"{base}/pulls/{made['pull']}", f"{base}/pulls/{made['pull']}/reviews",
             f"{base}/releases", f"{base}/releases/{made['release']}/assets", f"{base}/labels",
             f"{base}/milestones?state=all", f"{base}/hooks", f"{base}/collaborators",
             f"{base}/branch_protections", f"{base}/stargazers", f"{base}/branches",
             f"{base}/tags", f"{base}/commits?sha=main"]
    found = {path.replace(base, ""): ok(call(server, "GET", path)) for path in paths}
    found["permission of bob"] = ok(call(server, "GET", f"{base}/collaborators/bob/permission"))
    found["bob's stars"] = [r["full_name"] for r in ok(call(server, "GET", "/user/starred",
                                                            who="bob"))]
    return found


def lfs_objects(server, name: str, oid_size: tuple[str, int]) -> dict:
    host = server.url.split("://", 1)[1]
    resp = httpx.post(f"http://{host}/alice/{name}.git/info/lfs/objects/batch",
                      timeout=TIMEOUT, headers={
                          "Authorization": f"token {server.tokens['alice']}",
                          "Content-Type": "application/vnd.git-lfs+json"},
                      json={"operation": "download",
                            "objects": [{"oid": oid_size[0], "size": oid_size[1]}]})
    return ok(resp)["objects"][0]


def asset_bytes(server, made: dict) -> bytes:
    assets = ok(call(server, "GET", f"{R}/releases/{made['release']}/assets"))
    got = httpx.get(local(server, assets[0]["browser_download_url"]), timeout=TIMEOUT,
                    follow_redirects=True)
    assert got.status_code == 200
    return got.content


def clone(server, env, path, name="proj") -> dict:
    git(env, "clone", "-q", remote(server, name), str(path))
    refs = git(env, "ls-remote", remote(server, name)).stdout
    files = {p.name: digest(p) for p in sorted(path.iterdir()) if p.is_file()}
    return {"refs": refs, "files": files,
            "log": git(env, "log", "--format=%H %s", "main", cwd=path).stdout}


def deleted_listing(server, who, owner="alice"):
    query = f"?owner={owner}" if owner else ""
    return call(server, "GET", f"/repos/deleted{query}", who=who)


def usage(owner_id: int) -> dict:
    from chalicelib.quota import store as quota_store
    return dict(quota_store.get_usage(owner_id, consistent=True).counts)


def test_a_deleted_repository_comes_back_as_it_was_then_is_purged(server, env, tmp_path):
    alice_id = ok(call(server, "GET", "/user"))["id"]
    empty = usage(alice_id)
    made = build_project(server, env, tmp_path)
    asset = asset_bytes(server, made)
    assert asset == made["asset"]
    before = answers(server, made)
    pull = f"/pulls/{made['pull']}"
    assert before[pull]["merged"] and before[f"{pull}/reviews"][0]["state"] == "APPROVED"
    pointer = (digest_of(made["lfs"]), len(made["lfs"]))
    assert "download" in lfs_objects(server, "proj", pointer)["actions"]
    cloned = clone(server, env, tmp_path / "before")
    repo = before[""]
    repo_id, used = repo["id"], usage(alice_id)
    assert used["repos_public"] > empty["repos_public"] and used["git_lfs"] >= len(made["lfs"])

    ok(call(server, "DELETE", R), 204)
    settle()
    assert call(server, "GET", R).status_code == 404
    assert git(env, "ls-remote", remote(server), check=False).returncode != 0
    assert usage(alice_id) == used                         # its quota counts until purged
    listed = ok(deleted_listing(server, "alice"))
    assert [(r["id"], r["full_name"], r["owner"], r["name"], r["deleted_by"], r["private"])
            for r in listed] == [(repo_id, "alice/proj", "alice", "proj", "alice", False)]
    assert listed[0]["size"] > 0
    deleted_at = clock.now()
    assert abs(_epoch(listed[0]["purge_at"]) - _epoch(listed[0]["deleted_at"]) - DAY) <= 1
    assert abs(_epoch(listed[0]["deleted_at"]) - deleted_at) < 120
    assert [r["id"] for r in ok(deleted_listing(server, "boss", owner=None))] == [repo_id]
    assert [r["id"] for r in ok(deleted_listing(server, "boss"))] == [repo_id]
    assert deleted_listing(server, "eve").status_code == 403
    assert deleted_listing(server, "eve", owner=None).status_code == 403
    assert call(server, "POST", f"/repos/deleted/{repo_id}/restore", who="eve").status_code \
        == 404

    back = ok(call(server, "POST", f"/repos/deleted/{repo_id}/restore", json={}), 201)
    assert (back["id"], back["full_name"]) == (repo_id, "alice/proj")
    settle()
    after = answers(server, made)
    assert after == before
    assert asset_bytes(server, made) == made["asset"]
    assert "download" in lfs_objects(server, "proj", pointer)["actions"]
    again = clone(server, env, tmp_path / "after")
    assert again == cloned
    assert (tmp_path / "after" / "big.bin").read_bytes() == made["lfs"]     # git lfs smudged
    fsck = git(env, "lfs", "fsck", cwd=tmp_path / "after", check=False)
    assert fsck.returncode == 0, fsck
    assert ok(deleted_listing(server, "alice")) == []
    assert call(server, "POST", f"/repos/deleted/{repo_id}/restore").status_code == 404
    # It forks as any repository does.
    fork = ok(call(server, "POST", f"{R}/forks", who="bob", json={}), 202)
    assert fork["parent"]["id"] == repo_id and fork["fork"]

    # Deleted again; its name taken meanwhile: 409, then restored under a new name.
    ok(call(server, "DELETE", R), 204)
    settle()
    ok(call(server, "POST", "/user/repos", json={"name": "proj"}), 201)
    taken = call(server, "POST", f"/repos/deleted/{repo_id}/restore")
    assert taken.status_code == 409
    assert taken.json()["message"] == "The repository with the same name already exists."
    renamed = ok(call(server, "POST", f"/repos/deleted/{repo_id}/restore",
                      json={"name": "proj-back"}), 201)
    assert (renamed["id"], renamed["full_name"]) == (repo_id, "alice/proj-back")
    settle()
    assert clone(server, env, tmp_path / "renamed", "proj-back")["log"] == cloned["log"]
    ok(call(server, "DELETE", "/repos/alice/proj"), 204)         # the newcomer
    ok(call(server, "DELETE", f"/repos/bob/{fork['name']}", who="bob"), 204)

    # Deleted for good once its retention has passed.
    ok(call(server, "DELETE", "/repos/alice/proj-back"), 204)
    settle()
    from chalicelib.jobs import schedules
    with clock.driven_by(clock.Frozen(clock.now() + 2 * DAY)):
        # The newcomer and bob's fork were deleted too: everything due is purged.
        assert schedules.purge_deleted_repos() == 3
    settle()
    assert ok(deleted_listing(server, "alice")) == []
    assert ok(deleted_listing(server, "boss", owner=None)) == []
    assert call(server, "POST", f"/repos/deleted/{repo_id}/restore").status_code == 404
    storage_freed(repo_id, int(repo_id), made)
    assert usage(alice_id) == empty


def storage_freed(repo_id: int, pool_id: int, made: dict) -> None:
    from chalicelib import aws
    from chalicelib.gitstore import refdb
    from chalicelib.settings import get_settings
    from chalicelib.store.keys import keys
    from chalicelib.store.table import Item

    assert refdb.load_refs(repo_id) == {}
    assert list(Item.query(keys.repo_partition(repo_id))) == []
    bucket = get_settings().aws.BUCKET
    for prefix in (f"packs/{pool_id}/", f"attachments/{repo_id}/"):
        listed = aws.client("s3").list_objects_v2(Bucket=bucket, Prefix=prefix)
        assert listed.get("KeyCount", 0) == 0, (prefix, listed.get("Contents"))


def digest_of(data: bytes) -> str:
    import hashlib
    return hashlib.sha256(data).hexdigest()


def _epoch(stamp: str) -> float:
    import datetime
    return datetime.datetime.fromisoformat(stamp).timestamp()
