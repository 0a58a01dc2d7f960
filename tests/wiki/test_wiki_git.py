"""The real git CLI against the local server and a repository's wiki
(``{repo}.wiki.git``): a page the API made is in the clone, a pushed page is what the
API reads, a stale push is refused, and the wiki's access follows the repository's."""
from __future__ import annotations

import base64

import httpx
import pytest

from chalicelib.local.runtime import LocalRuntime
from tests.git_cli import git_home_env
from tests.git_cli import run_git as git

PASSWORD = "alice-password"
TIMEOUT = 60


def call(server, method, path, token=None, auth=None, json=None):
    headers = {"Authorization": f"token {token}"} if token else {}
    return httpx.request(method, f"{server.url}/api/v1{path}", headers=headers, auth=auth,
                         json=json, timeout=TIMEOUT)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with LocalRuntime(port=0, data_dir=tmp_path_factory.mktemp("wiki-git"),
                      access_log=False) as runtime:
        from chalicelib.accounts.service import ensure_admin

        ensure_admin("boss", "boss-password", "boss@example.com")
        for name in ("alice", "eve"):
            assert call(runtime, "POST", "/admin/users", auth=("boss", "boss-password"), json={
                "username": name, "email": f"{name}@example.com",
                "password": PASSWORD}).status_code == 201
        runtime.tokens = {name: call(runtime, "POST", f"/users/{name}/tokens",
                                     auth=(name, PASSWORD),
                                     json={"name": "git", "scopes": ["all"]}).json()["sha1"]
                          for name in ("alice", "eve")}
        for repo, private in (("docs", False), ("hidden", True)):
            assert call(runtime, "POST", "/user/repos", token=runtime.tokens["alice"],
                        json={"name": repo, "private": private}).status_code == 201
        yield runtime


@pytest.fixture
def git_env(tmp_path):
    return git_home_env(tmp_path)


def url(server, repo, who="alice"):
    host = server.url.split("://", 1)[1]
    token = server.tokens[who] if who else None
    creds = f"{who}:{token}@" if who else ""
    return f"http://{creds}{host}/alice/{repo}.wiki.git"


def test_clone_push_and_the_api_agree(server, git_env, tmp_path):
    t = server.tokens["alice"]
    made = call(server, "POST", "/repos/alice/docs/wiki/new", token=t, json={
        "title": "Home", "content_base64": base64.b64encode(b"# Docs\n").decode()})
    assert made.status_code == 201, made.text
    clone = tmp_path / "clone"
    git(git_env, "clone", url(server, "docs", who=None), str(clone))     # public: anonymous
    assert (clone / "Home.md").read_bytes() == b"# Docs\n"

    (clone / "Getting-Started.md").write_text("Step one\n")
    git(git_env, "add", ".", cwd=clone)
    git(git_env, "commit", "-m", "A page from git", cwd=clone)
    git(git_env, "remote", "set-url", "origin", url(server, "docs"), cwd=clone)
    git(git_env, "push", "origin", "main", cwd=clone)

    page = call(server, "GET", "/repos/alice/docs/wiki/page/Getting-Started").json()
    assert page["title"] == "Getting Started"
    assert base64.b64decode(page["content_base64"]) == b"Step one\n"
    assert page["last_commit"]["message"] == "A page from git\n"

    # The API writes on top of the pushed commit; a push from the old tip is stale.
    call(server, "PATCH", "/repos/alice/docs/wiki/page/Home", token=t,
         json={"content_base64": base64.b64encode(b"# Docs v2\n").decode()})
    (clone / "Home.md").write_text("conflicting\n")
    git(git_env, "commit", "-am", "stale", cwd=clone)
    refused = git(git_env, "push", "origin", "main", cwd=clone, check=False)
    assert refused.returncode != 0
    git(git_env, "pull", "--rebase=false", "-X", "theirs", "origin", "main", cwd=clone)
    assert call(server, "GET", "/repos/alice/docs", token=t).json()["has_wiki_contents"] is True


def test_access_follows_the_repository(server, git_env, tmp_path):
    t = server.tokens["alice"]
    call(server, "POST", "/repos/alice/hidden/wiki/new", token=t, json={
        "title": "Secret", "content_base64": base64.b64encode(b"s").decode()})
    # Visitors are asked for credentials, strangers do not see it, the owner clones.
    assert git(git_env, "clone", url(server, "hidden", who=None), str(tmp_path / "a"),
               check=False).returncode != 0
    assert git(git_env, "clone", url(server, "hidden", who="eve"), str(tmp_path / "b"),
               check=False).returncode != 0
    git(git_env, "clone", url(server, "hidden"), str(tmp_path / "c"))
    assert (tmp_path / "c" / "Secret.md").read_bytes() == b"s"
    # A reader of a public repository may not push its wiki.
    clone = tmp_path / "d"
    git(git_env, "clone", url(server, "docs", who="eve"), str(clone))
    (clone / "Eve.md").write_text("eve\n")
    git(git_env, "add", ".", cwd=clone)
    git(git_env, "commit", "-m", "eve", cwd=clone)
    assert git(git_env, "push", "origin", "main", cwd=clone, check=False).returncode != 0
    info = httpx.get(f"{server.url}/alice/docs.wiki.git/info/refs?service=git-upload-pack",
                     timeout=TIMEOUT)
    assert info.status_code == 200
    assert info.headers["content-type"] == "application/x-git-upload-pack-advertisement"
