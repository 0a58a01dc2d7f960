"""The events each organization, membership and team write emits (through the API)."""
import pytest

from chalicelib import events
from tests.conftest import ADMIN, drain_outbox


def kinds(found) -> list[tuple[str, str]]:
    return [(type(e).__name__, e.action) for e in found]


def ids_of(api, *names) -> dict:
    return {name: api.get(f"/users/{name}").json["id"] for name in names}


@pytest.fixture
def scene(api):
    """acme, owned by olive; tess and sam are users; a team 'devs' (write)."""
    for name in ("olive", "tess", "sam"):
        api.create_user(name)
    tokens = {u: api.create_token(u) for u in ("olive", "tess", "sam")}
    assert api.post("/orgs", token=tokens["olive"], json={"username": "acme"}).status == 201
    team = api.post("/orgs/acme/teams", token=tokens["olive"], json={
        "name": "devs", "permission": "write"}).json
    drain_outbox()
    return {**tokens, "team": team, "ids": ids_of(api, "olive", "tess", "sam")}


def assert_actor(event, user_id: int, login: str) -> None:
    assert event.actor_id == user_id
    assert event.actor["login"] == login and "password_hash" not in event.actor


def test_create_org_emits_org_team_and_membership_in_one_commit(api):
    api.create_user("olive")
    token = api.create_token("olive")
    olive = ids_of(api, "olive")["olive"]
    drain_outbox()
    org = api.post("/orgs", token=token, json={"username": "acme", "full_name": "ACME",
                                               "email": "info@acme.test"}).json
    found = drain_outbox()
    assert sorted(kinds(found)) == [("MembershipChanged", "added"),
                                    ("OrganizationChanged", "created"),
                                    ("TeamChanged", "created"),
                                    ("TeamChanged", "member_added")]
    for event in found:
        assert_actor(event, olive, "olive")
        assert event.org_id == org["id"]
    by_kind = {(type(e).__name__, e.action): e for e in found}
    created = by_kind["OrganizationChanged", "created"]
    assert created.org["login"] == "acme" and created.org["full_name"] == "ACME"
    assert created.org["email"] == "info@acme.test"
    owners = by_kind["TeamChanged", "created"]
    assert owners.team["name"] == "Owners" and owners.team["permission"] == "owner"
    joined = by_kind["TeamChanged", "member_added"]
    assert joined.team_id == owners.team_id and joined.user_id == olive
    assert by_kind["MembershipChanged", "added"].user_id == olive


def test_admin_creates_org_for_a_user(api):
    api.create_user("olive")
    olive = ids_of(api, "olive")["olive"]
    admin_id = ids_of(api, ADMIN[0])[ADMIN[0]]
    drain_outbox()
    assert api.post("/admin/users/olive/orgs", auth=ADMIN, json={"username": "acme"}).status == 201
    found = drain_outbox()
    assert all(e.actor_id == admin_id for e in found)
    member = next(e for e in found if isinstance(e, events.MembershipChanged))
    assert member.user_id == olive and member.action == "added"


def test_failed_writes_emit_nothing(api, scene):
    assert api.post("/orgs", token=scene["sam"], json={"username": "ACME"}).status == 422
    assert api.post("/orgs/acme/teams", token=scene["olive"], json={"name": "DEVS"}).status == 422
    assert api.post("/orgs/acme/teams", token=scene["sam"], json={"name": "x"}).status == 403
    owners_id = api.get("/orgs/acme/teams", token=scene["olive"]).json[0]["id"]
    assert api.delete(f"/teams/{owners_id}/members/olive", token=scene["olive"]).status == 422
    assert api.delete("/orgs/acme/members/olive", token=scene["olive"]).status == 422
    assert drain_outbox() == []


def test_edit_and_delete_org(api, scene):
    olive = scene["ids"]["olive"]
    r = api.patch("/orgs/acme", token=scene["olive"], json={"description": "Rockets"})
    assert r.status == 200
    [edited] = drain_outbox()
    assert kinds([edited]) == [("OrganizationChanged", "edited")]
    assert_actor(edited, olive, "olive")
    assert edited.org["description"] == "Rockets"
    assert api.delete("/orgs/acme", token=scene["olive"]).status == 204
    [deleted] = drain_outbox()
    assert kinds([deleted]) == [("OrganizationChanged", "deleted")]
    assert deleted.org["login"] == "acme" and deleted.org_id == edited.org_id


def test_publicize_and_conceal(api, scene):
    olive = scene["ids"]["olive"]
    assert api.put("/orgs/acme/public_members/olive", token=scene["olive"]).status == 204
    [shown] = drain_outbox()
    assert kinds([shown]) == [("MembershipChanged", "publicized")]
    assert shown.user_id == olive
    assert_actor(shown, olive, "olive")
    # Already public: nothing changes, nothing is emitted.
    assert api.put("/orgs/acme/public_members/olive", token=scene["olive"]).status == 204
    assert drain_outbox() == []
    assert api.delete("/orgs/acme/public_members/olive", token=scene["olive"]).status == 204
    assert kinds(drain_outbox()) == [("MembershipChanged", "concealed")]


def test_team_lifecycle(api, scene):
    olive = scene["ids"]["olive"]
    r = api.post("/orgs/acme/teams", token=scene["olive"], json={"name": "ops",
                                                                  "permission": "read"})
    [created] = drain_outbox()
    assert kinds([created]) == [("TeamChanged", "created")]
    assert created.team_id == r.json["id"] and created.team["name"] == "ops"
    assert_actor(created, olive, "olive")
    tid = r.json["id"]
    api.patch(f"/teams/{tid}", token=scene["olive"], json={"name": "operations",
                                                         "permission": "admin"})
    [edited] = drain_outbox()
    assert kinds([edited]) == [("TeamChanged", "edited")]
    assert edited.team["name"] == "operations" and edited.team["permission"] == "admin"
    assert api.delete(f"/teams/{tid}", token=scene["olive"]).status == 204
    [deleted] = drain_outbox()
    assert kinds([deleted]) == [("TeamChanged", "deleted")]
    assert deleted.team_id == tid and deleted.team["name"] == "operations"


def test_team_members_join_and_leave_the_org(api, scene):
    tess = scene["ids"]["tess"]
    tid = scene["team"]["id"]
    assert api.put(f"/teams/{tid}/members/tess", token=scene["olive"]).status == 204
    found = drain_outbox()
    assert sorted(kinds(found)) == [("MembershipChanged", "added"),
                                    ("TeamChanged", "member_added")]
    assert all(e.user_id == tess for e in found)
    joined = next(e for e in found if isinstance(e, events.TeamChanged))
    assert joined.team_id == tid and joined.team["name"] == "devs"
    # Adding again changes nothing.
    assert api.put(f"/teams/{tid}/members/tess", token=scene["olive"]).status == 204
    assert drain_outbox() == []
    # A second team: already a member of the organization.
    other = api.post("/orgs/acme/teams", token=scene["olive"], json={"name": "ops"}).json["id"]
    drain_outbox()
    api.put(f"/teams/{other}/members/tess", token=scene["olive"])
    assert kinds(drain_outbox()) == [("TeamChanged", "member_added")]
    # Leaving one of two teams keeps the membership; leaving the last ends it.
    assert api.delete(f"/teams/{other}/members/tess", token=scene["olive"]).status == 204
    assert kinds(drain_outbox()) == [("TeamChanged", "member_removed")]
    assert api.delete(f"/teams/{tid}/members/tess", token=scene["olive"]).status == 204
    left = drain_outbox()
    assert sorted(kinds(left)) == [("MembershipChanged", "removed"),
                                   ("TeamChanged", "member_removed")]
    assert api.get("/orgs/acme/members/tess", token=scene["olive"]).status == 404


def test_removing_a_member_leaves_every_team(api, scene):
    tess = scene["ids"]["tess"]
    tid = scene["team"]["id"]
    other = api.post("/orgs/acme/teams", token=scene["olive"], json={"name": "ops"}).json["id"]
    api.put(f"/teams/{tid}/members/tess", token=scene["olive"])
    api.put(f"/teams/{other}/members/tess", token=scene["olive"])
    drain_outbox()
    assert api.delete("/orgs/acme/members/tess", token=scene["olive"]).status == 204
    found = drain_outbox()
    assert sorted(kinds(found)) == [("MembershipChanged", "removed"),
                                    ("TeamChanged", "member_removed"),
                                    ("TeamChanged", "member_removed")]
    assert {e.team_id for e in found if isinstance(e, events.TeamChanged)} == {tid, other}
    assert all(e.user_id == tess for e in found)
    assert api.get(f"/teams/{tid}/members", token=scene["olive"]).json == []


def test_team_repositories(api, scene):
    tid = scene["team"]["id"]
    repo = api.post("/orgs/acme/repos", token=scene["olive"], json={"name": "app"}).json
    drain_outbox()
    assert api.put(f"/teams/{tid}/repos/acme/app", token=scene["olive"]).status == 204
    [added] = drain_outbox()
    assert kinds([added]) == [("TeamChanged", "repo_added")]
    assert added.repo_id == repo["id"] and added.team_id == tid
    assert_actor(added, scene["ids"]["olive"], "olive")
    assert api.delete(f"/teams/{tid}/repos/acme/app", token=scene["olive"]).status == 204
    [removed] = drain_outbox()
    assert kinds([removed]) == [("TeamChanged", "repo_removed")]
    assert removed.repo_id == repo["id"]


def test_deleting_a_team_revokes_its_members_grants(api, scene):
    tid = scene["team"]["id"]
    api.post("/orgs/acme/repos", token=scene["olive"], json={"name": "app", "private": True})
    api.put(f"/teams/{tid}/members/tess", token=scene["olive"])
    api.put(f"/teams/{tid}/repos/acme/app", token=scene["olive"])
    assert api.get("/repos/acme/app", token=scene["tess"]).status == 200
    drain_outbox()
    assert api.delete(f"/teams/{tid}", token=scene["olive"]).status == 204
    assert kinds(drain_outbox()) == [("TeamChanged", "deleted")]
    assert api.get("/repos/acme/app", token=scene["tess"]).status == 404
    assert api.get("/repos/acme/app", token=scene["olive"]).json["name"] == "app"


def test_a_lost_grant_race_is_retried_and_emits_once(api, scene):
    """A team change racing another on the same member's grants: the loser's commit
    fails its compare-and-swap, runs again on fresh reads, and emits its events once."""
    import json

    from chalicelib.orgs import teams
    from chalicelib.accounts import store as account_store
    from chalicelib.orgs import store as org_store
    from chalicelib.orgs import team_store
    from chalicelib.store import unit_of_work
    from chalicelib.orgs.models import OrgMember

    tid = scene["team"]["id"]
    other = api.post("/orgs/acme/teams", token=scene["olive"], json={"name": "ops"}).json["id"]
    api.put(f"/teams/{other}/members/tess", token=scene["olive"])
    drain_outbox()
    with unit_of_work.start():
        org = account_store.get_by_name("acme")
        olive, tess = account_store.get_by_name("olive"), account_store.get_by_name("tess")
        stale = org_store.get_member(int(org.id), int(tess.id))   # now cached in the unit
        racing = OrgMember.get(stale.pk, stale.sk)
        grants = json.loads(racing.grants)
        grants["999"] = ["read", None, False]
        racing.update(actions=[OrgMember.grants.set(json.dumps(grants, sort_keys=True))])
        teams.add_team_member(olive, team_store.get(tid), tess)
    final = json.loads(OrgMember.get(stale.pk, stale.sk, consistent_read=True).grants)
    assert set(final) == {str(tid), str(other), "999"}
    assert kinds(drain_outbox()) == [("TeamChanged", "member_added")]
