"""The real git CLI against the local server: clone, push, auth, races, faults."""
from __future__ import annotations

import base64
import concurrent.futures
from pathlib import Path

import httpx
import pytest

from chalicelib.local.runtime import LocalRuntime
from tests.git_cli import git_home_env
from tests.git_cli import run_git as git

PASSWORD = "alice-password"
# The first signed commit of a process reads the instance key from SSM, and loading
# moto's SSM backend takes seconds: more than httpx's default 5 s on a busy machine.
TIMEOUT = 60


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with LocalRuntime(port=0, data_dir=tmp_path_factory.mktemp("git-http"),
                      access_log=False) as runtime:
        from chalicelib.accounts.service import ensure_admin

        ensure_admin("boss", "boss-password", "boss@example.com")
        api = Api(runtime.url)
        api.post("/admin/users", auth=("boss", "boss-password"), json={
            "username": "alice", "email": "alice@example.com", "password": PASSWORD})
        api.post("/admin/users", auth=("boss", "boss-password"), json={
            "username": "eve", "email": "eve@example.com", "password": "eve-password"})
        runtime.alice_token = api.post("/users/alice/tokens", auth=("alice", PASSWORD), json={
            "name": "git", "scopes": ["all"]}).json()["sha1"]
        runtime.eve_token = api.post("/users/eve/tokens", auth=("eve", "eve-password"), json={
            "name": "git", "scopes": ["all"]}).json()["sha1"]
        yield runtime


class Api:
    def __init__(self, url):
        self.url = url

    def post(self, path, auth=None, json=None, token=None):
        headers = {"Authorization": f"token {token}"} if token else {}
        r = httpx.post(f"{self.url}/api/v1{path}", auth=auth, json=json, headers=headers,
                       timeout=TIMEOUT)
        assert r.status_code < 300, r.text
        return r

    def get(self, path, token=None):
        headers = {"Authorization": f"token {token}"} if token else {}
        return httpx.get(f"{self.url}/api/v1{path}", headers=headers, timeout=TIMEOUT)


@pytest.fixture
def git_env(tmp_path):
    return git_home_env(tmp_path, extra_config="[protocol]\n\tversion = 0\n")


def authed(server, token=None):
    token = token or server.alice_token
    host = server.url.split("://", 1)[1]
    return f"http://alice:{token}@{host}"


def new_repo(server, name, **options):
    Api(server.url).post("/user/repos", token=server.alice_token, json={"name": name, **options})


def commit(env, work: Path, name: str, content: str, message: str):
    (work / name).write_text(content)
    git(env, "add", name, cwd=work)
    git(env, "commit", "-q", "-m", message, cwd=work)
    return git(env, "rev-parse", "HEAD", cwd=work).stdout.strip()


def test_clone_push_branches_tags(server, git_env, tmp_path):
    new_repo(server, "proj", auto_init=True)
    work = tmp_path / "proj"
    git(git_env, "clone", "-q", f"{server.url}/alice/proj.git", str(work))  # anonymous
    assert (work / "README.md").read_text() == "# proj\n"
    remote = f"{authed(server)}/alice/proj.git"
    git(git_env, "remote", "set-url", "origin", remote, cwd=work)
    git(git_env, "checkout", "-q", "-b", "feature", cwd=work)
    first = commit(git_env, work, "a.txt", "one\n", "add a")
    git(git_env, "push", "-q", "origin", "feature", cwd=work)
    second = commit(git_env, work, "a.txt", "one\ntwo\n", "grow a")  # thin pack on push
    git(git_env, "push", "-q", "origin", "feature", cwd=work)
    branch = Api(server.url).get("/repos/alice/proj/branches/feature").json()
    assert branch["commit"]["id"] == second and branch["commit"]["message"] == "grow a\n"
    git(git_env, "tag", "v1", first, cwd=work)
    git(git_env, "push", "-q", "origin", "v1", cwd=work)
    refs = git(git_env, "ls-remote", remote).stdout
    assert f"{first}\trefs/tags/v1" in refs and f"{second}\trefs/heads/feature" in refs
    raw = httpx.get(f"{server.url}/api/v1/repos/alice/proj/raw/a.txt?ref=feature")
    assert raw.text == "one\ntwo\n"
    git(git_env, "push", "-q", "origin", "--delete", "feature", cwd=work)
    assert "refs/heads/feature" not in git(git_env, "ls-remote", remote).stdout
    assert Api(server.url).get("/repos/alice/proj/branches/feature").status_code == 404

    shallow = tmp_path / "shallow"
    git(git_env, "clone", "-q", "--depth", "1", remote, str(shallow))
    assert git(git_env, "rev-parse", "--is-shallow-repository", cwd=shallow).stdout.strip() == "true"


def test_first_push_into_empty_repository(server, git_env, tmp_path):
    new_repo(server, "fresh")
    work = tmp_path / "fresh"
    work.mkdir()
    git(git_env, "init", "-q", cwd=work)
    head = commit(git_env, work, "x.txt", "x\n", "first")
    git(git_env, "push", "-q", f"{authed(server)}/alice/fresh.git", "main", cwd=work)
    repo = Api(server.url).get("/repos/alice/fresh").json()
    assert repo["empty"] is False and repo["size"] >= 0
    clone = tmp_path / "again"
    git(git_env, "clone", "-q", f"{server.url}/alice/fresh", str(clone))  # without .git
    assert git(git_env, "rev-parse", "HEAD", cwd=clone).stdout.strip() == head


def test_non_fast_forward_refused_unless_forced(server, git_env, tmp_path):
    new_repo(server, "nff", auto_init=True)
    remote = f"{authed(server)}/alice/nff.git"
    a, b = tmp_path / "a", tmp_path / "b"
    git(git_env, "clone", "-q", remote, str(a))
    git(git_env, "clone", "-q", remote, str(b))
    commit(git_env, a, "f", "a\n", "from a")
    git(git_env, "push", "-q", "origin", "main", cwd=a)
    theirs = commit(git_env, b, "f", "b\n", "from b")
    refused = git(git_env, "push", "origin", "main", cwd=b, check=False)
    assert refused.returncode != 0
    git(git_env, "push", "-q", "--force", "origin", "main", cwd=b)
    assert theirs in git(git_env, "ls-remote", remote, "refs/heads/main").stdout


def test_private_repository_auth(server, git_env, tmp_path):
    new_repo(server, "hidden", private=True, auto_init=True)
    url = f"{server.url}/alice/hidden.git"
    r = httpx.get(f"{url}/info/refs?service=git-upload-pack")
    assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Basic")
    assert git(git_env, "clone", "-q", url, str(tmp_path / "anon"), check=False).returncode != 0
    git(git_env, "clone", "-q", f"{authed(server)}/alice/hidden.git", str(tmp_path / "ok"))
    eve = "Basic " + base64.b64encode(f"eve:{server.eve_token}".encode()).decode()
    r = httpx.get(f"{url}/info/refs?service=git-upload-pack", headers={"Authorization": eve})
    assert r.status_code == 404
    # Missing repositories look the same as private ones to anonymous callers.
    r = httpx.get(f"{server.url}/alice/nothing.git/info/refs?service=git-upload-pack")
    assert r.status_code == 401


def test_push_needs_write_access(server, git_env, tmp_path):
    new_repo(server, "readonly", auto_init=True)
    url = f"{server.url}/alice/readonly.git"
    r = httpx.get(f"{url}/info/refs?service=git-receive-pack")
    assert r.status_code == 401
    eve = "Basic " + base64.b64encode(f"eve:{server.eve_token}".encode()).decode()
    r = httpx.get(f"{url}/info/refs?service=git-receive-pack", headers={"Authorization": eve})
    assert r.status_code == 403
    work = tmp_path / "w"
    git(git_env, "clone", "-q", url, str(work))
    commit(git_env, work, "e", "e\n", "eve was here")
    host = server.url.split("://", 1)[1]
    pushed = git(git_env, "push", f"http://eve:{server.eve_token}@{host}/alice/readonly.git",
                 "main", cwd=work, check=False)
    assert pushed.returncode != 0


def test_racing_pushes_lose_nothing(server, git_env, tmp_path):
    new_repo(server, "race", auto_init=True)
    remote = f"{authed(server)}/alice/race.git"
    clones = []
    for i in range(8):
        work = tmp_path / f"c{i}"
        git(git_env, "clone", "-q", remote, str(work))
        clones.append((work, commit(git_env, work, f"f{i}", f"{i}\n", f"commit {i}")))

    def push(item):
        work, sha = item
        return sha, git(git_env, "push", "origin", "main", cwd=work, check=False).returncode

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(push, clones))
    # All eight build on the same base, so exactly one can be a fast-forward; the rest
    # are refused (stale compare-and-swap or non-fast-forward), never half-applied.
    accepted = [sha for sha, code in results if code == 0]
    assert len(accepted) == 1, results
    head = git(git_env, "ls-remote", remote, "refs/heads/main").stdout.split()[0]
    assert head == accepted[0]
    check = tmp_path / "check"
    git(git_env, "clone", "-q", remote, str(check))
    git(git_env, "fsck", "--no-progress", "--connectivity-only", cwd=check)


def test_push_killed_midway_leaves_refs(server, git_env, tmp_path, monkeypatch):
    from chalicelib.git_transport import routes as git_http

    new_repo(server, "fault", auto_init=True)
    remote = f"{authed(server)}/alice/fault.git"
    work = tmp_path / "fault"
    git(git_env, "clone", "-q", remote, str(work))
    before = git(git_env, "ls-remote", remote, "refs/heads/main").stdout
    commit(git_env, work, "z", "z\n", "doomed")

    def crash(*args, **kwargs):
        raise RuntimeError("simulated crash between pack and refs")

    monkeypatch.setattr(git_http, "before_commit_hook", crash)
    assert git(git_env, "push", "origin", "main", cwd=work, check=False).returncode != 0
    monkeypatch.undo()
    assert git(git_env, "ls-remote", remote, "refs/heads/main").stdout == before


def test_team_members_push_by_permission(server, git_env, tmp_path):
    """Write team members push to an organization repository; read-only members get
    403 from receive-pack; outsiders cannot even see a private one."""
    api = Api(server.url)
    admin = ("boss", "boss-password")
    for name in ("writer", "reader", "outsider"):
        api.post("/admin/users", auth=admin, json={
            "username": name, "email": f"{name}@example.com", "password": f"{name}-password"})
    tokens = {n: api.post(f"/users/{n}/tokens", auth=(n, f"{n}-password"), json={
        "name": "git", "scopes": ["all"]}).json()["sha1"] for n in ("writer", "reader", "outsider")}
    api.post("/orgs", token=server.alice_token, json={"username": "team-org"})
    api.post("/orgs/team-org/repos", token=server.alice_token,
             json={"name": "shared", "private": True, "auto_init": True})
    for who, mode in (("writer", "write"), ("reader", "read")):
        team = api.post("/orgs/team-org/teams", token=server.alice_token,
                        json={"name": f"{mode}ers", "permission": mode}).json()
        httpx.put(f"{server.url}/api/v1/teams/{team['id']}/members/{who}",
                  headers={"Authorization": f"token {server.alice_token}"})
        httpx.put(f"{server.url}/api/v1/teams/{team['id']}/repos/team-org/shared",
                  headers={"Authorization": f"token {server.alice_token}"})
    host = server.url.split("://", 1)[1]

    def url(who):
        return f"http://{who}:{tokens[who]}@{host}/team-org/shared.git"

    work = tmp_path / "w"
    git(git_env, "clone", "-q", url("writer"), str(work))
    sha = commit(git_env, work, "t.txt", "team\n", "by a team member")
    git(git_env, "push", "-q", "origin", "main", cwd=work)
    assert sha in git(git_env, "ls-remote", url("reader"), "refs/heads/main").stdout

    commit(git_env, work, "t.txt", "reader\n", "by a reader")
    refused = git(git_env, "push", url("reader"), "main", cwd=work, check=False)
    assert refused.returncode != 0 and "403" in refused.stderr
    r = httpx.get(f"{server.url}/team-org/shared.git/info/refs?service=git-receive-pack",
                  auth=("reader", tokens["reader"]))
    assert r.status_code == 403
    hidden = git(git_env, "clone", "-q", url("outsider"), str(tmp_path / "o"), check=False)
    assert hidden.returncode != 0 and "not found" in hidden.stderr.lower()


def test_a_pushed_branch_prints_the_pull_request_link(server, git_env, tmp_path):
    """As Forgejo's post-receive hook: a branch other than the default prints the link
    that opens a pull request from it, then, once one is open, the link to it; the
    default branch, tags and deletions print nothing.  The link opens the compare page."""
    new_repo(server, "hinted", auto_init=True)
    work = tmp_path / "hinted"
    remote = f"{authed(server)}/alice/hinted.git"
    git(git_env, "clone", "-q", remote, str(work))
    git(git_env, "checkout", "-q", "-b", "fix/typo", cwd=work)
    commit(git_env, work, "a.txt", "a\n", "fix a typo")
    pushed = _remote_lines(git(git_env, "push", "origin", "fix/typo", cwd=work).stderr)
    html_url = Api(server.url).get("/repos/alice/hinted").json()["html_url"]
    link = f"{html_url}/compare/main...fix/typo"
    assert pushed == ["", "Create a new pull request for 'fix/typo':", f"  {link}", ""]
    page = httpx.get(server.url + link.removeprefix(html_url.rsplit("/alice/", 1)[0]),
                     timeout=TIMEOUT)
    assert page.status_code == 200 and "fix a typo" in page.text
    number = Api(server.url).post("/repos/alice/hinted/pulls", token=server.alice_token, json={
        "title": "Fix a typo", "head": "fix/typo", "base": "main"}).json()["number"]
    commit(git_env, work, "a.txt", "b\n", "and another")
    pushed = _remote_lines(git(git_env, "push", "origin", "fix/typo", cwd=work).stderr)
    assert pushed == ["", "Visit the existing pull request:", f"  {html_url}/pulls/{number}", ""]
    git(git_env, "checkout", "-q", "main", cwd=work)
    commit(git_env, work, "b.txt", "b\n", "on main")
    git(git_env, "tag", "v1", cwd=work)
    for quiet in (["origin", "main"], ["origin", "v1"], ["origin", "--delete", "fix/typo"]):
        assert _remote_lines(git(git_env, "push", *quiet, cwd=work).stderr) == []


def _remote_lines(stderr: str) -> list[str]:
    """What the server printed to git's terminal (git pads each line to clear it)."""
    return [line.removeprefix("remote:").removeprefix(" ").rstrip()
            if line.rstrip() != "remote:" else ""
            for line in stderr.splitlines() if line.startswith("remote:")]
