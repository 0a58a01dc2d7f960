"""Quota against the local runtime with the real git CLI (issue 12's acceptance): with
``[quota] ENABLED=true`` and a 1 MiB rule, the push after the one that crossed the limit
is refused with a message in git's output, ``orgCheckQuota`` turns false and, once a
repository is deleted, true again; racing pushes and forks to one owner leave its usage
equal to a recount."""
from __future__ import annotations

import concurrent.futures
import os

import httpx
import pytest

from chalicelib.local.runtime import LocalRuntime
from tests.environment import settings_env
from tests.git_transport.test_git_http import TIMEOUT, git, git_env  # noqa: F401 - git_env: a fixture

PASSWORD = "alice-password"
QUOTA = "NIMBUS__QUOTA__ENABLED"
KiB, MiB = 1 << 10, 1 << 20


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with settings_env({QUOTA: "true"}), LocalRuntime(
            port=0, data_dir=tmp_path_factory.mktemp("quota-git"), access_log=False) as runtime:
        from chalicelib.accounts.service import ensure_admin

        ensure_admin("boss", "boss-password", "boss@example.com")
        runtime.admin = ("boss", "boss-password")
        for name in ("alice", "bob"):
            httpx.post(f"{runtime.url}/api/v1/admin/users", auth=runtime.admin,
                       json={"username": name, "email": f"{name}@example.com",
                             "password": PASSWORD}, timeout=TIMEOUT).raise_for_status()
        runtime.tokens = {name: httpx.post(
            f"{runtime.url}/api/v1/users/{name}/tokens", auth=(name, PASSWORD),
            json={"name": "git", "scopes": ["all"]}, timeout=TIMEOUT).json()["sha1"]
            for name in ("alice", "bob")}
        yield runtime


def call(server, method, path, user="alice", **kw):
    headers = {"Authorization": f"token {server.tokens[user]}"} if user else {}
    return httpx.request(method, f"{server.url}/api/v1{path}", headers=headers,
                         timeout=TIMEOUT, **kw)


def admin(server, method, path, **kw):
    return httpx.request(method, f"{server.url}/api/v1{path}", auth=server.admin,
                         timeout=TIMEOUT, **kw)


def remote(server, path: str, user: str = "alice") -> str:
    host = server.url.split("://", 1)[1]
    return f"http://{user}:{server.tokens[user]}@{host}/{path}.git"


def add_random(env, work, name: str, size: int) -> str:
    """A commit adding ``size`` incompressible bytes."""
    (work / name).write_bytes(os.urandom(size))
    git(env, "add", name, cwd=work)
    git(env, "commit", "-q", "-m", f"add {name}", cwd=work)
    return git(env, "rev-parse", "HEAD", cwd=work).stdout.strip()


def check(server, org: str) -> bool:
    r = call(server, "GET", f"/orgs/{org}/quota/check", params={"subject": "size:repos:all"})
    assert r.status_code == 200, r.text
    return r.json()


def test_push_over_a_1_mib_rule_is_refused_in_gits_output(server, git_env, tmp_path,  # noqa: F811
                                                         immediate_deletion):
    assert call(server, "POST", "/orgs", json={"username": "acme"}).status_code == 201
    assert admin(server, "POST", "/admin/quota/groups", json={"name": "small", "rules": [
        {"name": "one-mib", "limit": MiB, "subjects": ["size:repos:all"]}]}).status_code == 201
    assert admin(server, "PUT", "/admin/quota/groups/small/users/acme").status_code == 204
    for name in ("one", "two"):
        assert call(server, "POST", "/orgs/acme/repos", json={"name": name}).status_code == 201

    work = tmp_path / "one"
    git(git_env, "init", "-q", str(work))
    git(git_env, "remote", "add", "origin", remote(server, "acme/one"), cwd=work)
    add_random(git_env, work, "first.bin", 700 * KiB)
    git(git_env, "push", "-q", "origin", "main", cwd=work)
    assert check(server, "acme") is True                 # 700 KiB of 1 MiB
    add_random(git_env, work, "second.bin", 700 * KiB)
    git(git_env, "push", "-q", "origin", "main", cwd=work)   # crosses the limit: allowed
    assert check(server, "acme") is False
    used = call(server, "GET", "/orgs/acme/quota").json()["used"]["size"]["repos"]
    assert used["public"] > 1400 * KiB and used["private"] == 0

    refused_tip = add_random(git_env, work, "third.bin", 10 * KiB)
    done = git(git_env, "push", "origin", "main", cwd=work, check=False)
    assert done.returncode != 0
    assert "remote: Quota exceeded" in done.stderr, done.stderr
    assert "[remote rejected] main -> main (Quota exceeded)" in done.stderr, done.stderr
    refs = git(git_env, "ls-remote", remote(server, "acme/one")).stdout
    assert refused_tip not in refs
    # Pushes to another repository of the owner are refused too; deletions pass.
    other = tmp_path / "two"
    git(git_env, "init", "-q", str(other))
    add_random(git_env, other, "x.bin", KiB)
    done = git(git_env, "push", remote(server, "acme/two"), "main", cwd=other, check=False)
    assert done.returncode != 0 and "Quota exceeded" in done.stderr
    git(git_env, "push", "-q", "origin", "HEAD~1:refs/heads/spare", cwd=work, check=False)
    created = call(server, "POST", "/orgs/acme/repos", json={"name": "three"})
    assert created.status_code == 413
    assert created.json()["message"] == "quota exceeded" and created.json()["username"] == "acme"

    assert call(server, "DELETE", "/repos/acme/one").status_code == 204
    assert check(server, "acme") is True
    git(git_env, "push", "-q", remote(server, "acme/two"), "main", cwd=other)
    assert call(server, "POST", "/orgs/acme/repos", json={"name": "three"}).status_code == 201


def test_racing_pushes_and_forks_leave_usage_equal_to_a_recount(server, git_env,  # noqa: F811
                                                                 tmp_path):
    from chalicelib.quota import check as quota_check

    assert call(server, "POST", "/user/repos", user="bob",
                json={"name": "upstream", "auto_init": True}).status_code == 201
    names = [f"race{i}" for i in range(4)]
    works = {}
    for name in names:
        assert call(server, "POST", "/user/repos", json={"name": name}).status_code == 201
        work = tmp_path / name
        git(git_env, "init", "-q", str(work))
        add_random(git_env, work, "base.bin", 20 * KiB)
        for branch in ("a", "b", "c"):
            git(git_env, "branch", branch, cwd=work)
        works[name] = work

    def push(name: str, branch: str) -> bool:
        work = tmp_path / f"{name}-{branch}"
        git(git_env, "clone", "-q", "--branch", branch, str(works[name]), str(work))
        add_random(git_env, work, f"{branch}.bin", 40 * KiB)
        return git(git_env, "push", "-q", remote(server, f"alice/{name}"),
                   f"HEAD:refs/heads/{branch}", cwd=work, check=False).returncode == 0

    def contend(i: int) -> bool:
        """Pushes racing for one new branch: the losers' packs are stored but never
        charged (their refs were refused)."""
        work = tmp_path / f"contender{i}"
        git(git_env, "clone", "-q", "--branch", "a", str(works[names[0]]), str(work))
        add_random(git_env, work, f"contender{i}.bin", 30 * KiB)
        return git(git_env, "push", "-q", remote(server, f"alice/{names[0]}"),
                   "HEAD:refs/heads/contested", cwd=work, check=False).returncode == 0

    def fork(i: int) -> bool:
        return call(server, "POST", "/repos/bob/upstream/forks",
                    json={"name": f"fork{i}"}).status_code == 202

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        jobs = [pool.submit(push, name, branch) for name in names for branch in ("a", "b", "c")]
        jobs += [pool.submit(fork, i) for i in range(4)]
        contenders = [pool.submit(contend, i) for i in range(4)]
        results = [job.result() for job in jobs]
        won = [job.result() for job in contenders]
    assert all(results), results
    assert won.count(True) >= 1, won

    # Every push was charged exactly once: the counter equals what the packs say.
    assert quota_check.recount(dry_run=True) == []
    from chalicelib.repos import store as repos

    sizes = sum(int(repos.get("alice", name).quota_size or 0)
                for name in names + [f"fork{i}" for i in range(4)])
    used = call(server, "GET", "/user/quota").json()["used"]["size"]["repos"]
    assert used["public"] == sizes >= 12 * 40 * KiB
