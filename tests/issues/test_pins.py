"""Pinned issues and pull requests: the rules on the in-memory twin (admins only, the
limit, order, a race for the last place), then what a client sees."""
from __future__ import annotations

import pytest

from chalicelib import issues, repos
from chalicelib.errors import BadInput, InvalidInput, PermissionDenied
from chalicelib.issues import pin_store, pins
from chalicelib.issues import service as issue_service
from chalicelib.settings import overridden
from tests import memory_scene as scene

R = "/repos/alice/open"


@pytest.fixture
def shared(memory):
    """alice's ``proj`` (bob writes, carol reads) with issues 1..5."""
    people, view = scene.shared_repo("proj")

    def ctx(name):
        caller = scene.caller(people[name])
        return issues.issue_context(caller, repos.view_of(view.repo, caller))

    for n in range(5):
        issue_service.create_issue(ctx("carol"), issues.CreateIssueOption(title=f"i{n + 1}"))
    return people, view, ctx


def numbers(found):
    return [int(i.number) for i in found]


def test_admins_pin_up_to_the_limit_in_order(shared):
    people, view, ctx = shared
    for name in ("bob", "carol"):
        with pytest.raises(PermissionDenied):
            pins.pin(ctx(name), 1)
    for n in (3, 1, 2):
        pins.pin(ctx("alice"), n)
    pins.pin(ctx("alice"), 1)                            # pinned already: nothing
    assert numbers(pins.pinned(ctx("carol"), False)) == [3, 1, 2]
    assert pins.new_pin_allowed(ctx("carol")) == (False, True)
    with pytest.raises(BadInput, match="max number of pinned"):
        pins.pin(ctx("alice"), 4)
    pins.move(ctx("alice"), 2, 1)
    assert numbers(pins.pinned(ctx("alice"), False)) == [2, 3, 1]
    pins.move(ctx("alice"), 2, 99)                       # past the end: last
    assert numbers(pins.pinned(ctx("alice"), False)) == [3, 1, 2]
    with pytest.raises(InvalidInput):
        pins.move(ctx("alice"), 2, 0)
    pins.unpin(ctx("alice"), 1)
    pins.unpin(ctx("alice"), 5)                          # not pinned: nothing
    assert numbers(pins.pinned(ctx("alice"), False)) == [3, 2]
    pins.pin(ctx("alice"), 4)
    assert numbers(pins.pinned(ctx("alice"), False)) == [3, 2, 4]


def test_closing_an_issue_frees_its_place(shared):
    people, view, ctx = shared
    for n in (1, 2, 3):
        pins.pin(ctx("alice"), n)
    issue_service.edit_issue(ctx("alice"), 2, issues.EditIssueOption(state="closed"))
    assert numbers(pins.pinned(ctx("alice"), False)) == [1, 3]
    pins.pin(ctx("alice"), 4)
    assert numbers(pins.pinned(ctx("alice"), False)) == [1, 3, 4]


def test_the_limit_is_a_setting(shared):
    people, view, ctx = shared
    with overridden({"NIMBUS__REPOSITORY_0X2E_ISSUE__MAX_PINNED": "1"}):
        pins.pin(ctx("alice"), 1)
        with pytest.raises(BadInput):
            pins.pin(ctx("alice"), 2)


def test_two_pins_for_the_last_place_pin_one(shared, monkeypatch):
    """Both read two pinned issues; the other pin commits between this one's read and
    its write: the write's condition fails, the re-read sees three, the limit holds."""
    people, view, ctx = shared
    pins.pin(ctx("alice"), 1)
    pins.pin(ctx("alice"), 2)
    original = pin_store.stage_pins
    raced = []

    def racing(*args):
        if not raced:
            raced.append(1)
            pins.pin(ctx("alice"), 4)               # the other request takes the place
        original(*args)

    monkeypatch.setattr(pin_store, "stage_pins", racing)
    with pytest.raises(BadInput):
        pins.pin(ctx("alice"), 3)
    assert numbers(pins.pinned(ctx("alice"), False)) == [1, 2, 4]


# Through the API ---------------------------------------------------------------------

@pytest.fixture
def people(api):
    tokens = {}
    for name in ("alice", "bob"):
        api.create_user(name)
        tokens[name] = api.create_token(name)
    assert api.post("/user/repos", token=tokens["alice"],
                    json={"name": "open", "auto_init": True}).status == 201
    assert api.put(f"{R}/collaborators/bob", token=tokens["alice"],
                   json={"permission": "write"}).status == 204
    for n in range(4):
        assert api.post(f"{R}/issues", token=tokens["bob"], json={"title": f"i{n}"}).status == 201
    return tokens


def test_pin_routes(api, people):
    from tests.issues.test_issues import assert_matches_forgejo

    alice, bob = people["alice"], people["bob"]
    assert api.post(f"{R}/issues/1/pin", token=bob).status == 403
    assert api.post(f"{R}/issues/1/pin").status == 401
    assert api.post(f"{R}/issues/99/pin", token=alice).status == 404
    allowed = api.get(f"{R}/new_pin_allowed")
    assert allowed.status == 200 and allowed.json == {"issues": True, "pull_requests": True}
    assert_matches_forgejo(allowed.json, "NewIssuePinsAllowed")
    for n in (2, 1, 3):
        assert api.post(f"{R}/issues/{n}/pin", token=alice).status == 204
    over = api.post(f"{R}/issues/4/pin", token=alice)
    assert over.status == 400 and "max number of pinned" in over.json["message"]
    assert api.get(f"{R}/new_pin_allowed").json == {"issues": False, "pull_requests": True}
    listed = api.get(f"{R}/issues/pinned")
    assert listed.status == 200
    assert [(i["number"], i["pin_order"]) for i in listed.json] == [(2, 1), (1, 2), (3, 3)]
    assert api.get(f"{R}/issues/3").json["pin_order"] == 3
    assert api.get(f"{R}/issues/4").json["pin_order"] == 0
    assert api.patch(f"{R}/issues/3/pin/1", token=alice).status == 204
    assert api.patch(f"{R}/issues/3/pin/1", token=bob).status == 403
    assert [i["number"] for i in api.get(f"{R}/issues/pinned").json] == [3, 2, 1]
    assert api.delete(f"{R}/issues/2/pin", token=alice).status == 204
    assert [i["number"] for i in api.get(f"{R}/issues/pinned").json] == [3, 1]
    assert api.get(f"{R}/pulls/pinned").json == []
    assert api.get("/repos/alice/nothere/issues/pinned").status == 404


def test_pinned_pull_requests(api, people):
    alice = people["alice"]
    assert api.post(f"{R}/branches", token=alice,
                    json={"new_branch_name": "topic"}).status == 201
    assert api.post(f"{R}/contents/new.txt", token=alice,
                   json={"content": "aGk=", "message": "m", "branch": "topic"}).status in (200, 201)
    pull = api.post(f"{R}/pulls", token=alice,
                    json={"base": "main", "head": "topic", "title": "pull"})
    assert pull.status == 201
    number = pull.json["number"]
    assert api.post(f"{R}/issues/{number}/pin", token=alice).status == 204
    listed = api.get(f"{R}/pulls/pinned")
    assert listed.status == 200 and [p["number"] for p in listed.json] == [number]
    assert listed.json[0]["pin_order"] == 1
    assert api.get(f"{R}/issues/pinned").json == []
