"""E-mail addresses through the API under moto: the user's list, add and delete, the
site admin's lists, search and deletion, adminEditUser moving the primary, and two
users racing for one address."""
from __future__ import annotations

from collections import Counter

import pytest

from tests.accounts.test_users import assert_matches_forgejo
from tests.conftest import ADMIN


@pytest.fixture
def tokens(api):
    found = {}
    for name in ("alice", "bob"):
        api.create_user(name)
        found[name] = api.create_token(name)
    return found


def addresses(resp) -> list[tuple[str, bool]]:
    assert resp.status == 200, resp
    return [(e["email"], e["primary"]) for e in resp.json]


def test_a_user_adds_lists_and_deletes_addresses(api, tokens):
    alice = tokens["alice"]
    added = api.post("/user/emails", token=alice,
                     json={"emails": ["work@example.com", "home@example.org"]})
    assert added.status == 201, added
    for record in added.json:
        assert_matches_forgejo(record, "Email")
    assert [e["email"] for e in added.json] == ["work@example.com", "home@example.org"]
    assert addresses(api.get("/user/emails", token=alice)) == [
        ("alice@example.com", True), ("work@example.com", False), ("home@example.org", False)]
    used = api.post("/user/emails", token=tokens["bob"], json={"emails": ["WORK@example.com"]})
    assert used.status == 422 and used.json["message"] == \
        "Email address has been used: WORK@example.com"
    assert api.delete("/user/emails", token=alice,
                      json={"emails": ["alice@example.com"]}).status == 422
    assert api.delete("/user/emails", token=alice,
                      json={"emails": ["work@example.com"]}).status == 204
    assert addresses(api.get("/user/emails", token=alice)) == [
        ("alice@example.com", True), ("home@example.org", False)]
    # Free again for someone else.
    assert api.post("/user/emails", token=tokens["bob"],
                    json={"emails": ["work@example.com"]}).status == 201


def test_the_site_admin_lists_searches_and_deletes(api, tokens):
    api.post("/user/emails", token=tokens["bob"], json={"emails": ["zed@example.net"]})
    page = api.get("/admin/emails?limit=2", auth=ADMIN)
    assert addresses(page) == [("alice@example.com", True), ("bob@example.com", True)]
    assert page.headers["x-total-count"] == "4" and 'rel="next"' in page.headers["link"]
    assert page.json[1]["username"] == "bob" and page.json[1]["user_id"] > 0
    assert addresses(api.get("/admin/emails?limit=2&page=2", auth=ADMIN)) == [
        ("root@example.com", True), ("zed@example.net", False)]
    assert addresses(api.get("/admin/emails/search?q=NET", auth=ADMIN)) == [
        ("zed@example.net", False)]
    assert addresses(api.get("/admin/users/bob/emails", auth=ADMIN)) == [
        ("bob@example.com", True), ("zed@example.net", False)]
    assert api.get("/admin/users/nobody/emails", auth=ADMIN).status == 404
    assert api.get("/admin/emails", token=tokens["bob"]).status == 403
    assert api.delete("/admin/users/bob/emails", auth=ADMIN,
                      json={"emails": ["zed@example.net"]}).status == 204
    assert addresses(api.get("/admin/users/bob/emails", auth=ADMIN)) == [
        ("bob@example.com", True)]


def test_admin_edit_moves_the_primary(api, tokens):
    api.post("/user/emails", token=tokens["alice"], json={"emails": ["next@example.com"]})
    edited = api.patch("/admin/users/alice", auth=ADMIN, json={"email": "NEXT@example.com"})
    assert edited.status == 200 and edited.json["email"] == "NEXT@example.com"
    assert addresses(api.get("/user/emails", token=tokens["alice"])) == [
        ("NEXT@example.com", True)]
    # The old address is free again.
    assert api.post("/user/emails", token=tokens["bob"],
                    json={"emails": ["alice@example.com"]}).status == 201


def test_two_users_racing_for_one_address(api, tokens):
    from tests.statuses.test_statuses import RACE_SWITCH
    from tests.test_races import one_request_at_a_time, together

    people = ("alice", "bob")
    with one_request_at_a_time(RACE_SWITCH):
        answers = together(6, lambda i: api.post("/user/emails", token=tokens[people[i % 2]],
                                                 json={"emails": ["prize@example.com"]}))
    assert Counter(a.status for a in answers) == Counter({201: 1, 422: 5}), answers[:3]
    owners = [name for name in people if ("prize@example.com", False) in addresses(
        api.get("/user/emails", token=tokens[name]))]
    assert len(owners) == 1
    found = api.get("/admin/emails/search?q=prize", auth=ADMIN).json
    assert [e["username"] for e in found] == owners
