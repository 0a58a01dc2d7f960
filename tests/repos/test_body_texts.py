"""Request bodies the collaborators rule answered before the edge checked bodies,
answered the same way now: a permission is read in any case, and an empty or unknown
one keeps the rule's 422 text."""
from __future__ import annotations

import pytest

from tests.repos import test_repo_access
from tests.repos.test_repo_access import collab


@pytest.fixture
def api(fast_api):
    """These texts are the rules' and need no moto: the in-memory twin (the fast layer)."""
    return fast_api

people = test_repo_access.people     # the fixture: alice's repositories, bob, carol


@pytest.mark.parametrize("sent, mode", [("Write", "write"), ("ADMIN", "admin"),
                                        ("Read", "read")])
def test_a_permission_in_any_case(api, people, sent, mode):
    alice = people["alice"]
    r = api.put(collab("alice/secret", "bob"), token=alice, json={"permission": sent})
    assert r.status == 204, r
    perm = api.get(collab("alice/secret", "bob") + "/permission", token=alice).json
    assert perm["permission"] == mode
    # An existing collaborator's mode changes too.
    r = api.put(collab("alice/secret", "bob"), token=alice, json={"permission": "Read"})
    assert r.status == 204, r
    assert api.get(collab("alice/secret", "bob") + "/permission",
                   token=alice).json["permission"] == "read"


@pytest.mark.parametrize("sent", ["", "owner", "Owner", "none", "maintain"])
def test_an_empty_or_unknown_permission(api, people, sent):
    r = api.put(collab("alice/secret", "bob"), token=people["alice"], json={"permission": sent})
    assert r.status == 422, r
    assert r.json["message"] == "[Permission]: must be one of read, write, admin"
    assert api.get(collab("alice/secret", "bob"), token=people["alice"]).status == 404
