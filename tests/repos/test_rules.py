"""The repositories domain's rules, on the in-memory twin (the fast layer): who may do
what with a repository, collaborators, stars and watches, and the counters other
domains keep on the repository item."""
from __future__ import annotations

import pytest

from chalicelib import repos
from chalicelib.errors import InvalidInput, PermissionDenied
from chalicelib.repos import access
from chalicelib.repos.options import AddCollaboratorOption
from tests import memory_scene as scene

Access = repos.Access


@pytest.fixture
def people(memory):
    return {"alice": scene.user("alice"), "bob": scene.user("bob"),
            "root": scene.user("root", admin=True), "rita": scene.user("rita", restricted=True)}


def mode(user, view):
    return repos.repo_access(user, view.repo, view.owner)


def test_access_to_a_public_and_a_private_repository(people):
    alice, bob, root, rita = (people[n] for n in ("alice", "bob", "root", "rita"))
    public, private = scene.repo(alice, "open"), scene.repo(alice, "closed", private=True)
    assert [mode(u, public) for u in (alice, root, bob, rita, None)] == [
        Access.OWNER, Access.OWNER, Access.READ, Access.NONE, Access.READ]
    assert [mode(u, private) for u in (alice, root, bob, rita, None)] == [
        Access.OWNER, Access.OWNER, Access.NONE, Access.NONE, Access.NONE]
    # A token limited to public things sees nothing private, even its owner's.
    assert repos.repo_access(alice, private.repo, alice, public_only=True) == Access.NONE


def test_a_collaborator_s_mode_is_what_was_granted_and_goes_with_them(people):
    alice, bob, rita = people["alice"], people["bob"], people["rita"]
    view = scene.repo(alice, "closed", private=True)
    access.add_collaborator(alice, view, "bob", AddCollaboratorOption(permission="write"))
    access.add_collaborator(alice, view, "rita", AddCollaboratorOption(permission="Read"))
    assert (mode(bob, view), mode(rita, view)) == (Access.WRITE, Access.READ)
    assert sorted(a.login for a in access.collaborators(view)) == ["bob", "rita"]
    with pytest.raises(InvalidInput, match="must be one of read, write, admin"):
        access.add_collaborator(alice, view, "rita", AddCollaboratorOption(permission="owner"))
    with pytest.raises(PermissionDenied):                             # a writer is no admin
        access.add_collaborator(bob, repos.view_of(view.repo, scene.caller(bob)), "rita",
                                AddCollaboratorOption(permission="admin"))
    access.remove_collaborator(alice, view, "bob")
    assert mode(bob, view) == Access.NONE
    with pytest.raises(InvalidInput, match="user does not exist"):
        access.add_collaborator(alice, view, "nobody", AddCollaboratorOption(permission="read"))


def test_stars_count_once_per_user(people):
    alice, bob = people["alice"], people["bob"]
    view = scene.repo(alice, "open")
    access.follow(access.STARS, bob, view)
    access.follow(access.STARS, bob, view)           # again: nothing changes (Forgejo's 204)
    assert repos.repo_by_id(int(view.repo.id)).num_stars == 1
    assert [a.login for a in access.followers(access.STARS, view)] == ["bob"]
    access.unfollow(access.STARS, bob, view)
    assert repos.repo_by_id(int(view.repo.id)).num_stars == 0


def test_only_the_counters_other_domains_keep_may_be_moved_through_the_face(people):
    from chalicelib.store import unit_of_work

    view = scene.repo(people["alice"], "open")
    with unit_of_work.writing():
        repos.stage_repo_counts(view.repo, {"num_releases": 2, "lfs_size": 10}, label="repo")
    again = repos.repo_by_id(int(view.repo.id))
    assert (again.num_releases, again.lfs_size) == (2, 10)
    with pytest.raises(ValueError, match="num_stars"), unit_of_work.writing():
        repos.stage_repo_counts(view.repo, {"num_stars": 1}, label="repo")


def test_a_repository_rebuilt_from_its_event_snapshot(people):
    from chalicelib import events

    view = scene.repo(people["alice"], "open", description="the open one")
    rebuilt = repos.repo_from_snapshot(events.snapshot(view.repo))
    assert (rebuilt.pk, rebuilt.name, rebuilt.description) == (view.repo.pk, "open",
                                                               "the open one")
