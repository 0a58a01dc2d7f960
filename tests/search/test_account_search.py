"""User search through the account index (userSearch, adminSearchUsers with a keyword
of two or more letters), under moto with the index kept current as commits land."""
from __future__ import annotations

from tests.conftest import ADMIN


def logins(resp) -> list[str]:
    assert resp.status == 200, resp.json
    body = resp.json
    return [u["login"] for u in (body["data"] if isinstance(body, dict) else body)]


def test_keyword_in_name_full_name_and_visible_email(api):
    api.create_user("garden-gnome", full_name="Gnome Keeper", email="gg@plants.test")
    api.create_user("secretive", full_name="Quiet One", email="hidden@plants.test",
                    visibility="private")
    api.create_user("mailer", email="mail@plants.test")
    assert api.patch("/user/settings", token=api.create_token("mailer"),
                     json={"hide_email": True}).status == 200
    token = api.create_token("garden-gnome")
    # Name and full name, any case, anywhere.
    assert logins(api.get("/users/search?q=GNOME")) == ["garden-gnome"]
    assert logins(api.get("/users/search?q=keeper")) == ["garden-gnome"]
    # A private user is found by site admins (and themself) only.
    assert logins(api.get("/users/search?q=quiet")) == []
    assert logins(api.get("/users/search?q=quiet", token=token)) == []
    assert logins(api.get("/admin/users?q=quiet", auth=ADMIN)) == ["secretive"]
    # An address kept private matches only for site admins and its owner.
    assert logins(api.get("/users/search?q=plants.test", token=token)) == ["garden-gnome"]
    assert logins(api.get("/admin/users?q=plants.test", auth=ADMIN)) == [
        "garden-gnome", "mailer", "secretive"]
    resp = api.get("/users/search?q=plants&limit=1&page=1", token=token)
    assert logins(resp) == ["garden-gnome"] and resp.headers["x-total-count"] == "1"


def test_renames_edits_and_deletions_reach_the_index(api):
    api.create_user("oldname", full_name="First Full")
    assert logins(api.get("/users/search?q=oldname")) == ["oldname"]
    assert api.post("/admin/users/oldname/rename", auth=ADMIN,
                    json={"new_username": "newname"}).status == 204
    assert logins(api.get("/users/search?q=oldname")) == []
    assert logins(api.get("/users/search?q=newname")) == ["newname"]
    assert api.patch("/admin/users/newname", auth=ADMIN, json={
        "login_name": "newname", "source_id": 0, "full_name": "Second Full"}).status == 200
    assert logins(api.get("/users/search?q=first")) == []
    assert logins(api.get("/users/search?q=second")) == ["newname"]
    assert api.delete("/admin/users/newname", auth=ADMIN).status == 204
    assert logins(api.get("/users/search?q=second")) == []
