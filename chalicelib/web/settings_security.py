"""The signed-in user's security settings, at Forgejo's URLs: two-factor authentication
and security keys.

- ``GET /user/settings/security``: whether two-factor sign-in is on, the recovery codes
  left, the forms to regenerate them and to turn it off (with a current code or the
  password);
- ``GET /user/settings/security/two_factor/enroll``: a new secret as a QR code (``segno``,
  an SVG image in a ``data:`` URL, so the page holds no SVG markup and loads nothing) and
  as text, and the form that confirms it with a current code;
  ``POST`` there turns it on and shows the recovery codes, this once;
- ``POST …/two_factor/regenerate_scratch``: new recovery codes in place of the old, shown
  this once;
- ``POST …/two_factor/disable``: off, proved by a code or the password (each attempt
  counted as a sign-in attempt from this address is);
- security keys (WebAuthn), listed on the page: ``POST …/webauthn/request_register``
  with a name shows the page that registers a key (the ceremony's options, a challenge
  stored for this user, for ``static/webauthn.js``); the key's answer is posted to
  ``POST …/webauthn/register``, which adds the key once py_webauthn verified it;
  ``POST …/webauthn/delete`` removes one.

The rules are the accounts domain's (``accounts.two_factor``); the secret travels between
the two enrolment requests sealed in the form (nothing is stored until it is confirmed).
"""
from __future__ import annotations

from chalicelib import accounts, errors
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.web.actions_forms import posted, show_form
from chalicelib.web.view import Web, asset_url, page, redirect

PATH = "/user/settings/security"
ENROL = PATH + "/two_factor/enroll"
SECURITY = "user_settings/security.html"
ENROLMENT = "user_settings/two_factor_enroll.html"
CODES = "user_settings/recovery_codes.html"
KEY_REGISTRATION = "user_settings/security_key_register.html"
# The rules' field names in a refusal -> the forms' fields.
FIELDS = {"passcode": "passcode", "password": "password", "name": "key_name"}
# What the page says after a key was added or removed (?webauthn=…).
KEY_NEWS = {"added": "The security key was added.", "deleted": "The security key was removed."}


def qr_image(text: str) -> str:
    """A QR code of ``text`` as a ``data:`` URL of an SVG image (segno, imported here only)."""
    import segno

    return segno.make(text, error="m").svg_data_uri(scale=4, border=2, dark="#000",
                                                    light="#fff")


def _security(web: Web, *, status: int = 200, **values) -> ApiResponse:
    return show_form(web, SECURITY, status=status, title="Security",
                     two_factor=accounts.two_factor_state(web.user), **values)


@page("GET", PATH, "webUserSettingsSecurity", signed_in=True)
def security(req: ApiRequest, web: Web) -> ApiResponse:
    return _security(web, disabled=req.arg("two_factor") == "disabled",
                     key_news=KEY_NEWS.get(req.arg("webauthn") or "", ""))


def _enrolment_page(web: Web, enrolment, *, err: errors.ServiceError | None = None):
    return show_form(web, ENROLMENT, error=err, fields=FIELDS,
                     title="Enable two-factor authentication", enrolment=enrolment,
                     qr=qr_image(enrolment.uri))


@page("GET", ENROL, "webTwoFactorEnrollForm", signed_in=True)
def enrol_form(req: ApiRequest, web: Web) -> ApiResponse:
    try:
        return _enrolment_page(web, accounts.start_two_factor(web.user))
    except errors.AlreadyExists:
        return redirect(PATH)


@page("POST", ENROL, "webTwoFactorEnroll", signed_in=True)
def enrol(req: ApiRequest, web: Web) -> ApiResponse:
    form = posted(req)
    sealed = form.get("enrolment", "")
    try:
        enrolment = accounts.resume_two_factor(web.user, sealed)
    except errors.InvalidInput as err:      # expired, or not this user's: a fresh secret
        try:
            return _enrolment_page(web, accounts.start_two_factor(web.user), err=err)
        except errors.AlreadyExists:
            return redirect(PATH)
    try:
        codes = accounts.enable_two_factor(web.user, sealed, form.get("passcode", ""))
    except errors.AlreadyExists:            # on already (another tab): nothing to show
        return redirect(PATH)
    except errors.InvalidInput as err:
        return _enrolment_page(web, enrolment, err=err)
    return show_form(web, CODES, title="Recovery codes", codes=codes, enabled=True)


@page("POST", PATH + "/two_factor/regenerate_scratch", "webTwoFactorRegenerate",
      signed_in=True)
def regenerate(req: ApiRequest, web: Web) -> ApiResponse:
    codes = accounts.regenerate_recovery_codes(web.user)
    return show_form(web, CODES, title="Recovery codes", codes=codes, enabled=False)


@page("POST", PATH + "/two_factor/disable", "webTwoFactorDisable", signed_in=True)
def disable(req: ApiRequest, web: Web) -> ApiResponse:
    form = posted(req)
    try:
        accounts.disable_two_factor(web.user, passcode=form.get("passcode", "").strip(),
                                    password=form.get("password", ""),
                                    address=req.source_ip)
    except errors.InvalidInput as err:
        message = err.message
        field = "password" if message.startswith("[Password]") else "passcode"
        return _security(web, status=422, field_errors={field: message})
    except accounts.TwoFactorHeldBack as err:   # too many failed attempts from here
        response = _security(web, status=429, error=err.message)
        response.headers["Retry-After"] = str(err.retry_after)
        return response
    return redirect(PATH + "?two_factor=disabled")


# Security keys -------------------------------------------------------------------------

@page("POST", PATH + "/webauthn/request_register", "webWebAuthnRequestRegister",
      signed_in=True)
def key_request(req: ApiRequest, web: Web) -> ApiResponse:
    name = posted(req).get("name", "")
    try:
        ceremony = accounts.start_key_registration(web.user, name)
    except (errors.InvalidInput, errors.AlreadyExists) as err:
        return show_form(web, SECURITY, error=err, fields=FIELDS, title="Security",
                         two_factor=accounts.two_factor_state(web.user), key_name=name)
    return show_form(web, KEY_REGISTRATION, title="Add a security key", ceremony=ceremony,
                     script=asset_url("webauthn.js"))


@page("POST", PATH + "/webauthn/register", "webWebAuthnRegister", signed_in=True)
def key_register(req: ApiRequest, web: Web) -> ApiResponse:
    form = posted(req)
    try:
        accounts.finish_key_registration(web.user, form.get("name", ""),
                                         form.get("credential", ""))
    except (errors.InvalidInput, errors.AlreadyExists, errors.ConflictError) as err:
        return show_form(web, SECURITY, error=err, fields=FIELDS, title="Security",
                         two_factor=accounts.two_factor_state(web.user),
                         key_name=form.get("name", ""))
    return redirect(PATH + "?webauthn=added")


@page("POST", PATH + "/webauthn/delete", "webWebAuthnDelete", signed_in=True)
def key_delete(req: ApiRequest, web: Web) -> ApiResponse:
    accounts.delete_security_key(web.user, posted(req).get("id", ""))   # 404 page if none
    return redirect(PATH + "?webauthn=deleted")
