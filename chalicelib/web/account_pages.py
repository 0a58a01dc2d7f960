"""Sign in and out: ``GET/POST /user/login``, ``POST /user/logout``, and the second step
of a sign-in with two-factor authentication: ``GET/POST /user/webauthn`` (a security
key), ``GET/POST /user/two_factor`` (a code of the authenticator) and ``GET/POST
/user/two_factor/scratch`` (a recovery code), at Forgejo's paths.  An account with a
security key is sent to the key first, as Forgejo sends it, with links to the code
forms when it has TOTP too.

Signing out ends the session server-side (the account's session generation moves on),
so a copy of the cookie kept from before is refused too; it ends the user's sessions in
other browsers as well.

The password check is the API's Basic one (``accounts.password_sign_in``: throttled per
client address, docs/security.md); an e-mail address is first mapped to its login.  A
failed sign-in re-shows the form with one message whatever was wrong, so the form does
not tell which names exist; an address held back gets the form with status 429 and
``Retry-After``.  For an account with two-factor sign-in on, the right password signs
nobody in: it leaves a pending sign-in (``sign_in_pending``: a signed cookie of a few
minutes, bound to this browser's visitor session) and the second step asks the code;
only then is the session issued.  ``redirect_to`` is carried through both steps, inside
the signed value.  The key's step page carries the ceremony's options (a challenge made
for this account's sign-in, ``accounts.start_key_sign_in``) for ``static/webauthn.js``,
which asks the browser for the key's signature and posts it with the form.
"""
from __future__ import annotations

import math

from chalicelib import accounts, webhooks
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.web import sign_in_pending
from chalicelib.web.actions_forms import posted
from chalicelib.web.view import Web, asset_url, page, redirect, render, site_target

FAILED = "Username or password is incorrect."
WRONG_CODE = "The code is not correct, or it was used already."
WRONG_RECOVERY_CODE = "The recovery code is not correct, or it was used already."
WRONG_KEY = ("The security key did not sign you in (it was not one of yours, or the request "
             "had expired). Try again.")
# The second step's forms: address, the accounts rule that checks it, the refusal, the
# posted field.
STEPS = {"totp": ("/user/two_factor", "second_factor_sign_in", WRONG_CODE, "passcode"),
         "scratch": ("/user/two_factor/scratch", "recovery_sign_in", WRONG_RECOVERY_CODE,
                     "token"),
         "webauthn": ("/user/webauthn", "security_key_sign_in", WRONG_KEY, "credential")}


def _login_name(given: str) -> str:
    if "@" in given:
        return webhooks.usernames([given]).get(given.lower(), "")
    return given


def _held_back(seconds: int) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    return (f"Too many failed sign-in attempts from your address. Try again in {minutes} "
            f"minute{'s' if minutes > 1 else ''}.")


def _throttled(response: ApiResponse, seconds: int) -> ApiResponse:
    response.headers["Retry-After"] = str(seconds)
    return response


@page("GET", "/user/login", "webLoginForm", anonymous=True)
def login_form(req: ApiRequest, web: Web) -> ApiResponse:
    if web.user is not None:
        return redirect(site_target(req.arg("redirect_to")))
    return render(web, "login.html", title="Sign in", form_csrf=web.csrf,
                  redirect_to=site_target(req.arg("redirect_to")), user_name="")


@page("POST", "/user/login", "webLogin", anonymous=True)
def login(req: ApiRequest, web: Web) -> ApiResponse:
    form = posted(req)
    given = (form.get("user_name") or "").strip()
    password = form.get("password") or ""
    target = site_target(form.get("redirect_to"))
    shown = {"title": "Sign in", "form_csrf": web.csrf, "redirect_to": target,
             "user_name": given}
    name = (_login_name(given) or given) if given else ""
    signed = accounts.password_sign_in(name, password, address=req.source_ip)
    if signed.throttled:
        return _throttled(render(web, "login.html", status=429,
                                 error=_held_back(signed.retry_after), **shown),
                          signed.retry_after)
    account = signed.account
    if account is not None and (account.prohibit_login or not account.active):
        account = None
    if account is None:
        return render(web, "login.html", status=200, error=FAILED, **shown)
    if accounts.has_two_factor(account):
        first = "webauthn" if accounts.has_security_keys(account) else "totp"
        response = redirect(STEPS[first][0])
        response.multi_headers.setdefault("Set-Cookie", []).append(
            sign_in_pending.issue(account, web.session, target))
        return response
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


# The second step -----------------------------------------------------------------------

def _pending(req: ApiRequest, web: Web):
    """(account, target) of this browser's pending sign-in, or None: no cookie, expired,
    altered, another browser's, or the account changed (password, disabled, second
    factor removed) since the password was given."""
    claimed = sign_in_pending.claimed_user(req.headers)
    if claimed is None or web.session is None:
        return None
    account = accounts.account_by_id(claimed[0])
    if account is None or account.prohibit_login or not account.active \
            or not accounts.has_two_factor(account) \
            or not sign_in_pending.verified(req.headers, account, web.session):
        return None
    return account, claimed[2]


def _start_again(web: Web) -> ApiResponse:
    """Back to the password: nothing pending (or no longer) in this browser."""
    response = redirect("/user/login")
    response.multi_headers.setdefault("Set-Cookie", []).append(sign_in_pending.clear())
    return response


def _step_form(web: Web, step: str, account, *, status: int = 200,
               error: str = "") -> ApiResponse:
    values = {"title": "Two-factor authentication", "form_csrf": web.csrf, "step": step,
              "action": STEPS[step][0], "error": error,
              "totp": accounts.has_totp(account), "keys": accounts.has_security_keys(account)}
    if step != "webauthn":
        return render(web, "two_factor.html", status=status, **values)
    # A fresh challenge for each showing (each serves one answer); none while the
    # address is held back: nothing would be checked.
    options = accounts.start_key_sign_in(account).options if status != 429 else ""
    return render(web, "webauthn.html", status=status, options=options,
                  script=asset_url("webauthn.js"), **values)


def _show_step(req: ApiRequest, web: Web, step: str) -> ApiResponse:
    if web.user is not None:
        return redirect("/")
    pending = _pending(req, web)
    if pending is None:
        return _start_again(web)
    account = pending[0]
    if step == "webauthn" and not accounts.has_security_keys(account):
        return redirect(STEPS["totp"][0])
    if step != "webauthn" and not accounts.has_totp(account):
        return redirect(STEPS["webauthn"][0])
    return _step_form(web, step, account)


def _take_step(req: ApiRequest, web: Web, step: str) -> ApiResponse:
    if web.user is not None:
        return redirect("/")
    pending = _pending(req, web)
    if pending is None:
        return _start_again(web)
    account, target = pending
    _, rule, wrong, field = STEPS[step]
    signed = getattr(accounts, rule)(account, posted(req).get(field, "").strip(),
                                     address=req.source_ip)
    if signed.throttled:
        return _throttled(_step_form(web, step, account, status=429,
                                     error=_held_back(signed.retry_after)), signed.retry_after)
    if signed.account is None:
        if step == "webauthn" and not accounts.has_security_keys(account):
            return redirect(STEPS["totp"][0])       # the keys were removed meanwhile
        return _step_form(web, step, account, error=wrong)
    web.sign_in(signed.account)
    response = redirect(target)
    response.multi_headers.setdefault("Set-Cookie", []).append(sign_in_pending.clear())
    return response


@page("GET", "/user/two_factor", "webTwoFactorForm", anonymous=True)
def two_factor_form(req: ApiRequest, web: Web) -> ApiResponse:
    return _show_step(req, web, "totp")


@page("POST", "/user/two_factor", "webTwoFactor", anonymous=True)
def two_factor(req: ApiRequest, web: Web) -> ApiResponse:
    return _take_step(req, web, "totp")


@page("GET", "/user/two_factor/scratch", "webTwoFactorScratchForm", anonymous=True)
def scratch_form(req: ApiRequest, web: Web) -> ApiResponse:
    return _show_step(req, web, "scratch")


@page("POST", "/user/two_factor/scratch", "webTwoFactorScratch", anonymous=True)
def scratch(req: ApiRequest, web: Web) -> ApiResponse:
    return _take_step(req, web, "scratch")


@page("GET", "/user/webauthn", "webWebAuthnForm", anonymous=True)
def webauthn_form(req: ApiRequest, web: Web) -> ApiResponse:
    return _show_step(req, web, "webauthn")


@page("POST", "/user/webauthn", "webWebAuthn", anonymous=True)
def webauthn(req: ApiRequest, web: Web) -> ApiResponse:
    return _take_step(req, web, "webauthn")
