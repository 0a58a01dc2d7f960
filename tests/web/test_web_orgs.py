"""Organization pages (chalicelib/web/org_*.py and the profiles), in-process under moto
through the gateway: what profiles show of organizations and their members, the teams
pages and forms, the settings and the new-organization form, each checked against what
the API answers afterwards; refusals as the API refuses (404 for a private
organization, 403 for a member who is not an owner), CSRF required."""
from __future__ import annotations

import pytest

from tests.web.test_web_actions import WebUser, field_error_shown, text


@pytest.fixture
def org_scene(api):
    """alice owns public ``acme`` (its Owners team, a ``devs`` write team with bob in it,
    repository ``tool``) and private ``hidden`` (bob a concealed member); bob made his
    ``acme`` membership public; carol and dave are strangers, dave owning nothing."""
    for name in ("alice", "bob", "carol", "dave"):
        api.create_user(name)
    tokens = {n: api.create_token(n) for n in ("alice", "bob")}
    alice = tokens["alice"]
    for org, visibility in (("acme", "public"), ("hidden", "private")):
        assert api.post("/orgs", token=alice, json={"username": org,
                                                    "visibility": visibility}).status == 201
    devs = api.post("/orgs/acme/teams", token=alice, json={"name": "devs",
                                                           "permission": "write"}).json
    secret = api.post("/orgs/hidden/teams", token=alice, json={"name": "few"}).json
    assert api.put(f"/teams/{devs['id']}/members/bob", token=alice).status == 204
    assert api.put(f"/teams/{secret['id']}/members/bob", token=alice).status == 204
    assert api.put("/orgs/acme/public_members/bob", token=tokens["bob"]).status == 204
    assert api.post("/orgs/acme/repos", token=alice, json={"name": "tool"}).status == 201
    users = {n: WebUser(api).sign_in(n) for n in ("alice", "bob", "carol", "dave")}
    return dict(users, tokens=tokens, devs=devs, anonymous=WebUser(api))


def _api_team(api, token, name="devs"):
    found = api.get("/orgs/acme/teams", token=token).json
    return next((t for t in found if t["name"] == name), None)


def test_org_profile_members_and_teams(api, org_scene):
    page = text(org_scene["alice"].get("/acme"))
    assert 'aria-label="Members"' in page and ">bob<" in page and ">alice<" in page
    assert 'href="/org/acme/teams/devs"' in page and 'href="/org/acme/settings"' in page
    assert "tool" in page
    # A stranger sees the public members only, and no teams or settings.
    stranger = text(org_scene["carol"].get("/acme"))
    assert ">bob<" in stranger and ">alice<" not in stranger
    assert "/org/acme/teams" not in stranger and "/org/acme/settings" not in stranger


def test_user_profile_lists_public_memberships(api, org_scene):
    # bob: public in acme, concealed in private hidden.
    for viewer in ("carol", "anonymous"):
        page = text(org_scene[viewer].get("/bob"))
        assert 'href="/acme"' in page and 'href="/hidden"' not in page
    own = text(org_scene["bob"].get("/bob"))
    assert 'href="/acme"' in own and 'href="/hidden"' in own
    # bob has no repositories of his own: the page says where his work is.
    assert "no repositories of their own" in own and "No repositories." not in own
    assert "Organizations" not in text(org_scene["carol"].get("/dave"))


def test_members_page(api, org_scene):
    alice, bob = org_scene["alice"], org_scene["bob"]
    page = text(alice.get("/org/acme/members"))
    assert ">bob<" in page and "Remove bob" in page
    assert "Remove" not in text(bob.get("/org/acme/members"))
    assert ">alice<" not in text(org_scene["carol"].get("/org/acme/members"))
    # A member who is not an owner may not remove anyone.
    assert bob.post("/org/acme/members/action/remove", {"user": "alice"}).status == 403
    # The last owner stays, with the service's message on the page.
    last = alice.post("/org/acme/members/action/remove", {"user": "alice"})
    assert last.status == 422 and "last owner" in text(last)
    gone = alice.post("/org/acme/members/action/remove", {"user": "bob"})
    assert gone.status == 303 and gone.headers["location"] == "/org/acme/members"
    assert api.get("/orgs/acme/members/bob",
                   token=org_scene["tokens"]["alice"]).status == 404


def test_team_lifecycle(api, org_scene):
    alice, token = org_scene["alice"], org_scene["tokens"]["alice"]
    assert 'name="team_name"' in text(alice.get("/org/acme/teams/new"))
    made = alice.post("/org/acme/teams/new", [
        ("team_name", "ops"), ("description", "runs things"), ("permission", "write"),
        ("units", "repo.code"), ("units", "repo.issues")])
    assert made.status == 303 and made.headers["location"] == "/org/acme/teams/ops"
    team = _api_team(api, token, "ops")
    assert team["permission"] == "write" and sorted(team["units"]) == ["repo.code",
                                                                       "repo.issues"]
    assert "ops" in text(alice.get("/org/acme/teams"))
    # The same name again is refused beside the field, nothing written.
    again = alice.post("/org/acme/teams/new", {"team_name": "OPS", "permission": "read"})
    assert again.status == 422 and field_error_shown(again, "team_name", "OPS")
    # Members: an unknown user beside the field; then carol joins and leaves.
    unknown = alice.post("/org/acme/teams/ops/action/add", {"uname": "nobody"})
    assert unknown.status == 422 and field_error_shown(unknown, "uname", "nobody")
    assert alice.post("/org/acme/teams/ops/action/add", {"uname": "carol"}).status == 303
    members = api.get(f"/teams/{team['id']}/members", token=token).json
    assert [m["login"] for m in members] == ["carol"]
    assert ">carol<" in text(alice.get("/org/acme/teams/ops"))
    assert alice.post("/org/acme/teams/ops/action/remove", {"user": "carol"}).status == 303
    assert api.get(f"/teams/{team['id']}/members", token=token).json == []
    # Repositories: an unknown one beside the field; tool is added, then removed.
    missing = alice.post("/org/acme/teams/ops/action/repo/add", {"repo_name": "nope"})
    assert missing.status == 422 and field_error_shown(missing, "repo_name", "nope")
    added = alice.post("/org/acme/teams/ops/action/repo/add", {"repo_name": "tool"})
    assert added.status == 303
    assert added.headers["location"] == "/org/acme/teams/ops/repositories"
    assert "acme/tool" in text(alice.get("/org/acme/teams/ops/repositories"))
    repos = api.get(f"/teams/{team['id']}/repos", token=token).json
    assert [r["name"] for r in repos] == ["tool"]
    assert alice.post("/org/acme/teams/ops/action/repo/remove",
                      {"repo_name": "tool"}).status == 303
    assert api.get(f"/teams/{team['id']}/repos", token=token).json == []
    # Edit: renamed, read permission; then deleted.
    assert 'value="ops"' in text(alice.get("/org/acme/teams/ops/edit"))
    edited = alice.post("/org/acme/teams/ops/edit", [
        ("team_name", "operators"), ("description", "new words"), ("permission", "read"),
        ("units", "repo.code")])
    assert edited.status == 303 and edited.headers["location"] == "/org/acme/teams/operators"
    record = api.get(f"/teams/{team['id']}", token=token).json
    assert (record["name"], record["description"], record["permission"]) == \
        ("operators", "new words", "read")
    assert alice.post("/org/acme/teams/operators/delete", {}).status == 303
    assert api.get(f"/teams/{team['id']}", token=token).status == 404
    # The Owners team cannot be deleted: the team page says so.
    owners = alice.post("/org/acme/teams/Owners/delete", {})
    assert owners.status == 422 and "Owners team cannot be deleted" in text(owners)


def test_member_who_is_not_owner(api, org_scene):
    bob = org_scene["bob"]
    assert ">devs<" in text(bob.get("/org/acme/teams")) or "devs</strong>" in text(
        bob.get("/org/acme/teams"))
    page = text(bob.get("/org/acme/teams/devs"))
    assert ">bob<" in page and "action/add" not in page and "Edit team" not in page
    assert bob.get("/org/acme/settings").status == 404
    assert bob.get("/org/acme/teams/new").status == 404
    assert bob.get("/org/acme/teams/devs/edit").status == 404
    # Posts with nothing changed are refused as the API refuses them.
    before = _api_team(api, org_scene["tokens"]["alice"])
    assert bob.post("/org/acme/teams/devs/edit", {"team_name": "devs",
                                                  "permission": "write"}).status == 403
    assert bob.post("/org/acme/teams/devs/delete", {}).status == 403
    assert bob.post("/org/acme/teams/devs/action/add", {"uname": "carol"}).status == 403
    assert bob.post("/org/acme/teams/new", {"team_name": "mine"}).status == 403
    assert bob.post("/org/acme/settings", {"description": "bob was here",
                                           "visibility": "public"}).status == 403
    assert bob.post("/org/acme/settings/delete", {"confirm_name": "acme"}).status == 403
    assert _api_team(api, org_scene["tokens"]["alice"]) == before
    assert api.get("/orgs/acme").json["description"] == ""
    # Strangers do not see the teams at all.
    assert org_scene["carol"].get("/org/acme/teams").status == 404
    assert org_scene["carol"].get("/org/acme/teams/devs").status == 404


def test_org_settings(api, org_scene):
    alice = org_scene["alice"]
    page = text(alice.get("/org/acme/settings"))
    assert 'name="full_name"' in page and 'name="repo_admin_change_team_access"' in page
    saved = alice.post("/org/acme/settings", {
        "full_name": "Acme Inc", "description": "we make things",
        "website": "https://acme.example", "location": "Earth", "visibility": "limited",
        "repo_admin_change_team_access": "on"})
    assert saved.status == 303
    record = api.get("/orgs/acme", token=org_scene["tokens"]["alice"]).json
    assert (record["full_name"], record["website"], record["visibility"],
            record["repo_admin_change_team_access"]) == \
        ("Acme Inc", "https://acme.example", "limited", True)
    bad = alice.post("/org/acme/settings", {"full_name": "X", "website": "ftp://nope",
                                            "visibility": "public"})
    assert bad.status == 422 and field_error_shown(bad, "website", "Url")
    assert 'value="ftp://nope"' in text(bad)
    assert api.get("/orgs/acme", token=org_scene["tokens"]["alice"]).json["full_name"] \
        == "Acme Inc"


def test_org_delete(api, org_scene):
    alice, token = org_scene["alice"], org_scene["tokens"]["alice"]
    wrong = alice.post("/org/acme/settings/delete", {"confirm_name": "acne"})
    assert wrong.status == 422 and field_error_shown(wrong, "confirm_name", "name")
    owns = alice.post("/org/acme/settings/delete", {"confirm_name": "acme"})
    assert owns.status == 422 and field_error_shown(owns, "confirm_name", "repositories")
    assert api.get("/orgs/acme", token=token).status == 200
    assert api.delete("/repos/acme/tool", token=token).status == 204
    done = alice.post("/org/acme/settings/delete", {"confirm_name": "acme"})
    assert done.status == 303 and api.get("/orgs/acme", token=token).status == 404


def test_org_create(api, org_scene):
    alice = org_scene["alice"]
    assert 'name="org_name"' in text(alice.get("/org/create"))
    made = alice.post("/org/create", {"org_name": "newco", "visibility": "private"})
    assert made.status == 303 and made.headers["location"] == "/newco"
    record = api.get("/orgs/newco", token=org_scene["tokens"]["alice"]).json
    assert record["visibility"] == "private"
    assert "newco" in text(alice.get("/newco"))
    taken = alice.post("/org/create", {"org_name": "bob", "visibility": "public"})
    assert taken.status == 422 and field_error_shown(taken, "org_name", "taken")
    assert 'value="bob"' in text(taken)
    bad = alice.post("/org/create", {"org_name": "no spaces", "visibility": "public"})
    assert bad.status == 422 and field_error_shown(bad, "org_name", "UserName")
    assert org_scene["anonymous"].get("/org/create").status == 303


def test_private_org_is_not_found_to_strangers(api, org_scene):
    for viewer in ("carol", "anonymous"):
        for path in ("/hidden", "/org/hidden/members", "/org/hidden/teams",
                     "/org/hidden/teams/few", "/org/hidden/settings",
                     "/org/hidden/teams/new", "/org/hidden/teams/few/edit"):
            status = org_scene[viewer].get(path).status
            assert status == (303 if viewer == "anonymous" and path in (
                "/org/hidden/settings", "/org/hidden/teams/new",
                "/org/hidden/teams/few/edit") else 404), (viewer, path, status)
    carol = org_scene["carol"]
    for path, fields in (("/org/hidden/members/action/remove", {"user": "bob"}),
                         ("/org/hidden/teams/few/action/add", {"uname": "carol"}),
                         ("/org/hidden/teams/few/delete", {}),
                         ("/org/hidden/settings", {"visibility": "public"}),
                         ("/org/hidden/settings/delete", {"confirm_name": "hidden"})):
        assert carol.post(path, fields).status == 404, path
    assert org_scene["bob"].get("/org/hidden/teams/few").status == 200


def test_csrf_is_required(api, org_scene):
    alice = org_scene["alice"]
    for path, fields in (("/org/create", {"org_name": "x1", "visibility": "public"}),
                         ("/org/acme/teams/new", {"team_name": "x2"}),
                         ("/org/acme/teams/devs/action/add", {"uname": "carol"}),
                         ("/org/acme/settings", {"visibility": "private"}),
                         ("/org/acme/settings/delete", {"confirm_name": "acme"})):
        assert alice.post(path, fields, csrf=None).status == 403, path
    assert api.get("/orgs/x1").status == 404 and _api_team(
        api, org_scene["tokens"]["alice"], "x2") is None
    assert api.get("/orgs/acme").json["visibility"] == "public"


def test_team_repositories_follow_a_rename(api, org_scene):
    """A team's repositories are read by the keys their links were written with; one
    whose key moved since (its organization renamed) is still listed, found by its id,
    on the page and in the API."""
    alice, bob, token = org_scene["alice"], org_scene["bob"], org_scene["tokens"]["alice"]
    assert alice.post("/org/acme/teams/devs/action/repo/add",
                      {"repo_name": "tool"}).status == 303
    assert api.post("/orgs/acme/rename", token=token, json={"new_name": "acmeco"}).status == 204
    page = text(bob.get("/org/acmeco/teams/devs/repositories"))
    assert "acmeco/tool" in page and "Remove acmeco/tool" not in page   # not an owner
    owner_page = text(alice.get("/org/acmeco/teams/devs/repositories"))
    assert 'aria-label="Remove acmeco/tool from team devs"' in owner_page
    listed = api.get(f"/teams/{org_scene['devs']['id']}/repos", token=token).json
    assert [(r["full_name"], r["permissions"]["push"]) for r in listed] == \
        [("acmeco/tool", True)]


def test_profile_names_a_user_or_an_organization_once(api, org_scene):
    """One lookup of the name serves both kinds: a user's profile, an organization's
    (its member sees the teams and, as an owner, the settings), a 404 for a name that
    is neither and for a private organization's stranger."""
    alice, carol = org_scene["alice"], org_scene["carol"]
    assert "Organizations" in text(carol.get("/bob"))
    own = text(alice.get("/acme"))
    assert "Teams" in own and 'href="/org/acme/settings"' in own
    member = text(org_scene["bob"].get("/hidden"))
    assert 'href="/org/hidden/teams/few"' in member and "/org/hidden/settings" not in member
    assert carol.get("/nobody-at-all").status == 404
    assert carol.get("/hidden").status == 404
