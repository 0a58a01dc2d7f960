"""Users' GPG public keys.

Items:
- ``A#<user>`` / ``GPGKEY#<id>``: the key (primary key id, subkeys, e-mails, flags, armor);
- ``GPGKEYID#<KEYID>`` / ``GPGKEY``: one per primary key and subkey id, naming the key
  item, so a signature's issuer id finds its key with one read (batched per request);
  written must-not-exist, so a key id belongs to one uploaded key.

Writes are staged in the current unit of work.
"""
from __future__ import annotations

import json
from typing import Iterable

from chalicelib.signing.models import GPGKeyIdLink, GPGKeyItem, id_link_key
from chalicelib.store import unit_of_work
from chalicelib.store.keys import keys
from chalicelib.store.table import Item

KEY_PREFIX = "GPGKEY#"
# Label of the staged key-id links that fail when a (sub)key id is already uploaded.
KEY_ID_TAKEN = "gpg key id"


def item_key(user_id: int, key_id: int) -> tuple[str, str]:
    return keys.account_partition(user_id), f"{KEY_PREFIX}{key_id:015d}"


def new_key(*, user_id: int, item_id: int, key_id: str, content: str, public_key: str,
            emails: list[str], subkeys: list[dict], flags: dict, created: int,
            expires: int) -> GPGKeyItem:
    return GPGKeyItem(*item_key(user_id, item_id), id=item_id, user_id=user_id, key_id=key_id,
                      content=content, public_key=public_key, emails=json.dumps(emails),
                      subkeys=json.dumps(subkeys), created=created, expires=expires,
                      verified=False, **flags)


def key_ids(item: GPGKeyItem) -> list[str]:
    """The primary key id and every subkey id of a stored key."""
    return item.key_ids()


def get(user_id: int, key_id: int) -> GPGKeyItem | None:
    return unit_of_work.get(GPGKeyItem, item_key(user_id, key_id))


def list_for_user(user_id: int) -> list[GPGKeyItem]:
    return list(Item.query(keys.account_partition(user_id), Item.sk.startswith(KEY_PREFIX)))


def has_keys(user_id: int) -> bool:
    return next(iter(Item.query(keys.account_partition(user_id), Item.sk.startswith(KEY_PREFIX),
                                limit=1)), None) is not None


def stage_add(item: GPGKeyItem) -> None:
    """The key and one link per (sub)key id (``KEY_ID_TAKEN`` when one is taken)."""
    uow = unit_of_work.current()
    for kid in key_ids(item):
        uow.put(GPGKeyIdLink(*id_link_key(kid), owner_id=item.user_id, key_sk=item.sk),
                label=KEY_ID_TAKEN, must_not_exist=True)
    uow.put(item, label="gpg key", must_not_exist=True)


def stage_delete(item: GPGKeyItem) -> None:
    uow = unit_of_work.current()
    uow.delete(item, label="gpg key")
    for kid in key_ids(item):
        uow.delete(GPGKeyIdLink(*id_link_key(kid)), label=KEY_ID_TAKEN)


def keys_by_ids(wanted_ids: Iterable[str]) -> dict[str, GPGKeyItem]:
    """Key items for signature issuer ids: two batched reads for any number of ids."""
    wanted = {k.upper() for k in wanted_ids if k}
    if not wanted:
        return {}
    unit_of_work.prefetch(id_link_key(k) for k in wanted)
    links = {k: unit_of_work.get(GPGKeyIdLink, id_link_key(k)) for k in wanted}
    item_keys = {kid: (keys.account_partition(int(link.owner_id)), link.key_sk)
                 for kid, link in links.items() if link is not None}
    unit_of_work.prefetch(item_keys.values())
    found = {}
    for kid, key in item_keys.items():
        item = unit_of_work.get(GPGKeyItem, key)
        if item is not None:
            found[kid] = item
    return found


# Verification by signed token (``gpg_verification``) --------------------------------

def link_keys(key_id: str) -> list[tuple[str, str]]:
    """The id link of a (sub)key id: what a request reads first to find the key."""
    return [id_link_key(key_id)]


def owned_key_keys(user_id: int, key_id: str) -> list[tuple[str, str]]:
    """The key item the (already read) id link names, when ``user_id`` owns it."""
    link = unit_of_work.get(GPGKeyIdLink, id_link_key(key_id))
    if link is None or int(link.owner_id) != int(user_id):
        return []
    return [(keys.account_partition(int(user_id)), link.key_sk)]


def owned_key(user_id: int, key_id: str) -> GPGKeyItem | None:
    """The key of ``user_id`` holding the primary or subkey id ``key_id`` (None when no
    key holds it or another user's does): the link, then the key, each served from the
    request's reads when the route preloaded them."""
    found = owned_key_keys(user_id, key_id)
    return unit_of_work.get(GPGKeyItem, found[0]) if found else None


def stage_verified(item: GPGKeyItem, subkeys: str | None = None) -> None:
    """Mark the key verified, or (``subkeys``: its subkey list with one subkey's flag
    set) only that subkey.  Conditional: the key must still be there as read, so a key
    deleted meanwhile is not brought back as a fragment and a subkey list changed
    meanwhile is not overwritten."""
    still_there = GPGKeyItem.pk.exists() & (GPGKeyItem.key_id == item.key_id)
    if subkeys is None:
        unit_of_work.current().update(item, [GPGKeyItem.verified.set(True)],
                                      label="gpg key", condition=still_there)
        return
    unit_of_work.current().update(item, [GPGKeyItem.subkeys.set(subkeys)], label="gpg key",
                                  condition=still_there & (GPGKeyItem.subkeys == item.subkeys))
