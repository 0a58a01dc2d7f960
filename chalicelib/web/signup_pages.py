"""Sign-up in the browser: ``GET/POST /user/sign_up`` (Forgejo's address and fields:
``user_name``, ``email``, ``password``, ``retype``).

Served only while ``[service] DISABLE_REGISTRATION`` is off: otherwise both answer the
404 page, as an address that does not exist (the sign-in form then has no link here).
The rules are the accounts domain's (``accounts.sign_up``: the service adminCreateUser
calls, and an allowance of accounts per client address and hour).  A refusal shows the
form again with the message beside its field and the name and address typed (never the
passwords); a success signs the new user in and lands on the start page, as Forgejo's
does.  Someone signed in already is sent to the start page, as Forgejo sends them.
"""
from __future__ import annotations

from chalicelib import accounts, errors
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.settings import get_settings
from chalicelib.web.actions_forms import field_of, fixable_status, posted
from chalicelib.web.view import Web, page, redirect, render

TEMPLATE = "sign_up.html"
PATH = "/user/sign_up"
# The refusals' field names -> the form's: "[Username]: …" and the like, and the
# service's words for a name or address someone holds already.
FIELDS = {"username": "user_name", "email": "email", "password": "password",
          "retype": "retype"}
TAKEN = (("user already exists", "user_name"), ("name is reserved", "user_name"),
         ("e-mail already in use", "email"))


def _form(web: Web, *, name: str = "", email: str = "", status: int = 200,
          **shown) -> ApiResponse:
    return render(web, TEMPLATE, status=status, form_csrf=web.csrf, title="Sign up",
                  user_name=name, email=email,
                  min_password=get_settings().security.MIN_PASSWORD_LENGTH, **shown)


def _refused(web: Web, err: errors.ServiceError, name: str, email: str) -> ApiResponse:
    """The form again with the refusal beside the field it names (else above the form),
    at the status the API would answer."""
    status = fixable_status(err)
    if status is None:
        raise err
    message = getattr(err, "message", "") or str(err)
    field = next((f for words, f in TAKEN if message.startswith(words)), None) \
        or field_of(message, FIELDS)
    if field is None:
        return _form(web, name=name, email=email, status=status, error=message)
    return _form(web, name=name, email=email, status=status, field_errors={field: message})


def _closed() -> None:
    if not accounts.registration_open():
        raise errors.NotFoundError("registration is disabled")


@page("GET", PATH, "webSignUpForm", anonymous=True)
def sign_up_form(req: ApiRequest, web: Web) -> ApiResponse:
    _closed()
    if web.user is not None:
        return redirect("/")
    return _form(web)


@page("POST", PATH, "webSignUp", anonymous=True)
def sign_up(req: ApiRequest, web: Web) -> ApiResponse:
    _closed()
    if web.user is not None:
        return redirect("/")
    form = posted(req)
    name, email = form.get("user_name", "").strip(), form.get("email", "").strip()
    try:
        account = accounts.sign_up(name, email, form.get("password", ""),
                                   form.get("retype", ""), address=req.source_ip)
    except accounts.TooManySignUps as err:
        response = _form(web, name=name, email=email, status=429, error=err.message)
        response.headers["Retry-After"] = str(err.retry_after)
        return response
    except errors.ServiceError as err:
        return _refused(web, err, name, email)
    web.sign_in(account)
    return redirect("/")
