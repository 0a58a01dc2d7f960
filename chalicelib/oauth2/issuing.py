"""Issuing and taking back OAuth2 tokens: what the provider's validator stores, in one
transaction each (``grant_store``), and the secrets' hashing.  No oauthlib here, so the
applications API and the settings pages do not import it.

- a code exchange: the code marked used, a new refresh-token family, its access token
  (an accounts token item tied to the grant) and its refresh token.  A second exchange
  of the same code fails the ``used`` condition; a code presented after it was used
  revokes the grant (RFC 6749 §4.1.2: tokens issued from a replayed code are revoked);
- a refresh: the family moved from the generation the token was issued for, the old
  access token deleted, the new tokens written.  A refresh token of an older
  generation, or the loser of two requests racing with one token, revokes the grant
  (refresh-token reuse detection, OAuth 2.0 Security BCP §4.14).
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from urllib.parse import unquote, urlsplit

from chalicelib import accounts, clock, events
from chalicelib.errors import ConditionFailed
from chalicelib.oauth2 import app_store, grant_store, scopes
from chalicelib.settings import get_settings
from chalicelib.store import unit_of_work


class TokensRevoked(Exception):
    """A replayed code or refresh token: the grant is revoked and the request refused."""


def secret_hash(secret: str) -> str:
    # Client secrets, codes and refresh tokens are long random strings: one SHA-256
    # lets each be found in one GetItem and cannot be guessed back.
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def secret_matches(secret: str, stored_hash: str) -> bool:
    return bool(stored_hash) and hmac.compare_digest(secret_hash(secret or ""), stored_hash)


def new_access_token(request=None) -> str:
    # 40 hex digits, the form of a personal access token: the gateway finds either in
    # one GetItem by its hash.
    return secrets.token_hex(20)


def new_refresh_token(request=None) -> str:
    return "nmr_" + secrets.token_urlsafe(32)


def redirect_allowed(client, redirect_uri: str | None) -> bool:
    """Registered URIs match exactly; a public (native) client's loopback URI matches
    on any port (RFC 8252 §7.3), as Forgejo allows."""
    if not redirect_uri:
        return False
    registered = list(client.redirect_uris or [])
    if redirect_uri in registered:
        return True
    if client.confidential:
        return False
    given = urlsplit(redirect_uri)
    if given.scheme != "http" or given.hostname not in ("127.0.0.1", "::1"):
        return False
    for uri in registered:
        known = urlsplit(uri)
        if (known.scheme, known.hostname, known.path, known.query) == \
                (given.scheme, given.hostname, given.path, given.query):
            return True
    return False


def basic_client(headers) -> tuple[str, str] | None:
    """``client_id:client_secret`` from an ``Authorization: Basic`` header (each
    form-urlencoded first, RFC 6749 §2.3.1), or None."""
    header = (headers.get("Authorization") or headers.get("authorization") or "").strip()
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    client_id, sep, secret = decoded.partition(":")
    if not sep:
        return None
    return unquote(client_id.replace("+", " ")), unquote(secret.replace("+", " "))


def authenticated_client(client_id: str, secret: str):
    """The application whose client id and secret these are, or None."""
    client = app_store.by_client_id(client_id)
    if client is None or not secret_matches(secret, client.secret_hash):
        return None
    return client


def lifetimes() -> tuple[int, int]:
    config = get_settings().oauth2
    return config.ACCESS_TOKEN_EXPIRATION_TIME, config.REFRESH_TOKEN_EXPIRATION_TIME * 3600


def stage_tokens(token: dict, request, family: str, generation: int) -> tuple[str, str, int]:
    """The access token item and the refresh token item; returns their hashes and the
    refresh token's end."""
    access_life, refresh_life = lifetimes()
    user_id, client = int(request.user), request.client
    scope = scopes.kept(request.scopes)
    accounts.stage_grant_token(user_id, token["access_token"], name=f"oauth2:{client.name}",
                               scopes=scopes.api_scopes(request.scopes), lifetime=access_life,
                               grant=f"{user_id}:{int(client.id)}:{family}")
    now = clock.seconds()
    refresh_hash = secret_hash(token["refresh_token"])
    grant_store.stage_refresh(refresh_hash, user_id=user_id, app_id=int(client.id),
                              client_id=client.client_id, family=family, generation=generation,
                              scope=scope, created=now, expires=now + refresh_life)
    return accounts.hash_token(token["access_token"]), refresh_hash, now + refresh_life


def save_exchange(token: dict, request) -> None:
    code, client = request.nimbus_code, request.client
    family = secrets.token_hex(8)
    try:
        with unit_of_work.writing():
            grant_store.stage_use_code(code, family)
            access_hash, refresh_hash, ends = stage_tokens(token, request, family, 1)
            now = clock.seconds()
            grant_store.stage_family(int(request.user), family, app_id=int(client.id),
                                     generation=1,
                                     access_hash=access_hash, refresh_hash=refresh_hash,
                                     created=now, updated=now, expires=ends)
    except ConditionFailed as exc:
        if exc.label == grant_store.CODE_USED:
            revoke_grant(int(request.user), int(client.id))
            raise TokensRevoked("the authorization code was used already") from None
        raise


def save_rotation(token: dict, request) -> None:
    family, client = request.nimbus_family, request.client
    generation = int(family.generation)
    try:
        with unit_of_work.writing():
            access_hash, refresh_hash, ends = stage_tokens(
                token, request, request.nimbus_refresh.family, generation + 1)
            grant_store.stage_rotate(family, generation=generation, access_hash=access_hash,
                                     refresh_hash=refresh_hash, updated=clock.seconds(),
                                     expires=ends)
    except ConditionFailed as exc:
        if exc.label == grant_store.FAMILY_MOVED:
            # Another request rotated this family with the same refresh token: one of
            # the two holders is not the client.
            revoke_grant(int(request.user), int(client.id))
            raise TokensRevoked("the refresh token was used already") from None
        raise


def revoke_grant(user_id: int, app_id: int, actor=None) -> bool:
    """Delete a user's grant to an application with every token issued under it
    (``actor``: who took it back; None when Nimbus did, on a replayed token)."""
    items = grant_store.grant_with_families(user_id, app_id)
    if not items:
        return False
    with unit_of_work.writing() as uow:
        grant_store.stage_revoke(items)
        uow.raise_event(events.OAuth2GrantRevoked(**accounts.actor_of_event(actor),
                                                  user_id=user_id, app_id=app_id))
    return True
