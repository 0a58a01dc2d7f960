"""SSH public keys of users.

``A#<user>/KEY#<id>`` lists a user's keys in id order; ``KEYFP#<fingerprint>`` makes a
key usable by one account only (git over SSH must map a key to exactly one user).
"""
from __future__ import annotations

from pynamodb.exceptions import DoesNotExist, TransactWriteError
from pynamodb.transactions import TransactWrite

from chalicelib.services.errors import AlreadyExists
from chalicelib.store.accounts import partition
from chalicelib.store.table import Claim, PublicKey, connection, keys


def create(key: PublicKey) -> None:
    try:
        with TransactWrite(connection=connection()) as tx:
            tx.save(Claim(*keys.key_fingerprint(key.fingerprint), owner_id=key.user_id),
                    condition=Claim.pk.does_not_exist())
            tx.save(key, condition=PublicKey.pk.does_not_exist())
    except TransactWriteError as exc:
        first = (exc.cancellation_reasons or [None])[0]
        if first is not None and first.code == "ConditionalCheckFailed":
            raise AlreadyExists("key") from None
        raise


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
