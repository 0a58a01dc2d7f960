"""The ref history end to end, with the real git CLI against the local server: a force
push back two commits is listed (who, old, new, forced; the ``ref`` and ``forced``
filters), a reader cannot restore it (403; a stranger of the private repository 404; a
read-only token 403), the writer can, and a fresh clone then has the dropped commits;
the restore is listed too; a protection rule refuses a restore that rewinds the branch;
pack compaction keeps the dropped commits while their entry lives and lets them go
once it expired (a restore then answers 409)."""
from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from tests.git_cli import git_home_env
from tests.git_cli import run_git as git
from tests.local_server import runtime_with_events, seat_people, wait_until

TIMEOUT = 60
PEOPLE = ("alice", "bob", "carol", "eve")       # owner, writer, reader, stranger


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with runtime_with_events(tmp_path_factory.mktemp("ref-history")) as runtime:
        seat_people(runtime, {name: f"{name}-password" for name in PEOPLE})
        runtime.tokens["alice-read"] = runtime.read_only
        yield runtime


def call(server, method, path, *, who=None, auth=None, json=None, params=None):
    headers = {"Authorization": f"token {server.tokens[who]}"} if who else {}
    return httpx.request(method, f"{server.url}/api/v1{path}", auth=auth, json=json,
                         params=params, headers=headers, timeout=TIMEOUT)


@pytest.fixture
def git_env(tmp_path):
    return git_home_env(tmp_path)


def new_repo(server, name: str) -> None:
    """alice's private repository with a first commit; bob writes, carol reads."""
    assert call(server, "POST", "/user/repos", who="alice",
                json={"name": name, "private": True, "auto_init": True}).status_code == 201
    for login, mode in (("bob", "write"), ("carol", "read")):
        assert call(server, "PUT", f"/repos/alice/{name}/collaborators/{login}", who="alice",
                    json={"permission": mode}).status_code == 204


def remote(server, who: str, name: str) -> str:
    host = server.url.split("://", 1)[1]
    return f"http://{who}:{server.tokens[who]}@{host}/alice/{name}.git"


def commit(env, work: Path, n: int) -> str:
    (work / "log.txt").write_text("".join(f"line {i}\n" for i in range(n + 1)))
    git(env, "add", "log.txt", cwd=work)
    git(env, "commit", "-q", "-m", f"commit {n}", cwd=work)
    return git(env, "rev-parse", "HEAD", cwd=work).stdout.strip()


def force_back_two(server, env, tmp_path: Path, name: str) -> list[str]:
    """bob pushes three commits, then force-pushes main back two; the tips, oldest first."""
    work = tmp_path / name
    git(env, "clone", "-q", remote(server, "bob", name), str(work))
    tips = [commit(env, work, n) for n in range(3)]
    git(env, "push", "-q", "origin", "main", cwd=work)
    git(env, "reset", "-q", "--hard", "HEAD~2", cwd=work)
    git(env, "push", "-q", "--force", "origin", "main", cwd=work)
    return tips


def history(server, name: str, who="alice", **params) -> list[dict]:
    answer = call(server, "GET", f"/repos/alice/{name}/activity/refs", who=who, params=params)
    assert answer.status_code == 200, answer.text
    return answer.json()


def wait_for(server, name: str, **params) -> list[dict]:
    """The history once its force push is in (the consumer runs after the push, in order
    per repository: the moves before it are in too)."""
    def ready():
        found = history(server, name, **params)
        return found if any(entry["forced"] for entry in found) else None

    return wait_until(ready, f"the force push in {name}'s history")


def restore(server, name: str, entry_id, who: str):
    return call(server, "POST", f"/repos/alice/{name}/activity/refs/{entry_id}/restore", who=who)


def test_force_push_listed_and_restored(server, git_env, tmp_path):
    new_repo(server, "proj")
    first, second, third = force_back_two(server, git_env, tmp_path, "proj")
    found = wait_for(server, "proj", ref="main")
    forced = found[0]
    assert forced["ref"] == "refs/heads/main" and forced["action"] == "updated"
    assert (forced["old_sha"], forced["new_sha"], forced["forced"]) == (third, first, True)
    assert forced["actor"]["login"] == "bob" and forced["actor_login"] == "bob"
    assert forced["via"] == "push"
    assert forced["created"].endswith("Z") and isinstance(forced["id"], int)
    assert found[1]["forced"] is False and found[1]["new_sha"] == third
    assert [e["id"] for e in history(server, "proj", forced="true")] == [forced["id"]]
    assert forced["id"] not in [e["id"] for e in history(server, "proj", forced="false")]
    assert [e["id"] for e in history(server, "proj", ref="refs/heads/main", forced="true")] \
        == [forced["id"]]
    assert history(server, "proj", ref="other") == []
    assert history(server, "proj", who="carol", ref="main")[0]["id"] == forced["id"]
    assert call(server, "GET", "/repos/alice/proj/activity/refs",
                params={"forced": "maybe"}, who="alice").status_code == 422
    assert call(server, "GET", "/repos/alice/proj/activity/refs", who="eve").status_code == 404
    assert call(server, "GET", "/repos/alice/proj/activity/refs").status_code == 404

    assert restore(server, "proj", forced["id"], "carol").status_code == 403
    assert restore(server, "proj", forced["id"], "eve").status_code == 404
    assert restore(server, "proj", forced["id"], "alice-read").status_code == 403
    assert restore(server, "proj", 999999, "bob").status_code == 404
    done = restore(server, "proj", forced["id"], "bob")
    assert done.status_code == 200, done.text
    assert done.json() == {"ref": "refs/heads/main", "old_sha": first, "new_sha": third,
                           "restored_from": forced["id"], "changed": True}
    clone = tmp_path / "fresh"
    git(git_env, "clone", "-q", remote(server, "alice", "proj"), str(clone))
    log = git(git_env, "log", "--format=%H", cwd=clone).stdout.split()
    assert log[:3] == [third, second, first]
    # The restore is a move of its own, by the writer who restored.
    latest = wait_until(lambda: [e for e in history(server, "proj", ref="main")
                                 if e["id"] != forced["id"] and e["old_sha"] == first],
                        "the restore's entry")
    assert (latest[0]["new_sha"], latest[0]["forced"]) == (third, False)
    assert latest[0]["actor"]["login"] == "bob" and latest[0]["via"] == "api"
    assert history(server, "proj", ref="main")[0]["id"] == latest[0]["id"]


def test_protection_refuses_a_restore_that_rewinds(server, git_env, tmp_path):
    new_repo(server, "guarded")
    first, _, third = force_back_two(server, git_env, tmp_path, "guarded")
    pushed = wait_for(server, "guarded", ref="main")[1]      # the fast-forward
    assert pushed["forced"] is False and pushed["new_sha"] == third
    assert call(server, "POST", "/repos/alice/guarded/branch_protections", who="alice", json={
        "rule_name": "main", "enable_push": True,
        "enable_force_push": False}).status_code == 201
    # Putting main back to before the push moves it off its history: a force push.
    refused = restore(server, "guarded", pushed["id"], "bob")
    assert refused.status_code == 403 and "force push" in refused.json()["message"]
    branch = call(server, "GET", "/repos/alice/guarded/branches/main", who="alice").json()
    assert branch["commit"]["id"] == first


def test_compaction_keeps_the_dropped_commits_while_the_entry_lives(server, git_env,
                                                                     tmp_path):
    from chalicelib import clock, ref_history, repos
    from chalicelib.gitstore import open_repo
    from chalicelib.gitstore.compaction import compact_pool

    new_repo(server, "packed")
    first, second, third = force_back_two(server, git_env, tmp_path, "packed")
    forced = wait_for(server, "packed", forced="true")[0]
    repo = repos.repo_by_name("alice", "packed")

    def compact(kept) -> object:
        return compact_pool(repo.pool_id, [repo.id], kept_tips=kept, min_age_seconds=0,
                            grace_seconds=0)

    def stored(sha: str) -> bool:
        return sha.encode() in open_repo(repo.id, repo.pool_id).object_store

    kept = ref_history.kept_tips([repo.id])
    assert kept == {third}
    result = compact(kept)
    assert result.history_pack and result.history_objects >= 4     # 2 commits, trees, blobs
    assert not compact(kept)                  # settled: nothing to do until something changes
    assert stored(third) and stored(second)
    # A clone does not get the dropped commits while they are only in the history.
    clone = tmp_path / "clone"
    git(git_env, "clone", "-q", remote(server, "alice", "packed"), str(clone))
    assert git(git_env, "cat-file", "-e", third, cwd=clone, check=False).returncode != 0

    # Once the entry expired nothing keeps them: garbage, then gone.
    with clock.driven_by(lambda: time.time() + 91 * 86400):
        expired = ref_history.kept_tips([repo.id])
    assert expired == set()
    compact(expired)
    compact(expired)
    assert not stored(third) and stored(first)
    gone = restore(server, "packed", forced["id"], "bob")
    assert gone.status_code == 409, gone.text
