"""SSH public keys of users.

``A#<user>/KEY#<id>`` lists a user's keys in id order; ``KEYFP#<fingerprint>`` makes a
key usable by one account only (git over SSH must map a key to exactly one user).
"""
from __future__ import annotations

from pynamodb.exceptions import DoesNotExist
from pynamodb.transactions import TransactWrite

from chalicelib.store.accounts import partition
from chalicelib.store.table import Claim, PublicKey, connection, keys
from chalicelib.store.transact import put_new


def create(key: PublicKey) -> None:
    """Raises AlreadyExists when any account already has this key."""
    claim = Claim(*keys.key_fingerprint(key.fingerprint), owner_id=key.user_id)
    put_new(("key", claim), ("record", key))


def get(user_id: int, key_id: int) -> PublicKey | None:
    try:
        return PublicKey.get(*keys.public_key(user_id, key_id))
    except DoesNotExist:
        return None


def list_for_user(user_id: int) -> list[PublicKey]:
    return list(partition(user_id, keys.KEY_PREFIX))


def delete(key: PublicKey) -> None:
    with TransactWrite(connection=connection()) as tx:
        tx.delete(key)
        tx.delete(Claim(*keys.key_fingerprint(key.fingerprint)))
