"""Two-factor sign-in with TOTP (RFC 6238 through ``pyotp``) and recovery codes
(Forgejo's ``/user/settings/security``, with ten single-use codes where Forgejo keeps one
scratch token).

Enrolment: ``start_enrolment`` makes a secret server-side and hands it out sealed
(``Enrolment.sealed``: the user's id, the secret and an expiry, sealed with the instance
secret), so the form carries it between showing the QR code and the confirming code
without anything written; ``enable`` turns the second factor on only once a current code
for that secret comes back, and answers the recovery codes, shown that once.  Stored:
the secret sealed (``http.sealing``), the step of the last code accepted, and an HMAC of
each recovery code under a key derived from the instance secret (``two_factor_store``).

A code is accepted for the current 30-second step or the one either side of it (clock
skew), once: accepting one moves the stored step forward by a conditional write, so the
same code, or an older one, never signs in again however requests race.  A recovery code
is deleted on condition that it exists, so it works once.

Turning it off takes a current code or the password (``disable``); a site admin, or the
operator through the CLI, removes it for a user who lost both (``reset``), with the
user's security keys (``security_keys``): after a reset the password alone signs in.
An account has two-factor sign-in when it has TOTP or a security key, as Forgejo's
``HasTwoFactorByUID`` says (``has_two_factor``: the second step, the signing rule
``twofa``); ``has_totp`` is the TOTP alone.  Replacing
the instance secret makes the stored secrets and codes unreadable: those users need a
reset.  ``pyotp`` is imported on these paths only, never on a token's.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib import clock, events
from chalicelib.accounts import login_throttle, security_key_store, two_factor_store
from chalicelib.accounts.security_keys import KeyView, has_security_keys, view
from chalicelib.accounts.service import actor_of_event, check_password_login, get_user
from chalicelib.errors import (
    AlreadyExists,
    ConditionFailed,
    ConflictError,
    InvalidInput,
    PermissionDenied,
)
from chalicelib.http.sealing import Sealer, Unreadable, derived_key
from chalicelib.settings import get_settings
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts.models import Account

INTERVAL = 30                 # seconds per TOTP step (what authenticator apps use)
DIGITS = 6
RECOVERY_CODES = 10
RECOVERY_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"    # 5 bits a character
RECOVERY_LENGTH = 10          # 50 bits, shown as xxxxx-xxxxx
ENROLMENT_SECONDS = 30 * 60   # how long the enrolment form stays good
WRONG_CODE = "[Passcode]: the code is not correct (or was used already)"
ALREADY_ON = "two-factor authentication is already enabled"
# Derivation names: changing one makes what it sealed unreadable.
_SECRETS = Sealer(b"nimbus two-factor secrets v1")
_ENROLMENTS = Sealer(b"nimbus two-factor enrolments v1")
_RECOVERY_INFO = b"nimbus two-factor recovery codes v1"


class HeldBack(PermissionDenied):
    """Too many failed attempts from the address (``login_throttle``): nothing checked."""

    def __init__(self, retry_after: int):
        super().__init__(f"too many failed attempts from your address: try again in "
                         f"{retry_after} seconds")
        self.retry_after = retry_after


@dataclass(frozen=True)
class Enrolment:
    """A secret being enrolled: what the page shows and the form sends back."""
    secret: str
    uri: str              # otpauth://totp/…, what the QR code holds
    sealed: str           # the form's hidden field


@dataclass(frozen=True)
class TwoFactorState:
    enabled: bool                 # TOTP
    recovery_codes_left: int = 0
    created: int = 0
    security_keys: tuple[KeyView, ...] = ()


def _pyotp():
    import pyotp

    return pyotp


def has_totp(account: Account | None) -> bool:
    """Whether the account signs in with TOTP (the flag on its item: no read)."""
    return bool(account is not None and getattr(account, "two_factor", False))


def has_two_factor(account: Account | None) -> bool:
    """Whether the account signs in with a second factor, TOTP or a security key (the
    account's flag and count: no read)."""
    return has_totp(account) or has_security_keys(account)


def _own(actor: Account | None) -> Account:
    if actor is None or actor.account_type != "user":
        raise PermissionDenied("only signed in user is allowed")
    return actor


def state(actor: Account | None) -> TwoFactorState:
    """The settings page's view: TOTP on or off, how many recovery codes are left, and
    the security keys (one Query)."""
    user = _own(actor)
    totp, codes, found = two_factor_store.second_factors(int(user.id))
    shown = tuple(view(key) for key in found)
    if totp is None:
        return TwoFactorState(enabled=False, security_keys=shown)
    return TwoFactorState(enabled=True, recovery_codes_left=len(codes), created=int(totp.created),
                          security_keys=shown)


def provisioning_uri(account: Account, secret: str) -> str:
    issuer = get_settings().server.APP_NAME or "Nimbus"
    return _pyotp().TOTP(secret, digits=DIGITS, interval=INTERVAL).provisioning_uri(
        name=account.login, issuer_name=issuer)


def start_enrolment(actor: Account | None) -> Enrolment:
    """A fresh secret for the user to add to an authenticator (nothing is written)."""
    user = _own(actor)
    if has_totp(user):
        raise AlreadyExists(ALREADY_ON)
    secret = _pyotp().random_base32()
    plain = json.dumps({"u": int(user.id), "s": secret,
                        "e": clock.seconds() + ENROLMENT_SECONDS}).encode()
    return Enrolment(secret, provisioning_uri(user, secret), _ENROLMENTS.seal(plain))


def resume_enrolment(actor: Account | None, sealed: str) -> Enrolment:
    """The enrolment a form sent back: the same secret, for the same user, still good."""
    user = _own(actor)
    try:
        plain = json.loads(_ENROLMENTS.open(sealed or ""))
        if int(plain["u"]) != int(user.id) or int(plain["e"]) < clock.seconds():
            raise ValueError("another user's, or expired")
        secret = str(plain["s"])
    except (Unreadable, ValueError, KeyError, TypeError):
        raise InvalidInput("the enrolment has expired: start again") from None
    return Enrolment(secret, provisioning_uri(user, secret), sealed)


def _normal_code(passcode: str) -> str:
    return "".join((passcode or "").split())


def matching_step(secret: str, passcode: str, now: float | None = None) -> int | None:
    """The time step (current, or one either side) whose code ``passcode`` is."""
    code = _normal_code(passcode)
    if len(code) != DIGITS or not code.isdigit():
        return None
    totp = _pyotp().TOTP(secret, digits=DIGITS, interval=INTERVAL)
    current = int((clock.now() if now is None else now) // INTERVAL)
    found = None
    for step in (current - 1, current, current + 1):
        if hmac.compare_digest(totp.generate_otp(step), code) and found is None:
            found = step
    return found


def _recovery_key() -> bytes:
    return derived_key(_RECOVERY_INFO)


def _digest(user_id: int, code: str, key: bytes) -> str:
    normal = "".join(c for c in (code or "").lower() if c.isalnum())
    return hmac.new(key, f"{user_id}:{normal}".encode(), hashlib.sha256).hexdigest()


def _new_codes(user_id: int) -> tuple[list[str], list[str]]:
    """Fresh recovery codes (as shown) and their digests (as stored)."""
    key = _recovery_key()
    shown = []
    for _ in range(RECOVERY_CODES):
        raw = "".join(secrets.choice(RECOVERY_ALPHABET) for _ in range(RECOVERY_LENGTH))
        shown.append(f"{raw[:5]}-{raw[5:]}")
    return shown, [_digest(user_id, code, key) for code in shown]


def _changed_event(actor: Account | None, user_id: int,
                   changed: tuple[str, ...] = ("two_factor",)) -> events.UserEdited:
    return events.UserEdited(**actor_of_event(actor), user_id=user_id, changed=changed)


def enable(actor: Account | None, sealed: str, passcode: str) -> list[str]:
    """Turn the second factor on once ``passcode`` is a current code of the enrolment's
    secret; the recovery codes, shown this once."""
    user = _own(actor)
    enrolment = resume_enrolment(user, sealed)
    step = matching_step(enrolment.secret, passcode)
    if step is None:
        raise InvalidInput(WRONG_CODE)
    shown, digests = _new_codes(int(user.id))
    try:
        with unit_of_work.writing() as uow:
            two_factor_store.stage_enable(int(user.id), _SECRETS.seal(enrolment.secret.encode()),
                                          step, digests)
            uow.raise_event(_changed_event(user, int(user.id)))
    except ConditionFailed as exc:
        if exc.label == two_factor_store.ENROLLED:
            raise AlreadyExists(ALREADY_ON) from None
        raise ConflictError("the account changed meanwhile: try again") from None
    user.two_factor = True
    return shown


def regenerate_codes(actor: Account | None) -> list[str]:
    """New recovery codes in place of the unused ones (shown this once)."""
    user = _own(actor)
    totp, codes = two_factor_store.with_codes(int(user.id))
    if totp is None:
        raise InvalidInput("two-factor authentication is not enabled")
    shown, digests = _new_codes(int(user.id))
    try:
        with unit_of_work.writing():
            two_factor_store.stage_codes(int(user.id), codes, digests)
    except ConditionFailed:
        raise ConflictError("two-factor authentication changed meanwhile: try again") from None
    return shown


def _secret_of(totp) -> str | None:
    try:
        return _SECRETS.open(totp.secret).decode()
    except Unreadable:
        return None         # the instance secret was replaced: only a reset helps


def accept_passcode(account: Account, passcode: str) -> bool:
    """Whether ``passcode`` is a current code of the account's second factor that no
    sign-in used yet; if so it is used now (a conditional write: once, under any race)."""
    totp = two_factor_store.get(int(account.id))
    secret = _secret_of(totp) if totp is not None else None
    step = matching_step(secret, passcode) if secret else None
    if step is None or step <= int(totp.last_step or 0):
        return False
    try:
        with unit_of_work.writing():
            two_factor_store.stage_step(int(account.id), step)
    except ConditionFailed:
        return False
    return True


def passcode_valid(account: Account, passcode: str) -> bool:
    """Whether ``passcode`` is a current code (nothing used up): Forgejo's check of the
    ``X-Forgejo-OTP`` header on a Basic password sign-in to the API."""
    totp = two_factor_store.get(int(account.id))
    secret = _secret_of(totp) if totp is not None else None
    return bool(secret) and matching_step(secret, passcode) is not None


def use_recovery_code(account: Account, code: str) -> bool:
    """Whether ``code`` is one of the account's unused recovery codes; if so it is used
    up now (a conditional delete: once, under any race)."""
    if not "".join(c for c in (code or "") if c.isalnum()):
        return False
    digest = _digest(int(account.id), code, _recovery_key())
    try:
        with unit_of_work.writing():
            two_factor_store.stage_use_code(int(account.id), digest)
    except ConditionFailed:
        return False
    return True


def _remove(actor: Account | None, user: Account, *, keys_too: bool = False) -> None:
    """TOTP and its codes gone; with ``keys_too`` the security keys as well."""
    totp, codes, found = two_factor_store.second_factors(int(user.id))
    found = found if keys_too else []
    totp_on = totp is not None or has_totp(user)
    if not totp_on and not found:
        raise InvalidInput("two-factor authentication is not enabled")
    changed = ("two_factor",) * totp_on + ("security_keys",) * bool(found)
    try:
        with unit_of_work.writing() as uow:
            if totp_on:
                two_factor_store.stage_remove(int(user.id), totp, codes)
            # One update of the account: the TOTP flag's moves its version already.
            security_key_store.stage_remove(int(user.id), found, version=not totp_on)
            uow.raise_event(_changed_event(actor, int(user.id), changed))
    except ConditionFailed:
        raise ConflictError("two-factor authentication changed meanwhile: try again") from None
    user.two_factor = False
    user.security_keys = max(0, int(user.security_keys or 0) - len(found))


def disable(actor: Account | None, *, passcode: str = "", password: str = "",
            address: str = "") -> None:
    """Turn the user's own second factor off, proved by a current code or the password
    (each attempt counted as a sign-in from ``address`` is: ``login_throttle``;
    ``HeldBack`` while the address is held back)."""
    user = _own(actor)
    if not passcode and not password:
        raise InvalidInput("[Passcode]: a current code or your password is required")
    wait = login_throttle.retry_after(user.login, address)
    if wait:
        raise HeldBack(wait)
    if passcode:
        proved = accept_passcode(user, passcode)
    else:
        found = check_password_login(user.login, password)
        proved = found is not None and found.id == user.id
    if not proved:
        login_throttle.record_failure(user.login, address)
        raise InvalidInput(WRONG_CODE if passcode
                           else "[Password]: the password is not correct")
    _remove(user, user)


def reset(actor: Account | None, username: str) -> Account:
    """A site admin (or the operator: ``actor`` None, through the CLI) removes a user's
    second factors, TOTP with its codes and the security keys, for a user who lost
    their authenticator and their codes (Forgejo's reset removes both)."""
    if actor is not None and not actor.is_admin:
        raise PermissionDenied("user should be the site admin")
    user = get_user(username)       # a user: an organization's name is NotFoundError
    _remove(actor, user, keys_too=True)
    return user
