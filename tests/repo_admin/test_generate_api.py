"""A repository generated from a template, through the API and checked with a real
``git clone`` against the local server: the template's files in one new commit, the
files its ``.forgejo/template`` names expanded (text and paths), that file left out;
its webhooks listed on the new repository with their settings, its avatar served with
the same bytes; bad input a 4xx with no repository made."""
from __future__ import annotations

import base64
import datetime
import io
from urllib.parse import urlsplit

import httpx
import pytest
from PIL import Image

from tests.repo_admin.test_transfer_api import clone_url, git, git_env, server  # noqa: F401

TEMPLATE_FILE = "# expanded files\n*.md\ncmd/**\n"
README = ("# $REPO_NAME by ${REPO_OWNER}\nfrom $TEMPLATE_OWNER/$TEMPLATE_NAME ($TEMPLATE_LINK)\n"
          "module $REPO_NAME_SNAKE / $REPO_NAME_PASCAL / $REPO_NAME_KEBAB\n"
          "clone $REPO_HTTPS_URL\nabout: $REPO_DESCRIPTION ($YEAR)\n")
SCRIPT = "#!/bin/sh\necho $HOME $REPO_NAME\n"       # not matched: left as written


@pytest.fixture(scope="module")
def template(server, tmp_path_factory):  # noqa: F811
    client, alice = server.client, server.tokens["alice"]
    assert client.call("POST", "/user/repos", token=alice, json={
        "name": "tmpl", "auto_init": True, "description": "the template"}).status_code == 201
    home = tmp_path_factory.mktemp("home")
    (home / ".gitconfig").write_text("[user]\n\tname = Alice\n\temail = alice@example.com\n")
    import os
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
           "HOME": str(home), "GIT_TERMINAL_PROMPT": "0"}
    work = home / "work"
    git(env, "clone", "-q", clone_url(server, "alice/tmpl", "alice"), str(work))
    (work / ".forgejo").mkdir()
    (work / ".forgejo" / "template").write_text(TEMPLATE_FILE)
    (work / "README.md").write_text(README)
    (work / "run.sh").write_text(SCRIPT)
    (work / "cmd" / "$REPO_NAME_KEBAB").mkdir(parents=True)
    (work / "cmd" / "$REPO_NAME_KEBAB" / "main.go").write_text("package main // $REPO_NAME\n")
    git(env, "add", "-A", cwd=work)
    git(env, "commit", "-q", "-m", "template files", cwd=work)
    git(env, "commit", "-q", "--allow-empty", "-m", "more history", cwd=work)
    git(env, "push", "-q", "origin", "main", cwd=work)
    r = client.call("PATCH", "/repos/alice/tmpl", token=alice, json={"template": True})
    assert r.status_code == 200 and r.json()["template"] is True
    return "alice/tmpl"


def test_a_generated_repository_has_the_files_expanded(server, template, git_env, tmp_path):  # noqa: F811
    client, alice = server.client, server.tokens["alice"]
    r = client.call("POST", f"/repos/{template}/generate", token=alice, json={
        "owner": "alice", "name": "My-Service", "description": "made from it",
        "git_content": True, "private": True})
    assert r.status_code == 201, r.text
    made = r.json()
    assert (made["full_name"], made["private"], made["template"], made["empty"]) == \
        ("alice/My-Service", True, False, False)
    out = tmp_path / "made"
    git(git_env, "clone", "-q", clone_url(server, "alice/My-Service", "alice"), str(out))
    readme = (out / "README.md").read_text()
    year = datetime.date.today().year
    assert readme == (
        "# My-Service by alice\nfrom alice/tmpl (/alice/tmpl)\n"
        "module my_service / MyService / my-service\n"
        f"clone {made['clone_url']}\nabout: made from it ({year})\n")
    assert (out / "run.sh").read_text() == SCRIPT
    assert (out / "cmd" / "my-service" / "main.go").read_text() == "package main // My-Service\n"
    assert not (out / ".forgejo").exists()
    log = git(git_env, "log", "--format=%s", cwd=out).stdout.split("\n")
    assert [line for line in log if line] == ["Initial commit"]


def test_bad_generations_are_refused_and_make_nothing(server, template):  # noqa: F811
    client, alice, bob = server.client, server.tokens["alice"], server.tokens["bob"]
    cases = [
        (alice, {"owner": "alice", "name": "x1"}, 422),                    # nothing asked
        (alice, {"owner": "alice", "name": "bad name", "git_content": True}, 422),
        (alice, {"owner": "alice", "name": "tmpl", "git_content": True}, 409),
        (alice, {"owner": "bob", "name": "x2", "git_content": True}, 403),
        (alice, {"owner": "nobody-at-all", "name": "x3", "git_content": True}, 404),
        (alice, {"name": "x4", "git_content": True}, 422),                 # owner required
        (bob, {"owner": "bob", "name": "x5", "git_content": "yes"}, 422),
    ]
    for token, body, status in cases:
        r = client.call("POST", f"/repos/{template}/generate", token=token, json=body)
        assert r.status_code == status, (body, r.text)
        assert "message" in r.json()
    for name in ("x1", "x2", "x3", "x4", "x5"):
        assert client.call("GET", f"/repos/alice/{name}", token=alice).status_code == 404
    assert client.call("POST", f"/repos/{template}/generate", json={
        "owner": "alice", "name": "x6", "git_content": True}).status_code == 401
    assert client.call("POST", "/repos/alice/nothing/generate", token=alice, json={
        "owner": "alice", "name": "x7", "git_content": True}).status_code == 404
    # Another user may generate from a public template into their own account.
    r = client.call("POST", f"/repos/{template}/generate", token=bob, json={
        "owner": "bob", "name": "from-alice", "git_content": True})
    assert r.status_code == 201 and r.json()["full_name"] == "bob/from-alice"


def test_webhooks_and_the_avatar_are_copied(server):  # noqa: F811
    client, alice, bob = server.client, server.tokens["alice"], server.tokens["bob"]
    assert client.call("POST", "/user/repos", token=alice, json={
        "name": "hooked", "auto_init": True}).status_code == 201
    assert client.call("PATCH", "/repos/alice/hooked", token=alice,
                       json={"template": True}).status_code == 200
    sent = [{"type": "gitea", "active": True, "events": ["issues", "push"],
             "branch_filter": "main", "authorization_header": "Bearer ci",
             "config": {"url": "https://ci.example.com/hook", "content_type": "form",
                        "secret": "s3cr3t"}},
            {"type": "slack", "active": False, "events": ["release"],
             "config": {"url": "https://chat.example.com/x", "content_type": "json",
                        "channel": "#builds"}}]
    for body in sent:
        r = client.call("POST", "/repos/alice/hooked/hooks", token=alice, json=body)
        assert r.status_code == 201, r.text
    out = io.BytesIO()
    Image.new("RGB", (48, 32), (200, 40, 90)).save(out, format="PNG")
    assert client.call("POST", "/repos/alice/hooked/avatar", token=alice, json={
        "image": base64.b64encode(out.getvalue()).decode()}).status_code == 204

    # A reader who does not administer the template may not copy its hooks: 403, no repo.
    r = client.call("POST", "/repos/alice/hooked/generate", token=bob, json={
        "owner": "bob", "name": "hooked-copy", "webhooks": True})
    assert r.status_code == 403 and "message" in r.json()
    assert client.call("GET", "/repos/bob/hooked-copy", token=bob).status_code == 404

    r = client.call("POST", "/repos/alice/hooked/generate", token=alice, json={
        "owner": "alice", "name": "hooked-copy", "webhooks": True, "avatar": True})
    assert r.status_code == 201, r.text
    made = r.json()

    def listed(repo):
        r = client.call("GET", f"/repos/alice/{repo}/hooks", token=alice)
        assert r.status_code == 200
        return [{key: hook[key] for key in ("type", "active", "events", "branch_filter",
                                              "authorization_header", "config")}
                for hook in r.json()]

    copies, originals = listed("hooked-copy"), listed("hooked")
    assert copies == originals and len(copies) == 2
    assert (copies[0]["config"]["url"], copies[0]["config"]["content_type"],
            copies[0]["branch_filter"], copies[0]["authorization_header"]) == \
        ("https://ci.example.com/hook", "form", "main", "Bearer ci")
    assert "secret" not in copies[0]["config"]          # write-only, as on the template
    assert (copies[1]["type"], copies[1]["active"]) == ("slack", False)

    template = client.call("GET", "/repos/alice/hooked", token=alice).json()
    assert made["avatar_url"] != template["avatar_url"]

    def picture(url):
        got = httpx.get(server.url + urlsplit(url).path, timeout=30)
        assert got.status_code == 200 and got.headers["content-type"] == "image/png"
        return got.content

    assert picture(made["avatar_url"]) == picture(template["avatar_url"])
    assert client.call("GET", "/repos/alice/hooked-copy",
                       token=alice).json()["avatar_url"] == made["avatar_url"]
