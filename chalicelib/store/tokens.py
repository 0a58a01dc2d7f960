"""Access tokens.

Two items per token, written together: ``TOKEN#<sha256>`` for authentication (one
GetItem per request) and ``A#<user>/TOKEN#<name>`` in the owner's partition, which
lists the user's tokens and keeps their names unique.
"""
from __future__ import annotations

from pynamodb.exceptions import DoesNotExist
from pynamodb.transactions import TransactWrite

from chalicelib.store import session
from chalicelib.store.accounts import partition
from chalicelib.store.table import Token, TokenRef, connection, keys
from chalicelib.store.transact import put_new


def get_by_hash(token_hash: str) -> Token | None:
    return session.get(Token, keys.token(token_hash))


def create(token: Token, ref: TokenRef) -> None:
    """Raises AlreadyExists when the user has a token of that name."""
    put_new(("token name", ref), ("token", token))


def get_ref(user_id: int, name: str) -> TokenRef | None:
    try:
        return TokenRef.get(*keys.token_ref(user_id, name))
    except DoesNotExist:
        return None


def list_for_user(user_id: int) -> list[TokenRef]:
    return list(partition(user_id, keys.TOKEN_PREFIX))


def delete(user_id: int, ref: TokenRef) -> None:
    session.forget(keys.token(ref.token_hash))
    with TransactWrite(connection=connection()) as tx:
        tx.delete(ref)
        tx.delete(Token(*keys.token(ref.token_hash)))
