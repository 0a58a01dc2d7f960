"""The password a site admin asked a user to change (``must_change_password``, set by
adminCreateUser or adminEditUser): ``GET/POST /user/settings/change_password``,
Forgejo's form, which ``view.serve`` sends such a user to before any other page.

The change is the account settings form's (``accounts.change_own_password``): the
current password checked as a sign-in checks it (Forgejo's form asks only the new one;
here the cookie alone does not set a password), the new one held to ``[security]
MIN_PASSWORD_LENGTH``, the flag cleared in the same conditional write.  The new hash
ends every session issued before (``http.sessions``' fingerprint), so this browser is
signed in again with a new one and lands where it was going; other browsers are signed
out.  A user with nothing to change is sent to the start page, as Forgejo sends them.

``GET /user/change_password`` is the address the API's refusal names (Forgejo's words,
routers/api/shared/middleware.go): it leads to the form.
"""
from __future__ import annotations

from urllib.parse import urlencode

from chalicelib import accounts, errors
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.settings import get_settings
from chalicelib.web.actions_forms import posted
from chalicelib.web.settings_forms import refused
from chalicelib.web.view import CHANGE_PASSWORD, Web, page, redirect, render

TEMPLATE = "change_password.html"
# The services' field names in a refusal -> the form's fields.
FIELDS = {"oldpassword": "old_password", "password": "password", "retype": "retype"}


def _values(target: str) -> dict:
    return {"title": "Update your password", "redirect_to": target,
            "min_password": get_settings().security.MIN_PASSWORD_LENGTH}


@page("GET", CHANGE_PASSWORD, "webMustChangePasswordForm", signed_in=True)
def change_form(req: ApiRequest, web: Web) -> ApiResponse:
    if not web.user.must_change_password:
        return redirect("/")
    # Where to go afterwards, sent back with the form; ``redirect`` keeps it on this site.
    return render(web, TEMPLATE, form_csrf=web.csrf, **_values(req.arg("redirect_to") or "/"))


@page("POST", CHANGE_PASSWORD, "webMustChangePassword", signed_in=True)
def change(req: ApiRequest, web: Web) -> ApiResponse:
    if not web.user.must_change_password:
        return redirect("/")
    form = posted(req)
    target = form.get("redirect_to") or "/"
    old, new, retype = (form.get(name, "") for name in ("old_password", "password", "retype"))
    try:
        if new != retype:
            raise errors.InvalidInput("[Retype]: the passwords do not match")
        changed = accounts.change_own_password(web.user, old, new)
    except errors.ServiceError as err:
        # Nothing typed is sent back: password fields stay empty.
        return refused(web, TEMPLATE, err, default="password", fields=FIELDS,
                       **_values(target))
    web.sign_in(changed)
    return redirect(target)


@page("GET", "/user/change_password", "webMustChangePasswordLink", anonymous=True)
def change_link(req: ApiRequest, web: Web) -> ApiResponse:
    target = req.arg("redirect_to")
    return redirect(CHANGE_PASSWORD + ("?" + urlencode({"redirect_to": target})
                                       if target else ""))
