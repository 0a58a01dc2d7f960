"""Branch and tag protection's service rules, on the in-memory twin (the fast layer): who
manages rules, names taken once and counted on the repository, allowlists given by name
and kept by id (users without the access dropped, teams of the owning organization),
edits of what is sent, and what the rules then refuse to real commits, branch
deletions and releases.  The rules as plain data (globs, orders, allowlist logic) are
pinned in ``test_rules.py``; the pre-receive gate over dulwich objects in
``test_gate.py``."""
from __future__ import annotations

import base64

import pytest

from chalicelib import contents, releases, repos
from chalicelib.contents import branch_admin
from chalicelib.contents import service as files
from chalicelib.contents.options import CreateBranchRepoOption, CreateFileOptions
from chalicelib.errors import (ArchivedRepository, BadInput, InvalidInput, NotFoundError,
                               PermissionDenied, RefProtected)
from chalicelib.orgs import teams
from chalicelib.orgs.options import CreateTeamOption
from chalicelib.protection import service
from chalicelib.protection.options import (CreateBranchProtectionOption,
                                           CreateTagProtectionOption,
                                           EditBranchProtectionOption)
from chalicelib.repo_admin import EditRepoOption
from chalicelib.repo_admin import service as repo_service
from chalicelib.repos import access
from chalicelib.repos.options import AddCollaboratorOption
from tests import memory_scene as scene

NOT_ADMIN = "user should be an owner or a collaborator with admin write of a repository"


class Guarded(dict):
    """alice's ``guarded`` (with a first commit): bob writes to it, carol reads it, erin
    admins it, dave is a stranger.  ``guarded["bob"]`` is (view, caller) as bob sees the
    repository now (each operation takes a new one, as each request does)."""

    def __missing__(self, name):
        caller = scene.caller(self.people[name])
        return repos.view_of(repos.repo_by_id(self.repo_id), caller), caller


@pytest.fixture
def guarded(memory):
    found = Guarded()
    found.people = {n: scene.user(n) for n in ("alice", "bob", "carol", "dave", "erin")}
    alice = found.people["alice"]
    view = scene.repo(alice, "guarded", auto_init=True)
    found.repo_id = int(view.repo.id)
    for name, mode in (("bob", "write"), ("carol", "read"), ("erin", "admin")):
        access.add_collaborator(alice, view, name, AddCollaboratorOption(permission=mode))
    return found


def create_rule(guarded, who="alice", **fields):
    return service.create_branch_rule(*guarded[who], CreateBranchProtectionOption(**fields))


def rule_count(guarded):
    return repos.repo_by_id(guarded.repo_id).protection_rules


def commit_file(guarded, who, path, **fields):
    """``who`` commits ``path`` through the contents API (the default branch unless
    ``branch``/``new_branch`` say otherwise)."""
    view, caller = guarded[who]
    option = CreateFileOptions(content=base64.b64encode(b"data\n").decode(), **fields)
    return files.change_one(view, caller.user, option, path)


def create_branch(guarded, name, who="alice"):
    view, caller = guarded[who]
    branch_admin.create_branch(caller, view, CreateBranchRepoOption(new_branch_name=name))


def test_only_repository_admins_manage_the_rules(guarded):
    for name in ("bob", "carol", "dave"):
        with pytest.raises(PermissionDenied, match=NOT_ADMIN):
            create_rule(guarded, name, rule_name="main")
        with pytest.raises(PermissionDenied, match=NOT_ADMIN):
            service.list_branch_rules(*guarded[name])
    assert create_rule(guarded, "erin", rule_name="main").rule_name == "main"
    # An archived repository keeps its rules readable and refuses changes to them.
    view, caller = guarded["alice"]
    repo_service.edit_repo(caller, view, EditRepoOption(archived=True))
    with pytest.raises(ArchivedRepository):
        create_rule(guarded, rule_name="develop")
    assert [r.rule_name for r in service.list_branch_rules(*guarded["alice"])] == ["main"]


def test_a_rule_name_is_taken_once_and_counted_on_the_repository(guarded):
    assert rule_count(guarded) == 0
    first = create_rule(guarded, rule_name="main")
    create_rule(guarded, branch_name="release/*")          # the deprecated name still works
    assert (first.id, rule_count(guarded)) == (1, 2)
    with pytest.raises(PermissionDenied, match="Branch protection already exist"):
        create_rule(guarded, rule_name="main")
    with pytest.raises(BadInput, match="both rule_name and branch_name are empty"):
        create_rule(guarded, rule_name="")
    service.delete_branch_rule(*guarded["alice"], "main")
    assert rule_count(guarded) == 1
    for read in (service.get_branch_rule, service.delete_branch_rule):
        with pytest.raises(NotFoundError, match="branch protection does not exist"):
            read(*guarded["alice"], "main")
    assert [r.rule_name for r in service.list_branch_rules(*guarded["alice"])] == ["release/*"]


def test_allowlists_keep_only_users_with_the_access_they_need(guarded):
    made = create_rule(guarded, rule_name="main", enable_push=True, enable_push_whitelist=True,
                       push_whitelist_usernames=["Bob", "carol", "bob"],
                       enable_approvals_whitelist=True,
                       approvals_whitelist_username=["carol", "dave"],
                       push_whitelist_teams=["owners"])
    people = guarded.people
    # carol only reads: dropped from the push list, kept for approvals (reading suffices,
    # and dave, a stranger, reads a public repository); names are matched in any case.
    assert made.push_whitelist_user_ids == [int(people["bob"].id)]
    assert made.approvals_whitelist_user_ids == [int(people["carol"].id),
                                                 int(people["dave"].id)]
    assert made.push_whitelist_team_ids == []       # a user's repository has no teams
    with pytest.raises(InvalidInput, match=r"user does not exist \[uid: 0, name: nobody\]"):
        create_rule(guarded, rule_name="develop", merge_whitelist_usernames=["nobody"])
    assert rule_count(guarded) == 1                  # the refused rule was not written


def test_an_edit_changes_only_what_it_sends(guarded):
    create_rule(guarded, rule_name="main", enable_push=True, enable_push_whitelist=True,
                push_whitelist_usernames=["bob"], push_whitelist_deploy_keys=True,
                required_approvals=2, status_check_contexts=["ci/*"])

    def edit(**fields):
        return service.edit_branch_rule(*guarded["alice"], "main",
                                        EditBranchProtectionOption(**fields))

    edited = edit(required_approvals=1, enable_push=False)
    # Turning pushes off clears the allowlist switches and keeps the list itself.
    assert (edited.enable_push, edited.enable_push_whitelist,
            edited.push_whitelist_deploy_keys) == (False, False, False)
    assert (edited.required_approvals, edited.status_check_contexts,
            edited.push_whitelist_user_ids) == (1, ["ci/*"], [int(guarded.people["bob"].id)])
    assert edit(required_approvals=-1).required_approvals == 1   # a negative count is ignored
    assert service.get_branch_rule(*guarded["alice"], "main") == edit()
    with pytest.raises(NotFoundError, match="branch protection does not exist"):
        service.edit_branch_rule(*guarded["alice"], "develop", EditBranchProtectionOption())


def test_a_push_allowlist_decides_who_commits_to_a_protected_branch(guarded):
    create_rule(guarded, rule_name="main", enable_push=True, enable_push_whitelist=True,
                push_whitelist_usernames=["alice"])
    with pytest.raises(RefProtected, match="Not allowed to push to protected branch main"):
        commit_file(guarded, "bob", "a.txt")
    written = commit_file(guarded, "alice", "a.txt")
    assert contents.branch_info(guarded.repo_id, "main").commit_id == written.at.commit_id
    # Branches no rule matches stay free for every writer.
    assert commit_file(guarded, "bob", "b.txt", new_branch="topic").at.ref == "topic"
    # A glob's * stops at the separator: release/1 is protected, release/1/x is not.
    for name in ("release/1", "release/1/x"):
        create_branch(guarded, name)
    create_rule(guarded, rule_name="release/*")
    with pytest.raises(RefProtected, match="protected branch release/1$"):
        commit_file(guarded, "alice", "c.txt", branch="release/1")
    assert commit_file(guarded, "bob", "c.txt", branch="release/1/x").at.ref == "release/1/x"
    # Creating a branch the rule covers is a push to it too.
    with pytest.raises(RefProtected, match="protected branch release/2$"):
        create_branch(guarded, "release/2")


def test_protected_files_and_deletion_are_refused_to_allowed_pushers(guarded):
    create_rule(guarded, rule_name="main", enable_push=True, protected_file_patterns="*.lock")
    with pytest.raises(RefProtected, match="branch main is protected from changing file "
                                           "Cargo.lock"):
        commit_file(guarded, "bob", "Cargo.lock")
    assert commit_file(guarded, "bob", "src/lib.rs").at.ref == "main"
    # A protected branch is not deleted through the API, even by its owner.
    for name in ("keep", "scratch"):
        create_branch(guarded, name)
    create_rule(guarded, rule_name="keep", enable_push=True)

    def delete_branch(name):
        view, caller = guarded["alice"]
        branch_admin.delete_branch(caller, view, name)

    with pytest.raises(PermissionDenied, match="branch protected"):
        delete_branch("keep")
    delete_branch("scratch")
    assert contents.branch_info(guarded.repo_id, "keep") is not None
    assert contents.branch_info(guarded.repo_id, "scratch") is None


def test_tag_rules_need_a_valid_pattern_and_an_allowlist(guarded):
    def create(who="alice", **fields):
        return service.create_tag_rule(*guarded[who], CreateTagProtectionOption(**fields))

    with pytest.raises(BadInput, match="name_pattern are empty"):
        create(name_pattern="  ", whitelist_usernames=["alice"])
    with pytest.raises(BadInput, match="both whitelist_usernames and whitelist_teams are empty"):
        create(name_pattern="v*")
    with pytest.raises(InvalidInput, match="not a valid glob or regular expression"):
        create(name_pattern="/^v(1$/", whitelist_usernames=["alice"])
    made = create(name_pattern="v*", whitelist_usernames=["alice"])
    with pytest.raises(PermissionDenied, match="Tag protection already exist"):
        create(name_pattern=" v* ", whitelist_usernames=["bob"])
    assert [r.id for r in service.list_tag_rules(*guarded["alice"])] == [made.id]

    # A release publishing a protected tag needs its creator on the allowlist.
    def release(who, tag):
        view, caller = guarded[who]
        return releases.create_release(releases.release_context(caller, view),
                                       releases.CreateReleaseOption(tag_name=tag, name=tag))

    with pytest.raises(InvalidInput, match="user not allowed to create protected tag"):
        release("bob", "v1.0")
    assert release("bob", "nightly").sha and release("alice", "v1.0").sha


def test_team_allowlists_follow_the_owning_organization_s_teams(memory):
    alice, bob, carol = scene.user("alice"), scene.user("bob"), scene.user("carol")
    acme = scene.org(alice, "acme")
    view = scene.repo(acme, "app", actor=alice, auto_init=True)
    for name, member in (("deployers", bob), ("devs", carol)):
        team = teams.create_team(alice, acme, CreateTeamOption(
            name=name, permission="write", includes_all_repositories=True))
        teams.add_team_member(alice, team, member)

    def as_(user):
        caller = scene.caller(user)
        return repos.view_of(repos.repo_by_id(int(view.repo.id)), caller), caller

    with pytest.raises(InvalidInput, match="team does not exist"):
        service.create_branch_rule(*as_(alice), CreateBranchProtectionOption(
            rule_name="main", push_whitelist_teams=["ghosts"]))
    service.create_branch_rule(*as_(alice), CreateBranchProtectionOption(
        rule_name="main", enable_push=True, enable_push_whitelist=True,
        push_whitelist_teams=["Deployers"]))
    option = CreateFileOptions(content=base64.b64encode(b"x\n").decode())
    with pytest.raises(RefProtected, match="Not allowed to push to protected branch main"):
        files.change_one(as_(carol)[0], carol, option, "x.txt")     # writes, not listed
    assert files.change_one(as_(bob)[0], bob, option, "x.txt").at.ref == "main"
