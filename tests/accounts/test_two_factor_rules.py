"""Two-factor sign-in and sign-in throttling, the accounts domain's rules on the
in-memory twin (the fast layer): enrolment, codes used once (under races too), recovery
codes, turning it off and the admin's reset; failed sign-ins counted per address and
per name from an address, never holding back another address."""
from __future__ import annotations

import threading

import pyotp
import pytest

from chalicelib import accounts, clock
from chalicelib.accounts import login_throttle, sign_in, two_factor, two_factor_store
from chalicelib.errors import AlreadyExists, InvalidInput, PermissionDenied
from chalicelib.settings import overridden
from tests import memory_scene as scene

T0 = 1_800_000_000.0          # a fixed instant, the start of a TOTP step
HERE, THERE = "203.0.113.7", "198.51.100.9"


def code_at(secret: str, when: float) -> str:
    return pyotp.TOTP(secret).at(when)


@pytest.fixture
def now():
    with clock.frozen(T0) as frozen:
        yield frozen


def enrolled(user):
    """``user`` with two-factor sign-in on: (the secret, the recovery codes)."""
    enrolment = accounts.start_two_factor(user)
    codes = accounts.enable_two_factor(user, enrolment.sealed,
                                       code_at(enrolment.secret, clock.now()))
    return enrolment.secret, codes


def test_enrolment_turns_on_only_with_a_current_code_of_its_secret(memory, now):
    alice = scene.user("alice")
    enrolment = accounts.start_two_factor(alice)
    assert enrolment.uri.startswith("otpauth://totp/") and "alice" in enrolment.uri
    assert enrolment.secret not in enrolment.sealed       # the form carries it sealed
    for wrong in ("", "12345", "abcdef", code_at(enrolment.secret, T0 - 300),
                  code_at(pyotp.random_base32(), T0)):
        with pytest.raises(InvalidInput, match=r"\[Passcode\]"):
            accounts.enable_two_factor(alice, enrolment.sealed, wrong)
    assert accounts.two_factor_state(alice).enabled is False          # nothing written
    assert not accounts.has_two_factor(scene.fresh(alice))
    with pytest.raises(InvalidInput, match="expired"):                # another user's form
        accounts.enable_two_factor(scene.user("bob"), enrolment.sealed,
                                   code_at(enrolment.secret, T0))

    codes = accounts.enable_two_factor(alice, enrolment.sealed, code_at(enrolment.secret, T0))
    assert len(codes) == len(set(codes)) == 10
    assert all(len(c) == 11 and c[5] == "-" for c in codes)
    assert accounts.has_two_factor(scene.fresh(alice))                 # the account's flag
    state = accounts.two_factor_state(alice)
    assert (state.enabled, state.recovery_codes_left) == (True, 10)
    with pytest.raises(AlreadyExists):
        accounts.start_two_factor(scene.fresh(alice))
    with pytest.raises(AlreadyExists):                                  # a second tab's form
        accounts.enable_two_factor(alice, enrolment.sealed, code_at(enrolment.secret, T0 + 30))


def test_an_enrolment_form_expires(memory, now):
    alice = scene.user("alice")
    enrolment = accounts.start_two_factor(alice)
    now.advance(two_factor.ENROLMENT_SECONDS + 1)
    with pytest.raises(InvalidInput, match="expired"):
        accounts.enable_two_factor(alice, enrolment.sealed, code_at(enrolment.secret, clock.now()))
    with pytest.raises(InvalidInput, match="expired"):
        accounts.enable_two_factor(alice, enrolment.sealed[:-6] + "AAAAAA", "000000")


def test_a_code_signs_in_once_and_never_an_older_one(memory, now):
    alice = scene.user("alice")
    secret, _ = enrolled(alice)
    alice = scene.fresh(alice)
    # The enrolling code's step is spent: the same code cannot sign in.
    assert not two_factor.accept_passcode(alice, code_at(secret, T0))
    now.advance(30)
    assert two_factor.accept_passcode(alice, code_at(secret, clock.now()))
    assert not two_factor.accept_passcode(alice, code_at(secret, clock.now()))   # replayed
    now.advance(30)
    assert not two_factor.accept_passcode(alice, code_at(secret, clock.now() - 30))  # older
    # One step of clock skew either way is taken; two are not.
    assert two_factor.accept_passcode(alice, code_at(secret, clock.now() + 30))
    assert not two_factor.accept_passcode(alice, code_at(secret, clock.now() + 90))
    assert not two_factor.accept_passcode(alice, "")
    # The API's header check uses nothing up: a current code stays valid for it.
    now.advance(60)
    current = code_at(secret, clock.now())
    assert two_factor.passcode_valid(alice, current) and two_factor.passcode_valid(alice, current)


def test_a_recovery_code_works_once_in_any_spelling(memory, now):
    alice = scene.user("alice")
    _, codes = enrolled(alice)
    alice = scene.fresh(alice)
    assert two_factor.use_recovery_code(alice, " " + codes[0].upper().replace("-", " ") + " ")
    assert not two_factor.use_recovery_code(alice, codes[0])
    assert not two_factor.use_recovery_code(alice, "aaaaa-aaaaa")
    assert not two_factor.use_recovery_code(alice, "")
    assert not two_factor.use_recovery_code(scene.user("bob"), codes[1])   # alice's, not bob's
    assert accounts.two_factor_state(alice).recovery_codes_left == 9


def _race(action, gate_target: str, monkeypatch, tries: int = 2) -> list[bool]:
    """``action()`` run by ``tries`` threads at once, each held at ``gate_target`` (a
    two_factor_store function) until all have reached it: every read is done before any
    write, so only the store's conditions can keep the outcome to one success."""
    barrier = threading.Barrier(tries, timeout=10)
    real = getattr(two_factor_store, gate_target)

    def gated(*args, **kwargs):
        found = real(*args, **kwargs) if gate_target == "get" else None
        barrier.wait()
        return found if gate_target == "get" else real(*args, **kwargs)
    monkeypatch.setattr(two_factor_store, gate_target, gated)
    results: list[bool] = []
    lock = threading.Lock()

    def run():
        with clock.frozen(T0 + 60):
            outcome = action()
        with lock:
            results.append(outcome)
    threads = [threading.Thread(target=run) for _ in range(tries)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results


def test_a_recovery_code_raced_by_two_requests_signs_in_once(memory, now, monkeypatch):
    alice = scene.user("alice")
    _, codes = enrolled(alice)
    alice = scene.fresh(alice)
    results = _race(lambda: two_factor.use_recovery_code(alice, codes[3]), "stage_use_code",
                    monkeypatch)
    assert sorted(results) == [False, True]


def test_a_code_raced_by_two_requests_signs_in_once(memory, now, monkeypatch):
    alice = scene.user("alice")
    secret, _ = enrolled(alice)
    alice = scene.fresh(alice)
    results = _race(lambda: two_factor.accept_passcode(alice, code_at(secret, T0 + 60)), "get",
                    monkeypatch)
    assert sorted(results) == [False, True]


def test_regenerated_codes_replace_the_old_ones(memory, now):
    alice = scene.user("alice")
    _, old = enrolled(alice)
    alice = scene.fresh(alice)
    assert two_factor.use_recovery_code(alice, old[0])
    new = accounts.regenerate_recovery_codes(alice)
    assert set(new).isdisjoint(old) and accounts.two_factor_state(alice).recovery_codes_left == 10
    assert not two_factor.use_recovery_code(alice, old[1])
    assert two_factor.use_recovery_code(alice, new[0])
    with pytest.raises(InvalidInput, match="not enabled"):
        accounts.regenerate_recovery_codes(scene.user("bob"))


def test_turning_it_off_takes_a_code_or_the_password(memory, now):
    alice = scene.user("alice")
    secret, codes = enrolled(alice)
    alice = scene.fresh(alice)
    with pytest.raises(InvalidInput, match="required"):
        accounts.disable_two_factor(alice, address=HERE)
    with pytest.raises(InvalidInput, match=r"\[Passcode\]"):
        accounts.disable_two_factor(alice, passcode="000000", address=HERE)
    with pytest.raises(InvalidInput, match=r"\[Password\]"):
        accounts.disable_two_factor(alice, password="not-hers", address=HERE)
    assert accounts.two_factor_state(alice).enabled
    now.advance(30)
    accounts.disable_two_factor(alice, passcode=code_at(secret, clock.now()), address=HERE)
    assert not accounts.two_factor_state(alice).enabled
    assert not accounts.has_two_factor(scene.fresh(alice))
    assert not two_factor.use_recovery_code(alice, codes[0])        # the codes went with it
    # On again, then off with the password.
    enrolled(scene.fresh(alice))
    accounts.disable_two_factor(scene.fresh(alice), password=scene.PASSWORD, address=HERE)
    assert not accounts.has_two_factor(scene.fresh(alice))


def test_only_a_site_admin_or_the_operator_resets_it(memory, now):
    alice = scene.user("alice")
    enrolled(alice)
    with pytest.raises(PermissionDenied):
        accounts.reset_two_factor(scene.user("bob"), "alice")
    accounts.reset_two_factor(scene.user("root", admin=True), "alice")
    assert not accounts.has_two_factor(scene.fresh(alice))
    assert accounts.two_factor_state(alice).enabled is False
    with pytest.raises(InvalidInput, match="not enabled"):
        accounts.reset_two_factor(None, "alice")
    enrolled(scene.fresh(alice))
    accounts.reset_two_factor(None, "alice")                       # the CLI's operator
    assert not accounts.has_two_factor(scene.fresh(alice))


def test_deleting_the_user_deletes_the_second_factor(memory, now):
    from chalicelib.accounts import service

    alice = scene.user("alice")
    enrolled(alice)
    service.delete_user(scene.user("root", admin=True), "alice")
    assert two_factor_store.with_codes(int(alice.id)) == (None, [])


def test_basic_sign_in_asks_the_otp_header_on_the_api_and_refuses_git(memory, now):
    alice = scene.user("alice")
    secret, _ = enrolled(alice)
    signed = sign_in.basic_sign_in("alice", scene.PASSWORD, address=HERE)
    assert signed.account is None and signed.refusal == "invalid provided OTP"
    signed = sign_in.basic_sign_in("alice", scene.PASSWORD, address=HERE, otp="000000")
    assert signed.refusal == "invalid provided OTP"
    good = sign_in.basic_sign_in("alice", scene.PASSWORD, address=HERE, otp=code_at(secret, T0))
    assert good.account is not None and good.account.login == "alice"
    git = sign_in.basic_sign_in("alice", scene.PASSWORD, address=HERE,
                                otp=code_at(secret, T0), git=True)
    assert git.account is None and git.refusal.startswith("Users with two-factor")
    wrong = sign_in.basic_sign_in("alice", "nope", address=HERE, git=True)
    assert wrong.account is None and wrong.refusal == ""            # the usual 401
    scene.user("bob")
    assert sign_in.basic_sign_in("bob", scene.PASSWORD, address=HERE).account is not None


def test_the_twofa_signing_rule_holds_for_a_user_with_a_second_factor(memory, now):
    from chalicelib.signing.service import decide

    alice = scene.user("alice")
    assert decide(("twofa",), alice) == (False, "twofa")
    assert decide(("twofa",), None) == (False, "twofa")
    enrolled(alice)
    assert decide(("twofa",), scene.fresh(alice)) == (True, "")


# Throttling ---------------------------------------------------------------------------

def test_the_sliding_window_waits_until_the_count_is_below_the_limit():
    wait = login_throttle.wait_for
    assert wait(20, 19, 0, 10, 900) == 0
    assert wait(0, 500, 500, 10, 900) == 0                          # a limit of 0 is off
    assert wait(20, 20, 0, 100, 900) == 801                         # past the window's end
    assert wait(20, 40, 0, 100, 900) == 800 + 450 + 1               # and half the next
    assert wait(20, 10, 20, 0, 900) == 451                          # the old half fades
    assert wait(20, 10, 20, 449, 900) == 2
    assert wait(20, 10, 20, 451, 900) == 0


@pytest.mark.parametrize("given, counted", [
    ("203.0.113.7", "203.0.113.7"), ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
    ("2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"), ("::ffff:192.0.2.1", "192.0.2.1"),
    ("", "unknown"), ("not an address", "unknown")])
def test_addresses_are_counted_ipv6_by_its_64(given, counted):
    assert login_throttle.address_key(given) == counted


def _wrong(name: str, address: str, times: int) -> None:
    for _ in range(times):
        assert login_throttle.password_sign_in(name, "wrong-pass", address=address).account is None


def test_wrong_passwords_hold_back_that_address_for_that_name_not_the_owner(memory, now):
    scene.user("alice")
    scene.user("bob")
    _wrong("alice", HERE, 10)
    held = login_throttle.password_sign_in("alice", scene.PASSWORD, address=HERE)
    assert held.throttled and held.account is None and held.retry_after == 901
    # The owner, from anywhere else; others, from that address.
    assert login_throttle.password_sign_in("alice", scene.PASSWORD, address=THERE).account
    assert login_throttle.password_sign_in("bob", scene.PASSWORD, address=HERE).account
    assert login_throttle.password_sign_in("ALICE", "x", address="2001:db8::1").retry_after == 0
    # Another address of the same /64 is the same address.
    _wrong("carol", "2001:db8:0:0:1::1", 10)
    assert login_throttle.password_sign_in("carol", "x", address="2001:db8::2").throttled


def test_twenty_failures_from_one_address_hold_it_back_for_everyone(memory, now):
    scene.user("alice")
    for name in ("alice", "bob", "carol", "nobody"):
        _wrong(name, HERE, 5)
    for name in ("alice", "someone"):
        assert login_throttle.password_sign_in(name, scene.PASSWORD, address=HERE).throttled
    assert login_throttle.password_sign_in("alice", scene.PASSWORD, address=THERE).account


def test_a_held_back_address_may_try_again_once_the_window_slid_on(memory, now):
    scene.user("alice")
    _wrong("alice", HERE, 10)
    wait = login_throttle.retry_after("alice", HERE)
    now.advance(wait - 1)
    assert login_throttle.password_sign_in("alice", scene.PASSWORD, address=HERE).throttled
    now.advance(1)
    assert login_throttle.password_sign_in("alice", scene.PASSWORD, address=HERE).account
    # The old failures still weigh: a few more wrong ones hold it back again.
    _wrong("alice", HERE, 1)
    assert login_throttle.retry_after("alice", HERE) > 0


def test_wrong_second_factors_count_as_failed_sign_ins(memory, now):
    alice = scene.user("alice")
    enrolled(alice)
    alice = scene.fresh(alice)
    for _ in range(5):
        assert sign_in.second_factor_sign_in(alice, "000000", address=HERE).account is None
    for _ in range(5):
        assert sign_in.recovery_sign_in(alice, "aaaaa-bbbbb", address=HERE).account is None
    assert sign_in.second_factor_sign_in(alice, "000000", address=HERE).throttled
    assert sign_in.basic_sign_in("alice", scene.PASSWORD, address=HERE).throttled
    assert not sign_in.second_factor_sign_in(alice, "000000", address=THERE).throttled


def test_throttling_off_reads_and_writes_nothing(memory, now):
    from chalicelib.accounts import sign_in_store

    scene.user("alice")
    off = {"NIMBUS__SECURITY__LOGIN_FAILURES_PER_ADDRESS": "0",
           "NIMBUS__SECURITY__LOGIN_FAILURES_PER_ACCOUNT_ADDRESS": "0"}
    with overridden(off):
        _wrong("alice", HERE, 30)
        assert login_throttle.password_sign_in("alice", scene.PASSWORD, address=HERE).account
        assert login_throttle.preload_keys("alice", HERE) == []
    keys = sign_in_store.window_keys(HERE, "alice", int(T0 // 900))
    assert sign_in_store.counts(keys) == [0, 0, 0, 0]


@pytest.mark.parametrize("name, value", [("LOGIN_FAILURES_PER_ADDRESS", "-1"),
                                         ("LOGIN_FAILURES_PER_ACCOUNT_ADDRESS", "-5"),
                                         ("LOGIN_FAILURE_WINDOW", "0")])
def test_throttle_settings_that_would_lock_everyone_out_are_refused(name, value):
    from chalicelib.settings import SettingsError, load_settings

    with overridden({f"NIMBUS__SECURITY__{name}": value}), \
            pytest.raises(SettingsError, match=r"\[security\] LOGIN_FAILURES_"):
        load_settings()


def test_an_empty_name_counts_once_for_the_address(memory, now):
    from chalicelib.accounts import sign_in_store

    assert login_throttle.password_sign_in("", "x", address=HERE).account is None
    address_now = sign_in_store.window_keys(HERE, "alice", int(T0 // 900))[0]
    assert sign_in_store.counts([address_now]) == [1]
