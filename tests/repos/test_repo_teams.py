"""A repository's teams through the API: list, check, add, remove (Forgejo's answers)."""
import pytest

from tests.accounts.test_users import assert_matches_forgejo


@pytest.fixture
def acme(api):
    """olive owns the organization acme and its repository acme/proj; walt writes in the
    team ``writers``, adam administers the repository; ``readers`` has no repository."""
    tokens = {}
    for name in ("olive", "walt", "adam", "ursula"):
        api.create_user(name)
        tokens[name] = api.create_token(name)
    olive = tokens["olive"]
    assert api.post("/orgs", token=olive, json={"username": "acme"}).status == 201
    assert api.post("/orgs/acme/repos", token=olive, json={"name": "proj"}).status == 201
    assert api.post("/user/repos", token=olive, json={"name": "mine"}).status == 201
    teams = {}
    for name, permission in (("writers", "write"), ("readers", "read")):
        made = api.post("/orgs/acme/teams", token=olive,
                        json={"name": name, "permission": permission})
        assert made.status == 201
        teams[name] = made.json["id"]
    assert api.put(f"/teams/{teams['writers']}/members/walt", token=olive).status == 204
    assert api.put(f"/teams/{teams['writers']}/repos/acme/proj", token=olive).status == 204
    assert api.put("/repos/acme/proj/collaborators/adam", token=olive,
                   json={"permission": "admin"}).status == 204
    return tokens


def names(response):
    return [team["name"] for team in response.json]


def test_list_and_check(api, acme):
    olive, walt = acme["olive"], acme["walt"]
    listed = api.get("/repos/acme/proj/teams", token=walt)
    assert listed.status == 200 and names(listed) == ["Owners", "writers"]
    for team in listed.json:
        assert_matches_forgejo(team, "Team")
    checked = api.get("/repos/acme/proj/teams/Writers", token=walt)
    assert checked.status == 200 and checked.json["name"] == "writers"
    assert api.get("/repos/acme/proj/teams/owners", token=walt).status == 200
    assert api.get("/repos/acme/proj/teams/readers", token=walt).status == 404
    assert api.get("/repos/acme/proj/teams/nobody", token=walt).status == 404
    assert api.get("/repos/acme/proj/teams").status == 401
    # A user's repository has no teams: Forgejo's 405.
    mine = api.get("/repos/olive/mine/teams", token=olive)
    assert mine.status == 405 and mine.json["message"] == "repo is not owned by an organization"
    assert api.get("/repos/olive/mine/teams/writers", token=olive).status == 405


def test_add_and_remove(api, acme):
    olive, walt, adam = acme["olive"], acme["walt"], acme["adam"]
    team = "/repos/acme/proj/teams/readers"
    assert api.put(team, token=walt).status == 403              # a writer is no admin
    # A repository admin who is no owner, while the organization does not allow it.
    refused = api.put(team, token=adam)
    assert refused.status == 403 and refused.json["message"] == "user is nor repo admin nor owner"
    assert api.put(team, token=olive).status == 204
    assert names(api.get("/repos/acme/proj/teams", token=olive)) == ["Owners", "readers",
                                                                     "writers"]
    again = api.put(team, token=olive)
    assert again.status == 422 and again.json["message"] == "team 'readers' is already added to repo"
    assert api.put("/repos/acme/proj/teams/Owners", token=olive).status == 422
    assert api.put("/repos/acme/proj/teams/nobody", token=olive).status == 404
    assert api.put("/repos/olive/mine/teams/readers", token=olive).status == 405

    # The organization lets repository admins change team access.
    assert api.patch("/orgs/acme", token=olive,
                     json={"repo_admin_change_team_access": True}).status == 200
    assert api.delete(team, token=adam).status == 204
    gone = api.delete(team, token=adam)
    assert gone.status == 422 and gone.json["message"] == "team 'readers' was not added to repo"
    assert names(api.get("/repos/acme/proj/teams", token=olive)) == ["Owners", "writers"]
    # The team's own list agrees (the one rule behind both).
    readers_id = [t for t in api.get("/orgs/acme/teams", token=olive).json
                  if t["name"] == "readers"][0]["id"]
    assert api.get(f"/teams/{readers_id}/repos", token=olive).json == []
