"""Organizations as lists and people in them, on the in-memory twin (the fast layer):
who sees which organizations listed (orgGetAll, adminGetAllOrgs) and how the list
pages, a user's teams across organizations, a team search, and a user's permissions in
an organization."""
from __future__ import annotations

import pytest

from chalicelib.errors import NotFoundError, PermissionDenied
from chalicelib.orgs import listing, people, teams
from chalicelib.orgs.options import CreateTeamOption, EditOrgOption
from chalicelib.orgs import service
from tests import memory_scene as scene

pytestmark = pytest.mark.fast


@pytest.fixture
def world(memory):
    """alice owns public ``acme``, limited ``lim`` and private ``sec``; bob is in acme's
    ``devs`` (write) and sec's ``readers`` (read, may create repositories); carol is a
    stranger, rita a restricted user in lim, root the site admin."""
    people_ = {name: scene.user(name) for name in ("alice", "bob", "carol")}
    people_["rita"] = scene.user("rita", restricted=True)
    people_["root"] = scene.user("boss", admin=True)
    alice, bob = people_["alice"], people_["bob"]
    acme = scene.org(alice, "acme", description="the public one")
    lim = scene.org(alice, "lim", visibility="limited")
    sec = scene.org(alice, "sec", visibility="private")
    devs = teams.create_team(alice, acme, CreateTeamOption(
        name="devs", permission="write", description="Writes the code"))
    teams.add_team_member(alice, devs, bob)
    readers = teams.create_team(alice, sec, CreateTeamOption(
        name="readers", permission="read", can_create_org_repo=True))
    teams.add_team_member(alice, readers, bob)
    guests = teams.create_team(alice, lim, CreateTeamOption(name="guests", permission="read"))
    teams.add_team_member(alice, guests, people_["rita"])
    teams.create_team(alice, acme, CreateTeamOption(name="docs", permission="read",
                                                    description="Writes the manual"))
    people_.update(acme=acme, lim=lim, sec=sec)
    return people_


def names(found):
    return [org.login for org in found]


def listed(viewer, offset=0, limit=50, **kw):
    return listing.visible_orgs(viewer, offset, limit, **kw)


def test_each_caller_sees_the_organizations_forgejo_lists_to_them(world):
    assert (names(listed(None)[0]), listed(None)[1]) == (["acme"], 1)
    assert names(listed(world["carol"])[0]) == ["acme", "lim"]
    # Private organizations are listed to site admins only, not even to their members.
    assert names(listed(world["bob"])[0]) == ["acme", "lim"]
    assert names(listed(world["alice"])[0]) == ["acme", "lim"]
    assert names(listed(world["root"])[0]) == ["acme", "lim", "sec"]
    # A public-only token sees public ones; a restricted user those they belong to.
    assert names(listed(world["root"], public_only=True)[0]) == ["acme"]
    assert names(listed(world["rita"])[0]) == ["lim"]


def test_the_admin_list_holds_every_organization_and_needs_a_site_admin(world):
    found, total = listing.all_orgs(world["root"], 0, 50)
    assert (names(found), total) == (["acme", "lim", "sec"], 3)
    for who in (None, world["alice"]):
        with pytest.raises(PermissionDenied):
            listing.all_orgs(who, 0, 50)


def test_lists_page_by_name_and_count_what_they_match(world):
    scene.org(world["carol"], "Beta")
    first, total = listed(world["carol"], 0, 2)
    assert (names(first), total) == (["acme", "Beta"], 3)
    assert names(listed(world["carol"], 2, 2)[0]) == ["lim"]
    assert listed(world["carol"], 4, 2) == ([], 3)
    # Users are not organizations: they never show in the list.
    assert "carol" not in names(listed(world["root"])[0])


def test_a_renamed_or_deleted_organization_moves_in_the_list(world):
    service.edit_org(world["alice"], world["acme"], EditOrgOption(visibility="private"))
    assert names(listed(world["carol"])[0]) == ["lim"]
    doomed = scene.org(world["carol"], "doomed")
    assert "doomed" in names(listed(None)[0])
    service.delete_org(world["carol"], doomed)
    assert "doomed" not in names(listed(world["root"])[0])


def test_a_users_teams_come_from_every_organization_with_their_organization(world):
    found = people.teams_of(world["bob"])
    assert [(org.login, team.name) for team, org in found] == [("acme", "devs"),
                                                              ("sec", "readers")]
    alice_teams = [(org.login, team.name) for team, org in people.teams_of(world["alice"])]
    # Making a team does not put its maker in it: alice is in each Owners team only.
    assert alice_teams == [("acme", "Owners"), ("lim", "Owners"), ("sec", "Owners")]
    assert people.teams_of(world["carol"]) == []


def test_a_team_search_matches_names_and_descriptions_of_the_callers_teams(world):
    def search(who, keyword="", include_desc=True):
        query = people.TeamQuery(keyword=keyword, include_desc=include_desc)
        return [t.name for t in people.search_teams(world[who], world["acme"], query)]

    # A site admin searches every team, by name; a member the teams they belong to.
    assert search("root") == ["devs", "docs", "Owners"]
    assert search("root", "WRITES") == ["devs", "docs"]           # descriptions
    assert search("root", "writes", include_desc=False) == []
    assert search("root", " Do ") == ["docs"]
    assert search("alice") == ["Owners"]
    assert search("bob", "writes") == ["devs"]
    assert search("bob", "docs") == []
    with pytest.raises(PermissionDenied):
        search("carol")


def perms(who, user, org):
    found = people.user_permissions(who, user.login, org)
    return (found.can_read, found.can_write, found.is_admin, found.is_owner,
            found.can_create_repository)


def test_permissions_are_the_users_highest_team_permission(world):
    alice, bob, carol = world["alice"], world["bob"], world["carol"]
    assert perms(alice, alice, "acme") == (True, True, True, True, True)
    assert perms(alice, bob, "acme") == (True, True, False, False, False)
    assert perms(bob, bob, "sec") == (True, False, False, False, True)    # may create repos
    assert perms(carol, carol, "acme") == (False, False, False, False, False)
    assert perms(world["root"], world["root"], "sec") == (False,) * 5   # admin, no team


def test_permissions_are_404_where_the_organization_or_user_is_hidden(world):
    alice, bob, carol = world["alice"], world["bob"], world["carol"]
    with pytest.raises(NotFoundError):
        perms(carol, bob, "sec")          # carol may not see the private organization
    with pytest.raises(NotFoundError):
        perms(bob, carol, "sec")          # carol, asked about, may not see it either
    with pytest.raises(NotFoundError):
        perms(alice, world["rita"], "acme")   # a restricted user sees no foreign org
    with pytest.raises(NotFoundError):
        people.user_permissions(alice, "nobody", "acme")
    with pytest.raises(NotFoundError):
        people.user_permissions(alice, "acme", "lim")     # an organization is no user
    assert perms(alice, world["rita"], "lim")[0] is True


def test_the_routes_answer_forgejos_shapes_and_checks(fast_api, world):
    token = fast_api.create_token("bob", scene.PASSWORD)
    found = fast_api.get("/orgs/acme/teams/search?q=dev", token=token)
    assert found.status == 200, found
    assert found.json["ok"] is True and [t["name"] for t in found.json["data"]] == ["devs"]
    assert found.json["data"][0]["organization"]["name"] == "acme"
    assert found.headers["x-total-count"] == "1"
    assert fast_api.get("/orgs/sec/teams/search?q=x", token=token).json["data"] == []
    assert fast_api.get("/orgs/acme/teams/search").status == 401
    carol = fast_api.create_token("carol", scene.PASSWORD)
    assert fast_api.get("/orgs/sec/teams/search", token=carol).status == 404
    assert fast_api.get("/orgs/acme/teams/search", token=carol).status == 403
    perms_ = fast_api.get("/users/bob/orgs/sec/permissions", token=token)
    assert perms_.json == {"can_read": True, "can_write": False, "is_admin": False,
                           "is_owner": False, "can_create_repository": True}
    assert fast_api.get("/users/bob/orgs/sec/permissions", token=carol).status == 404
    assert fast_api.get("/users/bob/orgs/nope/permissions", token=carol).status == 404
    listed_ = fast_api.get("/orgs?limit=1&page=2")
    assert listed_.status == 200 and listed_.json == []     # only acme is public
    assert fast_api.get("/orgs").headers["x-total-count"] == "1"
    assert fast_api.get("/admin/orgs", token=token).status == 403
    teams_ = fast_api.get("/user/teams", token=token)
    assert [(t["organization"]["name"], t["name"]) for t in teams_.json] == [
        ("acme", "devs"), ("sec", "readers")]
    assert fast_api.get("/user/teams").status == 401
