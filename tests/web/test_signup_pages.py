"""Sign-up in the browser (chalicelib/web/signup_pages.py), in-process through the
gateway: closed by default (a 404 page, no link from the sign-in form, NodeInfo says
so); open, it makes an ordinary active account that signs in at once and that the API
then knows, refuses bad input beside its field with nothing made, needs its CSRF token,
and lets one address make only a few accounts an hour."""
from __future__ import annotations

import re

import pytest

from chalicelib.accounts import signup
from chalicelib.settings import overridden
from tests.conftest import ADMIN
from tests.web.test_web_actions import WebUser, error_shown, field_error_shown, text

OPEN = {"NIMBUS__SERVICE__DISABLE_REGISTRATION": "false"}
GOOD = {"user_name": "newbie", "email": "newbie@example.com", "password": "newbie-pass-1",
        "retype": "newbie-pass-1"}


@pytest.fixture(autouse=True)
def full_allowances():
    """Every test's address starts with its whole allowance of sign-ups."""
    signup.forget_allowances()
    yield
    signup.forget_allowances()


@pytest.fixture
def registration(api):
    with overridden(OPEN):
        yield api


def made(api, name: str) -> bool:
    return api.get(f"/users/{name}", auth=ADMIN).status == 200


def test_sign_up_is_not_there_while_registration_is_closed(api):
    visitor = WebUser(api)
    page = visitor.get("/user/sign_up")
    assert page.status == 404 and "<h1>404</h1>" in text(page)
    assert "/user/sign_up" not in text(visitor.get("/user/login"))
    assert WebUser(api).post("/user/sign_up", GOOD).status == 404
    assert not made(api, "newbie")
    assert api.get("/nodeinfo").json["openRegistrations"] is False


def test_signing_up_makes_an_ordinary_account_and_signs_it_in(registration):
    api = registration
    visitor = WebUser(api)
    assert 'href="/user/sign_up"' in text(visitor.get("/user/login"))
    assert api.get("/nodeinfo").json["openRegistrations"] is True
    form = visitor.get("/user/sign_up")
    assert form.status == 200
    for name in ("user_name", "email", "password", "retype", "_csrf"):
        assert f'name="{name}"' in text(form)
    done = visitor.post("/user/sign_up", GOOD, csrf=visitor.token("/user/sign_up"))
    assert done.status == 303 and done.headers["location"] == "/"
    # Signed in: the start page is hers, and the form sends her there.
    assert 'User menu for newbie' in text(visitor.get("/"))
    assert visitor.get("/user/sign_up").headers["location"] == "/"
    # The API knows her; her password signs in; she is nobody special.
    me = api.get("/user", auth=("newbie", "newbie-pass-1"))
    assert me.status == 200 and me.json["login"] == "newbie"
    assert me.json["email"] == "newbie@example.com" and me.json["is_admin"] is False
    assert me.json["active"] is True
    assert WebUser(api).post("/user/login", {"user_name": "newbie",
                                             "password": "newbie-pass-1"}).status == 303
    # Her session works on the pages that need one (not sent to change a password).
    assert visitor.get("/user/settings/account").status == 200


@pytest.mark.parametrize("fields, field, words", [
    ({"user_name": "no spaces"}, "user_name", "invalid name"),
    ({"user_name": "api"}, "user_name", "reserved"),
    ({"user_name": "x" * 41}, "user_name", "MaxSize"),
    ({"user_name": ""}, "user_name", "Required"),
    ({"user_name": "Alice"}, "user_name", "user already exists"),
    ({"email": "ALICE@example.com"}, "email", "e-mail already in use"),
    ({"email": "not-an-address"}, "email", "e-mail invalid"),
    ({"password": "short", "retype": "short"}, "password", "too short"),
    ({"retype": "something-else"}, "retype", "do not match"),
])
def test_bad_input_is_shown_beside_its_field_and_makes_nothing(registration, fields, field,
                                                              words):
    api = registration
    api.create_user("alice")
    before = api.get("/admin/users", auth=ADMIN).json
    sent = {**GOOD, **fields}
    again = WebUser(api).post("/user/sign_up", sent)
    assert again.status == 422 and field_error_shown(again, field, words), text(again)
    # What was typed comes back, passwords never.
    assert f'value="{sent["user_name"]}"' in text(again)
    assert f'value="{sent["email"]}"' in text(again)
    assert f'value="{sent["password"]}"' not in text(again)
    assert api.get("/admin/users", auth=ADMIN).json == before
    assert api.get("/admin/emails/search?q=newbie", auth=ADMIN).json == []


def test_the_form_needs_its_token(registration):
    visitor = WebUser(registration)
    assert visitor.post("/user/sign_up", GOOD, csrf=None).status == 403
    assert visitor.post("/user/sign_up", GOOD, csrf="forged").status == 403
    assert not made(registration, "newbie")


def test_one_address_makes_only_a_few_accounts_an_hour(registration):
    api = registration
    with overridden({"NIMBUS__RATELIMIT__SIGN_UPS_PER_HOUR": "2"}):
        for name in ("first", "second"):
            assert WebUser(api).post("/user/sign_up", {
                **GOOD, "user_name": name, "email": f"{name}@example.com"}).status == 303
        third = WebUser(api).post("/user/sign_up", {**GOOD, "user_name": "third",
                                                    "email": "third@example.com"})
    assert third.status == 429 and error_shown(third, "Too many accounts")
    assert int(third.headers["retry-after"]) > 0
    assert 'value="third"' in text(third)
    assert made(api, "second") and not made(api, "third")


def test_input_the_rules_refuse_outright_takes_none_of_the_allowance(registration):
    api = registration
    with overridden({"NIMBUS__RATELIMIT__SIGN_UPS_PER_HOUR": "1"}):
        for bad in ({"user_name": "no spaces"}, {"retype": "typo"}, {"email": "x"}):
            assert WebUser(api).post("/user/sign_up", {**GOOD, **bad}).status == 422
        assert WebUser(api).post("/user/sign_up", GOOD).status == 303
    assert made(api, "newbie")


def test_the_new_account_s_session_is_a_fresh_one(registration):
    """The anonymous session that carried the form's token is replaced on sign-up: a
    token planted before it is worthless after it."""
    visitor = WebUser(registration)
    before = visitor.token("/user/sign_up")
    assert visitor.post("/user/sign_up", GOOD, csrf=before).status == 303
    after = re.search(r'name="_csrf" value="([^"]+)"', text(visitor.get("/user/settings")))
    assert after and after.group(1) != before
