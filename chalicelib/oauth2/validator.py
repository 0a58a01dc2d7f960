"""What oauthlib asks of Nimbus while it applies RFC 6749, RFC 7636 and OpenID Connect
Core: who the client is, whether a code or a refresh token is good, and where tokens
are kept.  The protocol's rules (which parameters, which checks in which order, which
error) are oauthlib's; the answers are here, the storage in ``issuing`` and the stores.

Consent writes the grant (created, or its scope and nonce updated) with the new code in
one transaction; a code exchange and a refresh are ``issuing``'s.
"""
from __future__ import annotations

from oauthlib.oauth2 import RequestValidator

from chalicelib import accounts, clock, events
from chalicelib.oauth2 import app_store, claims, grant_store, jwt_keys, scopes
from chalicelib.oauth2.issuing import (
    basic_client,
    redirect_allowed,
    revoke_grant,
    save_exchange,
    save_rotation,
    secret_hash,
    secret_matches,
)
from chalicelib.settings import get_settings
from chalicelib.store import ids, unit_of_work

GRANT_TYPES = ("authorization_code", "refresh_token")


class NimbusValidator(RequestValidator):
    """The storage and the client rules behind oauthlib's endpoints."""

    # --- clients ----------------------------------------------------------------------

    def _client(self, client_id):
        return app_store.by_client_id(client_id) if isinstance(client_id, str) else None

    def _claimed_client_id(self, request) -> str | None:
        sent = basic_client(request.headers)
        return sent[0] if sent else request.client_id

    def client_authentication_required(self, request, *args, **kwargs):
        client = self._client(self._claimed_client_id(request))
        return client is None or bool(client.confidential) \
            or basic_client(request.headers) is not None

    def authenticate_client(self, request, *args, **kwargs):
        sent = basic_client(request.headers)
        if sent is not None:
            client_id, secret = sent
            if (request.client_id and request.client_id != client_id) or \
                    (request.client_secret and request.client_secret != secret):
                return False      # the body says another client than the header
        else:
            client_id, secret = request.client_id, request.client_secret
        client = self._client(client_id)
        if client is None:
            return False
        if client.confidential and not secret_matches(secret or "", client.secret_hash):
            return False
        request.client_id, request.client = client_id, client
        return True

    def authenticate_client_id(self, client_id, request, *args, **kwargs):
        client = self._client(client_id)
        if client is None or client.confidential:
            return False
        request.client = client
        return True

    def validate_client_id(self, client_id, request, *args, **kwargs):
        client = self._client(client_id)
        if client is None:
            return False
        request.client = client
        return True

    def validate_redirect_uri(self, client_id, redirect_uri, request, *args, **kwargs):
        client = self._client(client_id)
        return client is not None and redirect_allowed(client, redirect_uri)

    def get_default_redirect_uri(self, client_id, request, *args, **kwargs):
        client = self._client(client_id)
        uris = list(client.redirect_uris or []) if client is not None else []
        return uris[0] if len(uris) == 1 else None

    def validate_response_type(self, client_id, response_type, client, request, *args, **kwargs):
        return response_type == "code"

    def validate_grant_type(self, client_id, grant_type, client, request, *args, **kwargs):
        return grant_type in GRANT_TYPES

    def validate_scopes(self, client_id, scopes_asked, client, request, *args, **kwargs):
        # Words this provider does not know are left out of the grant rather than
        # refused: clients ask for "offline_access" and the like as a matter of course.
        return True

    def get_default_scopes(self, client_id, request, *args, **kwargs):
        return []

    def is_pkce_required(self, client_id, request):
        client = self._client(client_id)
        return client is None or not client.confidential

    # --- consent and codes ----------------------------------------------------------------

    def save_authorization_code(self, client_id, code, request, *args, **kwargs):
        client, user = request.client, request.user
        now = clock.seconds()
        scope = scopes.kept(request.scopes)
        nonce = (getattr(request, "nonce", None) or "")[:255]
        grant = grant_store.get_grant(int(user.id), int(client.id), consistent=True)
        previous = None if grant is None else grant.scope or ""
        with unit_of_work.writing() as uow:
            if grant is None:
                grant_store.stage_create_grant(grant_store.new_grant(
                    id=ids.next_id("oauth2grant"), user_id=int(user.id), app_id=int(client.id),
                    client_id=client.client_id, app_name=client.name, scope=scope, nonce=nonce,
                    created=now, updated=now))
            else:
                grant.scope, grant.nonce, grant.updated = scope, nonce, now
                grant_store.stage_save_grant(grant)
            # A consent that changes nothing (the same scopes again) is no change to record.
            if previous is None or previous != scope:
                uow.raise_event(events.OAuth2Granted(
                    **accounts.actor_of_event(user), user_id=int(user.id), app_id=int(client.id),
                    app_name=client.name, action="created" if previous is None else "edited",
                    scope=scope, previous_scope=previous or ""))
            grant_store.stage_code(
                secret_hash(code["code"]), user_id=int(user.id), app_id=int(client.id),
                client_id=client.client_id,
                redirect_uri="" if getattr(request, "using_default_redirect_uri", False)
                else request.redirect_uri,
                scope=scope, nonce=nonce, challenge=request.code_challenge or "",
                challenge_method=request.code_challenge_method or "", created=now,
                expires=now + get_settings().oauth2.AUTHORIZATION_CODE_SECONDS)

    def validate_code(self, client_id, code, client, request, *args, **kwargs):
        found = grant_store.get_code(secret_hash(code or ""))
        if found is None or found.client_id != client.client_id:
            return False
        if int(found.expires or 0) <= clock.seconds():
            return False
        if found.used:
            revoke_grant(int(found.user_id), int(found.app_id))
            return False
        request.nimbus_code = found
        request.user = int(found.user_id)
        request.scopes = found.scope.split()
        return True

    def confirm_redirect_uri(self, client_id, code, redirect_uri, client, request, *args, **kwargs):
        found = getattr(request, "nimbus_code", None)
        if found is None:
            return False
        if found.redirect_uri:
            return redirect_uri == found.redirect_uri
        return redirect_uri is None or redirect_allowed(client, redirect_uri)

    def get_code_challenge(self, code, request):
        found = getattr(request, "nimbus_code", None)
        return (found.challenge or None) if found is not None else None

    def get_code_challenge_method(self, code, request):
        found = getattr(request, "nimbus_code", None)
        return (found.challenge_method or "plain") if found is not None else None

    def invalidate_authorization_code(self, client_id, code, request, *args, **kwargs):
        # Done already: the code was marked used in the transaction that saved the tokens.
        return None

    # --- refresh tokens ------------------------------------------------------------------

    def validate_refresh_token(self, refresh_token, client, request, *args, **kwargs):
        found = grant_store.get_refresh(secret_hash(refresh_token or ""))
        if found is None or found.client_id != client.client_id \
                or int(found.expires or 0) <= clock.seconds():
            return False
        family = grant_store.get_family(int(found.user_id), int(found.app_id), found.family)
        if family is None:
            return False                      # revoked
        if int(family.generation) != int(found.generation):
            revoke_grant(int(found.user_id), int(found.app_id))
            return False
        request.nimbus_refresh, request.nimbus_family = found, family
        request.user = int(found.user_id)
        return True

    def get_original_scopes(self, refresh_token, request, *args, **kwargs):
        found = getattr(request, "nimbus_refresh", None)
        return found.scope.split() if found is not None else []

    def rotate_refresh_token(self, request):
        return True

    # --- tokens ----------------------------------------------------------------------

    def save_bearer_token(self, token, request, *args, **kwargs):
        if request.grant_type == "refresh_token":
            save_rotation(token, request)
        else:
            save_exchange(token, request)

    # --- OpenID Connect ------------------------------------------------------------------

    def get_authorization_code_nonce(self, client_id, code, redirect_uri, request):
        found = getattr(request, "nimbus_code", None)
        return (found.nonce or None) if found is not None else None

    def get_authorization_code_scopes(self, client_id, code, redirect_uri, request):
        found = getattr(request, "nimbus_code", None)
        return found.scope.split() if found is not None else []

    def get_id_token(self, token, token_handler, request):
        return None

    def finalize_id_token(self, id_token, token, token_handler, request):
        user = accounts.account_by_id(int(request.user))
        now = clock.seconds()
        id_token.update(iss=get_settings().app_url.rstrip("/"), sub=str(request.user),
                        iat=now, exp=now + get_settings().oauth2.ACCESS_TOKEN_EXPIRATION_TIME)
        if user is not None:
            id_token.update(claims.id_token_claims(user, request.scopes))
        return jwt_keys.sign(id_token)

    def refresh_id_token(self, request):
        return True

    def validate_silent_login(self, request):
        return False      # prompt=none: no page is shown, so no sign-in can happen

    def validate_silent_authorization(self, request):
        return False

    def validate_user_match(self, id_token_hint, scopes_asked, claims_asked, request):
        return True
