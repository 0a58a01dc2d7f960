"""The repository lifecycle's rules, on the in-memory twin (the fast layer): names (what
Forgejo allows, reserved names and suffixes, one name per owner whatever its case), who
may create where, the quota a creation checks, forks (one object pool, the parent's
``num_forks``), deletion (owners only; it frees the name, makes forks independent, and
the pool goes with its last repository) and edits."""
from __future__ import annotations

import pytest

from chalicelib import repo_admin, repos
from chalicelib.errors import (ConflictError, InvalidInput, PermissionDenied, QuotaExceeded)
from chalicelib.orgs import teams
from chalicelib.orgs.options import CreateTeamOption
from chalicelib.repo_admin import service
from chalicelib.repo_admin.options import CreateForkOption
from chalicelib.repos import access
from chalicelib.repos.options import AddCollaboratorOption
from tests import memory_scene as scene
from tests.conftest import drain_outbox
from tests.environment import settings_env


@pytest.fixture
def people(memory):
    return {"alice": scene.user("alice"), "bob": scene.user("bob"),
            "root": scene.user("root", admin=True)}


def stored(view_or_repo):
    """The repository as stored now (a fresh read, as the next request makes)."""
    repo = getattr(view_or_repo, "repo", view_or_repo)
    return repos.repo_by_id(int(repo.id))


def seen_by(account, view):
    return repos.view_of(stored(view), scene.caller(account))


def fork(account, view, **fields):
    return service.fork_repo(scene.caller(account), seen_by(account, view),
                             CreateForkOption(**fields))


def run_cleanup() -> None:
    """What the queue worker does with the deletions waiting (the cleanup consumer)."""
    for event in drain_outbox():
        if type(event).__name__ == "RepositoryDeleted":
            repo_admin.on_repository_deleted(event)


@pytest.mark.parametrize("name, message", [
    ("", r"^\[Name\]: Required$"), ("x" * 101, r"^\[Name\]: MaxSize$"),
    ("my repo", r"^\[Name\]: AlphaDashDot$"), ("ünï", r"^\[Name\]: AlphaDashDot$"),
    ("..", r"^name is reserved \[name: \.\.\]$"), ("-", r"^name is reserved \[name: -\]$"),
    ("proj.git", r"^name pattern is not allowed \[pattern: \*\.git\]$"),
    ("Notes.WIKI", r"^name pattern is not allowed \[pattern: \*\.WIKI\]$"),
])
def test_names_forgejo_refuses_leave_nothing_behind(people, name, message):
    alice = people["alice"]
    with pytest.raises(InvalidInput, match=message):
        scene.repo(alice, name)
    assert scene.fresh(alice).num_repos == 0
    assert scene.repo(alice, "x" * 100).repo.name == "x" * 100        # the longest allowed


def test_a_name_is_one_repository_of_its_owner_whatever_the_case(people):
    alice, bob = people["alice"], people["bob"]
    scene.repo(alice, "proj")
    with pytest.raises(ConflictError, match="^The repository with the same name already exists"):
        scene.repo(alice, "PROJ")
    assert scene.repo(bob, "proj").owner.login == "bob"               # another owner's name
    other = scene.repo(alice, "other")
    with pytest.raises(ConflictError):
        fork(bob, other, name="Proj")                                 # a fork's name too
    assert (scene.fresh(alice).num_repos, scene.fresh(bob).num_repos) == (2, 1)


def test_who_may_create_where_and_what_a_creation_checks(people):
    alice, bob, root = people["alice"], people["bob"], people["root"]
    with pytest.raises(PermissionDenied, match="not allowed to create repositories here"):
        scene.repo(alice, "theirs", actor=bob)
    assert scene.repo(alice, "made-for-her", actor=root).owner.login == "alice"
    acme = scene.org(alice, "acme")
    makers = teams.create_team(alice, acme, CreateTeamOption(
        name="makers", permission="write", can_create_org_repo=True))
    with pytest.raises(PermissionDenied):
        scene.repo(acme, "svc", actor=bob)                            # not yet a member
    teams.add_team_member(alice, makers, bob)
    assert scene.repo(acme, "svc", actor=bob).repo.owner_login == "acme"
    with pytest.raises(InvalidInput, match="unsupported object format 'sha256'"):
        scene.repo(alice, "new", object_format_name="sha256")
    with pytest.raises(InvalidInput, match=r"^\[Description\]: MaxSize$"):
        scene.repo(alice, "new", description="d" * 2049)
    view = scene.repo(alice, "new", default_branch="trunk", auto_init=True)
    assert (stored(view).default_branch, stored(view).empty) == ("trunk", False)


def test_an_owner_over_quota_creates_nothing(people):
    alice, root = people["alice"], people["root"]
    upstream = scene.repo(root, "upstream")
    quota = {"NIMBUS__QUOTA__ENABLED": "true", "NIMBUS__QUOTA_0X2E_DEFAULT__TOTAL": "0"}
    with settings_env(quota):
        with pytest.raises(QuotaExceeded) as refused:
            scene.repo(alice, "proj")
        assert (refused.value.user_id, refused.value.username) == (int(alice.id), "alice")
        with pytest.raises(QuotaExceeded):
            fork(alice, upstream)
        # The admin route does not check the owner's quota (as Forgejo's).
        option = repo_admin.CreateRepoOption(name="by-admin")
        assert repo_admin.create_repo(scene.caller(root), alice, option,
                                      check_quota=False).repo.name == "by-admin"
    assert [r.name for r in repos.repos_owned_by(int(alice.id))] == ["by-admin"]


def test_a_fork_shares_its_parent_s_pool_and_counts_on_it(people):
    alice, bob = people["alice"], people["bob"]
    parent = scene.repo(alice, "proj", auto_init=True)
    copy = fork(bob, parent)
    assert (copy.repo.name, copy.owner.login, copy.repo.fork) == ("proj", "bob", True)
    assert (int(copy.repo.parent_id), int(copy.repo.pool_id)) == (
        int(parent.repo.id), int(parent.repo.pool_id))
    assert stored(parent).num_forks == 1
    assert repos.pool_by_id(int(parent.repo.pool_id)).members == 2
    assert stored(copy).empty is False                                # the refs came along
    with pytest.raises(InvalidInput, match="cannot be forked onto itself"):
        fork(alice, parent)
    with pytest.raises(InvalidInput, match=r"organization does not exist \[name: nowhere\]"):
        fork(bob, parent, organization="nowhere")
    scene.org(alice, "acme")
    with pytest.raises(PermissionDenied, match="User is no admin of organisation"):
        fork(bob, parent, organization="acme")
    assert fork(alice, parent, name="mine").repo.name == "mine"       # a new name: allowed
    assert stored(parent).num_forks == 2


def test_only_owners_delete_and_deletion_frees_the_name_and_the_forks(people):
    alice, bob = people["alice"], people["bob"]
    parent = scene.repo(alice, "proj")
    access.add_collaborator(alice, parent, "bob", AddCollaboratorOption(permission="admin"))
    with pytest.raises(PermissionDenied, match="not owner of this repository"):
        service.delete_repo(scene.caller(bob), seen_by(bob, parent))
    copy = fork(bob, parent)
    service.delete_repo(scene.caller(alice), seen_by(alice, parent))
    assert repos.repo_by_name("alice", "proj") is None
    assert scene.fresh(alice).num_repos == 0
    independent = stored(copy)
    assert (independent.fork, int(independent.parent_id)) == (False, 0)
    again = scene.repo(alice, "proj")                                 # the name is free
    assert int(again.repo.id) != int(parent.repo.id)


@pytest.mark.usefixtures("immediate_deletion")   # what deleting removes at once
def test_the_pool_goes_with_its_last_repository(people):
    alice, bob = people["alice"], people["bob"]
    parent = scene.repo(alice, "proj", auto_init=True)
    copy = fork(bob, parent)
    pool_id = int(parent.repo.pool_id)
    service.delete_repo(scene.caller(alice), seen_by(alice, parent))
    run_cleanup()
    assert repos.pool_by_id(pool_id).members == 1                     # the fork still uses it
    service.delete_repo(scene.caller(bob), seen_by(bob, copy))
    run_cleanup()
    run_cleanup()                                                     # redelivered: no harm
    assert repos.pool_by_id(pool_id) is None


def test_an_edit_is_for_repository_admins(people):
    alice, bob = people["alice"], people["bob"]
    view = scene.repo(alice, "proj")
    access.add_collaborator(alice, view, "bob", AddCollaboratorOption(permission="write"))
    with pytest.raises(PermissionDenied, match="owner or a collaborator with admin"):
        service.edit_repo(scene.caller(bob), seen_by(bob, view),
                          repo_admin.EditRepoOption(description="mine now"))
    with pytest.raises(PermissionDenied, match="owner or a collaborator with admin"):
        service.edit_repo(scene.caller(bob), seen_by(bob, view),
                          repo_admin.EditRepoOption(name="other"))     # renames: rename rules
    service.edit_repo(scene.caller(alice), seen_by(alice, view),
                      repo_admin.EditRepoOption(description="the one", private=True))
    assert (stored(view).description, stored(view).private) == ("the one", True)
    assert repos.repo_access(bob, stored(view), alice) == repos.Access.WRITE
