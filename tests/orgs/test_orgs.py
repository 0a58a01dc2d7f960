"""Organizations, members and teams through the API."""
import pytest

from tests.conftest import ADMIN
from tests.accounts.test_users import assert_matches_forgejo


@pytest.fixture
def org(api):
    """acme, owned by olive; members: tess (team 'devs', write, on acme/app)."""
    api.create_user("olive")
    api.create_user("tess")
    api.create_user("sam")
    tokens = {u: api.create_token(u) for u in ("olive", "tess", "sam")}
    r = api.post("/orgs", token=tokens["olive"], json={"username": "acme", "full_name": "ACME"})
    assert r.status == 201, r
    return tokens


def test_create_and_get_org(api, org):
    r = api.get("/orgs/acme")
    assert r.status == 200
    assert_matches_forgejo(r.json, "Organization")
    assert r.json["username"] == r.json["name"] == "acme"
    dup = api.post("/orgs", token=org["sam"], json={"username": "ACME"})
    assert dup.status == 422
    assert api.post("/orgs", token=org["sam"], json={"username": "olive"}).status == 422
    assert api.post("/orgs", json={"username": "x"}).status == 401
    admin = api.post("/admin/users/sam/orgs", auth=ADMIN, json={"username": "samco"})
    assert admin.status == 201
    assert [o["name"] for o in api.get("/user/orgs", token=org["sam"]).json] == ["samco"]
    assert api.post("/admin/users/sam/orgs", token=org["sam"], json={"username": "y"}).status == 403
    assert api.get("/orgs/nope").status == 404


def test_owners_team_and_membership(api, org):
    teams = api.get("/orgs/acme/teams", token=org["olive"])
    assert teams.status == 200 and [t["name"] for t in teams.json] == ["Owners"]
    owners = teams.json[0]
    assert_matches_forgejo(owners, "Team")
    assert owners["permission"] == "owner" and owners["includes_all_repositories"] is True
    assert api.get("/orgs/acme/members/olive", token=org["olive"]).status == 204
    assert api.get("/orgs/acme/members/sam", token=org["olive"]).status == 404
    # Memberships are private until publicized; outsiders only see public ones.
    assert api.get("/orgs/acme/members/olive").status == 404
    assert api.get("/orgs/acme/public_members/olive").status == 404
    assert api.put("/orgs/acme/public_members/olive", token=org["sam"]).status == 403
    assert api.put("/orgs/acme/public_members/olive", token=org["olive"]).status == 204
    assert api.get("/orgs/acme/public_members/olive").status == 204
    assert [u["login"] for u in api.get("/orgs/acme/public_members").json] == ["olive"]
    assert [u["login"] for u in api.get("/orgs/acme/members").json] == ["olive"]
    assert api.delete("/orgs/acme/public_members/olive", token=org["olive"]).status == 204
    assert api.get("/orgs/acme/members").json == []
    assert [o["name"] for o in api.get("/users/olive/orgs", token=org["olive"]).json] == ["acme"]
    assert api.get("/users/olive/orgs").json == []  # private membership


def test_teams(api, org):
    r = api.post("/orgs/acme/teams", token=org["olive"], json={
        "name": "devs", "permission": "write", "units": ["repo.code", "repo.issues"]})
    assert r.status == 201, r
    team = r.json
    assert team["permission"] == "write" and team["units_map"] == {
        "repo.code": "write", "repo.issues": "write"}
    assert api.post("/orgs/acme/teams", token=org["olive"], json={"name": "DEVS"}).status == 422
    assert api.post("/orgs/acme/teams", token=org["olive"], json={"name": "x",
                                                                  "permission": "god"}).status == 422
    assert api.post("/orgs/acme/teams", token=org["sam"], json={"name": "mine"}).status == 403
    tid = team["id"]
    assert api.put(f"/teams/{tid}/members/tess", token=org["olive"]).status == 204
    assert api.put(f"/teams/{tid}/members/sam", token=org["tess"]).status == 403
    assert [u["login"] for u in api.get(f"/teams/{tid}/members", token=org["tess"]).json] == ["tess"]
    assert api.get("/orgs/acme/members/tess", token=org["olive"]).status == 204
    assert api.get(f"/teams/{tid}", token=org["sam"]).status == 404
    edited = api.patch(f"/teams/{tid}", token=org["olive"], json={"name": "devs",
                                                                  "description": "d"})
    assert edited.status == 200 and edited.json["description"] == "d"
    assert api.delete(f"/teams/{tid}/members/tess", token=org["olive"]).status == 204
    assert api.get("/orgs/acme/members/tess", token=org["olive"]).status == 404
    assert api.delete(f"/teams/{tid}", token=org["olive"]).status == 204
    assert api.get(f"/teams/{tid}", token=org["olive"]).status == 404
    owners_id = api.get("/orgs/acme/teams", token=org["olive"]).json[0]["id"]
    assert api.delete(f"/teams/{owners_id}", token=org["olive"]).status == 422
    assert api.delete(f"/teams/{owners_id}/members/olive", token=org["olive"]).status == 422


def test_org_repositories_and_team_access(api, org):
    r = api.post("/orgs/acme/repos", token=org["olive"], json={"name": "app", "private": True,
                                                                "auto_init": True})
    assert r.status == 201, r
    assert api.post("/org/acme/repos", token=org["olive"], json={"name": "lib"}).status == 201
    assert api.post("/orgs/acme/repos", token=org["sam"], json={"name": "x"}).status == 403
    tid = api.post("/orgs/acme/teams", token=org["olive"], json={
        "name": "devs", "permission": "write"}).json["id"]
    api.put(f"/teams/{tid}/members/tess", token=org["olive"])
    # Member of a team that does not cover the repository: cannot see it.
    assert api.get("/repos/acme/app", token=org["tess"]).status == 404
    assert api.put(f"/teams/{tid}/repos/acme/app", token=org["olive"]).status == 204
    seen = api.get("/repos/acme/app", token=org["tess"])
    assert seen.status == 200
    assert seen.json["permissions"] == {"admin": False, "push": True, "pull": True}
    assert [r["name"] for r in api.get(f"/teams/{tid}/repos", token=org["tess"]).json] == ["app"]
    api.patch(f"/teams/{tid}", token=org["olive"], json={"name": "devs", "permission": "read"})
    assert api.get("/repos/acme/app", token=org["tess"]).json["permissions"]["push"] is False
    assert api.delete(f"/teams/{tid}/repos/acme/app", token=org["olive"]).status == 204
    assert api.get("/repos/acme/app", token=org["tess"]).status == 404
    assert api.get("/repos/acme/app", token=org["sam"]).status == 404
    assert sorted(r["name"] for r in api.get("/orgs/acme/repos", token=org["olive"]).json) == [
        "app", "lib"]
    assert [r["name"] for r in api.get("/orgs/acme/repos").json] == ["lib"]
    # An organization owning repositories cannot be deleted.
    assert api.delete("/orgs/acme", token=org["olive"]).status == 422


def test_edit_and_delete_org(api, org):
    r = api.patch("/orgs/acme", token=org["olive"], json={"description": "Rockets",
                                                          "visibility": "private"})
    assert r.status == 200 and r.json["description"] == "Rockets"
    assert api.get("/orgs/acme").status == 404  # private now
    assert api.patch("/orgs/acme", token=org["sam"], json={"description": "x"}).status == 404
    assert api.patch("/orgs/acme", token=org["olive"], json={"visibility": "x"}).status == 422
    assert api.delete("/orgs/acme", token=org["olive"]).status == 204
    assert api.get("/orgs/acme", token=org["olive"]).status == 404
    assert api.get("/user/orgs", token=org["olive"]).json == []


def test_current_user_repos_include_shared_ones(api, org):
    api.post("/orgs/acme/repos", token=org["olive"], json={"name": "org-repo", "private": True})
    tid = api.post("/orgs/acme/teams", token=org["olive"], json={
        "name": "all", "permission": "read", "includes_all_repositories": True}).json["id"]
    api.put(f"/teams/{tid}/members/tess", token=org["olive"])
    api.post("/user/repos", token=org["sam"], json={"name": "sams", "private": True})
    assert api.put("/repos/sam/sams/collaborators/tess", token=org["sam"],
                   json={"permission": "write"}).status == 204
    api.post("/user/repos", token=org["tess"], json={"name": "own"})
    names = [r["full_name"] for r in api.get("/user/repos", token=org["tess"]).json]
    assert sorted(names) == ["acme/org-repo", "sam/sams", "tess/own"]
    tess_id = api.get("/users/tess").json["id"]
    search = api.get(f"/repos/search?uid={tess_id}&mode=collaborative", token=org["tess"])
    assert [r["full_name"] for r in search.json["data"]] == ["sam/sams"]
    exclusive = api.get(f"/repos/search?uid={tess_id}&exclusive=true", token=org["tess"])
    assert [r["full_name"] for r in exclusive.json["data"]] == ["tess/own"]


def test_failed_org_creation_leaves_nothing(api, org, monkeypatch):
    from chalicelib.orgs import teams

    def broken(*args, **kwargs):
        raise RuntimeError("crash while adding the first owner")

    # The last step staged before the one commit: nothing of the organization is written.
    monkeypatch.setattr(teams, "stage_team_join", broken)
    assert api.post("/orgs", token=org["sam"], json={"username": "halfway"}).status == 500
    monkeypatch.undo()
    assert api.get("/orgs/halfway", token=org["sam"]).status == 404
    # The name is free again.
    assert api.post("/orgs", token=org["sam"], json={"username": "halfway"}).status == 201
