"""SSH public keys of users.

``A#<user>/KEY#<id>`` lists a user's keys in id order; ``KEYFP#<fingerprint>`` makes a
key usable by one account only (git over SSH must map a key to exactly one user; a
repository's deploy keys take the same claim).  Writes are staged in the current unit
of work.
"""
from __future__ import annotations

from chalicelib.accounts.models import PublicKey, keys
from chalicelib.store import unit_of_work
from chalicelib.store.table import Claim, Item

__all__ = ["PublicKey", "FINGERPRINT_TAKEN", "new_key", "key_of", "get", "list_for_user",
           "stage_add", "stage_delete"]

# Label of the staged claim that fails when any account already uses the key.
FINGERPRINT_TAKEN = "key fingerprint"


def new_key(*, user_id: int, key_id: int, title: str, content: str, fingerprint: str,
            read_only: bool, created: int) -> PublicKey:
    return PublicKey(*keys.public_key(user_id, key_id), id=key_id, user_id=user_id,
                     title=title, content=content, fingerprint=fingerprint, key_type="user",
                     read_only=read_only, created=created, updated=created)


def key_of(user_id: int, key_id: int) -> tuple[str, str]:
    return keys.public_key(user_id, key_id)


def get(user_id: int, key_id: int) -> PublicKey | None:
    return unit_of_work.get(PublicKey, keys.public_key(user_id, key_id))


def list_for_user(user_id: int) -> list[PublicKey]:
    return list(Item.query(keys.account(user_id)[0], Item.sk.startswith(keys.KEY_PREFIX)))


def stage_add(key: PublicKey) -> None:
    """The key with its fingerprint claim (``FINGERPRINT_TAKEN`` when used elsewhere)."""
    uow = unit_of_work.current()
    uow.put(Claim(*keys.key_fingerprint(key.fingerprint), owner_id=key.user_id),
            label=FINGERPRINT_TAKEN, must_not_exist=True)
    uow.put(key, label="key", must_not_exist=True)


def stage_delete(key: PublicKey) -> None:
    uow = unit_of_work.current()
    uow.delete(key, label="key")
    uow.delete(Claim(*keys.key_fingerprint(key.fingerprint)), label=FINGERPRINT_TAKEN)
