"""Security keys as a second factor (WebAuthn, Forgejo's "Security keys" on
``/user/settings/security`` and its ``/user/webauthn`` sign-in step): registering a key,
listing and deleting keys, and signing in with one.  The ceremonies' checks are
py_webauthn's (``webauthn``: the attestation of a new key, the signature of an
assertion, the origin, the relying party's id and the user's presence); ``webauthn`` is
imported on these paths only, never on a token's or a page's.

The relying party is the instance: its id is ROOT_URL's host, the origin ROOT_URL's
scheme, host and port (a browser refuses a key's ceremony for any other site).

Each ceremony starts with a challenge made here: 32 random bytes, kept in the table for
this user and this purpose (and, registering, the key's name) for five minutes
(``security_key_store``).  Its answer names the challenge (in the signed client data);
the challenge is deleted on condition that it is still there for that user and purpose
before anything else is checked, so an answer is taken once and a replayed one finds
nothing.  A sign-in then moves the key's signature count forward by a conditional
write: a count that does not grow (a cloned authenticator, or a second sign-in racing
with the same count) is refused, as py_webauthn refuses one below the stored count.

A user with a key signs in with it at the second step; Basic authentication with the
password is refused on the API and git (``sign_in``); the signing rule ``twofa`` counts
a key as Forgejo does (``two_factor.has_two_factor``); the admin's reset removes the keys
with the rest (``two_factor.reset``).
"""
from __future__ import annotations

import base64
import binascii
import json
import re
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from chalicelib import clock, events
from chalicelib.accounts import security_key_store
from chalicelib.accounts.service import actor_of_event
from chalicelib.errors import (
    AlreadyExists,
    ConditionFailed,
    ConflictError,
    InvalidInput,
    NotFoundError,
    PermissionDenied,
)
from chalicelib.settings import get_settings
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts.models import Account, SecurityKey

MAX_KEYS = 20                 # per user; a reset removes them in one transaction
MAX_NAME = 255                # Forgejo's column
MAX_CREDENTIAL = 64 * 1024    # a registration with its certificate chain stays well below
CHALLENGE_SECONDS = 5 * 60
CEREMONY_MILLISECONDS = 120_000
REGISTER, SIGN_IN = "register", "sign-in"
EXPIRED = "the security key's request has expired or was answered already: start again"
NOT_VERIFIED = "the security key's answer could not be verified"
NAME_TAKEN = "[Name]: a security key of that name exists already"
_CHALLENGE = re.compile(r"[A-Za-z0-9_-]{16,128}")


@dataclass(frozen=True)
class Ceremony:
    """What the browser needs for ``navigator.credentials.create()`` or ``.get()``:
    the options as JSON (py_webauthn's ``options_to_json``), and registering, the name
    the key will take."""
    options: str
    name: str = ""


@dataclass(frozen=True)
class KeyView:
    """A key as its settings page lists it."""
    id: str                   # the digest of its lower-case name: addresses and forms
    name: str
    created: int
    last_used: int

    @property
    def added_on(self) -> str:
        return _day(self.created)

    @property
    def used_on(self) -> str:
        return _day(self.last_used) if self.last_used else ""


def _day(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d")


def _webauthn():
    import webauthn

    return webauthn


def has_security_keys(account: Account | None) -> bool:
    """Whether the account signs in with a security key (its count: no read)."""
    return bool(account is not None and int(getattr(account, "security_keys", 0) or 0) > 0)


def relying_party() -> tuple[str, str]:
    """(the relying party's id, the expected origin), from ROOT_URL."""
    parts = urlsplit(get_settings().app_url)
    return parts.hostname or "localhost", f"{parts.scheme}://{parts.netloc}"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def from_b64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def view(key: SecurityKey) -> KeyView:
    return KeyView(key.sk.rsplit("#", 1)[1], key.name, int(key.created),
                   int(key.last_used or 0))


def _own(actor: Account | None) -> Account:
    if actor is None or actor.account_type != "user":
        raise PermissionDenied("only signed in user is allowed")
    return actor


def valid_name(name: str) -> str:
    """A key's name as stored: trimmed, given, at most ``MAX_NAME`` characters, no
    control characters."""
    name = (name or "").strip()
    if not name:
        raise InvalidInput("[Name]: a name for the security key is required")
    if len(name) > MAX_NAME:
        raise InvalidInput(f"[Name]: the name is longer than {MAX_NAME} characters")
    if any(unicodedata.category(c) in ("Cc", "Cf") for c in name):
        raise InvalidInput("[Name]: the name holds control characters")
    return name


def _changed_event(actor: Account | None, user_id: int) -> events.UserEdited:
    return events.UserEdited(**actor_of_event(actor), user_id=user_id,
                             changed=("security_keys",))


def _new_challenge(user_id: int, purpose: str, name: str = "") -> bytes:
    challenge = secrets.token_bytes(32)
    with unit_of_work.writing():
        security_key_store.stage_challenge(user_id, b64url(challenge), purpose,
                                           clock.seconds() + CHALLENGE_SECONDS, name)
    return challenge


def _descriptors(found: list[SecurityKey]) -> list:
    from webauthn.helpers.structs import PublicKeyCredentialDescriptor

    return [PublicKeyCredentialDescriptor(id=from_b64url(key.credential_id)) for key in found]


def start_registration(actor: Account | None, name: str) -> Ceremony:
    """The options for registering a key called ``name`` (its challenge stored)."""
    from webauthn.helpers.structs import (
        AttestationConveyancePreference,
        AuthenticatorSelectionCriteria,
        ResidentKeyRequirement,
        UserVerificationRequirement,
    )

    user = _own(actor)
    name = valid_name(name)
    found = security_key_store.list_keys(int(user.id))
    if any(key.name.lower() == name.lower() for key in found):
        raise AlreadyExists(NAME_TAKEN)
    if len(found) >= MAX_KEYS:
        raise InvalidInput(f"[Name]: an account has at most {MAX_KEYS} security keys")
    rp_id, _ = relying_party()
    webauthn = _webauthn()
    options = webauthn.generate_registration_options(
        rp_id=rp_id, rp_name=get_settings().server.APP_NAME or "Nimbus",
        user_id=int(user.id).to_bytes(8, "big"), user_name=user.login,
        user_display_name=user.full_name or user.login,
        challenge=_new_challenge(int(user.id), REGISTER, name),
        timeout=CEREMONY_MILLISECONDS, attestation=AttestationConveyancePreference.NONE,
        # A second factor: the key's presence, no PIN, nothing stored on the key.
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.DISCOURAGED,
            user_verification=UserVerificationRequirement.DISCOURAGED),
        exclude_credentials=_descriptors(found))
    return Ceremony(webauthn.options_to_json(options), name)


def _answer(credential: str) -> tuple[dict, str] | None:
    """The browser's answer as JSON and the challenge its client data names (unverified:
    the challenge's item decides), or None when it is not one."""
    if not credential or len(credential) > MAX_CREDENTIAL:
        return None
    try:
        parsed = json.loads(credential)
        client_data = json.loads(from_b64url(parsed["response"]["clientDataJSON"]))
        challenge = client_data["challenge"]
    except (ValueError, KeyError, TypeError, binascii.Error):
        return None
    if not isinstance(parsed, dict) or not isinstance(challenge, str) \
            or not _CHALLENGE.fullmatch(challenge):
        return None
    return parsed, challenge


def _spend(user_id: int, challenge: str, purpose: str, name: str | None = None) -> bool:
    try:
        with unit_of_work.writing():
            security_key_store.stage_spend_challenge(user_id, challenge, purpose,
                                                     clock.seconds(), name)
    except ConditionFailed:
        return False
    return True


def finish_registration(actor: Account | None, name: str, credential: str) -> KeyView:
    """Add the key ``credential`` (the browser's answer to ``start_registration``'s
    options, as JSON) under ``name``, once py_webauthn verified its attestation."""
    from webauthn.helpers.exceptions import WebAuthnException

    user = _own(actor)
    name = valid_name(name)
    answer = _answer(credential)
    if answer is None or not _spend(int(user.id), answer[1], REGISTER, name):
        raise InvalidInput(EXPIRED)
    rp_id, origin = relying_party()
    try:
        verified = _webauthn().verify_registration_response(
            credential=answer[0], expected_challenge=from_b64url(answer[1]),
            expected_rp_id=rp_id, expected_origin=origin)
    except (WebAuthnException, ValueError, TypeError, KeyError) as exc:
        raise InvalidInput(NOT_VERIFIED) from exc
    key = security_key_store.new_key(
        int(user.id), name=name, credential_id=b64url(verified.credential_id),
        public_key=b64url(verified.credential_public_key), sign_count=verified.sign_count,
        aaguid=str(verified.aaguid or ""), created=clock.seconds())
    try:
        with unit_of_work.writing() as uow:
            security_key_store.stage_add(int(user.id), key)
            uow.raise_event(_changed_event(user, int(user.id)))
    except ConditionFailed as exc:
        if exc.label == security_key_store.NAME_TAKEN:
            raise AlreadyExists(NAME_TAKEN) from None
        if exc.label == security_key_store.CREDENTIAL_TAKEN:
            raise AlreadyExists("this security key is registered already") from None
        raise ConflictError("the account changed meanwhile: try again") from None
    user.security_keys = int(user.security_keys or 0) + 1
    return view(key)


def delete_key(actor: Account | None, key_id: str) -> None:
    """Remove one of the user's own keys (Forgejo's ``webauthn/delete``)."""
    user = _own(actor)
    key = security_key_store.by_id(int(user.id), key_id) \
        if re.fullmatch(r"[0-9a-f]{32}", key_id or "") else None
    if key is None:
        raise NotFoundError("security key does not exist")
    try:
        with unit_of_work.writing() as uow:
            security_key_store.stage_remove(int(user.id), [key])
            uow.raise_event(_changed_event(user, int(user.id)))
    except ConditionFailed:
        raise NotFoundError("security key does not exist") from None
    user.security_keys = max(0, int(user.security_keys or 0) - 1)


def start_sign_in(account: Account) -> Ceremony:
    """The options for a sign-in's second step with one of the account's keys."""
    from webauthn.helpers.structs import UserVerificationRequirement

    found = security_key_store.list_keys(int(account.id))
    if not found:
        raise InvalidInput("no security key is registered")
    rp_id, _ = relying_party()
    webauthn = _webauthn()
    options = webauthn.generate_authentication_options(
        rp_id=rp_id, challenge=_new_challenge(int(account.id), SIGN_IN),
        timeout=CEREMONY_MILLISECONDS, allow_credentials=_descriptors(found),
        user_verification=UserVerificationRequirement.DISCOURAGED)
    return Ceremony(webauthn.options_to_json(options))


def accept_assertion(account: Account, credential: str) -> bool:
    """Whether ``credential`` (the browser's answer to ``start_sign_in``'s options, as
    JSON) is a signature of one of the account's keys over a challenge made for this
    account's sign-in; the challenge is used up either way, the key's count moved when
    it is."""
    from webauthn.helpers.exceptions import WebAuthnException

    answer = _answer(credential)
    if answer is None or not _spend(int(account.id), answer[1], SIGN_IN):
        return False
    parsed, challenge = answer
    try:
        claimed = b64url(from_b64url(str(parsed.get("rawId") or "")))
    except (ValueError, binascii.Error):
        return False
    key = next((k for k in security_key_store.list_keys(int(account.id))
                if k.credential_id == claimed), None)
    if key is None:
        return False
    rp_id, origin = relying_party()
    try:
        verified = _webauthn().verify_authentication_response(
            credential=parsed, expected_challenge=from_b64url(challenge),
            expected_rp_id=rp_id, expected_origin=origin,
            credential_public_key=from_b64url(key.public_key),
            credential_current_sign_count=int(key.sign_count or 0))
    except (WebAuthnException, ValueError, TypeError, KeyError):
        return False        # a bad signature, another site, or a count that went back
    try:
        with unit_of_work.writing():
            security_key_store.stage_sign_count(key, int(verified.new_sign_count),
                                                clock.seconds())
    except ConditionFailed:
        return False        # another sign-in moved the count meanwhile: a clone's race
    return True
