"""A user's own settings (getUserSettings, updateUserSettings): the rules on the
in-memory twin (what changes, what stays, the edge's checks, hide_email and
hide_pronouns in the User record others see), then the routes end to end."""
from __future__ import annotations

import pytest

from chalicelib import accounts
from chalicelib.accounts import records, settings
from chalicelib.accounts.options import UserSettingsOptions
from chalicelib.errors import InvalidInput, PermissionDenied
from tests import memory_scene as scene
from tests.accounts.test_users import assert_matches_forgejo
from tests.conftest import ADMIN

DEFAULTS = {"full_name": "", "website": "", "description": "", "location": "", "pronouns": "",
            "language": "", "theme": "forgejo-auto", "diff_view_style": "",
            "hide_email": False, "hide_activity": False, "hide_pronouns": False,
            "enable_repo_unit_hints": True}


@pytest.mark.fast
def test_settings_start_at_forgejos_defaults_and_only_sent_fields_change(memory):
    alice = scene.user("alice")
    assert records.user_settings(settings.own_settings(alice)) == DEFAULTS
    changed = settings.update_settings(alice, UserSettingsOptions(
        full_name="Alice A", website="https://alice.example", theme="forgejo-dark",
        diff_view_style="split", language="fr-FR", hide_activity=True, pronouns="she/her",
        enable_repo_unit_hints=False))
    expected = dict(DEFAULTS, full_name="Alice A", website="https://alice.example",
                    theme="forgejo-dark", diff_view_style="split", language="fr-FR",
                    hide_activity=True, pronouns="she/her", enable_repo_unit_hints=False)
    assert records.user_settings(changed) == expected
    stored = scene.fresh(alice)
    assert records.user_settings(stored) == expected
    # Left out or null: unchanged; an empty text clears.
    again = settings.update_settings(stored, UserSettingsOptions(full_name=None, website=""))
    assert records.user_settings(again) == dict(expected, website="")
    assert records.user_settings(scene.fresh(alice)) == dict(expected, website="")


@pytest.mark.fast
def test_nothing_is_written_when_nothing_changes(memory):
    alice = scene.user("alice", full_name="Alice")
    version = scene.fresh(alice).version
    settings.update_settings(scene.fresh(alice), UserSettingsOptions(full_name="Alice"))
    settings.update_settings(scene.fresh(alice), UserSettingsOptions())
    assert scene.fresh(alice).version == version


@pytest.mark.fast
def test_the_website_must_be_a_url_and_anonymous_callers_have_no_settings(memory):
    alice = scene.user("alice")
    with pytest.raises(InvalidInput, match=r"\[Website\]: Url"):
        settings.update_settings(alice, UserSettingsOptions(website="javascript:alert(1)"))
    with pytest.raises(PermissionDenied):
        settings.own_settings(None)
    assert scene.fresh(alice).website == ""


@pytest.mark.fast
def test_hide_email_hides_the_address_from_others_but_not_from_self_or_admins(memory):
    alice, bob = scene.user("alice"), scene.user("bob")
    root = scene.user("boss", admin=True)
    assert accounts.user_record(scene.fresh(alice), bob)["email"] == "alice@example.com"
    settings.update_settings(scene.fresh(alice), UserSettingsOptions(hide_email=True))
    hidden = scene.fresh(alice)
    placeholder = accounts.user_record(hidden, None)["email"]     # the no-reply address
    assert placeholder.startswith("alice@") and placeholder != "alice@example.com"
    assert accounts.user_record(hidden, bob)["email"] == placeholder
    assert accounts.user_record(hidden, hidden)["email"] == "alice@example.com"
    assert accounts.user_record(hidden, root)["email"] == "alice@example.com"


@pytest.mark.fast
def test_hide_pronouns_keeps_them_from_anonymous_callers(memory):
    alice, bob = scene.user("alice"), scene.user("bob")
    settings.update_settings(alice, UserSettingsOptions(pronouns="they/them"))
    assert accounts.user_record(scene.fresh(alice), None)["pronouns"] == "they/them"
    settings.update_settings(scene.fresh(alice), UserSettingsOptions(hide_pronouns=True))
    assert accounts.user_record(scene.fresh(alice), None)["pronouns"] == ""
    assert accounts.user_record(scene.fresh(alice), bob)["pronouns"] == "they/them"


@pytest.mark.fast
def test_the_edge_checks_types_and_limits(fast_api):
    scene.user("alice")
    token = fast_api.create_token("alice", scene.PASSWORD)
    for body in ({"hide_email": "yes"}, {"full_name": "x" * 101}, {"language": "toolong"},
                 {"website": "not a url"}, {"theme": 3}, {"location": "two\nlines"}):
        refused = fast_api.patch("/user/settings", token=token, json=body)
        assert refused.status == 422, (body, refused)
        assert "message" in refused.json
    assert fast_api.get("/user/settings", token=token).json == DEFAULTS
    assert fast_api.get("/user/settings").status == 401
    assert fast_api.patch("/user/settings", json={"theme": "x"}).status == 401
    read_only = fast_api.create_token("alice", scene.PASSWORD, scopes=["read:user"], name="ro")
    assert fast_api.get("/user/settings", token=read_only).status == 200
    assert fast_api.patch("/user/settings", token=read_only, json={"theme": "x"}).status == 403


def test_settings_through_the_api(api):
    api.create_user("alice")
    api.create_user("bob")
    alice, bob = api.create_token("alice"), api.create_token("bob")
    got = api.get("/user/settings", token=alice)
    assert got.status == 200
    assert_matches_forgejo(got.json, "UserSettings")
    changed = api.patch("/user/settings", token=alice, json={
        "full_name": "Alice A", "hide_email": True, "description": "hi", "location": "Oslo",
        "theme": "forgejo-light"})
    assert changed.status == 200, changed
    assert_matches_forgejo(changed.json, "UserSettings")
    assert changed.json == dict(DEFAULTS, full_name="Alice A", hide_email=True,
                                description="hi", location="Oslo", theme="forgejo-light")
    assert api.get("/user/settings", token=alice).json == changed.json
    # The profile shows the new texts; the e-mail is hidden from others only.
    seen = api.get("/users/alice", token=bob).json
    assert (seen["full_name"], seen["location"], seen["description"]) == ("Alice A", "Oslo", "hi")
    assert seen["email"] != "alice@example.com" and seen["email"].startswith("alice@")
    assert api.get("/users/alice", token=alice).json["email"] == "alice@example.com"
    assert api.get("/users/alice", auth=ADMIN).json["email"] == "alice@example.com"
    found = api.get("/users/search?q=alice@example", token=bob)
    assert found.json["data"] == []     # a hidden address is not searchable by others
    assert api.patch("/user/settings", token=alice, json={"hide_email": False}).status == 200
    assert api.get("/users/alice", token=bob).json["email"] == "alice@example.com"
