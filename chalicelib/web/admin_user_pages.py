"""A site admin's page for one user, at Forgejo's ``/admin/users/{id}/edit``: who the
user is and whether they sign in with two-factor authentication, and the form that
removes it (Forgejo's ``reset_2fa``) for a user who lost their authenticator and their
recovery codes.  The rest of Forgejo's admin edit form is the API's (``adminEditUser``).

Site admins only: everyone else gets the 404 page, as the settings pages answer.  The
reset is the accounts rule the CLI's ``admin user reset-2fa`` calls
(``accounts.reset_two_factor``).
"""
from __future__ import annotations

from chalicelib import accounts, errors
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.web.actions_forms import checked, posted, show_form
from chalicelib.web.view import Web, page, redirect

TEMPLATE = "admin/user_edit.html"


def _user(req: ApiRequest, web: Web):
    """The user the address names, to a site admin; the 404 page to anyone else."""
    raw = req.params["id"]
    if web.user is None or not web.user.is_admin or not raw.isdigit():
        raise errors.NotFoundError("user does not exist")
    user = accounts.account_by_id(int(raw))
    if user is None or user.account_type != "user":
        raise errors.NotFoundError(f"user does not exist [uid: {raw}]")
    return user


def _path(user) -> str:
    return f"/admin/users/{int(user.id)}/edit"


@page("GET", "/admin/users/{id}/edit", "webAdminUserEdit", signed_in=True)
def user_edit(req: ApiRequest, web: Web) -> ApiResponse:
    user = _user(req, web)
    return show_form(web, TEMPLATE, title=f"Edit user {user.login}", user=user,
                     action=_path(user), two_factor=accounts.has_two_factor(user),
                     reset=req.arg("reset") == "2fa")


@page("POST", "/admin/users/{id}/edit", "webAdminUserEditPost", signed_in=True)
def user_edit_post(req: ApiRequest, web: Web) -> ApiResponse:
    user = _user(req, web)
    if checked(posted(req), "reset_2fa"):
        try:
            accounts.reset_two_factor(web.user, user.login)
        except errors.InvalidInput as err:      # it was off already
            return show_form(web, TEMPLATE, error=err, title=f"Edit user {user.login}",
                             user=user, action=_path(user), two_factor=False)
        return redirect(_path(user) + "?reset=2fa")
    return redirect(_path(user))
