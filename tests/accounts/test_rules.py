"""The accounts domain's rules, on the in-memory twin (the fast layer): names and
claims, visibility, tokens, deletion with everything the account owns."""
from __future__ import annotations

import pytest

from chalicelib import accounts, events
from chalicelib.errors import (AlreadyExists, BadInput, ConditionFailed, InvalidInput,
                               NotFoundError)
from tests import memory_scene as scene


@pytest.mark.parametrize("name", ["api", "Assets", "-lead", "trail.", "a..b", "ünï", "x" * 41])
def test_names_forgejo_refuses(name):
    with pytest.raises(InvalidInput):
        accounts.validate_name(name)


def test_a_name_or_an_email_is_one_account_s_whatever_the_case(memory):
    scene.user("alice")
    for option in (dict(username="ALICE", email="other@example.com"),
                   dict(username="alice2", email="Alice@Example.com")):
        with pytest.raises((AlreadyExists, ConditionFailed, InvalidInput)):
            accounts.create_account(accounts.CreateUserOption(password=scene.PASSWORD, **option),
                                    is_admin=False)
    assert accounts.account_by_name("Alice").login == "alice"


@pytest.mark.parametrize("visibility, viewer, sees", [
    ("public", None, True), ("limited", None, False), ("limited", "bob", True),
    ("limited", "restricted", False), ("private", "bob", False), ("private", "root", True),
    ("private", "carol", True),
])
def test_who_sees_a_profile(memory, visibility, viewer, sees):
    carol = scene.user("carol", visibility=visibility)
    viewers = {"bob": scene.user("bob"), "root": scene.user("root", admin=True),
               "restricted": scene.user("rita", restricted=True), "carol": carol, None: None}
    assert accounts.can_see(viewers[viewer], carol) is sees
    if not sees:
        with pytest.raises(NotFoundError):
            accounts.get_visible_user(viewers[viewer], "carol")


def test_a_token_s_secret_is_shown_once_and_its_name_is_unique(memory):
    alice = scene.user("alice")
    option = accounts.CreateAccessTokenOption(name="ci", scopes=["read:repository"])
    stored, secret = accounts.create_token(alice, "alice", option)
    assert len(secret) == 40 and stored.last_eight == secret[-8:]
    with pytest.raises(BadInput, match="access token name has been used already"):
        accounts.create_token(alice, "alice", option)
    with pytest.raises(BadInput, match="access token must have a scope"):
        accounts.create_token(alice, "alice", accounts.CreateAccessTokenOption(name="none"))
    assert [t.name for t in accounts.list_tokens(alice, "alice")] == ["ci"]
    accounts.delete_token(alice, "alice", "ci")
    assert accounts.list_tokens(alice, "alice") == []


def test_deleting_a_user_frees_the_name_email_and_key_claims(memory):
    from chalicelib.accounts import public_keys, service
    from tests.accounts.test_users import ssh_key

    key = ssh_key()
    alice = scene.user("alice")
    public_keys.add_key(alice, "alice", accounts.CreateKeyOption(title="k", key=key))
    token = accounts.CreateAccessTokenOption(name="t", scopes=["all"])
    accounts.create_token(alice, "alice", token)
    root = scene.user("root", admin=True)
    service.delete_user(root, "alice")
    assert accounts.account_by_name("alice") is None
    again = scene.user("alice")                      # the name and the e-mail are free
    public_keys.add_key(again, "alice", accounts.CreateKeyOption(title="k", key=key))
    assert accounts.key_holder(public_keys.parse_ssh_key(key).fingerprint) == again.id


def test_an_account_rebuilt_from_its_snapshot_reads_as_stored(memory):
    alice = scene.user("alice", full_name="Alice A.")
    rebuilt = accounts.account_from(accounts.account_snapshot(alice))
    assert (rebuilt.id, rebuilt.login, rebuilt.full_name) == (alice.id, "alice", "Alice A.")
    assert accounts.account_from({}).login == ""
    assert accounts.account_from_snapshot(events.snapshot(alice)).email == alice.email


def test_a_user_changes_their_own_password_only_with_the_old_one(memory):
    """The account settings form's rule (no API route): the old password is checked as a
    sign-in checks it, the new one held to the minimum length; a refusal changes nothing."""
    alice = scene.user("alice", must_change_password=True)
    for old, new, field in ((scene.PASSWORD, "short", "[Password]"),
                            ("not-her-password", "a-new-password-1", "[OldPassword]"),
                            (scene.PASSWORD, "", "[Password]")):
        with pytest.raises(InvalidInput, match=field.replace("[", r"\[").replace("]", r"\]")):
            accounts.change_own_password(alice, old, new)
    assert accounts.check_password_login("alice", scene.PASSWORD) is not None
    changed = accounts.change_own_password(alice, scene.PASSWORD, "a-new-password-1")
    assert changed.must_change_password is False
    assert accounts.check_password_login("alice", "a-new-password-1") is not None
    assert accounts.check_password_login("alice", scene.PASSWORD) is None
