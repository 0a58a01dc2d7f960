"""Access tokens.

Two items per token, written together: ``TOKEN#<sha256>`` for authentication (one
GetItem per request, batched with the route's own reads) and ``A#<user>/TOKEN#<name>``
in the owner's partition, which lists the user's tokens and keeps their names unique.
Writes are staged in the current unit of work (``chalicelib.store.unit_of_work``).
"""
from __future__ import annotations

from chalicelib.accounts.models import Token, TokenRef, keys
from chalicelib.store import unit_of_work
from chalicelib.store.table import Item

__all__ = ["Token", "TokenRef", "NAME_TAKEN", "new_token", "lookup_key", "get_by_hash",
           "get_ref", "list_for_user", "stage_create", "stage_delete", "stage_grant_token",
           "lookup_item"]

# Label of the staged put that fails when the user already has a token of that name.
NAME_TAKEN = "token name"


def new_token(*, user_id: int, token_id: int, name: str, token_hash: str, scopes: list[str],
              last_eight: str, created: int) -> tuple[Token, TokenRef]:
    """The lookup item and the user's copy of one token (not yet written)."""
    ref = TokenRef(*keys.token_ref(user_id, name), id=token_id, name=name,
                   token_hash=token_hash, scopes=scopes, last_eight=last_eight,
                   created=created)
    token = Token(*keys.token(token_hash), id=token_id, user_id=user_id, name=name,
                  scopes=scopes, last_eight=last_eight, created=created)
    return token, ref


def lookup_key(token_hash: str) -> tuple[str, str]:
    """The key authentication reads (for the request's batched preload)."""
    return keys.token(token_hash)


def get_by_hash(token_hash: str) -> Token | None:
    return unit_of_work.get(Token, keys.token(token_hash))


def get_ref(user_id: int, name: str) -> TokenRef | None:
    return unit_of_work.get(TokenRef, keys.token_ref(user_id, name))


def list_for_user(user_id: int) -> list[TokenRef]:
    return list(Item.query(keys.account(user_id)[0], Item.sk.startswith(keys.TOKEN_PREFIX)))


def stage_create(token: Token, ref: TokenRef) -> None:
    """Both items, on condition that the user has no token of that name (``NAME_TAKEN``)."""
    uow = unit_of_work.current()
    uow.put(ref, label=NAME_TAKEN, must_not_exist=True)
    uow.put(token, label="token", must_not_exist=True)


def stage_delete(ref: TokenRef) -> None:
    """The user's copy and the lookup item: the secret stops authenticating."""
    uow = unit_of_work.current()
    uow.delete(ref, label=NAME_TAKEN)
    uow.delete(Token(*keys.token(ref.token_hash)), label="token")


def stage_grant_token(*, user_id: int, token_hash: str, name: str, scopes: list[str],
                      created: int, expires: int, grant: str) -> None:
    """An OAuth2 access token: the lookup item only (no ``TokenRef``: it is the grant's,
    not one of the user's listed tokens), expiring at ``expires``."""
    token = Token(*keys.token(token_hash), id=0, user_id=user_id, name=name, scopes=scopes,
                  last_eight="", created=created, grant=grant, expires=expires)
    unit_of_work.current().put(token, label="token", must_not_exist=True)


def lookup_item(token_hash: str) -> Token:
    """The lookup item's key alone: what deleting a token (or a purge) needs."""
    return Token(*keys.token(token_hash))
