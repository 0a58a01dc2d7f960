"""Commit statuses through the API: create, list, combined status, events, a race."""
from __future__ import annotations

import os
from collections import Counter

import pytest

from chalicelib import clock
from chalicelib import events
from chalicelib.http import schemas
from chalicelib.statuses import service as svc
from tests.conftest import drain_outbox
from tests.accounts.test_users import assert_matches_forgejo as _assert_matches

R = "/repos/alice/ci"
STATES = ("pending", "success", "error", "failure", "warning", "skipped")


@pytest.fixture
def people(api):
    """alice owns public ``ci`` and private ``hidden`` (both with a first commit); bob
    writes to ``ci``; carol reads ``ci`` as a collaborator; dave is a stranger."""
    tokens = {}
    for name in ("alice", "bob", "carol", "dave"):
        api.create_user(name)
        tokens[name] = api.create_token(name)
    for repo, private in (("ci", False), ("hidden", True)):
        assert api.post("/user/repos", token=tokens["alice"], json={
            "name": repo, "private": private, "auto_init": True}).status == 201
    for name, mode in (("bob", "write"), ("carol", "read")):
        assert api.put(f"{R}/collaborators/{name}", token=tokens["alice"],
                       json={"permission": mode}).status == 204
    return tokens


def head(api, token, repo=R, branch="main") -> str:
    return api.get(f"{repo}/branches/{branch}", token=token).json["commit"]["id"]


def post(api, token, sha, repo=R, **body):
    return api.post(f"{repo}/statuses/{sha}", token=token, json=body)


def assert_status_record(record: dict) -> None:
    assert record["status"] in STATES
    _assert_matches(dict(record, status={}), "CommitStatus")
    assert set(record) == set(schemas.RECORDS["CommitStatus"])


def assert_combined_record(record: dict) -> None:
    assert record["state"] in STATES
    _assert_matches(dict(record, state={}), "CombinedStatus")
    assert set(record) == set(schemas.RECORDS["CombinedStatus"])
    for status in record["statuses"]:
        assert_status_record(status)


def test_create_answers_the_status(api, people):
    alice, bob = people["alice"], people["bob"]
    sha = head(api, alice)
    r = post(api, bob, sha, state="pending", context=" ci/build ", description=" building ",
             target_url="https://ci.example.com/1")
    assert r.status == 200, r
    status = r.json
    assert_status_record(status)
    assert status["id"] == 1 and status["status"] == "pending"
    # Forgejo trims the texts.
    assert (status["context"], status["description"]) == ("ci/build", "building")
    assert status["target_url"] == "https://ci.example.com/1"
    assert status["url"] == f"http://nimbus.test/api/v1/repos/alice/ci/statuses/{sha}"
    assert status["created_at"] == status["updated_at"] and status["created_at"].endswith("Z")
    # The creator as an anonymous viewer sees them: no e-mail address, no private fields.
    assert status["creator"]["login"] == "bob"
    assert status["creator"]["email"] != "bob@example.com" and \
        status["creator"]["login_name"] == ""
    # Ids count a commit's statuses: 1, 2, 3 ...
    assert post(api, alice, sha, state="success", context="ci/build").json["id"] == 2
    assert post(api, alice, sha, state="skipped").json["id"] == 3


def test_create_resolves_short_ids_and_branches_to_the_full_id(api, people):
    alice = people["alice"]
    sha = head(api, alice)
    assert post(api, alice, sha[:10], state="success", context="a").status == 200
    assert post(api, alice, "main", state="failure", context="b").status == 200
    assert post(api, alice, sha.upper(), state="warning", context="c").status == 200
    listed = api.get(f"{R}/statuses/{sha}", token=alice)
    assert sorted(s["context"] for s in listed.json) == ["a", "b", "c"]
    assert {s["url"].rsplit("/", 1)[1] for s in listed.json} == {sha}


def test_create_refuses_bad_input(api, people):
    alice = people["alice"]
    sha = head(api, alice)
    for body in ({}, {"state": "bogus"}, {"state": ""}, {"state": 3},
                 {"state": "success", "context": "x" * 256},
                 {"state": "success", "target_url": "u" * 2049},
                 {"state": "success", "description": "\ud800"}):
        r = post(api, alice, sha, **body)
        assert r.status == 422, (body, r)
        assert set(r.json) >= {"message", "url"}
    assert "[State]" in post(api, alice, sha, state="bogus").json["message"]
    # Not a commit of the repository.
    assert post(api, alice, "0" * 40, state="success").status == 422
    assert post(api, alice, "no-such-branch", state="success").status == 422
    # Nothing was written.
    assert api.get(f"{R}/statuses/{sha}", token=alice).json == []


def test_create_needs_write_access_and_hides_private_repositories(api, people):
    alice, carol, dave = people["alice"], people["carol"], people["dave"]
    sha = head(api, alice)
    assert api.post(f"{R}/statuses/{sha}", json={"state": "success"}).status == 401
    assert post(api, carol, sha, state="success").status == 403     # reader
    assert post(api, dave, sha, state="success").status == 403      # sees the public repo
    hidden = "/repos/alice/hidden"
    hidden_sha = head(api, alice, hidden)
    assert post(api, dave, hidden_sha, hidden, state="success").status == 404
    assert api.get(f"{hidden}/statuses/{hidden_sha}", token=dave).status == 404
    assert api.get(f"{hidden}/commits/main/status", token=dave).status == 404
    assert api.get(f"{hidden}/commits/main/statuses").status == 404
    assert post(api, alice, hidden_sha, hidden, state="success").status == 200
    assert len(api.get(f"{hidden}/statuses/{hidden_sha}", token=alice).json) == 1
    # Readers and anonymous callers read the public repository's statuses.
    assert len(api.get(f"{R}/statuses/{sha}").json) == 0
    assert api.get(f"{R}/commits/main/status", token=carol).status == 200


def test_list_sorts_filters_and_pages(api, people):
    alice = people["alice"]
    sha = head(api, alice)
    instants = iter(range(1_700_000_000, 1_700_000_100, 10))
    posted = [("success", "a"), ("failure", "b"), ("success", "c"), ("pending", "a"),
              ("error", "d")]
    with clock.driven_by(lambda: next(instants)):
        for state, context in posted:
            assert post(api, alice, sha, state=state, context=context).status == 200

    def ids(query=""):
        r = api.get(f"{R}/statuses/{sha}{query}", token=alice)
        assert r.status == 200, r
        for record in r.json:
            assert_status_record(record)
        return [s["id"] for s in r.json], r.headers

    assert ids()[0] == [5, 4, 3, 2, 1]                      # newest first
    assert ids("?sort=oldest")[0] == [1, 2, 3, 4, 5]
    assert ids("?sort=recentupdate")[0] == [5, 4, 3, 2, 1]
    assert ids("?sort=leastupdate")[0] == [1, 2, 3, 4, 5]
    # Forgejo's names are the wrong way round; clients see its order.
    assert ids("?sort=leastindex")[0] == [5, 4, 3, 2, 1]
    assert ids("?sort=highestindex")[0] == [1, 2, 3, 4, 5]
    assert ids("?sort=nonsense")[0] == [5, 4, 3, 2, 1]
    found, headers = ids("?state=success")
    assert found == [3, 1] and headers["x-total-count"] == "2"
    assert ids("?state=nonsense")[0] == [5, 4, 3, 2, 1]     # an unknown state filters nothing
    found, headers = ids("?sort=oldest&limit=2&page=2")
    assert found == [3, 4] and headers["x-total-count"] == "5"
    assert 'rel="next"' in headers["link"] and 'rel="prev"' in headers["link"]
    assert ids("?limit=2&page=9")[0] == []
    # A short id and a branch name list the same commit; an unknown one lists nothing.
    short = api.get(f"{R}/statuses/{sha[:8]}", token=alice)
    assert [s["id"] for s in short.json] == [5, 4, 3, 2, 1]
    assert len(api.get(f"{R}/statuses/main", token=alice).json) == 5
    nothing = api.get(f"{R}/statuses/{'f' * 40}", token=alice)
    assert nothing.status == 200 and nothing.json == [] and nothing.headers["x-total-count"] == "0"
    assert api.get(f"{R}/statuses/nope", token=alice).json == []


def test_forgejo_status_routes_list_at_statuses_and_create_answers_201(api, people):
    """[api] STATUS_ROUTES = forgejo: /commits/{ref}/statuses lists the statuses of the
    ref's commit (repoListStatusesByRef) and a create answers 201; /status stays the
    combined status.  The default (seed) keeps the combined status and 200."""
    from chalicelib.settings import overridden

    alice = people["alice"]
    sha = head(api, alice)
    assert post(api, alice, sha, state="success", context="a").status == 200
    assert set(api.get(f"{R}/commits/main/statuses").json) == set(
        schemas.RECORDS["CombinedStatus"])
    with overridden({"NIMBUS__API__STATUS_ROUTES": "forgejo"}):
        made = post(api, alice, sha, state="failure", context="b")
        assert made.status == 201, made
        assert_status_record(made.json)
        for ref in ("main", sha, sha[:10]):
            listed = api.get(f"{R}/commits/{ref}/statuses?sort=oldest", token=alice)
            assert listed.status == 200 and isinstance(listed.json, list), listed
            assert [s["context"] for s in listed.json] == ["a", "b"]
            assert listed.headers["x-total-count"] == "2"
        failed = api.get(f"{R}/commits/main/statuses?state=failure").json
        assert [s["context"] for s in failed] == ["b"]
        assert api.get(f"{R}/commits/nope/statuses").json == []
        combined = api.get(f"{R}/commits/main/status").json
        assert combined["state"] == "failure" and combined["total_count"] == 2
    with overridden({"NIMBUS__API__STATUS_ROUTES": "sideways"}):
        from chalicelib.settings import SettingsError, load_settings
        with pytest.raises(SettingsError, match="STATUS_ROUTES"):
            load_settings()


def test_statuses_of_a_branch_whose_name_holds_a_slash(api, people):
    """Renovate names branches like ``renovate/left-pad-1.x`` and reads their statuses
    at ``/commits/renovate%2Fleft-pad-1.x/statuses``: Forgejo routes on the escaped
    path, so the ref is one parameter holding the slash (both path forms, both modes)."""
    from chalicelib.settings import overridden

    alice = people["alice"]
    sha = head(api, alice)
    assert api.post(f"{R}/branches", token=alice,
                    json={"new_branch_name": "renovate/left-pad-1.x"}).status == 201
    assert post(api, alice, sha, state="pending", context="renovate/stability-days").status == 200
    for ref in ("renovate%2Fleft-pad-1.x", "renovate/left-pad-1.x"):
        combined = api.get(f"{R}/commits/{ref}/status", token=alice)
        assert combined.status == 200, combined
        assert combined.json["sha"] == sha and combined.json["state"] == "pending"
        assert api.get(f"{R}/commits/{ref}/statuses", token=alice).json["sha"] == sha
        with overridden({"NIMBUS__API__STATUS_ROUTES": "forgejo"}):
            listed = api.get(f"{R}/commits/{ref}/statuses", token=alice)
            assert listed.status == 200, listed
            assert [s["context"] for s in listed.json] == ["renovate/stability-days"]
    # A ref that names nothing has no statuses (not a 404), with or without slashes.
    assert api.get(f"{R}/commits/no%2Fsuch/status").json["statuses"] is None


def test_combined_status_latest_per_context_and_precedence(api, people):
    alice, bob = people["alice"], people["bob"]
    sha = head(api, alice)
    for path in (f"{R}/commits/main/status", f"{R}/commits/main/statuses"):
        empty = api.get(path)
        assert empty.status == 200
        # Forgejo's zero CombinedStatus, without paging headers.
        assert empty.json == {"state": "", "sha": "", "total_count": 0, "statuses": None,
                              "repository": None, "commit_url": "", "url": ""}
        assert "x-total-count" not in empty.headers

    def combined(ref="main", path="status", token=None, query=""):
        r = api.get(f"{R}/commits/{ref}/{path}{query}", token=token)
        assert r.status == 200, r
        if r.json["statuses"] is not None:
            assert_combined_record(r.json)
        return r

    post(api, bob, sha, state="success", context="build")
    post(api, bob, sha, state="pending", context="lint")
    assert combined().json["state"] == "pending"
    post(api, bob, sha, state="success", context="lint")          # the later status wins
    got = combined().json
    assert got["state"] == "success" and got["sha"] == sha and got["total_count"] == 2
    assert [(s["context"], s["status"]) for s in got["statuses"]] == [
        ("build", "success"), ("lint", "success")]
    assert got["repository"]["full_name"] == "alice/ci"
    assert (got["commit_url"], got["url"]) == ("", "")
    post(api, bob, sha, state="warning", context="docs")
    assert combined().json["state"] == "warning"
    post(api, bob, sha, state="failure", context="test")
    assert combined().json["state"] == "failure"
    post(api, bob, sha, state="error", context="deploy")
    # error is the worst state, and the combined status reports it as failure.
    assert combined().json["state"] == "failure"
    post(api, bob, sha, state="success", context="deploy")
    post(api, bob, sha, state="success", context="test")
    post(api, bob, sha, state="skipped", context="docs")
    assert combined().json["state"] == "success"

    # Both paths, a branch, a full and a short id, with and without a token.
    first = combined().json
    for ref, path, token in (("main", "statuses", None), (sha, "status", alice),
                             (sha, "statuses", None), (sha[:7], "status", None)):
        again = combined(ref, path, token).json
        # The repository as the caller sees it (alice: her private fields, admin rights).
        assert again["repository"]["id"] == first["repository"]["id"]
        assert dict(again, repository=None) == dict(first, repository=None)
    assert combined("nope").json["statuses"] is None
    assert combined("f" * 40).json["state"] == ""

    # Paging goes over contexts, the most recently updated first.
    page = combined(query="?limit=2")
    assert page.headers["x-total-count"] == "5"
    assert [s["context"] for s in page.json["statuses"]] == ["test", "docs"]
    assert page.json["total_count"] == 2
    assert combined(query="?limit=2&page=9").json["statuses"] is None

    assert svc.combined_state(got["repository"]["id"], sha) == "success"
    assert svc.combined_state(got["repository"]["id"], "0" * 40) == ""


def test_combined_status_of_a_tag(api, people):
    from chalicelib.gitstore import refdb

    alice = people["alice"]
    sha = head(api, alice)
    repo_id = api.get(R, token=alice).json["id"]
    refdb.put_ref(repo_id, "refs/tags/v1", sha, peeled=sha)
    refdb.put_ref(repo_id, "refs/tags/v2", sha)          # no peeled value: read from git
    post(api, alice, sha, state="failure", context="release")
    for tag in ("v1", "v2"):
        got = api.get(f"{R}/commits/{tag}/status").json
        assert got["sha"] == sha and got["state"] == "failure"


def test_state_rules():
    assert svc.combine([]) == ""
    assert svc.combine(["success", "skipped"]) == "success"
    assert svc.combine(["skipped"]) == "skipped"
    assert svc.combine(["success", "pending"]) == "pending"
    assert svc.combine(["pending", "warning", "success"]) == "warning"
    assert svc.combine(["warning", "failure"]) == "failure"
    assert svc.combine(["failure", "error", "warning"]) == "failure"
    assert svc.combine(["error"]) == "failure"
    assert not svc.no_better_than("bogus", "error")


def test_create_raises_an_event_with_the_change(api, people):
    alice, bob = people["alice"], people["bob"]
    sha = head(api, alice)
    drain_outbox()
    post(api, bob, sha[:12], state="success", context="ci", description="ok",
         target_url="https://ci.example.com/9")
    post(api, bob, sha, state="bogus")                   # refused: no event
    raised = [e for e in drain_outbox() if isinstance(e, events.CommitStatusCreated)]
    assert len(raised) == 1
    event = raised[0]
    assert (event.sha, event.status_id, event.state, event.context) == (sha, 1, "success", "ci")
    assert (event.description, event.target_url) == ("ok", "https://ci.example.com/9")
    assert event.actor["login"] == "bob" and event.repo["name"] == "ci"
    assert event.repo_id == api.get(R).json["id"] and event.event_id


RACE_SWITCH = float(os.environ.get("NIMBUS_RACE_SWITCH", "0.0005"))


@pytest.fixture
def atomic_requests():
    """As tests/test_races.py: every DynamoDB request atomic, one at a time."""
    from tests.test_races import one_request_at_a_time

    with one_request_at_a_time(RACE_SWITCH):
        yield


def test_parallel_statuses_of_one_commit_all_land(api, people, atomic_requests):
    from tests.test_races import together

    alice, bob = people["alice"], people["bob"]
    sha = head(api, alice)
    answers = together(8, lambda i: post(api, (alice, bob)[i % 2], sha,
                                         state=("success", "failure")[i % 2], context=f"c{i}"))
    assert Counter(a.status for a in answers) == Counter({200: 8}), answers[:3]
    assert sorted(a.json["id"] for a in answers) == list(range(1, 9))
    got = api.get(f"{R}/commits/main/status", token=alice)
    assert sorted(s["context"] for s in got.json["statuses"]) == [f"c{i}" for i in range(8)]
    assert got.json["total_count"] == 8 and got.json["state"] == "failure"
    assert len(api.get(f"{R}/statuses/{sha}?limit=50", token=alice).json) == 8


def test_parallel_statuses_of_one_context_keep_history_and_the_last(api, people,
                                                                    atomic_requests):
    from tests.test_races import together

    alice = people["alice"]
    sha = head(api, alice)
    answers = together(6, lambda i: post(api, alice, sha, state="pending",
                                         description=f"d{i}", context="ci"))
    assert Counter(a.status for a in answers) == Counter({200: 6}), answers[:3]
    last = max(answers, key=lambda a: a.json["id"]).json
    got = api.get(f"{R}/commits/{sha}/status", token=alice).json
    assert [s["description"] for s in got["statuses"]] == [last["description"]]
    assert got["statuses"][0]["id"] == 6
    assert len(api.get(f"{R}/statuses/{sha}", token=alice).json) == 6
