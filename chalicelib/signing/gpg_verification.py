"""Verifying a GPG key by a signed token: ``GET /user/gpg_key_token`` and
``POST /user/gpg_key_verify`` (Forgejo's ``models/asymkey/gpg_key_verify.go`` and the
API's ``user/gpg_key.go``), and the keys settings page's "Verify" form.

The token is the SHA-256 (hex) of ``<window>:<created>:<login>:<e-mail>:<id>``: the
start of a one-minute window and the account's creation time, both in RFC 1123 with a
numeric zone (UTC here), the login, the primary e-mail and the account id.  The token
handed out is the one of the window a minute ahead; a signature over it, or over the
token of the current window (Forgejo's "last token"), is accepted.  So a token read at
12:00:30 is good until 12:01:59 and refused from 12:02:00 on; what the refusal says
carries the token to sign now.

The signature is an armored detached OpenPGP signature over the token, as given or
followed by one or two newlines (``echo TOKEN | gpg -a --detach-sig`` adds one), made by
the key ``key_id`` names among the caller's own keys: the primary key or one of its
subkeys when the id is the primary's, that subkey alone when it is a subkey's.  A key
whose flags say it cannot sign verifies nothing (Forgejo's ``verifySign``).  Leading
zeros of the id are dropped, as Forgejo drops them, and put back to find the stored
16-digit id (Forgejo compares the stripped id, so there a key id that starts with a zero
can never be verified).

On success one conditional write marks the key verified (``verified: true`` on its
record), or only the subkey the id named, and the API answers the record of what was
verified, 200 as Forgejo answers (its description says 201).  A verified key vouches for
every address of its owner when a commit is checked (``verify``; Forgejo's
``checkKeyEmails``), not only for the addresses its user ids name.

Refusals, as Forgejo's: a blank id or signature is 422 (``[KeyID]: Required``,
``[Signature]: Required``); an id that is zeros only, names no key, or names another
user's key is 404 (where Forgejo answers a 500 for the last two); a signature that does
not parse, is not over a token in the window, or is by another key is 422 with
Forgejo's message and the current token.  The key and the signature are parsed by PGPy,
imported on use.
"""
from __future__ import annotations

import hashlib
import json
import warnings
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from chalicelib import clock
from chalicelib.errors import (
    ConditionFailed,
    InvalidInput,
    NotFoundError,
    PermissionDenied,
)
from chalicelib.signing import gpg_key_store as store
from chalicelib.signing.options import VerifyGPGKeyOption
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.signing.gpg_key_store import GPGKeyItem

WINDOW = 60                # seconds: one token per minute
HEX = frozenset("0123456789ABCDEF")
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
           "Dec")
INVALID_SIGNATURE = ("The provided GPG key, signature and token do not match or token is "
                     "out of date. Provide a valid signature for the token: {token}")


@dataclass(frozen=True)
class VerifiedKey:
    """What a verification marked: the key, and the subkey id when the id named one."""
    item: GPGKeyItem
    subkey_id: str | None = None


def rfc1123z(seconds: int) -> str:
    """Go's ``time.RFC1123Z`` in UTC (English names whatever the locale)."""
    moment = datetime.fromtimestamp(int(seconds), tz=UTC)
    return (f"{_DAYS[moment.weekday()]}, {moment.day:02d} {_MONTHS[moment.month - 1]} "
            f"{moment.year:04d} {moment:%H:%M:%S} +0000")


def verification_token(user: Account, minutes_ahead: int = 1) -> str:
    """The token of the minute window ``minutes_ahead`` from the current one."""
    window = clock.seconds() // WINDOW * WINDOW + minutes_ahead * WINDOW
    text = (f"{rfc1123z(window)}:{rfc1123z(int(user.created))}:{user.login}:"
            f"{user.email or ''}:{int(user.id)}")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def accepted_tokens(user: Account) -> tuple[str, str]:
    """The token handed out now, then the current window's (Forgejo's last token)."""
    return verification_token(user, 1), verification_token(user, 0)


def stored_key_id(raw: object) -> str | None:
    """A client's key id as stored (16 upper-case hex digits, zero-padded); None for
    one that is zeros only or cannot be a key id."""
    if not isinstance(raw, str):
        return None
    digits = raw.strip().upper().lstrip("0")
    if not digits or len(digits) > 16 or not set(digits) <= HEX:
        return None
    return digits.zfill(16)


def preload_keys(raw_key_id: object) -> list[tuple[str, str]]:
    """The id link of the key a verification names (read with the caller's token)."""
    kid = stored_key_id(raw_key_id)
    return store.link_keys(kid) if kid else []


def preload_more_keys(user_id: int | None, raw_key_id: object) -> list[tuple[str, str]]:
    """The caller's key the preloaded link names (read with the caller's account)."""
    kid = stored_key_id(raw_key_id)
    return store.owned_key_keys(user_id, kid) if kid and user_id is not None else []


def _required(value: object, label: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"[{label}]: Required")
    return value


def _candidates(key, item: GPGKeyItem, key_id: str) -> list:
    """The (pgpy key, may it sign) pairs a signature for ``key_id`` may come from;
    ``key``: the item's key, parsed (the caller holds it: a subkey refers to its
    primary key weakly)."""
    flags = {sub["key_id"]: bool(sub["can_sign"]) for sub in json.loads(item.subkeys)}
    subkeys = {kid.upper(): sub for kid, sub in key.subkeys.items()}
    if key_id != item.key_id:
        return [(subkeys[key_id], flags.get(key_id, False))] if key_id in subkeys else []
    return [(key, bool(item.can_sign)),
            *((sub, flags.get(kid, False)) for kid, sub in subkeys.items())]


def signed_by(item: GPGKeyItem, key_id: str, armored_signature: str,
              tokens: tuple[str, ...]) -> bool:
    """Whether the signature is one of ``key_id``'s (see the module's docstring) over
    one of ``tokens``, bare or followed by one or two newlines."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgpy

        try:
            signature = pgpy.PGPSignature.from_blob(armored_signature.strip())
            key, _ = pgpy.PGPKey.from_blob(item.content)
            candidates = _candidates(key, item, key_id)
        except Exception:  # noqa: BLE001 - PGPy raises many kinds on bad input
            return False
        issuer = (signature.signer or "").upper()
        for candidate, can_sign in candidates:
            if not can_sign or candidate.fingerprint.keyid.upper() != issuer:
                continue
            if any(_verifies(candidate, payload, signature) for token in tokens
                   for payload in (token, token + "\n", token + "\n\n")):
                return True
        return False


def _verifies(key, payload: str, signature) -> bool:
    try:
        return bool(key.verify(payload, signature))
    except Exception:  # noqa: BLE001 - a key that cannot verify: no match
        return False


def verify_key(actor: Account | None, option: VerifyGPGKeyOption) -> VerifiedKey:
    """userVerifyGPGKey: mark the caller's key ``key_id`` verified when the signature
    is its signature over the current token (refusals: the module's docstring)."""
    if actor is None:
        raise PermissionDenied("token is required")
    raw_id = _required(option.key_id, "KeyID")
    signature = _required(option.armored_signature, "Signature")
    kid = stored_key_id(raw_id)
    item = store.owned_key(int(actor.id), kid) if kid else None
    if item is None:
        raise NotFoundError(f"GPG key does not exist [key_id: {raw_id.strip()}]")
    tokens = accepted_tokens(actor)
    if not signed_by(item, kid, signature, tokens):
        raise InvalidInput(INVALID_SIGNATURE.format(token=tokens[0]))
    subkey_id = None if kid == item.key_id else kid
    subkeys = None if subkey_id is None else _with_verified(item.subkeys, subkey_id)
    try:
        with unit_of_work.writing():
            store.stage_verified(item, subkeys)
    except ConditionFailed:
        # Deleted (or its subkeys replaced) since it was read: nothing was written.
        raise NotFoundError(f"GPG key does not exist [key_id: {raw_id.strip()}]") from None
    if subkeys is None:
        item.verified = True
    else:
        item.subkeys = subkeys
    return VerifiedKey(item, subkey_id)


def _with_verified(subkeys: str, subkey_id: str) -> str:
    """The stored subkey list (JSON) with ``subkey_id``'s entry marked verified."""
    entries = json.loads(subkeys)
    for entry in entries:
        if entry["key_id"] == subkey_id:
            entry["verified"] = True
    return json.dumps(entries)
