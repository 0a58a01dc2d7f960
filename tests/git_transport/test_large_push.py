"""Pushes bigger than a request can carry, against the local runtime enforcing AWS's
payload limits (1 MB here): a plain ``git push`` is refused with the way to do it, and
``python -m chalicelib.cli push-bundle`` takes the same repository through a bundle in
S3, applied with a push's checks (stale old values, hidden refs, missing objects,
who may write).
"""
from __future__ import annotations

import os

import httpx
import pytest

from chalicelib import cli
from tests.environment import settings_env
from tests.git_transport.test_git_http import TIMEOUT, git, git_env  # noqa: F401 - git_env: a fixture
from tests.git_transport.test_git_streaming import LIMITS, MB, enforced, refs_of, remote
from tests.pulls.test_pulls_git import runtime_with_users

ZERO = "0" * 40


@pytest.fixture
def env(git_env):  # noqa: F811 - the imported fixture
    """test_git_http's git environment (user Alice, protocol v0)."""
    return git_env


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with runtime_with_users(tmp_path_factory.mktemp("large-push"), LIMITS,
                            users=("alice", "eve"), events=False) as runtime:
        runtime.eve_token = runtime.tokens["eve"]
        yield runtime


def api(server, method, path, token=None, **kw):
    token = token or server.token
    return httpx.request(method, f"{server.url}/api/v1{path}", timeout=TIMEOUT,
                         headers={"Authorization": f"token {token}"}, **kw)


def new_repo(server, name, **options):
    api(server, "POST", "/user/repos", json={"name": name, **options}).raise_for_status()


def big_history(env, work, commits=3):
    git(env, "init", "-q", str(work))
    for i in range(commits):
        (work / f"blob{i}.bin").write_bytes(os.urandom(MB))
        git(env, "add", ".", cwd=work)
        git(env, "commit", "-q", "-m", f"blob {i}", cwd=work)


def test_plain_push_over_the_limit_names_the_large_push_command(server, env, tmp_path):
    new_repo(server, "plain")
    work = tmp_path / "plain"
    big_history(env, work)
    with enforced():
        failed = git(env, "push", remote(server, "plain"), "main", cwd=work, check=False)
    assert failed.returncode != 0
    assert "413" in failed.stderr, failed.stderr
    assert api(server, "GET", "/repos/alice/plain/branches").json() == []
    # What the 413 says (git shows only its status; other clients show the message).
    with enforced():
        refused = httpx.post(f"{server.url}/alice/plain.git/git-receive-pack",
                             content=b"0" * (2 * MB), timeout=TIMEOUT,
                             headers={"Authorization": f"token {server.token}",
                                      "Content-Type": "application/x-git-receive-pack-request"})
    assert refused.status_code == 413
    assert "python -m chalicelib.cli push-bundle" in refused.json()["message"]


def test_push_bundle_then_clone_is_identical(server, env, tmp_path, capsys):
    new_repo(server, "bundled", private=True)
    work = tmp_path / "bundled"
    big_history(env, work)
    git(env, "tag", "-a", "-m", "first", "v1", "HEAD~1", cwd=work)
    git(env, "branch", "side", "HEAD~2", cwd=work)
    with enforced():
        status = cli.main(["push-bundle", remote(server, "bundled"), "main", "side",
                           "refs/tags/v1", "--repo-dir", str(work)])
    assert status == 0, capsys.readouterr()
    assert "refs/heads/main  ok" in capsys.readouterr().out
    clone = tmp_path / "clone"
    with enforced():
        git(env, "clone", "-q", "--mirror", remote(server, "bundled"), str(clone))
    git(env, "fsck", "--strict", cwd=clone)
    assert refs_of(env, clone) == refs_of(env, work)
    # The push landed as a push does: branch records (and their events) came with it.
    branches = api(server, "GET", "/repos/alice/bundled/branches").json()
    assert sorted(b["name"] for b in branches) == ["main", "side"]

    # A second push sends only what is new (the bundle's prerequisites are the
    # server's), and with nothing new there is nothing to send.
    (work / "small.txt").write_text("more\n")
    git(env, "add", ".", cwd=work)
    git(env, "commit", "-q", "-m", "small", cwd=work)
    with enforced():
        assert cli.main(["push-bundle", remote(server, "bundled"), "main",
                         "--repo-dir", str(work)]) == 0
        out = capsys.readouterr().out
        assert "bundle: 0.0 MB for 1 ref(s)" in out
        assert cli.main(["push-bundle", remote(server, "bundled"), "main",
                         "--repo-dir", str(work)]) == 0
        assert "Everything up-to-date" in capsys.readouterr().out
    assert api(server, "GET", "/repos/alice/bundled/branches/main").json()["commit"]["id"] \
        == git(env, "rev-parse", "main", cwd=work).stdout.strip()


def upload_bundle(server, work, revs, name, token=None) -> dict:
    path = work.parent / f"{name}.bundle"
    git({**os.environ}, "bundle", "create", str(path), *revs, cwd=work)
    ticket = api(server, "POST", f"/repos/alice/{name}/large-pushes",
                 json={"size": path.stat().st_size}, token=token)
    assert ticket.status_code == 201, ticket.text
    put = httpx.put(ticket.json()["upload_url"], content=path.read_bytes(), timeout=TIMEOUT)
    assert put.status_code == 200
    return ticket.json()


def apply(server, name, upload, updates):
    with enforced():
        return api(server, "POST", f"/repos/alice/{name}/large-pushes/{upload}/apply",
                   json={"updates": [dict(zip(("ref", "old", "new"), u)) for u in updates]})


def test_stale_old_value_hidden_refs_and_missing_prerequisites(server, env, tmp_path):
    new_repo(server, "cas", auto_init=True)
    work = tmp_path / "cas"
    git(env, "clone", "-q", remote(server, "cas"), str(work))
    base = git(env, "rev-parse", "HEAD", cwd=work).stdout.strip()
    (work / "a.txt").write_text("a\n")
    git(env, "add", ".", cwd=work)
    git(env, "commit", "-q", "-m", "a", cwd=work)
    new = git(env, "rev-parse", "HEAD", cwd=work).stdout.strip()
    ticket = upload_bundle(server, work, ["main", f"^{base}"], "cas")

    # The client read an old value the branch no longer (or never) had: refused.
    stale = apply(server, "cas", ticket["id"], [("refs/heads/main", ZERO, new)])
    assert stale.status_code == 200, stale.text
    assert stale.json()["ok"] is False
    assert stale.json()["refs"][0]["status"].startswith("stale old value")
    assert api(server, "GET", "/repos/alice/cas/branches/main").json()["commit"]["id"] == base

    # Refs the server keeps for itself are refused as a push's are.
    ticket = upload_bundle(server, work, ["main", f"^{base}"], "cas")
    hidden = apply(server, "cas", ticket["id"], [("refs/heads/main", base, new),
                                                 ("refs/pull/1/head", ZERO, new)])
    assert {r["ref"]: r["status"] for r in hidden.json()["refs"]}["refs/pull/1/head"] \
        == "deny updating a hidden ref"
    assert hidden.json()["ok"] is False  # atomic: main did not move either
    assert api(server, "GET", "/repos/alice/cas/branches/main").json()["commit"]["id"] == base

    # The right old value: applied; the upload is gone afterwards.
    ticket = upload_bundle(server, work, ["main", f"^{base}"], "cas")
    done = apply(server, "cas", ticket["id"], [("refs/heads/main", base, new)])
    assert done.json() == {"unpack": "ok", "ok": True, "refs": [
        {"ref": "refs/heads/main", "old": base, "new": new, "ok": True, "status": "ok"}]}
    again = apply(server, "cas", ticket["id"], [("refs/heads/main", base, new)])
    assert again.status_code == 404

    # A bundle built on objects the server lacks is refused before anything is stored.
    orphan = tmp_path / "orphan"
    big_history(env, orphan, commits=2)
    ticket = upload_bundle(server, orphan, ["main", "^main~1"], "cas")
    tip = git(env, "rev-parse", "main", cwd=orphan).stdout.strip()
    missing = apply(server, "cas", ticket["id"], [("refs/heads/other", ZERO, tip)])
    assert missing.status_code == 422
    assert "does not have" in missing.json()["message"]

    # Updates must name what the bundle carries.
    ticket = upload_bundle(server, work, ["main", f"^{base}"], "cas")
    wrong = apply(server, "cas", ticket["id"], [("refs/heads/x", ZERO, base)])
    assert wrong.status_code == 422


def test_a_stranger_cannot_get_an_upload_url(server, env, tmp_path):
    new_repo(server, "public-one")
    new_repo(server, "secret", private=True)
    body = {"size": 1000}
    eve = api(server, "POST", "/repos/alice/public-one/large-pushes", json=body,
              token=server.eve_token)
    assert eve.status_code == 403
    assert api(server, "POST", "/repos/alice/secret/large-pushes", json=body,
               token=server.eve_token).status_code == 404
    anonymous = httpx.post(f"{server.url}/api/v1/repos/alice/public-one/large-pushes",
                           json=body, timeout=TIMEOUT)
    assert anonymous.status_code == 401
    assert api(server, "POST", "/repos/alice/secret/large-pushes/" + "0" * 32 + "/apply",
               json={"updates": []}, token=server.eve_token).status_code == 404
    bad = api(server, "POST", "/repos/alice/public-one/large-pushes", json={"size": "big"})
    assert bad.status_code == 422


def test_quota_refuses_the_upload_url(server, tmp_path):
    new_repo(server, "quota-limited")
    with settings_env({"NIMBUS__QUOTA__ENABLED": "true",
                       "NIMBUS__QUOTA_0X2E_DEFAULT__TOTAL": "1000"}):
        refused = api(server, "POST", "/repos/alice/quota-limited/large-pushes",
                      json={"size": 5000})
    assert refused.status_code == 413, refused.text


def test_cli_reports_a_refusal(server, env, tmp_path, capsys):
    new_repo(server, "refusing")
    work = tmp_path / "refusing"
    big_history(env, work, commits=1)
    with enforced():
        status = cli.main(["push-bundle", remote(server, "refusing"), "main",
                           "--repo-dir", str(work), "--token", server.eve_token])
    assert status == 1
    assert "HTTP 403" in capsys.readouterr().err
