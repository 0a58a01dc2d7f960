"""The audit log of the undo operations, end to end on the local runtime with the git
CLI: in an organization's repository a force push, its undo through the ref history, the
repository's deletion and its restore are each in the log with their actor and changes
(the push's forced flag and what moved the ref), with the protection rule it was given,
found by repository and by actor, and
the same entries on the instance's log; a plain member of the organization gets 403."""
from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.git_cli import git_home_env
from tests.git_cli import run_git as git
from tests.local_server import runtime_with_events, seat_people, wait_until

TIMEOUT = 60


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with runtime_with_events(tmp_path_factory.mktemp("audit-undo")) as runtime:
        seat_people(runtime, {"alice": "alice-password", "bob": "bob-password"},
                    boss_token=True)
        yield runtime


def call(server, method, path, who, **kwargs):
    return httpx.request(method, f"{server.url}/api/v1{path}", timeout=TIMEOUT,
                         headers={"Authorization": f"token {server.tokens[who]}"}, **kwargs)


def commit(env, work: Path, n: int) -> str:
    (work / "notes.txt").write_text(f"version {n}\n")
    git(env, "add", "notes.txt", cwd=work)
    git(env, "commit", "-q", "-m", f"version {n}", cwd=work)
    return git(env, "rev-parse", "HEAD", cwd=work).stdout.strip()


def log(server, path: str, who="alice", **params) -> list[dict]:
    answer = call(server, "GET", path, who, params={"limit": 50, **params})
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_undo_operations_are_audited(server, tmp_path):
    env = git_home_env(tmp_path)
    assert call(server, "POST", "/orgs", "alice", json={"username": "acme"}).status_code == 201
    team = call(server, "POST", "/orgs/acme/teams", "alice",
                json={"name": "readers", "permission": "read"}).json()
    assert call(server, "PUT", f"/teams/{team['id']}/members/bob", "alice").status_code == 204
    assert call(server, "POST", "/orgs/acme/repos", "alice",
                json={"name": "app", "auto_init": True}).status_code == 201
    assert call(server, "POST", "/repos/acme/app/branch_protections", "alice",
                json={"rule_name": "release/*", "enable_push": True}).status_code == 201
    host = server.url.split("://", 1)[1]
    work = tmp_path / "app"
    git(env, "clone", "-q", f"http://alice:{server.tokens['alice']}@{host}/acme/app.git",
        str(work))
    first, _, third = [commit(env, work, n) for n in range(3)]
    git(env, "push", "-q", "origin", "main", cwd=work)
    git(env, "reset", "-q", "--hard", first, cwd=work)
    git(env, "push", "-q", "--force", "origin", "main", cwd=work)

    def forced_entry():
        found = log(server, "/repos/acme/app/activity/refs", forced="true")
        return found[0] if found else None

    forced = wait_until(forced_entry, "the force push in the ref history")
    assert call(server, "POST", f"/repos/acme/app/activity/refs/{forced['id']}/restore",
                "alice").status_code == 200
    repo_id = call(server, "GET", "/repos/acme/app", "alice").json()["id"]
    assert call(server, "DELETE", "/repos/acme/app", "alice").status_code == 204
    restored = call(server, "POST", f"/repos/deleted/{repo_id}/restore", "alice")
    assert restored.status_code == 201, restored.text

    wanted = {"repository.created", "branch_protection.created", "repository.deleted",
              "repository.restored"}

    def audited():
        found = log(server, "/orgs/acme/audit_log", repo="acme/app")
        actions = {entry["action"] for entry in found}
        pushes = [e for e in found if e["action"] == "push"]
        done = wanted <= actions and any(e["details"]["via"] == "api" for e in pushes)
        return found if done else None

    found = wait_until(audited, "the undo operations in the organization's audit log")
    assert {entry["repo"]["full_name"] for entry in found} == {"acme/app"}
    assert all(entry["actor"]["login"] == "alice" for entry in found
               if entry["action"] in wanted or entry["action"] == "push")
    pushes = {(e["changes"]["sha"]["before"], e["changes"]["sha"]["after"]): e["details"]
              for e in found if e["action"] == "push"}
    # The force push back two commits, and its undo through the API.
    assert pushes[(third, first)]["forced"] is True and pushes[(third, first)]["via"] == "push"
    assert pushes[(first, third)] == {"forced": False, "via": "api", "commits": 2}
    deleted = next(e for e in found if e["action"] == "repository.deleted")
    assert deleted["details"]["restorable"] is True and deleted["details"]["purge_at"]
    assert next(e for e in found if e["action"] == "repository.restored")["target"] == {
        "kind": "repository", "id": repo_id, "name": "acme/app"}
    rule = next(e for e in found if e["action"] == "branch_protection.created")
    assert rule["target"]["name"] == "release/*"
    assert rule["changes"]["enable_push"] == {"before": None, "after": True}
    # Newest first: the restore is the latest of them.
    order = [e["action"] for e in found if e["action"] in wanted]
    assert order.index("repository.restored") < order.index("repository.deleted")

    # By actor: alice's entries hold them all; bob made none of them.
    by_alice = {e["id"] for e in log(server, "/orgs/acme/audit_log", actor="alice")}
    assert {e["id"] for e in found} <= by_alice
    assert log(server, "/orgs/acme/audit_log", actor="bob", repo="acme/app") == []
    # The instance's log has the same entries for the site admin.
    instance = log(server, "/admin/audit_log", who="boss", repo="acme/app")
    assert {e["id"] for e in found} <= {e["id"] for e in instance}
    # A plain member of the organization may not read its log, nor the instance's.
    assert call(server, "GET", "/orgs/acme/audit_log", "bob").status_code == 403
    assert call(server, "GET", "/admin/audit_log", "bob").status_code == 403
