"""Users' GPG public keys: ``GET/POST /user/gpg_keys``, ``GET/DELETE /user/gpg_keys/{id}``,
``GET /users/{u}/gpg_keys``, and the look-ups commit verification needs.

The items (a key, and one link per primary and subkey id so a signature's issuer id
finds its key with one read) are ``chalicelib.signing.gpg_key_store``'s.  PGPy is imported
inside the functions that parse keys, never at module import.
"""
from __future__ import annotations

import base64
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from chalicelib import events
from chalicelib.accounts import actor_of_event, get_user
from chalicelib.errors import ConditionFailed, InvalidInput, NotFoundError, PermissionDenied
from chalicelib.signing import gpg_key_store as store
from chalicelib.signing.gpg_key_store import GPGKeyItem
from chalicelib.signing.options import CreateGPGKeyOption
from chalicelib.store import ids, unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import Account


@dataclass(frozen=True)
class ParsedGPGKey:
    key_id: str
    public_key: str
    emails: tuple[str, ...]
    flags: dict
    subkeys: tuple[dict, ...]
    created: int
    expires: int


def _flags(key) -> dict:
    from pgpy.constants import KeyFlags

    try:
        found = key._get_key_flags()  # noqa: SLF001 - PGPy exposes flags only this way
    except Exception:  # noqa: BLE001 - keys without self-signatures
        found = set()
    can = key.key_algorithm.can_sign if hasattr(key.key_algorithm, "can_sign") else True
    return {"can_sign": KeyFlags.Sign in found and can,
            "can_encrypt_comms": KeyFlags.EncryptCommunications in found,
            "can_encrypt_storage": KeyFlags.EncryptStorage in found,
            "can_certify": KeyFlags.Certify in found}


def _seconds(moment) -> int:
    return int(moment.timestamp()) if moment is not None else 0


def parse_armored(text: str) -> ParsedGPGKey:
    """Parse one armored public key; 422 (InvalidInput) when it is not one."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgpy

        try:
            key, _ = pgpy.PGPKey.from_blob(text.strip())
        except Exception as exc:  # noqa: BLE001 - PGPy raises many kinds on bad input
            raise InvalidInput(f"failed to parse gpg key: {exc}") from None
        if not key.is_public:
            raise InvalidInput("failed to parse gpg key: a private key was given; "
                               "send the public key")
        subkeys = tuple({"key_id": kid.upper(), **_flags(sub), "created": _seconds(sub.created),
                         "expires": _seconds(sub.expires_at),
                         "public_key": base64.b64encode(bytes(sub)).decode()}
                        for kid, sub in key.subkeys.items())
        return ParsedGPGKey(key_id=key.fingerprint.keyid.upper(),
                            public_key=base64.b64encode(bytes(key)).decode(),
                            emails=tuple(dict.fromkeys(u.email.lower() for u in key.userids
                                                       if u.email)),
                            flags=_flags(key), subkeys=subkeys, created=_seconds(key.created),
                            expires=_seconds(key.expires_at))


def user_emails(user: Account) -> set[str]:
    """The owner's activated e-mails (one primary address here)."""
    return {user.email.lower()} if user.email else set()


def add_key(actor: Account | None, option: CreateGPGKeyOption) -> GPGKeyItem:
    """userCurrentPostGPGKey: the key must name one of the owner's e-mails."""
    if actor is None:
        raise PermissionDenied("token is required")
    armored = option.armored_public_key
    if not armored or not armored.strip():
        raise InvalidInput("[ArmoredKey]: Required")
    parsed = parse_armored(armored)
    matched = [e for e in parsed.emails if e in user_emails(actor)]
    if not matched:
        raise NotFoundError("none of the emails attached to the GPG key could be found")
    item = store.new_key(user_id=int(actor.id), item_id=ids.next_id("gpg_key"),
                         key_id=parsed.key_id, content=armored.strip(),
                         public_key=parsed.public_key, emails=matched,
                         subkeys=list(parsed.subkeys), flags=parsed.flags,
                         created=parsed.created, expires=parsed.expires)
    try:
        with unit_of_work.writing() as uow:
            store.stage_add(item)
            uow.raise_event(events.GpgKeyAdded(**actor_of_event(actor), user_id=int(actor.id),
                                               key_id=int(item.id)))
    except ConditionFailed as exc:
        if exc.label == store.KEY_ID_TAKEN:
            raise InvalidInput("A key with the same id already exists") from None
        raise
    return item


def list_keys(user: Account) -> list[GPGKeyItem]:
    return store.list_for_user(user.id)


def list_for(actor: Account | None, username: str) -> tuple[list[GPGKeyItem], Account]:
    user = get_user(username, actor)
    return list_keys(user), user


def preload_keys(user_id: int | None, key_id: str) -> list[tuple[str, str]]:
    """The table key of the caller's GPG key ``key_id`` (for the request's second read)."""
    if user_id is None or not key_id.isdigit():
        return []
    return [store.item_key(user_id, int(key_id))]


def get_key(user: Account, key_id: int) -> GPGKeyItem:
    found = store.get(user.id, key_id)
    if found is None:
        raise NotFoundError(f"public key does not exist [id: {key_id}]")
    return found


def delete_key(actor: Account, key_id: int) -> None:
    item = get_key(actor, key_id)
    with unit_of_work.writing() as uow:
        store.stage_delete(item)
        uow.raise_event(events.GpgKeyDeleted(**actor_of_event(actor), user_id=int(actor.id),
                                             key_id=int(item.id)))


def has_keys(user: Account) -> bool:
    return store.has_keys(user.id)


def keys_by_ids(key_ids: Iterable[str]) -> dict[str, GPGKeyItem]:
    """Key items for signature issuer ids: two batched reads for any number of ids."""
    return store.keys_by_ids(key_ids)
