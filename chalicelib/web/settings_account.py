"""The signed-in user's account settings in the browser, at Forgejo's URLs:
``GET /user/settings/account`` with the password form (``POST /user/settings/account``:
``old_password``, ``password``, ``retype``) and the e-mail addresses
(``POST /user/settings/account/email`` adds ``email``,
``POST /user/settings/account/email/delete`` deletes ``email``).

The addresses go through the services ``/user/emails`` calls (``own_addresses``,
``add_addresses``, ``delete_own_addresses``): the same rules for invalid, taken and
primary addresses.  The API has no route that changes one's own password;
``accounts.change_own_password`` checks the old one as a password sign-in does
(``check_password_login``) and the new one against ``[security] MIN_PASSWORD_LENGTH``.
The new password hash ends every session issued before (their fingerprint changes),
so this browser is signed in again with a new session; the others are signed out.
"""
from __future__ import annotations

from chalicelib import accounts, errors
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.settings import get_settings
from chalicelib.web.actions_forms import posted, show_form
from chalicelib.web.settings_forms import check_limits, refused
from chalicelib.web.view import Web, page, redirect

TEMPLATE = "user_settings/account.html"
PATH = "/user/settings/account"
# The services' field names in a refusal -> the form's fields.
PASSWORD_FIELDS = {"oldpassword": "old_password", "password": "password",
                   "retype": "retype"}


def _page(web: Web, *, err: errors.ServiceError | None = None, default: str | None = None,
          email: str = "", changed: bool = False) -> ApiResponse:
    shown = dict(title="Account settings", addresses=accounts.own_addresses(web.user),
                 email=email, changed=changed,
                 min_password=get_settings().security.MIN_PASSWORD_LENGTH)
    if err is not None:
        return refused(web, TEMPLATE, err, default=default, fields=PASSWORD_FIELDS, **shown)
    return show_form(web, TEMPLATE, **shown)


@page("GET", PATH, "webUserSettingsAccount", signed_in=True)
def account(req: ApiRequest, web: Web) -> ApiResponse:
    return _page(web, changed=req.arg("password") == "changed")


@page("POST", PATH, "webUserSettingsPassword", signed_in=True)
def change_password(req: ApiRequest, web: Web) -> ApiResponse:
    form = posted(req)
    old, new, retype = (form.get(name, "") for name in ("old_password", "password", "retype"))
    try:
        if new != retype:
            raise errors.InvalidInput("[Retype]: the passwords do not match")
        changed = accounts.change_own_password(web.user, old, new)
    except errors.ServiceError as err:
        # Nothing typed is sent back: password fields stay empty.
        return _page(web, err=err, default="password")
    web.sign_in(changed)
    return redirect(PATH + "?password=changed")


@page("POST", PATH + "/email", "webUserSettingsEmailAdd", signed_in=True)
def add_email(req: ApiRequest, web: Web) -> ApiResponse:
    email = posted(req).get("email", "").strip()
    try:
        check_limits({"emails": [email]}, "CreateEmailOption")
        accounts.add_addresses(web.user, [email])
    except errors.ServiceError as err:
        return _page(web, err=err, default="email", email=email)
    return redirect(PATH)


@page("POST", PATH + "/email/delete", "webUserSettingsEmailDelete", signed_in=True)
def delete_email(req: ApiRequest, web: Web) -> ApiResponse:
    email = posted(req).get("email", "").strip()
    if not email:
        raise errors.NotFoundError("email address does not exist")
    try:
        accounts.delete_own_addresses(web.user, [email])
    except errors.InvalidInput as err:      # the primary address: said above the list
        return _page(web, err=err)
    return redirect(PATH)
