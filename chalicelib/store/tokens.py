"""Access tokens.

Two items per token, written together: ``TOKEN#<sha256>`` for authentication (one
GetItem per request) and ``A#<user>/TOKEN#<name>`` in the owner's partition, which
lists the user's tokens and keeps their names unique.
"""
from __future__ import annotations

from pynamodb.exceptions import DoesNotExist, TransactWriteError
from pynamodb.transactions import TransactWrite

from chalicelib.services.errors import AlreadyExists
from chalicelib.store.accounts import partition
from chalicelib.store.table import Token, TokenRef, connection, keys


def get_by_hash(token_hash: str) -> Token | None:
    try:
        return Token.get(*keys.token(token_hash))
    except DoesNotExist:
        return None


def create(token: Token, ref: TokenRef) -> None:
    try:
        with TransactWrite(connection=connection()) as tx:
            tx.save(ref, condition=TokenRef.pk.does_not_exist())
            tx.save(token, condition=Token.pk.does_not_exist())
    except TransactWriteError as exc:
        first = (exc.cancellation_reasons or [None])[0]
        if first is not None and first.code == "ConditionalCheckFailed":
            raise AlreadyExists("token name") from None
        raise


def list_for_user(user_id: int) -> list[TokenRef]:
    return list(partition(user_id, keys.TOKEN_PREFIX))


def delete(user_id: int, ref: TokenRef) -> None:
    with TransactWrite(connection=connection()) as tx:
        tx.delete(ref)
        tx.delete(Token(*keys.token(ref.token_hash)))
