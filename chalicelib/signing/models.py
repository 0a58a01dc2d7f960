"""The signing domain's items in the table: its models (and key layouts).

Only this domain's modules import this module; other domains reach these items
through the domain's face (``chalicelib/signing/__init__.py``).
"""
from __future__ import annotations

import json

from pynamodb.attributes import BooleanAttribute, NumberAttribute, UnicodeAttribute

from chalicelib.store.table import Item


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

    def key_ids(self) -> list[str]:
        """The primary key id and every subkey id."""
        return [self.key_id, *(sub["key_id"] for sub in json.loads(self.subkeys))]

    def owned_elsewhere(self) -> list[Item]:
        return [GPGKeyIdLink(*id_link_key(kid)) for kid in self.key_ids()]


class GPGKeyIdLink(Item, discriminator="gpgkeyid"):
    """``GPGKEYID#<KEYID>``: which user's key item holds this (sub)key id."""
    owner_id = NumberAttribute()
    key_sk = UnicodeAttribute()


def id_link_key(key_id: str) -> tuple[str, str]:
    """The item naming the key that holds a (sub)key id: one per id on the instance."""
    return f"GPGKEYID#{key_id.upper()}", "GPGKEY"
