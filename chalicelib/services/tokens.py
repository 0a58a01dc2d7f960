"""Personal access tokens: creation (secret shown once), listing, deletion, lookup."""
from __future__ import annotations

import hashlib
import secrets
import time

from chalicelib.services import events, scopes
from chalicelib.services.accounts import get_user, optional
from chalicelib.services.errors import (AlreadyExists, BadInput, InvalidInput, NotFoundError,
                                        PermissionDenied)
from chalicelib.store import ids
from chalicelib.store import tokens as store
from chalicelib.store.table import Account, Token, TokenRef, keys


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


def create_token(actor: Account | None, username: str, data: dict) -> tuple[TokenRef, str]:
    """Returns the stored token and its secret (the only time the secret is known)."""
    user = _owner_for(actor, username)
    name = (optional(data, "name", str) or "").strip()
    if not name:
        raise InvalidInput("[Name]: Required")
    wanted = optional(data, "scopes", list) or []
    normalized = scopes.normalize(wanted)
    if not normalized:
        raise BadInput("access token must have a scope")
    secret = secrets.token_hex(20)
    token_hash = hash_token(secret)
    token_id, created = ids.next_id("token"), int(time.time())
    ref = TokenRef(*keys.token_ref(user.id, name), id=token_id, name=name,
                   token_hash=token_hash, scopes=normalized, last_eight=secret[-8:],
                   created=created)
    token = Token(*keys.token(token_hash), id=token_id, user_id=user.id, name=name,
                  scopes=normalized, last_eight=secret[-8:], created=created)
    try:
        store.create(token, ref)
    except AlreadyExists:
        raise BadInput("access token name has been used already") from None
    events.publish(events.TokenCreated(actor_id=actor.id, user_id=user.id, token_id=token_id))
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
    store.delete(user.id, found)


def looks_like(secret: str) -> bool:
    """Token secrets are 40 lowercase hex digits; anything else is not worth a read."""
    return len(secret) == 40 and all(c in "0123456789abcdef" for c in secret)


def token_key(secret: str):
    return keys.token(hash_token(secret))


def lookup(secret: str) -> Token | None:
    """The token a secret belongs to (one read), or None."""
    if not looks_like(secret):
        return None
    return store.get_by_hash(hash_token(secret))
