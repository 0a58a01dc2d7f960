"""Nimbus as an OAuth2 provider, in the browser.

- ``GET /login/oauth/authorize`` (Forgejo's URL): the authorization request checked by
  the provider's rules; a visitor is sent to sign in first and comes back here; a bad
  client or redirect URI gets an error page (never a redirect: RFC 6749 §4.1.2.1); any
  other refusal goes back to the client with ``error``.  A confidential client the user
  already granted what it asks skips the question, as Forgejo does; a public client is
  always asked (RFC 6749 §10.2).
- ``POST /login/oauth/grant``: the user's answer (CSRF-checked like every form); the
  request is checked again, so a changed hidden field changes nothing it may not.
- ``/user/settings/applications/oauth2``: the user's applications (create, edit, a new
  secret, delete) and the applications the user let in (revoke).
"""
from __future__ import annotations

from urllib.parse import urlencode, urlsplit

from chalicelib import errors, oauth2
from chalicelib.http import page_policy
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.settings import get_settings
from chalicelib.web.actions_forms import (
    checked,
    fixable_status,
    posted,
    posted_id,
    show_form,
)
from chalicelib.web.view import Web, page, redirect, render

SETTINGS = "/user/settings/applications/oauth2"
TEMPLATE = "oauth2/applications.html"


def _away(location: str) -> ApiResponse:
    """To the client's registered redirect URI (checked by the provider's rules)."""
    return ApiResponse(status=303, headers={"Location": location, "Cache-Control": "no-store"})


def _request_params(source: dict[str, list[str]]) -> dict[str, str]:
    return {name: values[-1] for name, values in source.items()
            if name in ("response_type", "client_id", "redirect_uri", "scope", "state", "nonce",
                        "code_challenge", "code_challenge_method", "prompt") and values}


def _refused(web: Web, refusal) -> ApiResponse:
    if refusal.redirect:
        return _away(refusal.redirect)
    return render(web, "oauth2/grant_error.html", status=400, title="Authorization failed",
                  error=refusal.error, description=refusal.description)


def _already_granted(web: Web, consent) -> bool:
    if not consent.client.confidential or "consent" in consent.params.get("prompt", "").split():
        return False
    grant = oauth2.current_grant(web.user, consent.client)
    return grant is not None and set(consent.scope) <= set(grant.scope.split())


@page("GET", "/login/oauth/authorize", "webOAuthAuthorize", anonymous=True)
def authorize(req: ApiRequest, web: Web) -> ApiResponse:
    params = _request_params(req.query)
    if web.user is None:
        back = "/login/oauth/authorize?" + urlencode(params)
        return redirect("/user/login?" + urlencode({"redirect_to": back}))
    try:
        consent = oauth2.check_authorization(params)
        if _already_granted(web, consent):
            return _away(oauth2.approve_authorization(params, web.user))
    except oauth2.AuthorizationError as refusal:
        return _refused(web, refusal)
    response = render(web, "oauth2/grant.html", title="Authorize application",
                      form_csrf=web.csrf, app_name=consent.client.name,
                      redirect_uri=consent.redirect_uri,
                      said=oauth2.describe_scopes(consent.scope), params=consent.params)
    response.headers["Cache-Control"] = "no-store"
    # The answer redirects to the client: the form may go there (and nowhere else).
    response.headers["Content-Security-Policy"] = page_policy.content_security_policy(
        get_settings(), (_form_target(consent.redirect_uri),))
    return response


def _form_target(redirect_uri: str) -> str:
    """The CSP source of a registered redirect URI: its origin, or its scheme alone for
    a native application's own scheme."""
    parts = urlsplit(redirect_uri)
    if parts.scheme in ("http", "https"):
        return f"{parts.scheme}://{parts.netloc}"
    return f"{parts.scheme}:"


@page("POST", "/login/oauth/grant", "webOAuthGrant", signed_in=True)
def grant(req: ApiRequest, web: Web) -> ApiResponse:
    form = posted(req)
    params = {k: v for k, v in form.items() if k != "_csrf" and k != "granted"}
    try:
        consent = oauth2.check_authorization(params)
        if form.get("granted") != "true":
            return _away(oauth2.deny_authorization(consent))
        return _away(oauth2.approve_authorization(params, web.user))
    except oauth2.AuthorizationError as refusal:
        return _refused(web, refusal)


# --- the settings page --------------------------------------------------------------------

def _settings_page(web: Web, *, created=None, error=None, form=None) -> ApiResponse:
    apps = [oauth2.oauth2_application_record(a) for a in oauth2.list_apps(web.user)]
    grants = [oauth2.grant_view(g) for g in oauth2.grants_of(web.user)]
    response = show_form(web, TEMPLATE, error=error, title="OAuth2 applications", apps=apps,
                         grants=grants, created=created, form=form or {})
    if created is not None:
        response.headers["Cache-Control"] = "no-store"     # it carries a secret
    return response


def _option(form: dict[str, str]):
    uris = [line.strip() for line in form.get("redirect_uris", "").splitlines() if line.strip()]
    return oauth2.CreateOAuth2ApplicationOptions(
        name=form.get("name", ""), redirect_uris=uris,
        confidential_client=checked(form, "confidential_client"))


@page("GET", SETTINGS, "webOAuth2Applications", signed_in=True)
def applications(req: ApiRequest, web: Web) -> ApiResponse:
    return _settings_page(web)


@page("POST", SETTINGS, "webOAuth2ApplicationCreate", signed_in=True)
def create(req: ApiRequest, web: Web) -> ApiResponse:
    form = posted(req)
    try:
        app, secret = oauth2.create_app(web.user, _option(form))
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return _settings_page(web, error=err, form=form)
    return _settings_page(web, created=oauth2.oauth2_application_record(app, secret))


@page("POST", SETTINGS + "/delete", "webOAuth2ApplicationDelete", signed_in=True)
def delete(req: ApiRequest, web: Web) -> ApiResponse:
    oauth2.delete_app(web.user, posted_id(req, "The target couldn't be found."))
    return redirect(SETTINGS)


@page("POST", SETTINGS + "/revoke", "webOAuth2GrantRevoke", signed_in=True)
def revoke(req: ApiRequest, web: Web) -> ApiResponse:
    oauth2.revoke_grant(web.user, posted_id(req, "The target couldn't be found."))
    return redirect(SETTINGS)


@page("GET", SETTINGS + "/{id}", "webOAuth2ApplicationEditForm", signed_in=True)
def edit_form(req: ApiRequest, web: Web) -> ApiResponse:
    raw = req.params["id"]
    app = oauth2.get_app(web.user, int(raw) if raw.isdigit() else 0)
    return show_form(web, "oauth2/application.html", title=f"OAuth2 application {app.name}",
                     app=oauth2.oauth2_application_record(app), created=None)


@page("POST", SETTINGS + "/{id}", "webOAuth2ApplicationEdit", signed_in=True)
def edit(req: ApiRequest, web: Web) -> ApiResponse:
    raw = req.params["id"]
    app_id = int(raw) if raw.isdigit() else 0
    form = posted(req)
    try:
        app, secret = oauth2.edit_app(web.user, app_id, _option(form))
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        app = oauth2.get_app(web.user, app_id)
        return show_form(web, "oauth2/application.html", error=err, created=None,
                         title=f"OAuth2 application {app.name}",
                         app=oauth2.oauth2_application_record(app))
    response = show_form(web, "oauth2/application.html", title=f"OAuth2 application {app.name}",
                         app=oauth2.oauth2_application_record(app, secret), created=True)
    response.headers["Cache-Control"] = "no-store"
    return response


@page("POST", SETTINGS + "/{id}/regenerate_secret", "webOAuth2ApplicationNewSecret",
      signed_in=True)
def new_secret(req: ApiRequest, web: Web) -> ApiResponse:
    raw = req.params["id"]
    app, secret = oauth2.regenerate_secret(web.user, int(raw) if raw.isdigit() else 0)
    response = show_form(web, "oauth2/application.html", title=f"OAuth2 application {app.name}",
                         app=oauth2.oauth2_application_record(app, secret), created=True)
    response.headers["Cache-Control"] = "no-store"
    return response
