"""A repository's transfer, on the in-memory twin (the fast layer): who may start it,
when it happens at once and when it waits for the recipient, accepting and rejecting,
teams of the new owning organization, name collisions, the counters of both owners,
the redirect from the old address, collaborators made redundant, and two transfers
racing (one wins)."""
from __future__ import annotations

import threading

import pytest

from chalicelib import orgs, repos
from chalicelib.errors import (
    ConflictError,
    InvalidInput,
    NotFoundError,
    PermissionDenied,
)
from chalicelib.orgs import teams
from chalicelib.orgs.options import CreateTeamOption
from chalicelib.repo_admin import transfer_store, transfers
from chalicelib.repo_admin.lifecycle_options import TransferRepoOption
from chalicelib.repos import access
from chalicelib.repos.options import AddCollaboratorOption
from tests import memory_scene as scene

pytestmark = pytest.mark.fast


@pytest.fixture
def people(memory):
    return {"alice": scene.user("alice"), "bob": scene.user("bob"),
            "carol": scene.user("carol"), "root": scene.user("root", admin=True)}


def stored(view):
    return repos.repo_by_id(int(view.repo.id))


def seen_by(account, view):
    return repos.view_of(stored(view), scene.caller(account))


def transfer(account, view, new_owner, team_ids=None):
    option = TransferRepoOption(new_owner=new_owner, **(
        {"team_ids": team_ids} if team_ids is not None else {}))
    return transfers.start(scene.caller(account), seen_by(account, view), option)


def test_only_the_owner_starts_a_transfer(people):
    alice, bob = people["alice"], people["bob"]
    view = scene.repo(alice, "proj")
    access.add_collaborator(alice, view, "bob", AddCollaboratorOption(permission="admin"))
    with pytest.raises(PermissionDenied, match="user should be the owner of the repo"):
        transfer(bob, view, "bob")
    with pytest.raises(NotFoundError, match="The new owner does not exist"):
        transfer(alice, view, "nobody")
    assert stored(view).owner_login == "alice"


def test_to_another_user_it_waits_for_the_recipient_who_accepts(people):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    view = scene.repo(alice, "proj", private=True)
    moved, pending = transfer(alice, view, "bob")
    assert pending and moved.owner.login == "alice"
    record = repos.repository_record(seen_by(alice, view), alice)
    assert record["repo_transfer"]["recipient"]["login"] == "bob"
    assert record["repo_transfer"]["doer"]["login"] == "alice"
    assert record["repo_transfer"]["teams"] == []
    # The recipient of a private repository was made a reader, so they can answer.
    assert seen_by(bob, view).can_read
    with pytest.raises(ConflictError, match="already being transferred"):
        transfer(alice, view, "carol")
    with pytest.raises(PermissionDenied):
        transfers.answer(scene.caller(carol), seen_by(alice, view), accept=True)
    after = transfers.answer(scene.caller(bob), seen_by(bob, view), accept=True)
    assert (after.owner.login, after.repo.owner_login) == ("bob", "bob")
    assert repos.repo_by_name("alice", "proj") is None
    now = repos.repo_by_name("bob", "proj")
    assert int(now.id) == int(view.repo.id) and not now.transfer_recipient_id
    assert (scene.fresh(alice).num_repos, scene.fresh(bob).num_repos) == (0, 1)
    # bob owns it now: no longer its collaborator.
    assert access.collaborators(after) == []
    assert transfer_store.moved_to("alice", "proj", bob) == ("bob", "proj")
    assert transfer_store.moved_to("alice", "proj.git", None) is None      # private
    with pytest.raises(NotFoundError, match="no pending"):
        transfers.answer(scene.caller(bob), seen_by(bob, after), accept=True)


def test_the_recipient_rejects(people):
    alice, bob = people["alice"], people["bob"]
    view = scene.repo(alice, "proj")
    transfer(alice, view, "bob")
    transfers.answer(scene.caller(bob), seen_by(bob, view), accept=False)
    assert stored(view).owner_login == "alice" and not stored(view).transfer_recipient_id
    assert repos.repository_record(seen_by(alice, view), alice)["repo_transfer"] is None
    _, pending = transfer(alice, view, "bob")                   # may start again
    assert pending


def test_to_an_org_the_doer_may_create_in_it_happens_at_once_with_teams(people):
    alice, bob = people["alice"], people["bob"]
    org = scene.org(alice, "acme")
    team = teams.create_team(alice, org, CreateTeamOption(name="devs", permission="write"))
    other = scene.org(bob, "other")
    foreign = teams.create_team(bob, other, CreateTeamOption(name="x", permission="read"))
    view = scene.repo(alice, "proj")
    access.add_collaborator(alice, view, "bob", AddCollaboratorOption(permission="write"))
    with pytest.raises(PermissionDenied, match="belongs not to org"):
        transfer(alice, view, "acme", [int(foreign.id)])
    with pytest.raises(InvalidInput, match="team 99999 not found"):
        transfer(alice, view, "acme", [99999])
    with pytest.raises(InvalidInput, match="Teams can only be added"):
        transfer(alice, view, "bob", [int(team.id)])
    moved, pending = transfer(alice, view, "acme", [int(team.id)])
    assert not pending and moved.owner.login == "acme"
    now = repos.repo_by_name("acme", "proj")
    assert set(now.team_ids) == {int(team.id)}
    assert orgs.named_team_repo_ids(org, "devs") == [int(now.id)]
    assert (scene.fresh(alice).num_repos, scene.fresh(org).num_repos) == (0, 1)
    # bob is no member of acme: still a collaborator.
    assert [u.login for u in access.collaborators(moved)] == ["bob"]
    assert transfer_store.moved_to("alice", "proj", None) == ("acme", "proj")


def test_a_name_the_new_owner_has_is_refused(people):
    alice, root = people["alice"], people["root"]
    org = scene.org(alice, "acme")
    scene.repo(org, "proj")
    view = scene.repo(alice, "proj")
    with pytest.raises(InvalidInput, match=r"repository already exists \[uname: acme"):
        transfer(alice, view, "acme")
    with pytest.raises(InvalidInput, match="repository already exists"):
        transfer(root, view, "alice")                           # where it is already
    assert stored(view).owner_login == "alice"
    assert scene.fresh(org).num_repos == 1 and scene.fresh(alice).num_repos == 1


def test_a_transfer_back_removes_the_redirect_and_keeps_the_new_one(people):
    alice, root = people["alice"], people["root"]
    scene.org(alice, "acme")
    view = scene.repo(alice, "proj")
    transfer(alice, view, "acme")
    transfer(root, view, "alice")
    assert stored(view).owner_login == "alice"
    assert transfer_store.moved_to("alice", "proj", None) is None    # lives there again
    assert transfer_store.moved_to("acme", "proj", None) == ("alice", "proj")


def test_two_transfers_racing_one_wins(people):
    alice = people["alice"]
    one, two = scene.org(alice, "one"), scene.org(alice, "two")
    view = scene.repo(alice, "proj")
    first, second = seen_by(alice, view), seen_by(alice, view)   # both read it before
    transfers.move(alice, first, one, [])
    with pytest.raises(ConflictError, match="changed while it was being transferred"):
        transfers.move(alice, second, two, [])
    assert repos.repo_by_name("one", "proj") is not None
    assert repos.repo_by_name("two", "proj") is None
    assert (scene.fresh(one).num_repos, scene.fresh(two).num_repos) == (1, 0)
    assert scene.fresh(alice).num_repos == 0


def test_concurrent_transfers_in_threads_leave_one_repository(people):
    alice = people["alice"]
    targets = [scene.org(alice, f"org{i}") for i in range(3)]
    view = scene.repo(alice, "proj")
    views = [seen_by(alice, view) for _ in targets]
    outcomes = []
    barrier = threading.Barrier(len(targets))

    def run(target, seen):
        barrier.wait()
        try:
            transfers.move(alice, seen, target, [])
            outcomes.append("moved")
        except ConflictError:
            outcomes.append("refused")

    threads = [threading.Thread(target=run, args=pair) for pair in zip(targets, views)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["moved", "refused", "refused"]
    owners = [t.login for t in targets if repos.repo_by_name(t.login, "proj") is not None]
    assert len(owners) == 1
    assert sum(scene.fresh(t).num_repos for t in targets) == 1
