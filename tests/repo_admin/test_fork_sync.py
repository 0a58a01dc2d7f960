"""Fork sync through the API (on the in-memory twin): a fork's branch behind its
parent's is fast-forwarded (with its branch record and push event), a diverged one is
not allowed, readers see the info and only writers sync, and a branch that moves
between the check and the move is left alone (409)."""
from __future__ import annotations

import base64

import pytest

from chalicelib.repo_admin import fork_sync
from tests.conftest import drain_outbox


def put_file(api, token, repo, path, text, branch="main"):
    r = api.post(f"/repos/{repo}/contents/{path}", token=token, json={
        "content": base64.b64encode(text.encode()).decode(), "message": f"add {path}",
        "branch": branch})
    assert r.status == 201, r
    return r.json["commit"]["sha"]


@pytest.fixture
def forked(fast_api):
    api = fast_api
    tokens = {name: (api.create_user(name), api.create_token(name))[1]
              for name in ("alice", "bob", "carol")}
    assert api.post("/user/repos", token=tokens["alice"],
                    json={"name": "proj", "auto_init": True}).status == 201
    assert api.post("/repos/alice/proj/forks", token=tokens["bob"], json={}).status == 202
    return api, tokens


def test_a_fork_behind_is_fast_forwarded(forked):
    api, t = forked
    info = api.get("/repos/bob/proj/sync_fork", token=t["bob"]).json
    assert info["allowed"] is False and info["commits_behind"] == 0
    assert info["base_commit"] == info["fork_commit"] != ""
    put_file(api, t["alice"], "alice/proj", "a.txt", "one")
    tip = put_file(api, t["alice"], "alice/proj", "b.txt", "two")
    info = api.get("/repos/bob/proj/sync_fork/main", token=t["carol"]).json
    assert info == {"allowed": True, "commits_behind": 2, "base_commit": tip,
                    "fork_commit": info["fork_commit"]} and info["fork_commit"] != tip
    assert api.post("/repos/bob/proj/sync_fork", token=t["carol"]).status == 403
    drain_outbox()
    assert api.post("/repos/bob/proj/sync_fork", token=t["bob"]).status == 204
    pushed = [e for e in drain_outbox() if type(e).__name__ == "RepositoryPushed"]
    assert [(e.ref, e.after) for e in pushed] == [("refs/heads/main", tip)]
    assert api.get("/repos/bob/proj/branches/main").json["commit"]["id"] == tip
    assert api.get("/repos/bob/proj/raw/b.txt").body == b"two"
    info = api.get("/repos/bob/proj/sync_fork").json
    assert info["allowed"] is False and info["fork_commit"] == tip == info["base_commit"]
    assert api.post("/repos/bob/proj/sync_fork", token=t["bob"]).status == 400


def test_diverged_missing_and_not_a_fork(forked):
    api, t = forked
    put_file(api, t["alice"], "alice/proj", "a.txt", "theirs")
    put_file(api, t["bob"], "bob/proj", "b.txt", "ours")
    info = api.get("/repos/bob/proj/sync_fork", token=t["bob"]).json
    assert info["allowed"] is False and info["commits_behind"] == 0
    r = api.post("/repos/bob/proj/sync_fork/main", token=t["bob"])
    assert r.status == 400 and r.json["message"] == "You can't sync this branch"
    assert api.get("/repos/bob/proj/sync_fork/nope").status == 404
    r = api.get("/repos/alice/proj/sync_fork")
    assert r.status == 400 and r.json["message"] == "The Repo must be a fork"
    # A branch only the fork has: no base commit, nothing to sync.
    assert api.post("/repos/bob/proj/branches", token=t["bob"],
                    json={"new_branch_name": "mine"}).status == 201
    info = api.get("/repos/bob/proj/sync_fork/mine").json
    assert info["base_commit"] == "" and info["allowed"] is False


def test_a_branch_moved_meanwhile_is_not_overwritten(forked, monkeypatch):
    api, t = forked
    put_file(api, t["alice"], "alice/proj", "a.txt", "one")
    checked = fork_sync.sync_info

    def then_bob_pushes(view, branch):
        info = checked(view, branch)
        put_file(api, t["bob"], "bob/proj", "late.txt", "late")
        return info

    monkeypatch.setattr(fork_sync, "sync_info", then_bob_pushes)
    assert api.post("/repos/bob/proj/sync_fork", token=t["bob"]).status == 409
    assert api.get("/repos/bob/proj/raw/late.txt").body == b"late"
