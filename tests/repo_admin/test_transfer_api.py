"""A repository's transfer through the API and the real git CLI against the local server:
to an organization at once (202), to a user pending until accepted (201, then 202) or
rejected (200); the old API path and the old clone URL lead to the new address (307),
private repositories only for those who may read them; bad input is a 4xx with
nothing changed."""
from __future__ import annotations

import pytest

from tests.git_cli import git_home_env
from tests.git_cli import run_git as git
from tests.local_server import runtime_with_events, seat_people
from tests.local_server import token_clone_url as clone_url

PASSWORDS = {"alice": "alice-password", "bob": "bob-password", "eve": "eve-password"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with runtime_with_events(tmp_path_factory.mktemp("transfer")) as runtime:
        seat_people(runtime, PASSWORDS)
        yield runtime


@pytest.fixture
def git_env(tmp_path):
    return git_home_env(tmp_path)


def make_repo(server, name, **fields):
    r = server.client.call("POST", "/user/repos", token=server.tokens["alice"],
                           json={"name": name, "auto_init": True, **fields})
    assert r.status_code == 201, r.text
    return r.json()


def make_org(server, name):
    r = server.client.call("POST", "/orgs", token=server.tokens["alice"],
                           json={"username": name})
    assert r.status_code == 201, r.text
    return r.json()


def test_transfer_to_an_org_keeps_the_old_api_path_and_clone_url(server, git_env, tmp_path):
    client, alice = server.client, server.tokens["alice"]
    make_org(server, "acme")
    team = client.call("POST", "/orgs/acme/teams", token=alice, json={
        "name": "devs", "permission": "write", "units": ["repo.code"]}).json()
    made = make_repo(server, "proj")
    r = client.call("POST", "/repos/alice/proj/transfer", token=alice,
                    json={"new_owner": "acme", "team_ids": [team["id"]]})
    assert r.status_code == 202, r.text
    record = r.json()
    assert (record["full_name"], record["id"], record["repo_transfer"]) == \
        ("acme/proj", made["id"], None)
    assert record["owner"]["login"] == "acme" and record["permissions"]["admin"] is True
    # The old API path answers 307 to the new one, keeping what follows it.
    old = client.call("GET", "/repos/alice/proj/branches?limit=5", token=alice)
    assert old.status_code == 307
    assert old.headers["location"] == "/api/v1/repos/acme/proj/branches?limit=5"
    followed = client.call("GET", "/repos/alice/proj", follow_redirects=True)
    assert followed.status_code == 200 and followed.json()["full_name"] == "acme/proj"
    teams = client.call("GET", "/repos/acme/proj/teams", token=alice).json()
    assert "devs" in [t["name"] for t in teams]
    assert [r["name"] for r in client.call("GET", "/users/alice/repos").json()] == []
    assert [r["name"] for r in client.call("GET", "/orgs/acme/repos").json()] == ["proj"]
    # git clone through the old URL, anonymously (public) and with credentials.
    git(git_env, "clone", "-q", clone_url(server, "alice/proj"), str(tmp_path / "anon"))
    assert (tmp_path / "anon" / "README.md").exists()
    git(git_env, "clone", "-q", clone_url(server, "alice/proj", "alice"), str(tmp_path / "w"))
    (tmp_path / "w" / "new.txt").write_text("pushed through the old URL\n")
    git(git_env, "add", "new.txt", cwd=tmp_path / "w")
    git(git_env, "commit", "-q", "-m", "more", cwd=tmp_path / "w")
    git(git_env, "push", "-q", "origin", "main", cwd=tmp_path / "w")
    content = client.call("GET", "/repos/acme/proj/contents/new.txt", token=alice)
    assert content.status_code == 200


def test_a_private_repository_leads_only_those_who_may_read_it(server, git_env, tmp_path):
    client, alice = server.client, server.tokens["alice"]
    make_org(server, "secretorg")
    make_repo(server, "hidden", private=True)
    r = client.call("POST", "/repos/alice/hidden/transfer", token=alice,
                    json={"new_owner": "secretorg"})
    assert r.status_code == 202, r.text
    assert client.call("GET", "/repos/alice/hidden").status_code == 404
    assert client.call("GET", "/repos/alice/hidden", token=server.tokens["eve"]).status_code == 404
    assert client.call("GET", "/repos/alice/hidden", token=alice).status_code == 307
    refused = git(git_env, "clone", "-q", clone_url(server, "alice/hidden"),
                  str(tmp_path / "anon"), check=False)
    assert refused.returncode != 0
    git(git_env, "clone", "-q", clone_url(server, "alice/hidden", "alice"), str(tmp_path / "ok"))
    assert (tmp_path / "ok" / "README.md").exists()


def test_a_transfer_to_a_user_waits_for_their_answer(server):
    client, alice, bob, eve = (server.client, server.tokens["alice"], server.tokens["bob"],
                               server.tokens["eve"])
    make_repo(server, "gift")
    r = client.call("POST", "/repos/alice/gift/transfer", token=alice, json={"new_owner": "bob"})
    assert r.status_code == 201, r.text
    pending = r.json()["repo_transfer"]
    assert (pending["doer"]["login"], pending["recipient"]["login"], pending["teams"]) == \
        ("alice", "bob", [])
    shown = client.call("GET", "/repos/alice/gift", token=bob).json()
    assert shown["repo_transfer"]["recipient"]["login"] == "bob"
    assert client.call("POST", "/repos/alice/gift/transfer", token=alice,
                       json={"new_owner": "eve"}).status_code == 409
    assert client.call("POST", "/repos/alice/gift/transfer/accept", token=eve).status_code == 403
    rejected = client.call("POST", "/repos/alice/gift/transfer/reject", token=bob)
    assert rejected.status_code == 200 and rejected.json()["repo_transfer"] is None
    assert client.call("POST", "/repos/alice/gift/transfer/accept", token=bob).status_code == 404
    assert client.call("POST", "/repos/alice/gift/transfer", token=alice,
                       json={"new_owner": "bob"}).status_code == 201
    accepted = client.call("POST", "/repos/alice/gift/transfer/accept", token=bob)
    assert accepted.status_code == 202, accepted.text
    assert accepted.json()["full_name"] == "bob/gift"
    assert accepted.json()["permissions"] == {"admin": True, "push": True, "pull": True}
    assert client.call("GET", "/repos/bob/gift").status_code == 200
    assert client.call("GET", "/repos/alice/gift").headers["location"] == "/api/v1/repos/bob/gift"


def test_bad_transfers_are_refused_and_change_nothing(server):
    client, alice, eve = server.client, server.tokens["alice"], server.tokens["eve"]
    make_org(server, "clash")
    make_repo(server, "dup")
    assert client.call("POST", "/orgs/clash/repos", token=alice,
                       json={"name": "dup"}).status_code == 201
    cases = [
        (alice, {"new_owner": "clash"}, 422, "repository already exists"),
        (alice, {"new_owner": "eve", "team_ids": [1]}, 422, "Teams can only be added"),
        (alice, {"new_owner": "nobody-here"}, 404, None),
        (alice, {}, 422, None),
    ]
    for token, body, status, words in cases:
        r = client.call("POST", "/repos/alice/dup/transfer", token=token, json=body)
        assert r.status_code == status, (body, r.text)
        assert "message" in r.json()
        if words:
            assert words in r.json()["message"]
    # A reader who is not its owner: 403; a token without write:repository: 403.
    assert client.call("POST", "/repos/alice/dup/transfer", token=eve,
                       json={"new_owner": "eve"}).status_code == 403
    assert client.call("POST", "/repos/alice/dup/transfer", token=server.read_only,
                       json={"new_owner": "clash"}).status_code == 403
    assert client.call("GET", "/repos/alice/dup").json()["full_name"] == "alice/dup"
