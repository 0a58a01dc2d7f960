"""Access tokens in the browser: ``/user/settings/applications`` lists the signed-in
user's tokens, creates one (its secret is shown on the answer to that POST and never
again: only its hash is stored) and deletes one
(``POST /user/settings/applications/delete``, Forgejo's URL).

The calls are ``tokens.list_tokens``/``create_token``/``delete_token`` with the user
as both actor and owner, the API's ``/users/{username}/tokens`` checks.  The API takes
those writes with a password only (basic auth); a web session was opened with the
password, so the browser may make them.
"""
from __future__ import annotations

from chalicelib import accounts, errors
from chalicelib.accounts import CreateAccessTokenOption
from chalicelib.http import scopes
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.web.actions_forms import fixable_status, posted, show_form
from chalicelib.web.view import Web, page, redirect

TEMPLATE = "forms/applications.html"
PATH = "/user/settings/applications"


def _page(web: Web, *, created: dict | None = None, error=None, name: str = "",
          chosen: tuple[str, ...] = ()) -> ApiResponse:
    user = web.user
    shown = [accounts.access_token_record(t) for t in accounts.list_tokens(user, user.login)]
    return show_form(web, TEMPLATE, error=error, title="Applications", tokens=shown,
                     created=created, name=name, chosen=chosen,
                     categories=scopes.CATEGORIES, all_scope=scopes.ALL,
                     public_only=scopes.PUBLIC_ONLY)


@page("GET", PATH, "webApplications", signed_in=True)
def applications(req: ApiRequest, web: Web) -> ApiResponse:
    return _page(web)


@page("POST", PATH, "webApplicationsCreate", signed_in=True)
def create(req: ApiRequest, web: Web) -> ApiResponse:
    name = posted(req).get("name", "")
    chosen = tuple(v for v in req.form().get("scope", []) if v)
    try:
        token, secret = accounts.create_token(web.user, web.user.login,
                                            CreateAccessTokenOption(name=name,
                                                                    scopes=list(chosen)))
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return _page(web, error=err, name=name, chosen=chosen)
    # The one answer that may carry the secret: rendered, not redirected, and not cached.
    response = _page(web, created=accounts.access_token_record(token, secret))
    response.headers["Cache-Control"] = "no-store"
    return response


@page("POST", PATH + "/delete", "webApplicationsDelete", signed_in=True)
def delete(req: ApiRequest, web: Web) -> ApiResponse:
    which = posted(req).get("id", "").strip()
    if not which.isdigit():
        raise errors.NotFoundError(f"access token does not exist [id: {which}]")
    accounts.delete_token(web.user, web.user.login, which)
    return redirect(PATH)
