"""The rules of signing up (chalicelib/accounts/signup.py), on the in-memory twin (the
fast layer): closed unless opened; the account is an ordinary active one; Forgejo's name,
address and password rules; a taken name or address refused by the claim, also when two
sign-ups race for it; an allowance of accounts per address."""
from __future__ import annotations

import threading

import pytest

from chalicelib import accounts
from chalicelib.accounts import signup
from chalicelib.accounts import store as account_store
from chalicelib.errors import InvalidInput, NotFoundError
from chalicelib.settings import overridden
from tests import memory_scene as scene

OPEN = {"NIMBUS__SERVICE__DISABLE_REGISTRATION": "false"}
PASSWORD = "newbie-pass-1"


@pytest.fixture
def open_sign_up(memory):
    signup.forget_allowances()
    with overridden(OPEN):
        yield
    signup.forget_allowances()


def sign_up(name="newbie", email=None, password=PASSWORD, retype=None, address="192.0.2.1"):
    return accounts.sign_up(name, email or f"{name}@example.com", password,
                            password if retype is None else retype, address=address)


def test_closed_unless_an_operator_opens_it(memory):
    assert accounts.registration_open() is False
    with pytest.raises(NotFoundError):
        sign_up()
    assert accounts.account_by_name("newbie") is None


def test_a_sign_up_makes_an_ordinary_active_account(open_sign_up):
    made = sign_up()
    stored = scene.fresh(made)
    assert stored.login == "newbie" and stored.email == "newbie@example.com"
    assert stored.active and not stored.is_admin and not stored.must_change_password
    assert not stored.restricted and stored.visibility == "public"
    assert accounts.check_password_login("newbie", PASSWORD).id == made.id


@pytest.mark.parametrize("given, message", [
    ({"name": "-lead"}, r"\[Username\]: invalid name"),
    ({"name": "user"}, "name is reserved"),
    ({"name": "x" * 41}, r"\[Username\]: MaxSize"),
    ({"name": "line\nbreak", "email": "n@example.com"},
     r"\[Username\]: must not contain control characters"),
    ({"email": "nobody"}, r"\[Email\]: Email: e-mail invalid"),
    ({"password": "short"}, r"\[Password\]: password is too short"),
    ({"retype": "typo-pass-1"}, r"\[Retype\]: the passwords do not match"),
])
def test_forgejo_s_rules_refuse_and_nothing_is_made(open_sign_up, given, message):
    with pytest.raises(InvalidInput, match=message):
        sign_up(**given)
    assert accounts.account_by_name("newbie") is None


def test_a_taken_name_or_address_is_refused_in_any_case(open_sign_up):
    scene.user("alice")
    with pytest.raises(InvalidInput, match="user already exists"):
        sign_up("ALICE", email="other@example.com")
    with pytest.raises(InvalidInput, match="e-mail already in use"):
        sign_up("newbie", email="Alice@Example.com")
    assert accounts.account_by_name("newbie") is None


def test_two_sign_ups_racing_for_one_name_make_one_account(open_sign_up):
    """The second sign-up runs (in another thread, as another Lambda would) after the
    first checked the name and staged its account, before the first commits: nothing
    read beforehand can tell them apart, only the condition on the name's claim."""
    original = account_store.stage_create
    answers: list = []

    def racing(account):
        if not answers:
            answers.append(None)
            other = threading.Thread(target=lambda: answers.append(
                sign_up("racer", email="second@example.com", address="192.0.2.2")))
            other.start()
            other.join()
        original(account)

    account_store.stage_create = racing
    try:
        with pytest.raises(InvalidInput, match="user already exists"):
            sign_up("racer", email="first@example.com")
    finally:
        account_store.stage_create = original
    winner = accounts.account_by_name("racer")
    assert winner is not None and winner.id == answers[1].id
    assert winner.email == "second@example.com"
    # The loser's address was not claimed: it may sign up under another name.
    assert sign_up("other", email="first@example.com").login == "other"


def test_an_address_makes_its_allowance_an_hour_and_no_more(open_sign_up):
    with overridden({"NIMBUS__RATELIMIT__SIGN_UPS_PER_HOUR": "2"}):
        sign_up("one")
        with pytest.raises(InvalidInput, match="user already exists"):
            sign_up("one", email="again@example.com")     # reached the write: counted
        with pytest.raises(accounts.TooManySignUps) as refused:
            sign_up("two")
        assert 0 < refused.value.retry_after <= 1800
        assert "try again in 30 minutes" in refused.value.message
        # Another address has its own allowance; refusals before the write cost none.
        with pytest.raises(InvalidInput):
            sign_up("-bad-", address="192.0.2.9")
        sign_up("three", address="192.0.2.9")
        sign_up("four", address="192.0.2.9")
    assert accounts.account_by_name("two") is None
    assert accounts.account_by_name("four") is not None
