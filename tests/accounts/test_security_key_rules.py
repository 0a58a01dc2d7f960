"""Security keys (WebAuthn), the accounts domain's rules on the in-memory twin: a key
registered from py_webauthn's verified attestation, signing in with it, a challenge that
serves one answer (replayed, expired, another user's, another purpose's), a signature
count that goes back refused (a cloned key), two sign-ins racing on one count, Basic
with a password refused as Forgejo refuses it, the admin's reset removing the keys, and
the signing rule ``twofa`` counting a key.  The authenticator is tests/soft_key.py."""
from __future__ import annotations

import json
import threading

import pytest

from chalicelib import accounts, clock
from chalicelib.accounts import security_key_store, security_keys, sign_in, two_factor
from chalicelib.errors import (
    AlreadyExists,
    InvalidInput,
    NotFoundError,
    PermissionDenied,
)
from tests import memory_scene as scene
from tests.soft_key import SoftKey

T0 = 1_800_000_000.0
HERE, THERE = "203.0.113.7", "198.51.100.9"


@pytest.fixture
def now():
    with clock.frozen(T0) as frozen:
        yield frozen


def origin() -> str:
    return security_keys.relying_party()[1]


def registered(user, name: str = "yubikey", key: SoftKey | None = None) -> SoftKey:
    key = key or SoftKey()
    ceremony = accounts.start_key_registration(user, name)
    accounts.finish_key_registration(user, name, key.register(ceremony.options, origin()))
    return key


def assertion(user, key: SoftKey, **bend) -> str:
    return key.sign_in(accounts.start_key_sign_in(user).options, origin(), **bend)


def test_a_key_is_registered_from_a_verified_attestation(memory, now):
    alice = scene.user("alice")
    ceremony = accounts.start_key_registration(alice, "  YubiKey 5  ")
    options = json.loads(ceremony.options)
    rp_id, expected_origin = security_keys.relying_party()
    assert options["rp"]["id"] == rp_id and options["user"]["name"] == "alice"
    assert options["attestation"] == "none" and options["excludeCredentials"] == []
    assert ceremony.name == "YubiKey 5"
    key = SoftKey()
    accounts.finish_key_registration(alice, "YubiKey 5", key.register(ceremony.options,
                                                                      expected_origin))
    alice = scene.fresh(alice)
    assert accounts.has_security_keys(alice) and accounts.has_two_factor(alice)
    assert not accounts.has_totp(alice)
    (shown,) = accounts.two_factor_state(alice).security_keys
    assert (shown.name, shown.added_on, shown.used_on) == ("YubiKey 5", "2027-01-15", "")
    stored = security_key_store.list_keys(int(alice.id))[0]
    assert stored.credential_id == security_keys.b64url(key.credential_id)
    assert stored.public_key == security_keys.b64url(key.cose_key())
    # The next registration excludes it, and its name is taken (in any case).
    again = json.loads(accounts.start_key_registration(alice, "other").options)
    assert [d["id"] for d in again["excludeCredentials"]] == [stored.credential_id]
    with pytest.raises(AlreadyExists, match=r"\[Name\]"):
        accounts.start_key_registration(alice, "yubikey 5")


@pytest.mark.parametrize("bend, message", [
    ({"origin": "https://evil.example"}, "could not be verified"),
    ({"rp_id": "evil.example"}, "could not be verified"),
    ({"challenge": security_keys.b64url(b"x" * 32)}, "expired"),
])
def test_a_registration_for_another_site_or_challenge_is_refused(memory, now, bend, message):
    alice = scene.user("alice")
    ceremony = accounts.start_key_registration(alice, "key")
    answer = SoftKey().register(ceremony.options, bend.pop("origin", origin()), **bend)
    with pytest.raises(InvalidInput, match=message):
        accounts.finish_key_registration(alice, "key", answer)
    assert not accounts.has_security_keys(scene.fresh(alice))
    assert security_key_store.list_keys(int(alice.id)) == []


def test_a_registration_challenge_serves_once_for_its_user_and_name(memory, now):
    alice, bob = scene.user("alice"), scene.user("bob")
    ceremony = accounts.start_key_registration(alice, "key")
    answer = SoftKey().register(ceremony.options, origin())
    with pytest.raises(InvalidInput, match="expired"):            # bob cannot answer it
        accounts.finish_key_registration(bob, "key", answer)
    with pytest.raises(InvalidInput, match="expired"):            # nor under another name
        accounts.finish_key_registration(alice, "renamed", answer)
    accounts.finish_key_registration(alice, "key", answer)
    with pytest.raises(InvalidInput, match="expired"):            # replayed
        accounts.finish_key_registration(scene.fresh(alice), "key", answer)
    late = accounts.start_key_registration(alice, "late")
    now.advance(security_keys.CHALLENGE_SECONDS + 1)
    with pytest.raises(InvalidInput, match="expired"):
        accounts.finish_key_registration(alice, "late", SoftKey().register(late.options,
                                                                           origin()))


def test_one_authenticator_credential_belongs_to_one_account(memory, now):
    alice, bob = scene.user("alice"), scene.user("bob")
    key = registered(alice)
    twin = SoftKey(credential_id=key.credential_id)
    ceremony = accounts.start_key_registration(bob, "mine")
    with pytest.raises(AlreadyExists, match="registered already"):
        accounts.finish_key_registration(bob, "mine", twin.register(ceremony.options, origin()))
    assert not accounts.has_security_keys(scene.fresh(bob))


@pytest.mark.parametrize("name", ["", "   ", "x" * 256, "tab\there"])
def test_a_key_name_must_be_given_short_and_plain(memory, now, name):
    with pytest.raises(InvalidInput, match=r"\[Name\]"):
        accounts.start_key_registration(scene.user("alice"), name)


def test_only_a_signed_in_user_registers(memory, now):
    with pytest.raises(PermissionDenied):
        accounts.start_key_registration(None, "key")


def test_signing_in_with_the_key_moves_its_count(memory, now):
    alice = scene.user("alice")
    key = registered(alice)
    alice = scene.fresh(alice)
    now.advance(86_400)
    options = json.loads(accounts.start_key_sign_in(alice).options)
    assert [d["id"] for d in options["allowCredentials"]] == [security_keys.b64url(
        key.credential_id)]
    assert options["userVerification"] == "discouraged"
    signed = sign_in.security_key_sign_in(alice, key.sign_in(json.dumps(options), origin()),
                                          address=HERE)
    assert signed.account is not None and signed.account.login == "alice"
    stored = security_key_store.list_keys(int(alice.id))[0]
    assert (stored.sign_count, stored.last_used) == (1, int(T0) + 86_400)
    assert accounts.two_factor_state(alice).security_keys[0].used_on == "2027-01-16"


def test_an_assertion_serves_once(memory, now):
    alice = scene.user("alice")
    key = registered(alice)
    alice = scene.fresh(alice)
    answer = assertion(alice, key)
    assert security_keys.accept_assertion(alice, answer)
    assert not security_keys.accept_assertion(alice, answer)           # replayed
    stale = assertion(alice, key)
    now.advance(security_keys.CHALLENGE_SECONDS + 1)
    assert not security_keys.accept_assertion(alice, stale)            # expired


@pytest.mark.parametrize("bend", [{"tamper": True}, {"origin": "https://evil.example"},
                                  {"challenge": security_keys.b64url(b"y" * 32)}])
def test_a_wrong_signature_origin_or_challenge_signs_nobody_in(memory, now, bend):
    alice = scene.user("alice")
    key = registered(alice)
    alice = scene.fresh(alice)
    answer = key.sign_in(accounts.start_key_sign_in(alice).options,
                         bend.pop("origin", origin()), **bend)
    assert not security_keys.accept_assertion(alice, answer)


def test_another_users_challenge_or_key_signs_nobody_in(memory, now):
    alice, bob = scene.user("alice"), scene.user("bob")
    alice_key, bob_key = registered(alice), registered(bob)
    alice, bob = scene.fresh(alice), scene.fresh(bob)
    # bob's key over alice's challenge; alice's key answering bob's challenge.
    assert not security_keys.accept_assertion(alice, assertion(alice, bob_key))
    assert not security_keys.accept_assertion(alice, assertion(bob, alice_key))
    # A registration's challenge is not a sign-in's.
    ceremony = accounts.start_key_registration(alice, "second")
    options = json.loads(ceremony.options)
    options["rpId"] = options["rp"]["id"]
    assert not security_keys.accept_assertion(alice, alice_key.sign_in(json.dumps(options),
                                                                       origin()))
    for junk in ("", "{}", "[]", "not json", json.dumps({"response": {"clientDataJSON": 5}})):
        assert not security_keys.accept_assertion(alice, junk)


def test_a_count_that_goes_back_is_refused_as_a_clone(memory, now):
    alice = scene.user("alice")
    key = registered(alice)
    alice = scene.fresh(alice)
    assert security_keys.accept_assertion(alice, assertion(alice, key, count=5))
    assert not security_keys.accept_assertion(alice, assertion(alice, key, count=5))
    assert not security_keys.accept_assertion(alice, assertion(alice, key, count=3))
    assert not security_keys.accept_assertion(alice, assertion(alice, key, count=0))
    assert security_keys.accept_assertion(alice, assertion(alice, key, count=6))
    assert security_key_store.list_keys(int(alice.id))[0].sign_count == 6


def test_a_key_without_a_counter_keeps_signing_in(memory, now):
    alice = scene.user("alice")
    key = registered(alice)
    alice = scene.fresh(alice)
    for _ in range(2):
        assert security_keys.accept_assertion(alice, assertion(alice, key, count=0))


def test_two_sign_ins_racing_on_one_count_sign_in_once(memory, now, monkeypatch):
    """A cloned key's two answers, each over its own challenge and with the same count,
    both verified against the count read before either wrote: the conditional write
    lets one through."""
    alice = scene.user("alice")
    key = registered(alice)
    alice = scene.fresh(alice)
    answers = [assertion(alice, key, count=7) for _ in range(2)]
    barrier = threading.Barrier(2, timeout=10)
    real = security_key_store.stage_sign_count

    def gated(*args, **kwargs):
        barrier.wait()                       # both verified before either writes
        return real(*args, **kwargs)
    monkeypatch.setattr(security_key_store, "stage_sign_count", gated)
    results, lock = [], threading.Lock()

    def run(answer):
        with clock.frozen(T0):
            outcome = security_keys.accept_assertion(alice, answer)
        with lock:
            results.append(outcome)
    threads = [threading.Thread(target=run, args=(answer,)) for answer in answers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(results) == [False, True]


def test_wrong_answers_count_as_failed_sign_ins(memory, now):
    alice = scene.user("alice")
    key = registered(alice)
    alice = scene.fresh(alice)
    for _ in range(10):
        bad = assertion(alice, key, tamper=True)
        assert sign_in.security_key_sign_in(alice, bad, address=HERE).account is None
    held = sign_in.security_key_sign_in(alice, assertion(alice, key), address=HERE)
    assert held.throttled and held.account is None
    assert sign_in.security_key_sign_in(alice, assertion(alice, key), address=THERE).account


def test_basic_with_the_password_is_refused_on_the_api_and_git(memory, now):
    alice = scene.user("alice")
    registered(alice)
    for git in (False, True):
        signed = sign_in.basic_sign_in("alice", scene.PASSWORD, address=HERE, git=git)
        assert signed.account is None and signed.refusal == sign_in.KEYS_REFUSE_BASIC
    # TOTP as well: the key's refusal comes first, whatever code is sent.
    from tests.accounts.test_two_factor_rules import code_at, enrolled

    secret, _ = enrolled(scene.fresh(alice))
    signed = sign_in.basic_sign_in("alice", scene.PASSWORD, address=HERE,
                                   otp=code_at(secret, T0))
    assert signed.refusal == sign_in.KEYS_REFUSE_BASIC
    # A wrong password is the usual refusal (and counts).
    assert sign_in.basic_sign_in("alice", "nope", address=HERE).refusal == ""


def test_deleting_a_key_and_the_last_key(memory, now):
    alice = scene.user("alice")
    key = registered(alice)
    registered(scene.fresh(alice), "spare")
    alice = scene.fresh(alice)
    shown = {key.name: key for key in accounts.two_factor_state(alice).security_keys}
    first, spare = shown["yubikey"], shown["spare"]
    with pytest.raises(NotFoundError):
        accounts.delete_security_key(scene.user("bob"), first.id)    # not bob's
    with pytest.raises(NotFoundError):
        accounts.delete_security_key(alice, "nonsense")
    accounts.delete_security_key(alice, first.id)
    assert scene.fresh(alice).security_keys == 1
    assert not security_keys.accept_assertion(scene.fresh(alice), assertion(alice, key))
    accounts.delete_security_key(alice, spare.id)
    alice = scene.fresh(alice)
    assert not accounts.has_two_factor(alice)
    assert sign_in.basic_sign_in("alice", scene.PASSWORD, address=HERE).account is not None
    # Its credential id is free again: the same authenticator registers anew.
    registered(alice, "again", key)


def test_the_admin_reset_removes_the_keys_with_totp(memory, now):
    from tests.accounts.test_two_factor_rules import enrolled

    alice = scene.user("alice")
    key = registered(alice)
    enrolled(scene.fresh(alice))
    alice = scene.fresh(alice)
    assert accounts.has_totp(alice) and accounts.has_security_keys(alice)
    accounts.reset_two_factor(scene.user("root", admin=True), "alice")
    alice = scene.fresh(alice)
    assert (alice.two_factor, alice.security_keys) == (False, 0)
    assert accounts.two_factor_state(alice) == two_factor.TwoFactorState(enabled=False)
    with pytest.raises(InvalidInput, match="not enabled"):
        accounts.reset_two_factor(None, "alice")
    # Keys alone: the operator's reset removes them too.
    registered(alice, "again", key)
    accounts.reset_two_factor(None, "alice")
    assert not accounts.has_two_factor(scene.fresh(alice))


def test_turning_totp_off_keeps_the_keys(memory, now):
    from tests.accounts.test_two_factor_rules import enrolled

    alice = scene.user("alice")
    registered(alice)
    enrolled(scene.fresh(alice))
    accounts.disable_two_factor(scene.fresh(alice), password=scene.PASSWORD, address=HERE)
    alice = scene.fresh(alice)
    assert not accounts.has_totp(alice) and accounts.has_security_keys(alice)


def test_deleting_the_user_deletes_the_keys_and_frees_their_credentials(memory, now):
    from chalicelib.accounts import service

    alice = scene.user("alice")
    key = registered(alice)
    service.delete_user(scene.user("root", admin=True), "alice")
    assert security_key_store.list_keys(int(alice.id)) == []
    registered(scene.user("bob"), "inherited", key)


def test_the_twofa_signing_rule_counts_a_key(memory, now):
    from chalicelib.signing.service import decide

    alice = scene.user("alice")
    assert decide(("twofa",), alice) == (False, "twofa")
    registered(alice)
    assert decide(("twofa",), scene.fresh(alice)) == (True, "")


def test_an_account_holds_a_bounded_number_of_keys(memory, now, monkeypatch):
    monkeypatch.setattr(security_keys, "MAX_KEYS", 2)
    alice = scene.user("alice")
    registered(alice, "one")
    registered(scene.fresh(alice), "two")
    with pytest.raises(InvalidInput, match="at most 2"):
        accounts.start_key_registration(scene.fresh(alice), "three")
