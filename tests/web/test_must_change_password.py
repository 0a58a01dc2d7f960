"""An account whose site admin set ``must_change_password`` (chalicelib/web/view.py,
chalicelib/web/password_pages.py, chalicelib/http/gateway.py), in-process through the
gateway.  On the web it is sent to the change form before any other page (signing out,
the stylesheet and the form stay open); changing clears the flag, signs other browsers
out and keeps this one, which goes on where it was going.  The API refuses it with
Forgejo's 403 whatever it signs in with, token or password, before any scope check, but
an admin's Sudo as it works (Forgejo checks the account that signed in); git refuses it
with Forgejo's 401."""
from __future__ import annotations

from urllib.parse import quote

import pytest

from chalicelib.settings import get_settings
from tests.conftest import ADMIN
from tests.web.test_web_actions import PASSWORD, WebUser, field_error_shown, text

NEW_PASSWORD = "a-new-secret-2"
CHANGE = "/user/settings/change_password"


def must_change_message() -> str:
    # Forgejo's words; its AppURL ends in "/" as ours does, hence the two slashes.
    return ("You must change your password. Change it at: " + get_settings().app_url
            + "/user/change_password")


@pytest.fixture
def newbie(api):
    """newbie, with a token and a public repository made before the admin asked for a
    new password; alice, who has nothing to change."""
    api.create_user("newbie")
    api.create_user("alice")
    token = api.create_token("newbie")
    assert api.post("/user/repos", token=token, json={"name": "proj",
                                                      "auto_init": True}).status == 201
    assert api.patch("/admin/users/newbie", auth=ADMIN,
                     json={"must_change_password": True}).status == 200
    return token


def change(user: WebUser, fields: dict, *, redirect_to: str = "/"):
    return user.post(CHANGE, {"redirect_to": redirect_to, **fields},
                     csrf=user.token(CHANGE))


def test_every_page_leads_to_the_form_first(api, newbie):
    user = WebUser(api).sign_in("newbie")
    for path in ("/", "/newbie/proj", "/user/settings/account", "/repo/create",
                 "/explore/repos?q=proj"):
        sent = user.get(path)
        assert sent.status == 303, path
        assert sent.headers["location"] == f"{CHANGE}?redirect_to={quote(path, safe='')}"
    # A form posted elsewhere does nothing and leads there too.
    posted = user.post("/repo/create", {"repo_name": "nope"}, csrf=user.token(CHANGE))
    assert posted.status == 303 and posted.headers["location"] == CHANGE
    assert api.get("/repos/newbie/nope", auth=ADMIN).status == 404
    # What stays open: the form, the stylesheet, the address the API names.
    form = user.get(CHANGE + "?redirect_to=/newbie/proj")
    assert form.status == 200 and 'name="old_password"' in text(form)
    assert 'name="redirect_to" value="/newbie/proj"' in text(form)
    assert user.get("/assets/nimbus.css").status == 200
    assert user.get("/user/change_password").headers["location"] == CHANGE
    # Signing out works.
    out = user.post("/user/logout", {}, csrf=user.token(CHANGE))
    assert out.status == 303 and user.get("/repo/create").headers["location"] \
        .startswith("/user/login?")


def test_changing_clears_the_flag_and_ends_the_other_sessions(api, newbie):
    other = WebUser(api).sign_in("newbie")
    user = WebUser(api).sign_in("newbie")
    for fields, field, words in (
            ({"old_password": "not-it", "password": NEW_PASSWORD, "retype": NEW_PASSWORD},
             "old_password", "not correct"),
            ({"old_password": PASSWORD, "password": NEW_PASSWORD, "retype": "other-one-1"},
             "retype", "do not match"),
            ({"old_password": PASSWORD, "password": "short", "retype": "short"},
             "password", "too short")):
        refused = change(user, fields)
        assert refused.status == 422 and field_error_shown(refused, field, words)
        assert NEW_PASSWORD not in text(refused)
    # Nothing changed: still refused by the API, still sent to the form.
    assert api.get("/user", token=newbie).status == 403
    assert user.get("/").status == 303
    done = change(user, {"old_password": PASSWORD, "password": NEW_PASSWORD,
                         "retype": NEW_PASSWORD}, redirect_to="/newbie/proj")
    assert done.status == 303 and done.headers["location"] == "/newbie/proj"
    # This browser goes on; the other was signed out; the API takes the token again.
    assert user.get("/newbie/proj").status == 200
    assert "User menu for newbie" in text(user.get("/"))
    assert other.get("/user/settings").headers["location"].startswith("/user/login?")
    me = api.get("/user", token=newbie)
    assert me.status == 200 and me.json["login"] == "newbie"
    assert api.get("/user", auth=("newbie", NEW_PASSWORD)).status == 200
    # With nothing left to change, the form sends her to the start page.
    assert user.get(CHANGE).headers["location"] == "/"


def test_someone_with_nothing_to_change_never_sees_the_form(api, newbie):
    alice = WebUser(api).sign_in("alice")
    assert alice.get(CHANGE).headers["location"] == "/"
    sent = alice.post(CHANGE, {"old_password": PASSWORD, "password": NEW_PASSWORD,
                               "retype": NEW_PASSWORD}, csrf=alice.token("/"))
    assert sent.status == 303 and sent.headers["location"] == "/"
    assert api.get("/user", auth=("alice", PASSWORD)).status == 200    # unchanged
    assert WebUser(api).get(CHANGE).headers["location"].startswith("/user/login?")


def test_the_api_refuses_every_credential_as_forgejo_does(api, newbie):
    for credentials in ({"token": newbie}, {"auth": ("newbie", PASSWORD)}):
        refused = api.get("/user", **credentials)
        assert refused.status == 403
        assert refused.json == {"message": must_change_message()}
        assert api.get("/repos/newbie/proj", **credentials).status == 403
    # Before the token's own scope is looked at.
    narrow = api.post("/users/alice/tokens", auth=("alice", PASSWORD),
                      json={"name": "n", "scopes": ["read:repository"]}).json["sha1"]
    before = api.get("/user/emails", token=narrow)        # needs read:user
    assert before.status == 403 and "required scope" in before.json["message"]
    assert api.patch("/admin/users/alice", auth=ADMIN,
                     json={"must_change_password": True}).status == 200
    scoped = api.get("/user/emails", token=narrow)
    assert scoped.status == 403 and scoped.json == {"message": must_change_message()}
    # Sudo acts as the account, but the one that signed in is the admin.
    sudo = api.get("/user?sudo=newbie", auth=ADMIN)
    assert sudo.status == 200 and sudo.json["login"] == "newbie"
    # Anonymous reads are nobody's: they go on.
    assert api.get("/repos/newbie/proj").status == 200


def test_git_refuses_it_with_forgejo_s_answer(api, newbie):
    refused = api.get("/newbie/proj.git/info/refs?service=git-upload-pack", raw=True,
                      token=newbie, headers={"User-Agent": "git/2.43.0"})
    assert refused.status == 401 and refused.body.decode().strip() == "Update your password"
    alice = api.get("/newbie/proj.git/info/refs?service=git-upload-pack", raw=True,
                    auth=("alice", PASSWORD), headers={"User-Agent": "git/2.43.0"})
    assert alice.status == 200


def test_the_way_on_stays_on_this_site(api, newbie):
    user = WebUser(api).sign_in("newbie")
    done = change(user, {"old_password": PASSWORD, "password": NEW_PASSWORD,
                         "retype": NEW_PASSWORD}, redirect_to="//evil.example/x")
    assert done.status == 303 and done.headers["location"] == "/"
