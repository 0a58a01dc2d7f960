"""Sign in and out: ``GET/POST /user/login``, ``POST /user/logout``.

Signing out ends the session server-side (the account's session generation moves on),
so a copy of the cookie kept from before is refused too; it ends the user's sessions in
other browsers as well.

The password check is the API's basic-auth one (``accounts.check_password_login``);
an e-mail address is first mapped to its login.  A failed sign-in re-shows the form
with one message whatever was wrong, so the form does not tell which names exist.
"""
from __future__ import annotations

from chalicelib import accounts, webhooks
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.web.view import Web, page, redirect, render, site_target

FAILED = "Username or password is incorrect."


def _login_name(given: str) -> str:
    if "@" in given:
        return webhooks.usernames([given]).get(given.lower(), "")
    return given


@page("GET", "/user/login", "webLoginForm", anonymous=True)
def login_form(req: ApiRequest, web: Web) -> ApiResponse:
    if web.user is not None:
        return redirect(site_target(req.arg("redirect_to")))
    return render(web, "login.html", title="Sign in", form_csrf=web.csrf,
                  redirect_to=site_target(req.arg("redirect_to")), user_name="")


@page("POST", "/user/login", "webLogin", anonymous=True)
def login(req: ApiRequest, web: Web) -> ApiResponse:
    form = {k: v[-1] for k, v in req.form().items()}
    given = (form.get("user_name") or "").strip()
    password = form.get("password") or ""
    target = site_target(form.get("redirect_to"))
    account = None
    if given and password:
        name = _login_name(given)
        account = accounts.check_password_login(name or given, password)
    if account is not None and (account.prohibit_login or not account.active):
        account = None
    if account is None:
        return render(web, "login.html", status=200, title="Sign in", form_csrf=web.csrf,
                      error=FAILED, redirect_to=target, user_name=given)
    web.sign_in(account)
    return redirect(target)


@page("POST", "/user/logout", "webLogout", anonymous=True)
def logout(req: ApiRequest, web: Web) -> ApiResponse:
    # Only a session's own user: a token sent along must not sign its owner out.
    if web.session is not None and web.session.user_id and web.user is not None \
            and int(web.user.id) == web.session.user_id:
        accounts.end_sessions(web.user)
    web.sign_out()
    return redirect("/")
