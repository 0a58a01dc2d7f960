"""E-mail addresses' rules, on the in-memory twin (the fast layer): an address is one
account's on the whole instance whatever its case, adding is all or nothing, the
primary cannot be deleted, changing the primary keeps the claims consistent, deleting
the account frees its addresses, and the site admin's lists page through the index."""
from __future__ import annotations

import pytest

from chalicelib import accounts
from chalicelib.accounts import email_store, emails, service
from chalicelib.errors import InvalidInput, NotFoundError, PermissionDenied
from tests import memory_scene as scene


def listed(account) -> list[tuple[str, bool]]:
    return [(a.email, a.primary) for a in emails.addresses(scene.fresh(account))]


def holder(address: str):
    found = accounts.accounts_by_email([address])
    return found[address.lower()].login if found else None


def test_a_user_lists_the_primary_then_what_was_added(memory):
    alice = scene.user("alice")
    assert listed(alice) == [("alice@example.com", True)]
    added = emails.add_addresses(alice, [" Work@Example.com ", "home@example.org"])
    assert [(a.email, a.primary, a.verified, a.username) for a in added] == [
        ("Work@Example.com", False, True, "alice"), ("home@example.org", False, True, "alice")]
    assert listed(alice) == [("alice@example.com", True), ("Work@Example.com", False),
                             ("home@example.org", False)]
    assert holder("WORK@example.com") == "alice"


@pytest.mark.parametrize("asked, message", [
    (["alice@example.com"], "Email address has been used: alice@example.com"),
    (["BOB@example.com"], "Email address has been used: BOB@example.com"),
    (["new@example.com", "NEW@example.com"], "Email address has been used: NEW@example.com"),
    (["not-an-address"], 'Email address "not-an-address" invalid'),
    ([], "Email list empty"),
])
def test_addresses_someone_holds_or_that_are_none_are_refused(memory, asked, message):
    alice = scene.user("alice")
    scene.user("bob")
    with pytest.raises(InvalidInput, match=message):
        emails.add_addresses(alice, ["fine@example.com", *asked] if asked else asked)
    assert listed(alice) == [("alice@example.com", True)]      # all or nothing
    assert holder("fine@example.com") is None


def test_two_users_adding_one_address_cannot_both_get_it(memory, monkeypatch):
    """The claim is a conditional put: the second add fails even though nothing was
    read beforehand (were the put not conditional, both would hold the address)."""
    alice, bob = scene.user("alice"), scene.user("bob")
    emails.add_addresses(alice, ["shared@example.com"])
    with pytest.raises(InvalidInput, match="has been used: Shared@Example.com"):
        emails.add_addresses(bob, ["Shared@Example.com"])
    assert holder("shared@example.com") == "alice"
    assert listed(bob) == [("bob@example.com", True)]


def test_deleting_addresses(memory):
    alice = scene.user("alice")
    emails.add_addresses(alice, ["a@example.org", "b@example.org"])
    with pytest.raises(InvalidInput, match="primary email address cannot be deleted"):
        emails.delete_own_addresses(alice, ["a@example.org", "ALICE@example.com"])
    with pytest.raises(NotFoundError, match="email address does not exist"):
        emails.delete_own_addresses(alice, ["a@example.org", "nope@example.org"])
    assert len(listed(alice)) == 3                                 # all or nothing
    emails.delete_own_addresses(alice, ["A@example.org"])
    emails.delete_own_addresses(alice, [])
    assert listed(alice) == [("alice@example.com", True), ("b@example.org", False)]
    assert holder("a@example.org") is None                          # free again
    emails.add_addresses(scene.user("bob"), ["a@example.org"])


def test_changing_the_primary_keeps_the_claims_consistent(memory):
    root = scene.user("root", admin=True)
    alice = scene.user("alice")
    scene.user("bob")
    emails.add_addresses(alice, ["second@example.com"])
    edit = accounts.EditUserOption
    # The user's own address becomes primary; the old primary is let go.
    service.edit_user(root, "alice", edit(email="Second@example.com"))
    assert listed(alice) == [("Second@example.com", True)]
    assert holder("alice@example.com") is None and holder("second@example.com") == "alice"
    with pytest.raises(InvalidInput, match="primary email address cannot be deleted"):
        emails.delete_own_addresses(scene.fresh(alice), ["second@example.com"])
    # Someone else's address is refused, a new one claimed.
    with pytest.raises(InvalidInput, match="e-mail already in use"):
        service.edit_user(root, "alice", edit(email="bob@example.com"))
    service.edit_user(root, "alice", edit(email="third@example.com"))
    assert listed(alice) == [("third@example.com", True)]
    assert holder("second@example.com") is None and holder("third@example.com") == "alice"
    assert [a.email for a in emails.every_address(root, "", 0, 10)[0]] == [
        "bob@example.com", "root@example.com", "third@example.com"]


def test_deleting_the_account_frees_every_address(memory):
    root = scene.user("root", admin=True)
    alice = scene.user("alice")
    emails.add_addresses(alice, ["extra@example.com"])
    service.delete_user(root, "alice")
    assert holder("extra@example.com") is None and holder("alice@example.com") is None
    assert email_store.addresses_of(int(alice.id)) == []
    assert [a.email for a in emails.every_address(root, "", 0, 10)[0]] == ["root@example.com"]
    emails.add_addresses(scene.user("bob"), ["extra@example.com", "alice@example.com"])


def test_the_site_admin_pages_every_address_in_address_order(memory):
    root = scene.user("root", admin=True)
    for name in ("carol", "alice", "bob"):
        scene.user(name)
    emails.add_addresses(scene.fresh(accounts.account_by_name("bob")), ["zed@example.net"])
    page, total = emails.every_address(root, "", 0, 2)
    assert [(a.email, a.username) for a in page] == [("alice@example.com", "alice"),
                                                     ("bob@example.com", "bob")]
    assert total == 5
    page, total = emails.every_address(root, "", 4, 2)
    assert [(a.email, a.username, a.primary) for a in page] == [("zed@example.net", "bob",
                                                                 False)]
    found, total = emails.every_address(root, "EXAMPLE.NET", 0, 10)
    assert ([a.email for a in found], total) == (["zed@example.net"], 1)
    assert [a.email for a in emails.user_addresses(root, "bob")] == ["bob@example.com",
                                                                      "zed@example.net"]
    with pytest.raises(PermissionDenied):
        emails.every_address(scene.fresh(accounts.account_by_name("bob")), "", 0, 10)
    emails.delete_user_addresses(root, "bob", ["zed@example.net"])
    assert emails.every_address(root, "zed", 0, 10) == ([], 0)


def test_the_routes_answer_as_forgejo(fast_api):
    scene.user("alice")
    scene.user("bob")
    token = fast_api.create_token("alice", scene.PASSWORD)
    added = fast_api.post("/user/emails", token=token, json={"emails": ["more@example.com"]})
    assert added.status == 201, added
    assert added.json == [{"email": "more@example.com", "verified": True, "primary": False,
                           "user_id": added.json[0]["user_id"], "username": "alice"}]
    taken = fast_api.post("/user/emails", token=token, json={"emails": ["BOB@example.com"]})
    assert taken.status == 422
    assert taken.json["message"] == "Email address has been used: BOB@example.com"
    assert fast_api.post("/user/emails", token=token, json={"emails": [7]}).status == 422
    assert fast_api.post("/user/emails", token=token, json={}).status == 422
    mine = fast_api.get("/user/emails", token=token).json
    assert [(e["email"], e["primary"]) for e in mine] == [("alice@example.com", True),
                                                          ("more@example.com", False)]
    gone = fast_api.delete("/user/emails", token=token, json={"emails": ["nope@example.com"]})
    assert gone.status == 404
    primary = fast_api.delete("/user/emails", token=token,
                              json={"emails": ["alice@example.com"]})
    assert primary.status == 422
    assert fast_api.delete("/user/emails", token=token,
                           json={"emails": ["more@example.com"]}).status == 204
    assert fast_api.get("/user/emails").status == 401
    assert fast_api.get("/admin/emails", token=token).status == 403
