"""Personal access tokens: creation (secret shown once), listing, deletion, lookup."""
from __future__ import annotations

import hashlib
import secrets
from typing import TYPE_CHECKING, Iterable

from chalicelib import clock, events
from chalicelib.accounts import token_store as store
from chalicelib.accounts.options import CreateAccessTokenOption
from chalicelib.accounts.service import account_by_id, actor_of_event, get_user
from chalicelib.accounts.token_store import Token, TokenRef
from chalicelib.errors import (BadInput, ConditionFailed, InvalidInput, NotFoundError,
                               PermissionDenied)
from chalicelib.http import scopes
from chalicelib.store import ids, unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts.store import Account


def hash_token(secret: str) -> str:
    # Tokens carry 160 random bits, so a plain SHA-256 is as good as a salted slow hash
    # against guessing, and it lets authentication find the token in one GetItem.
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _owner_for(actor: Account | None, username: str) -> Account:
    """reqSelfOrAdmin."""
    user = get_user(username, actor)
    if actor is None or (actor.id != user.id and not actor.is_admin):
        raise PermissionDenied("user should be the user themself or a site admin")
    return user


def create_token(actor: Account | None, username: str,
                 option: CreateAccessTokenOption) -> tuple[TokenRef, str]:
    """Returns the stored token and its secret (the only time the secret is known)."""
    user = _owner_for(actor, username)
    name = (option.name or "").strip()
    if not name:
        raise InvalidInput("[Name]: Required")
    normalized = scopes.normalize(option.scopes or [])
    if not normalized:
        raise BadInput("access token must have a scope")
    secret = secrets.token_hex(20)
    token, ref = store.new_token(user_id=int(user.id), token_id=ids.next_id("token"), name=name,
                                 token_hash=hash_token(secret), scopes=normalized,
                                 last_eight=secret[-8:], created=clock.seconds())
    try:
        with unit_of_work.writing() as uow:
            store.stage_create(token, ref)
            uow.raise_event(events.TokenCreated(**actor_of_event(actor), user_id=int(user.id),
                                                token_id=int(ref.id)))
    except ConditionFailed as exc:
        if exc.label == store.NAME_TAKEN:
            raise BadInput("access token name has been used already") from None
        raise
    return ref, secret


def list_tokens(actor: Account | None, username: str) -> list[TokenRef]:
    user = _owner_for(actor, username)
    return sorted(store.list_for_user(user.id), key=lambda t: (-t.created, -t.id))


def delete_token(actor: Account | None, username: str, which: str) -> None:
    """``which`` is the token's numeric id, or else its name."""
    user = _owner_for(actor, username)
    if which.isdigit() and int(which) > 0:
        found = next((t for t in store.list_for_user(user.id) if t.id == int(which)), None)
    else:
        found = store.get_ref(user.id, which)  # names are unique per user: one read
    if found is None:
        raise NotFoundError(f"access token does not exist [id: {which}]")
    with unit_of_work.writing() as uow:
        store.stage_delete(found)
        uow.raise_event(events.TokenDeleted(**actor_of_event(actor), user_id=int(user.id),
                                            token_id=int(found.id)))


def looks_like(secret: str) -> bool:
    """Token secrets are 40 lowercase hex digits; anything else is not worth a read."""
    return len(secret) == 40 and all(c in "0123456789abcdef" for c in secret)


def preload_keys(candidates: Iterable[str]) -> list[tuple[str, str]]:
    """Table keys that authenticating with any of these secrets reads first."""
    return [store.lookup_key(hash_token(s)) for s in candidates if looks_like(s)]


def lookup(secret: str) -> Token | None:
    """The token a secret belongs to (one read, none after a preload), or None."""
    if not looks_like(secret):
        return None
    return store.get_by_hash(hash_token(secret))


def owner_id(candidates: Iterable[str]) -> int | None:
    """The owner of the first of these secrets that is a token (after a preload: no read)."""
    for secret in candidates:
        token = lookup(secret)
        if token is not None:
            return int(token.user_id)
    return None


def stage_grant_token(user_id: int, secret: str, *, name: str, scopes: list[str],
                      lifetime: int, grant: str) -> int:
    """Stage an OAuth2 access token for ``secret`` (the oauth2 domain's grant ``grant``);
    returns when it expires."""
    now = clock.seconds()
    store.stage_grant_token(user_id=user_id, token_hash=hash_token(secret), name=name,
                            scopes=scopes, created=now, expires=now + lifetime, grant=grant)
    return now + lifetime


def stage_drop_token(token_hash: str) -> None:
    """Stage the delete of the token with that hash (an OAuth2 token rotated or revoked)."""
    unit_of_work.current().delete(store.lookup_item(token_hash), label="token")


def token_item(token_hash: str):
    """The token lookup item's key, for a record that owns the token (a purge deletes it)."""
    return store.lookup_item(token_hash)


def token_expired(token: Token) -> bool:
    """An OAuth2 access token past its end (personal tokens have none)."""
    return bool(token.expires) and int(token.expires) <= clock.seconds()


def authenticate(secret: str) -> tuple[Token, Account] | None:
    """The token and its owner, or None when the secret opens nothing (an OAuth2 access
    token past its expiry opens nothing either, even before the TTL removes it)."""
    token = lookup(secret)
    if token is not None and token_expired(token):
        token = None
    owner = account_by_id(int(token.user_id)) if token is not None else None
    return (token, owner) if owner is not None else None
