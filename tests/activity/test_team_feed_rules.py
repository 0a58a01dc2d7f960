"""A team's feed on the in-memory twin (the fast layer): an organization's activity is
copied into the feed of each team covering its repository (given it, or including
every repository), read newest first a page at a time from the team's own index
partition; a redelivered event writes no second copy; a repository the team no longer
covers drops out."""
from __future__ import annotations

import pytest

from chalicelib import activity, issues, repos
from chalicelib.activity import service
from chalicelib.orgs import teams
from chalicelib.orgs.options import CreateTeamOption
from chalicelib.store.table import Item
from tests import memory_scene as scene
from tests.conftest import deliver_to


class Org(dict):
    """alice's organization acme with repositories one and two; team devs (bob) has
    one, team all (carol) includes every repository."""

    def open(self, repo: str, title: str):
        caller = scene.caller(self.alice)
        view = repos.view_of(repos.repo_by_id(self.repos[repo]), caller)
        return issues.create_issue(issues.issue_context(caller, view),
                                   issues.CreateIssueOption(title=title))

    def shown(self, team: str, who: str = "alice", **page):
        found, total = service.feed_page(
            scene.caller(self.people[who]),
            service.FeedQuery(team=self.teams[team], include_private=True),
            offset=page.get("offset", 0), limit=page.get("limit", 50))
        return found, total

    def feed(self, team: str, who: str = "alice") -> list[tuple[str, str, str]]:
        return [(s.copy.op_type, s.view.repo.name, s.copy.content)
                for s in self.shown(team, who)[0]]


def _team(alice, org, name: str, *, every: bool = False):
    return teams.create_team(alice, org, CreateTeamOption(
        name=name, permission="write", includes_all_repositories=every))


@pytest.fixture
def acme(memory):
    found = Org()
    found.people = {name: scene.user(name) for name in ("alice", "bob", "carol")}
    found.alice = found.people["alice"]
    found.org = scene.org(found.alice, "acme")
    found.repos = {name: int(scene.repo(found.org, name, actor=found.alice,
                                        private=(name == "two")).repo.id)
                   for name in ("one", "two")}
    deliver_to(activity)                # the creations, recorded before the teams exist
    found.teams = {"devs": _team(found.alice, found.org, "devs"),
                   "all": _team(found.alice, found.org, "all", every=True)}
    teams.add_team_member(found.alice, found.teams["devs"], found.people["bob"])
    teams.add_team_member(found.alice, found.teams["all"], found.people["carol"])
    teams.add_team_repo(found.alice, found.teams["devs"], repos.repo_by_id(found.repos["one"]))
    deliver_to(activity)
    return found


def _event_copies(event_id: str) -> list:
    return list(Item.query(f"ACTE#{event_id}"))


def test_a_team_sees_its_repositories_and_one_including_all_sees_every_one(acme):
    acme.open("one", "In one")
    acme.open("two", "In two")
    deliver_to(activity)
    assert acme.feed("devs", "bob") == [("create_issue", "one", "1|In one")]
    assert acme.feed("all", "carol") == [("create_issue", "two", "1|In two"),
                                         ("create_issue", "one", "1|In one")]
    # Written after the team had the repository: the creations came before the teams.
    shown, _ = acme.shown("devs", "bob")
    assert int(shown[0].copy.user_id) == int(acme.org.id)     # the organization's row


def test_the_copies_are_one_per_covering_team_and_none_twice(acme):
    acme.open("one", "Once")
    ran = deliver_to(activity)
    [event] = [e for e in ran if getattr(e, "action", "") == "opened"]
    keys = sorted(item.sk for item in _event_copies(event.event_id))
    owners = next(t for t in teams.list_teams(acme.alice, acme.org) if t.name == "Owners")
    # The organization's copy (alice acted: hers too), and one per covering team: devs
    # (given one), all and Owners (every repository).
    assert keys == sorted([f"U#{int(acme.org.id)}", f"U#{int(acme.alice.id)}",
                           f"T#{int(acme.teams['devs'].id)}", f"T#{int(acme.teams['all'].id)}",
                           f"T#{int(owners.id)}"])
    for _ in range(2):
        activity.on_event(event)                # the consumer killed and retried
    assert sorted(item.sk for item in _event_copies(event.event_id)) == keys
    assert len(acme.feed("devs", "bob")) == 1


def test_a_users_repository_writes_no_team_copies(memory):
    alice = scene.user("alice")
    scene.repo(alice, "mine")
    [event] = deliver_to(activity)
    assert [item.sk for item in _event_copies(event.event_id)] == [f"U#{int(alice.id)}"]


def test_pages_of_a_team_feed(acme):
    for n in range(5):
        acme.open("one", f"Issue {n}")
    deliver_to(activity)
    first, total = acme.shown("devs", "bob", offset=0, limit=2)
    assert [s.copy.content for s in first] == ["5|Issue 4", "4|Issue 3"] and total == 3
    last, total = acme.shown("devs", "bob", offset=4, limit=2)
    assert [s.copy.content for s in last] == ["1|Issue 0"] and total == 5


def test_a_repository_taken_from_the_team_drops_out_and_private_ones_need_access(acme):
    acme.open("one", "Before")
    acme.open("two", "Secret")
    deliver_to(activity)
    teams.remove_team_repo(acme.alice, acme.teams["devs"], repos.repo_by_id(acme.repos["one"]))
    assert acme.feed("devs", "bob") == []
    # two is private: the team feed includes it, to callers who may read it.
    assert [r for _, r, _ in acme.feed("all", "carol")] == ["two", "one"]
    assert [r for _, r, _ in acme.feed("all", "bob")] == ["one"]
