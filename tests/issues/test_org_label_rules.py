"""An organization's labels, on the in-memory twin (the fast layer): who may write them,
their fields' checks (a repository label's), ids shared with repository labels, their
use on the issues of the organization's repositories, deletion, and a lost race."""
from __future__ import annotations

import pytest

from chalicelib import issues, repos
from chalicelib.errors import InvalidInput, NotFoundError, PermissionDenied
from chalicelib.issues import meta, org_label_store, org_labels, service
from chalicelib.issues.options import (CreateLabelOption, EditLabelOption, IssueLabelsOption)
from chalicelib.issues.service import IssueQuery
from chalicelib.orgs import teams
from chalicelib.orgs.options import CreateTeamOption
from tests import memory_scene as scene


class Scene(dict):
    """alice owns the organization ``acme`` (public) with the repository ``app``; bob is
    a member of acme (a writers' team on every repository); carol is a stranger; dave
    owns the repository ``dave/own``."""

    def ctx(self, who: str, view=None):
        caller = scene.caller(self.people[who])
        view = view or self.view
        return issues.issue_context(caller, repos.view_of(view.repo, caller))

    def create(self, who: str, name: str, color: str = "#ff0000", **fields):
        return org_labels.create_label(self.people[who], self.org,
                                       CreateLabelOption(name=name, color=color, **fields))


@pytest.fixture
def acme(memory):
    found = Scene()
    found.people = {name: scene.user(name) for name in ("alice", "bob", "carol", "dave")}
    alice = found.people["alice"]
    found.org = scene.org(alice, "acme")
    team = teams.create_team(alice, found.org, CreateTeamOption(
        name="devs", permission="write", includes_all_repositories=True))
    teams.add_team_member(alice, team, found.people["bob"])
    found.view = scene.repo(found.org, "app", actor=alice)
    found.dave_view = scene.repo(found.people["dave"], "own")
    return found


def open_issue(ctx, title="t", **fields):
    return service.create_issue(ctx, issues.CreateIssueOption(title=title, **fields))


# Who may write ------------------------------------------------------------------------------

def test_owners_write_members_and_strangers_may_not(acme):
    label_id, label = acme.create("alice", "bug", "#EE0701", description="broken")
    assert label == {"name": "bug", "color": "#ee0701", "description": "broken",
                     "exclusive": False, "archived": False}
    for who in ("bob", "carol"):
        with pytest.raises(PermissionDenied):
            acme.create(who, "mine")
        with pytest.raises(PermissionDenied):
            org_labels.edit_label(acme.people[who], acme.org, label_id,
                                  EditLabelOption(name="x"))
        with pytest.raises(PermissionDenied):
            org_labels.delete_label(acme.people[who], acme.org, label_id)
    with pytest.raises(PermissionDenied):
        org_labels.create_label(None, acme.org, CreateLabelOption(name="x", color="#000000"))
    assert [i for i, _ in org_labels.list_labels(acme.org)] == [label_id]


def test_a_site_admin_writes_any_organizations_labels(acme):
    root = scene.user("root", admin=True)
    label_id, _ = org_labels.create_label(root, acme.org,
                                          CreateLabelOption(name="ops", color="00ff00"))
    assert org_labels.get_label(acme.org, label_id)["color"] == "#00ff00"


def test_a_private_organization_is_404_to_strangers_and_seen_by_members(memory):
    alice, bob = scene.user("alice"), scene.user("bob")
    hidden = scene.org(alice, "hidden", visibility="private")
    with pytest.raises(NotFoundError):
        org_labels.visible_org(scene.caller(bob), "hidden")
    with pytest.raises(NotFoundError):
        org_labels.visible_org(scene.caller(None), "hidden")
    with pytest.raises(NotFoundError):
        org_labels.visible_org(scene.caller(alice), "alice")     # a user, not an org
    assert org_labels.visible_org(scene.caller(alice), "hidden").id == hidden.id
    with pytest.raises(NotFoundError):     # a token limited to public things
        org_labels.visible_org(scene.caller(alice, public_only=True), "hidden")


# Fields -------------------------------------------------------------------------------------

@pytest.mark.parametrize("fields, text", [
    (dict(name="", color="#000000"), "[Name]: Required"),
    (dict(name="x", color=""), "[Color]: Required"),
    (dict(name="x", color="#12345"), "[Color]: color must be #rrggbb or rrggbb"),
    (dict(name="x", color="blue"), "[Color]: color must be #rrggbb or rrggbb"),
])
def test_bad_fields_are_refused_as_a_repository_labels_are(acme, fields, text):
    with pytest.raises(InvalidInput, match=text.replace("[", r"\[").replace("]", r"\]")):
        org_labels.create_label(acme.people["alice"], acme.org, CreateLabelOption(**fields))
    assert org_labels.list_labels(acme.org) == []


def test_an_edit_changes_only_what_was_sent(acme):
    alice = acme.people["alice"]
    label_id, _ = acme.create("alice", "kind/bug", exclusive=True, description="d")
    edited = org_labels.edit_label(alice, acme.org, label_id,
                                   EditLabelOption(color="00FF00", is_archived=True))
    assert edited == {"name": "kind/bug", "color": "#00ff00", "description": "d",
                      "exclusive": True, "archived": True}
    with pytest.raises(InvalidInput):
        org_labels.edit_label(alice, acme.org, label_id, EditLabelOption(color="nope"))
    with pytest.raises(NotFoundError):
        org_labels.edit_label(alice, acme.org, label_id + 1000, EditLabelOption(name="x"))
    assert org_labels.get_label(acme.org, label_id) == edited


def test_ids_are_shared_with_repository_labels(acme):
    repo_label, _ = meta.create_label(acme.ctx("alice"),
                                      CreateLabelOption(name="r", color="#111111"))
    org_label, _ = acme.create("alice", "o")
    assert org_label != repo_label
    # The repository's own list and label routes see only its own labels.
    assert [i for i, _ in meta.list_labels(acme.ctx("alice"))] == [repo_label]
    with pytest.raises(NotFoundError):
        meta.get_label(acme.ctx("alice"), org_label)
    with pytest.raises(NotFoundError):
        meta.delete_label(acme.ctx("alice"), org_label)


# On issues ----------------------------------------------------------------------------------

def test_an_org_label_labels_the_issues_of_its_repositories(acme):
    org_label, _ = acme.create("alice", "triage")
    repo_label, _ = meta.create_label(acme.ctx("alice"),
                                      CreateLabelOption(name="local", color="#111111"))
    first = open_issue(acme.ctx("bob"), labels=[org_label])
    assert list(first.label_ids) == [org_label]
    open_issue(acme.ctx("bob"), "second")
    service.add_labels(acme.ctx("bob"), 2, IssueLabelsOption(labels=["triage", repo_label]))
    assert sorted(service.issue_labels(acme.ctx("carol"), 2)[0]) == sorted(
        [org_label, repo_label])
    found, total = service.list_issues(acme.ctx("carol"), IssueQuery(labels=["triage"]), 0, 10)
    assert total == 2 and [int(i.number) for i in found] == [2, 1]
    found, total = service.list_issues(acme.ctx("carol"),
                                       IssueQuery(labels=["triage", "local"]), 0, 10)
    assert [int(i.number) for i in found] == [2]


def test_an_exclusive_org_label_drops_a_repository_label_of_its_scope(acme):
    org_label, _ = acme.create("alice", "prio/high", exclusive=True)
    repo_label, _ = meta.create_label(acme.ctx("alice"), CreateLabelOption(
        name="prio/low", color="#111111", exclusive=True))
    open_issue(acme.ctx("alice"), labels=[repo_label])
    issue = service.add_labels(acme.ctx("alice"), 1, IssueLabelsOption(labels=[org_label]))
    assert list(issue.label_ids) == [org_label]


def test_another_owners_repository_ignores_the_label(acme):
    org_label, _ = acme.create("alice", "triage")
    dave = acme.ctx("dave", acme.dave_view)
    open_issue(dave, labels=[org_label])
    issue = service.add_labels(acme.ctx("dave", acme.dave_view), 1,
                               IssueLabelsOption(labels=[org_label, "triage"]))
    assert list(issue.label_ids) == []


def test_a_deleted_label_leaves_its_issues_readable(acme):
    alice = acme.people["alice"]
    gone, _ = acme.create("alice", "gone")
    kept, _ = acme.create("alice", "kept")
    open_issue(acme.ctx("alice"), labels=[gone, kept])
    org_labels.delete_label(alice, acme.org, gone)
    with pytest.raises(NotFoundError):
        org_labels.get_label(acme.org, gone)
    with pytest.raises(NotFoundError):
        org_labels.delete_label(alice, acme.org, gone)
    assert service.issue_labels(acme.ctx("carol"), 1)[0] == [kept]
    found, _ = service.list_issues(acme.ctx("carol"), IssueQuery(labels=["gone"]), 0, 10)
    assert found == []
    # The next label change of the issue drops the stale id.
    issue = service.add_labels(acme.ctx("alice"), 1, IssueLabelsOption(labels=[]))
    assert list(issue.label_ids) == [kept]


# Races --------------------------------------------------------------------------------------

def test_a_create_racing_another_loses_neither(acme, monkeypatch):
    """Both read the same set; the other create commits between this one's read and its
    write: the version condition fails, the re-read sees it, both labels stay."""
    original = org_label_store.stage_put
    raced = []

    def racing(*args):
        if not raced:
            raced.append(1)
            acme.create("alice", "other")
        original(*args)

    monkeypatch.setattr(org_label_store, "stage_put", racing)
    acme.create("alice", "mine")
    assert sorted(label["name"] for _, label in org_labels.list_labels(acme.org)) == \
        ["mine", "other"]
    assert org_label_store.get(int(acme.org.id), consistent=True).version == 2
