"""A user's OAuth2 applications (Forgejo's ``models/auth/oauth2.go`` and the API's
``user/app.go``): create (the secret shown once, only its hash kept), list, read, edit
(which makes a new secret, as Forgejo's API does) and delete (which revokes every grant
given to the application, with their tokens).

Redirect URIs are absolute, carry no fragment (RFC 6749 §3.1.2) and are not a script
or data URI; they are matched exactly when a client presents one (``validator``).
"""
from __future__ import annotations

import secrets
import uuid
from urllib.parse import urlsplit

from chalicelib import accounts, clock, events
from chalicelib.errors import BadInput, ConditionFailed, InvalidInput, NotFoundError
from chalicelib.oauth2 import app_store, grant_store
from chalicelib.oauth2.issuing import revoke_grant, secret_hash
from chalicelib.oauth2.options import CreateOAuth2ApplicationOptions
from chalicelib.store import ids, unit_of_work

MAX_REDIRECT_URIS = 20
REFUSED_SCHEMES = ("javascript", "data", "vbscript", "file", "blob")


def _checked_uris(given) -> list[str]:
    uris: list[str] = []
    for raw in given or []:
        uri = str(raw).strip()
        if not uri:
            continue
        parts = urlsplit(uri)
        if not parts.scheme or parts.scheme.lower() in REFUSED_SCHEMES or \
                not (parts.netloc or parts.path) or parts.fragment or "#" in uri or \
                any(c.isspace() for c in uri) or len(uri) > 2048:
            raise BadInput(f"invalid redirect URI: {uri[:200]}")
        if parts.scheme.lower() in ("http", "https") and not parts.hostname:
            raise BadInput(f"invalid redirect URI: {uri[:200]}")
        if uri not in uris:
            uris.append(uri)
    if len(uris) > MAX_REDIRECT_URIS:
        raise BadInput(f"an application has at most {MAX_REDIRECT_URIS} redirect URIs")
    return uris


def _name(option: CreateOAuth2ApplicationOptions) -> str:
    name = (option.name or "").strip() if isinstance(option.name, str) else ""
    if not name:
        raise InvalidInput("[Name]: Required")
    return name


def _new_secret() -> str:
    # Forgejo's prefix, so secret scanners recognise a leaked one.
    return "gto_" + secrets.token_urlsafe(32)


def _owned(user, app_id: int):
    app = app_store.get(int(user.id), int(app_id)) if app_id > 0 else None
    if app is None:
        raise NotFoundError("The target couldn't be found.")
    return app


def create_app(user, option: CreateOAuth2ApplicationOptions):
    """Returns the application and its secret (the only time the secret is known)."""
    name, uris = _name(option), _checked_uris(option.redirect_uris)
    secret, now = _new_secret(), clock.seconds()
    app = app_store.new_app(id=ids.next_id("oauth2app"), owner_id=int(user.id), name=name,
                            client_id=str(uuid.uuid4()), secret_hash=secret_hash(secret),
                            redirect_uris=uris,
                            confidential=option.confidential_client is not False,
                            created=now, updated=now, version=1)
    with unit_of_work.writing() as uow:
        app_store.stage_create(app)
        uow.raise_event(events.OAuth2ApplicationCreated(
            **accounts.actor_of_event(user), app_id=int(app.id)))
    return app, secret


def list_apps(user) -> list:
    return sorted(app_store.list_for_owner(int(user.id)), key=lambda a: -int(a.id))


def get_app(user, app_id: int):
    return _owned(user, app_id)


def edit_app(user, app_id: int, option: CreateOAuth2ApplicationOptions):
    """Forgejo's edit: name, redirect URIs, client type, and a new secret."""
    app = _owned(user, app_id)
    name, uris = _name(option), _checked_uris(option.redirect_uris)
    read_version, secret = int(app.version), _new_secret()
    app.name, app.redirect_uris = name, uris
    app.confidential = option.confidential_client is not False
    app.secret_hash, app.updated = secret_hash(secret), clock.seconds()
    app.version = read_version + 1
    try:
        with unit_of_work.writing() as uow:
            app_store.stage_save(app, read_version)
            uow.raise_event(events.OAuth2ApplicationEdited(
                **accounts.actor_of_event(user), app_id=int(app.id)))
    except ConditionFailed:
        raise NotFoundError("The target couldn't be found.") from None
    return app, secret


def regenerate_secret(user, app_id: int):
    """A new secret, nothing else changed (the settings page's button)."""
    app = _owned(user, app_id)
    read_version, secret = int(app.version), _new_secret()
    app.secret_hash, app.updated = secret_hash(secret), clock.seconds()
    app.version = read_version + 1
    with unit_of_work.writing() as uow:
        app_store.stage_save(app, read_version)
        uow.raise_event(events.OAuth2ApplicationEdited(
            **accounts.actor_of_event(user), app_id=int(app.id)))
    return app, secret


def delete_app(user, app_id: int) -> None:
    """The application first (no new token can be had from then on), then every grant
    given to it, each with its tokens: their cost is the application's own users."""
    app = _owned(user, app_id)
    try:
        with unit_of_work.writing() as uow:
            app_store.stage_delete(app)
            uow.raise_event(events.OAuth2ApplicationDeleted(
                **accounts.actor_of_event(user), app_id=int(app.id)))
    except ConditionFailed:
        raise NotFoundError("The target couldn't be found.") from None
    for user_id in grant_store.grant_user_ids(int(app.id)):
        revoke_grant(user_id, int(app.id), user)


def preload_keys(user_id: int | None, raw_id: str) -> list:
    """The application a path names, read with the caller's account."""
    if user_id is None or not raw_id.isdigit() or int(raw_id) <= 0:
        return []
    return [app_store.app_key(user_id, int(raw_id))]
