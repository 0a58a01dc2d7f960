"""The organizations domain's rules, on the in-memory twin (the fast layer): the Owners
team, teams' grants on repositories, membership visibility, a name shared with users."""
from __future__ import annotations

import pytest

from chalicelib import orgs, repos
from chalicelib.errors import ConflictError, InvalidInput, NotFoundError, PermissionDenied
from chalicelib.orgs import service, teams
from chalicelib.orgs.options import CreateTeamOption
from tests import memory_scene as scene

Access = repos.Access


@pytest.fixture
def people(memory):
    return {name: scene.user(name) for name in ("alice", "bob", "carol")}


def test_an_organization_starts_with_its_owner_in_the_owners_team(people):
    alice = people["alice"]
    acme = scene.org(alice, "acme")
    [owners] = teams.list_teams(alice, acme)
    assert (owners.name, owners.permission) == ("Owners", "owner")
    assert [a.login for a in teams.team_members(owners)] == ["alice"]
    assert repos.is_org_owner(acme, alice) and not repos.is_org_owner(acme, people["bob"])


def test_users_and_organizations_share_one_name_space(people):
    scene.org(people["alice"], "acme")
    with pytest.raises((ConflictError, InvalidInput)):
        scene.user("ACME")
    with pytest.raises((ConflictError, InvalidInput)):
        scene.org(people["bob"], "bob")


def test_a_team_grants_its_members_its_permission_on_its_repositories(people):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    acme = scene.org(alice, "acme")
    view = scene.repo(acme, "app", actor=alice, private=True)
    readers = teams.create_team(alice, acme, CreateTeamOption(
        name="readers", permission="read", includes_all_repositories=True))
    teams.add_team_member(alice, readers, bob)
    assert repos.repo_access(bob, view.repo, acme) == Access.READ
    assert repos.repo_access(carol, view.repo, acme) == Access.NONE     # private: 404
    with pytest.raises(PermissionDenied):
        teams.create_team(bob, acme, CreateTeamOption(name="mine", permission="admin"))
    teams.remove_team_member(alice, readers, bob)
    assert repos.repo_access(bob, view.repo, acme) == Access.NONE


def test_private_memberships_show_to_members_only(people):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    acme = scene.org(alice, "acme")
    team = teams.create_team(alice, acme, CreateTeamOption(name="devs", permission="write"))
    teams.add_team_member(alice, team, bob)
    assert sorted(a.login for a in service.visible_members(alice, acme)) == ["alice", "bob"]
    assert service.visible_members(carol, acme) == []
    with pytest.raises(NotFoundError):
        service.check_member(carol, acme, bob, public_only=False)
    service.set_public(bob, acme, bob, True)
    assert [a.login for a in service.visible_members(carol, acme)] == ["bob"]


def test_a_private_organization_is_404_to_strangers(people):
    alice, carol = people["alice"], people["carol"]
    scene.org(alice, "hidden", visibility="private")
    assert orgs.get_org(alice, "hidden").login == "hidden"
    with pytest.raises(NotFoundError):
        orgs.get_org(carol, "hidden")
    assert [o.login for o in orgs.orgs_of(alice, alice)] == ["hidden"]
    assert orgs.orgs_of(carol, alice) == []
