"""A repository's rename through the API (``repoEdit`` with ``name``) and the real git CLI
against the local server: the record under its new name, the old API path and the old
clone URL leading to it (307; clone and push through the old URL), also after the
owner is renamed; the search index under the new name; names refused (422, taken in any
case, names Forgejo forbids), callers refused (403) with nothing changed; and two
renames racing for one name (exactly one wins)."""
from __future__ import annotations

import threading
import time

import pytest

from tests.git_cli import git_home_env
from tests.git_cli import run_git as git
from tests.local_server import runtime_with_events, seat_people
from tests.local_server import token_clone_url as clone_url

PASSWORDS = {"alice": "alice-password", "bob": "bob-password", "eve": "eve-password"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with runtime_with_events(tmp_path_factory.mktemp("rename")) as runtime:
        seat_people(runtime, PASSWORDS, boss_token=True)
        yield runtime


@pytest.fixture
def git_env(tmp_path):
    return git_home_env(tmp_path)


def make_repo(server, name, owner="alice", **fields):
    r = server.client.call("POST", "/user/repos", token=server.tokens[owner],
                           json={"name": name, "auto_init": True, **fields})
    assert r.status_code == 201, r.text
    return r.json()


def rename(server, path, name, token=None, **fields):
    return server.client.call("PATCH", f"/repos/{path}", token=token or server.tokens["alice"],
                              json={"name": name, **fields})


def eventually(check, seconds=20):
    """The events' consumers run beside the request (the search index): wait for them."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "the consumers did not catch up"
        time.sleep(0.2)


def test_a_rename_keeps_the_old_api_path_and_clone_url(server, git_env, tmp_path):
    client, alice = server.client, server.tokens["alice"]
    made = make_repo(server, "proj")
    r = rename(server, "alice/proj", "renamed", description="has a new name")
    assert r.status_code == 200, r.text
    record = r.json()
    assert (record["id"], record["name"], record["full_name"], record["description"]) == \
        (made["id"], "renamed", "alice/renamed", "has a new name")
    assert record["clone_url"].endswith("/alice/renamed.git")
    assert record["html_url"].endswith("/alice/renamed")
    # The old API path answers 307 to the new one, keeping what follows it.
    old = client.call("GET", "/repos/alice/proj/branches?limit=5", token=alice)
    assert old.status_code == 307
    assert old.headers["location"] == "/api/v1/repos/alice/renamed/branches?limit=5"
    followed = client.call("GET", "/repos/alice/proj", follow_redirects=True)
    assert followed.status_code == 200 and followed.json()["full_name"] == "alice/renamed"
    assert [r["name"] for r in client.call("GET", "/users/alice/repos").json()] == ["renamed"]
    # git clone and push through the old URL.
    git(git_env, "clone", "-q", clone_url(server, "alice/proj"), str(tmp_path / "anon"))
    assert (tmp_path / "anon" / "README.md").exists()
    git(git_env, "clone", "-q", clone_url(server, "alice/proj", "alice"), str(tmp_path / "w"))
    (tmp_path / "w" / "new.txt").write_text("pushed through the old URL\n")
    git(git_env, "add", "new.txt", cwd=tmp_path / "w")
    git(git_env, "commit", "-q", "-m", "more", cwd=tmp_path / "w")
    git(git_env, "push", "-q", "origin", "main", cwd=tmp_path / "w")
    assert client.call("GET", "/repos/alice/renamed/contents/new.txt",
                       token=alice).status_code == 200
    # The search index lists it under its new name only; the feeds still answer.
    eventually(lambda: [r["full_name"] for r in client.call(
        "GET", "/repos/search?q=renamed").json()["data"]] == ["alice/renamed"])
    assert client.call("GET", "/repos/search?q=proj").json()["data"] == []
    assert client.call("GET", "/users/alice/activities/feeds", token=alice).status_code == 200
    assert client.call("GET", "/notifications", token=alice).status_code == 200


def test_the_old_address_still_leads_there_after_the_owner_is_renamed(server, git_env, tmp_path):
    client, bob = server.client, server.tokens["bob"]
    make_repo(server, "tool", owner="bob")
    assert rename(server, "bob/tool", "toolkit", token=bob).status_code == 200
    r = client.call("POST", "/admin/users/bob/rename", token=server.tokens["boss"],
                    json={"new_username": "robert"})
    assert r.status_code == 204, r.text
    first = client.call("GET", "/repos/bob/tool", token=bob)
    assert (first.status_code, first.headers["location"]) == (307, "/api/v1/repos/robert/tool")
    second = client.call("GET", "/repos/robert/tool", token=bob)
    assert (second.status_code, second.headers["location"]) == \
        (307, "/api/v1/repos/robert/toolkit")
    followed = client.call("GET", "/repos/bob/tool", follow_redirects=True)
    assert followed.json()["full_name"] == "robert/toolkit"
    git(git_env, "clone", "-q", clone_url(server, "bob/tool"), str(tmp_path / "c"))
    assert (tmp_path / "c" / "README.md").exists()


def test_names_and_callers_that_may_not_rename_change_nothing(server):
    client, alice, eve = server.client, server.tokens["alice"], server.tokens["eve"]
    make_repo(server, "keep")
    make_repo(server, "other")
    cases = [
        ("other", 422, "repo name is already taken [name: other]"),
        ("OTHER", 422, "repo name is already taken [name: OTHER]"),
        ("has space", 422, "[Name]: AlphaDashDot"),
        ("x.git", 422, "name pattern is not allowed"),
        ("..", 422, "name is reserved"),
        ("x" * 101, 422, "[Name]: MaxSize"),
    ]
    for name, status, words in cases:
        r = rename(server, "alice/keep", name, description="not written")
        assert r.status_code == status, (name, r.text)
        assert words in r.json()["message"], (name, r.text)
    assert rename(server, "alice/keep", "mine", token=eve).status_code == 403
    assert rename(server, "alice/keep", "mine", token=server.read_only).status_code == 403
    kept = client.call("GET", "/repos/alice/keep", token=alice).json()
    assert (kept["full_name"], kept["description"]) == ("alice/keep", "")
    assert client.call("GET", "/repos/alice/mine", token=alice).status_code == 404
    # A change of case only: the same address, no redirect needed.
    recased = rename(server, "alice/keep", "Keep")
    assert recased.status_code == 200 and recased.json()["full_name"] == "alice/Keep"
    assert client.call("GET", "/repos/alice/keep", token=alice).json()["name"] == "Keep"


def test_two_renames_racing_for_one_name_one_wins(server):
    client, alice = server.client, server.tokens["alice"]
    contenders = [f"racer{n}" for n in range(4)]
    for name in contenders:
        make_repo(server, name)
    statuses, barrier = {}, threading.Barrier(len(contenders))

    def run(name):
        barrier.wait()
        statuses[name] = rename(server, f"alice/{name}", "finish").status_code

    threads = [threading.Thread(target=run, args=(name,)) for name in contenders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses.values()) == [200, 422, 422, 422], statuses
    winner = next(name for name, status in statuses.items() if status == 200)
    names = [r["name"] for r in client.call("GET", "/users/alice/repos?limit=50",
                                            token=alice).json()]
    assert names.count("finish") == 1
    assert sorted(n for n in names if n.startswith("racer")) == \
        sorted(n for n in contenders if n != winner)
    follows = client.call("GET", f"/repos/alice/{winner}", token=alice)
    assert follows.headers["location"] == "/api/v1/repos/alice/finish"
