"""A user's grants: the applications the user let in, and taking that back (the
settings page's "Authorized OAuth2 applications").  Revoking deletes the grant with
every access and refresh token issued under it, at once."""
from __future__ import annotations

from chalicelib.errors import NotFoundError
from chalicelib.oauth2 import app_store, grant_store
from chalicelib.oauth2.issuing import revoke_grant


def grants_of(user) -> list:
    """The user's grants whose application still exists, newest first.  A grant left by
    an application deleted while its revocation ran is revoked on sight."""
    found = grant_store.list_grants(int(user.id))
    app_store.prefetch_clients(g.client_id for g in found)
    kept = []
    for grant in found:
        if app_store.by_client_id(grant.client_id) is None:
            revoke_grant(int(user.id), int(grant.app_id))
            continue
        kept.append(grant)
    return sorted(kept, key=lambda g: -int(g.updated or 0))


def current_grant(user, client):
    """The user's grant to ``client``, or None."""
    return grant_store.get_grant(int(user.id), int(client.id))


def revoke(user, app_id: int) -> None:
    if not revoke_grant(int(user.id), int(app_id), user):
        raise NotFoundError("The target couldn't be found.")
