"""Users' GPG public keys: ``GET/POST /user/gpg_keys``, ``GET/DELETE /user/gpg_keys/{id}``,
``GET /users/{u}/gpg_keys``, and the look-ups commit verification needs.

Items (single table, this module's own models):
- ``A#<user>`` / ``GPGKEY#<id>``: the key (primary key id, subkeys, e-mails, flags, armor);
- ``GPGKEYID#<KEYID>`` / ``GPGKEY``: one per primary key and subkey id, naming the key
  item, so a signature's issuer id finds its key with one read (batched per request).

PGPy is imported inside the functions that parse keys, never at module import.
"""
from __future__ import annotations

import base64
import json
import warnings
from dataclasses import dataclass

from pynamodb.attributes import BooleanAttribute, NumberAttribute, UnicodeAttribute
from pynamodb.transactions import TransactWrite

from chalicelib.services.accounts import get_user
from chalicelib.services.errors import AlreadyExists, InvalidInput, NotFoundError, PermissionDenied
from chalicelib.store import ids, session
from chalicelib.store.accounts import partition
from chalicelib.store.table import Account, Item, connection, keys
from chalicelib.store.transact import put_new

KEY_PREFIX = "GPGKEY#"


class GPGKeyItem(Item, discriminator="gpgkey"):
    id = NumberAttribute()
    user_id = NumberAttribute()
    key_id = UnicodeAttribute()                 # 16 upper-case hex characters
    content = UnicodeAttribute()                # the armored public key as uploaded
    public_key = UnicodeAttribute(default="")   # base64 of the binary public key
    emails = UnicodeAttribute(default="[]")     # JSON [email] matched to the owner
    can_sign = BooleanAttribute(default=False)
    can_encrypt_comms = BooleanAttribute(default=False)
    can_encrypt_storage = BooleanAttribute(default=False)
    can_certify = BooleanAttribute(default=False)
    verified = BooleanAttribute(default=False)
    subkeys = UnicodeAttribute(default="[]")    # JSON [{key_id, flags..., created, expires}]
    created = NumberAttribute()
    expires = NumberAttribute(default=0)


class GPGKeyIdLink(Item, discriminator="gpgkeyid"):
    """``GPGKEYID#<KEYID>``: which user's key item holds this (sub)key id."""
    owner_id = NumberAttribute()
    key_sk = UnicodeAttribute()


def item_key(user_id: int, key_id: int) -> tuple[str, str]:
    return keys.account(user_id)[0], f"{KEY_PREFIX}{key_id:015d}"


def id_link_key(key_id: str) -> tuple[str, str]:
    return f"GPGKEYID#{key_id.upper()}", "GPGKEY"


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


def add_key(actor: Account | None, data: dict) -> GPGKeyItem:
    if actor is None:
        raise PermissionDenied("token is required")
    armored = data.get("armored_public_key")
    if not isinstance(armored, str) or not armored.strip():
        raise InvalidInput("[ArmoredKey]: Required")
    parsed = parse_armored(armored)
    matched = [e for e in parsed.emails if e in user_emails(actor)]
    if not matched:
        raise NotFoundError("none of the emails attached to the GPG key could be found")
    key_id = ids.next_id("gpg_key")
    item = GPGKeyItem(*item_key(actor.id, key_id), id=key_id, user_id=actor.id,
                      key_id=parsed.key_id, content=armored.strip(),
                      public_key=parsed.public_key, emails=json.dumps(matched),
                      subkeys=json.dumps(list(parsed.subkeys)), created=parsed.created,
                      expires=parsed.expires, verified=False, **parsed.flags)
    links = [("key", GPGKeyIdLink(*id_link_key(k), owner_id=actor.id, key_sk=item.sk))
             for k in [parsed.key_id, *(s["key_id"] for s in parsed.subkeys)]]
    try:
        put_new(*links, ("record", item))
    except AlreadyExists:
        raise InvalidInput("A key with the same id already exists") from None
    return item


def list_keys(user: Account) -> list[GPGKeyItem]:
    return list(partition(user.id, KEY_PREFIX))


def list_for(actor: Account | None, username: str) -> tuple[list[GPGKeyItem], Account]:
    user = get_user(username, actor)
    return list_keys(user), user


def get_key(user: Account, key_id: int) -> GPGKeyItem:
    found = session.get(GPGKeyItem, item_key(user.id, key_id))
    if found is None:
        raise NotFoundError(f"public key does not exist [id: {key_id}]")
    return found


def delete_key(actor: Account, key_id: int) -> None:
    item = get_key(actor, key_id)
    with TransactWrite(connection=connection()) as tx:
        tx.delete(item)
        for kid in [item.key_id, *(s["key_id"] for s in json.loads(item.subkeys))]:
            tx.delete(GPGKeyIdLink(*id_link_key(kid)))


def has_keys(user: Account) -> bool:
    return next(iter(Item.query(keys.account(user.id)[0], Item.sk.startswith(KEY_PREFIX),
                                limit=1)), None) is not None


def keys_by_ids(key_ids) -> dict[str, GPGKeyItem]:
    """Key items for signature issuer ids: two batched reads for any number of ids."""
    wanted = {k.upper() for k in key_ids if k}
    if not wanted:
        return {}
    session.prefetch(id_link_key(k) for k in wanted)
    links = {k: session.get(GPGKeyIdLink, id_link_key(k)) for k in wanted}
    session.prefetch((keys.account(int(link.owner_id))[0], link.key_sk)
                     for link in links.values() if link)
    found = {}
    for kid, link in links.items():
        if link is None:
            continue
        item = session.get(GPGKeyItem, (keys.account(int(link.owner_id))[0], link.key_sk))
        if item is not None:
            found[kid] = item
    return found
