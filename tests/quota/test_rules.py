"""Quota's rules, on the in-memory twin (the fast layer): administering rules and groups
with Forgejo's conflicts and 404s, memberships, which groups decide an account's quota
(its own, the default groups, the implicit total), the checks before writes when quota
is on (none when it is off), and the usage counters that repository and attachment
writes move in their own transactions."""
from __future__ import annotations

import pytest

from chalicelib import repo_admin, repos
from chalicelib.errors import (ConflictError, InvalidInput, NotFoundError, PermissionDenied,
                               QuotaExceeded)
from chalicelib.quota import admin
from chalicelib.quota import service as quota
from chalicelib.quota.options import (CreateQuotaGroupOptions, CreateQuotaRuleOptions,
                                      EditQuotaRuleOptions, SetUserQuotaGroupsOptions)
from chalicelib.quota.rules import Rule
from chalicelib.repo_admin import service as repo_service
from chalicelib.store import unit_of_work
from tests import memory_scene as scene
from tests.environment import settings_env

ENABLED = "NIMBUS__QUOTA__ENABLED"
DEFAULT_GROUPS = "NIMBUS__QUOTA__DEFAULT_GROUPS"
DEFAULT_TOTAL = "NIMBUS__QUOTA_0X2E_DEFAULT__TOTAL"      # [quota.default] TOTAL


@pytest.fixture
def quota_on(memory):
    with settings_env({ENABLED: "true"}):
        yield memory


def rule(name, limit, *subjects):
    return admin.create_rule(CreateQuotaRuleOptions(name=name, limit=limit,
                                                    subjects=list(subjects)))


def group(name, *rule_names):
    return admin.create_group(CreateQuotaGroupOptions(
        name=name, rules=[CreateQuotaRuleOptions(name=r) for r in rule_names]))


def group_of(account, name, limit, *subjects):
    """A group ``name`` holding one rule of the same name, with ``account`` in it."""
    rule(name, limit, *subjects)
    group(name, name)
    admin.add_member(name, account)


def used(account):
    return quota.used(int(account.id))


def group_names(account):
    return [g.name for g in quota.own_groups(int(account.id))]


def test_a_rule_is_created_once_and_edited_field_by_field(memory):
    assert rule("repos", 1000, "size:repos:all") == Rule("repos", 1000, ("size:repos:all",))
    with pytest.raises(ConflictError, match=r"rule already exists: \[name: repos\]"):
        rule("repos", 5)
    with pytest.raises(InvalidInput, match=r"\[Limit\]: Required"):
        admin.create_rule(CreateQuotaRuleOptions(name="nolimit", subjects=["size:all"]))
    with pytest.raises(InvalidInput, match=r"unrecognized quota limit subject: \[subject: "
                                           r"size:wiki\]"):
        rule("wiki", 1, "size:wiki")
    assert rule("nothing", 0).limit == 0                    # 0 is a limit, not a missing one
    # Only what an edit sends changes; an empty list clears the subjects.
    admin.edit_rule("repos", EditQuotaRuleOptions(limit=2000))
    assert admin.get_rule("repos") == Rule("repos", 2000, ("size:repos:all",))
    admin.edit_rule("repos", EditQuotaRuleOptions(subjects=[]))
    assert admin.get_rule("repos") == Rule("repos", 2000, ())
    with pytest.raises(NotFoundError, match=r"rule does not exist \[name: gone\]"):
        admin.edit_rule("gone", EditQuotaRuleOptions(limit=1))
    assert [r.name for r in admin.list_rules()] == ["nothing", "repos"]


def test_a_group_links_existing_rules_as_they_are_and_creates_missing_ones(memory):
    rule("repos", 1000, "size:repos:all")
    created = admin.create_group(CreateQuotaGroupOptions(name="std", rules=[
        CreateQuotaRuleOptions(name="repos", limit=5),                  # exists: kept
        CreateQuotaRuleOptions(name="lfs", subjects=["size:git:lfs"])]))  # new: limit 0
    assert created.rules == (Rule("repos", 1000, ("size:repos:all",)),
                             Rule("lfs", 0, ("size:git:lfs",)))
    assert admin.get_rule("lfs").limit == 0
    with pytest.raises(ConflictError, match=r"group already exists: \[name: std\]"):
        group("std")
    with pytest.raises(ConflictError, match=r"rule already in group: \[group: std, rule: repos\]"):
        admin.add_rule("std", "repos")
    # A deleted rule leaves every group that held it.
    admin.delete_rule("repos")
    assert [r.name for r in admin.get_group("std").rules] == ["lfs"]
    with pytest.raises(NotFoundError, match=r"rule not in group: \[group: std, rule: repos\]"):
        admin.remove_rule("std", "repos")
    with pytest.raises(NotFoundError, match=r"group does not exist \[name: nope\]"):
        admin.add_rule("nope", "lfs")


def test_a_group_answers_the_rules_it_stored_when_a_new_rule_is_listed_twice(memory):
    option = CreateQuotaGroupOptions(name="g", rules=[
        CreateQuotaRuleOptions(name="x", limit=5, subjects=["size:all"]),
        CreateQuotaRuleOptions(name="x", limit=9, subjects=["size:git:lfs"])])
    answered = admin.create_group(option)          # the first listing is the rule
    assert answered == admin.get_group("g")
    assert [(r.name, r.limit) for r in answered.rules] == [("x", 5)]


def test_memberships_are_exact_and_go_with_their_group(memory):
    alice, bob = scene.user("alice"), scene.user("bob")
    group("g1")
    group("g2")
    admin.add_member("g1", alice)
    with pytest.raises(ConflictError, match=rf"user already in group: \[group: g1, userID: "
                                            rf"{alice.id}\]"):
        admin.add_member("g1", alice)
    with pytest.raises(NotFoundError, match="user not in group"):
        admin.remove_member("g1", bob)
    # Setting the groups replaces them; an unknown group refuses the whole change.
    admin.set_groups(alice, SetUserQuotaGroupsOptions(groups=["g2"]))
    assert (admin.group_members("g1"), [a.login for a in admin.group_members("g2")]) == \
        ([], ["alice"])
    with pytest.raises(InvalidInput, match=r"group not found: \[group: nope\]"):
        admin.set_groups(alice, SetUserQuotaGroupsOptions(groups=["g1", "nope"]))
    admin.set_groups(alice, SetUserQuotaGroupsOptions(groups=None))   # null: nothing changes
    assert group_names(alice) == ["g2"]
    admin.delete_group("g2")
    assert group_names(alice) == []
    with pytest.raises(NotFoundError, match=r"group does not exist \[name: g2\]"):
        admin.group_members("g2")


@pytest.mark.usefixtures("immediate_deletion")   # what deleting removes at once
def test_with_quota_off_every_check_passes_and_the_books_are_still_kept(memory):
    alice = scene.user("alice")
    group_of(alice, "none", 0, "size:all")                 # would refuse everything
    view = scene.repo(alice, "proj", auto_init=True)
    size = repos.repo_by_id(int(view.repo.id)).quota_size
    assert size > 0 and used(alice).repos_public == size
    assert quota.allows(int(alice.id), "size:all")
    scene.repo(alice, "more")                                 # no QuotaExceeded
    with settings_env({ENABLED: "true"}):
        assert not quota.allows(int(alice.id), "size:all")
        with pytest.raises(QuotaExceeded):
            scene.repo(alice, "refused")
    # Unknown subjects are refused whether quota is on or off.
    with pytest.raises(InvalidInput, match="unrecognized quota limit subject"):
        quota.allows(int(alice.id), "size:everything")
    # The books are kept all the same: a visibility change moves the repository's bytes
    # between the public and private counters, a deletion gives them back.
    caller = scene.caller(alice)
    repo_service.edit_repo(caller, repos.view_of(repos.repo_by_id(int(view.repo.id)), caller),
                           repo_admin.EditRepoOption(private=True))
    assert (used(alice).repos_public, used(alice).repos_private) == (0, size)
    repo_service.delete_repo(caller, repos.view_of(repos.repo_by_id(int(view.repo.id)), caller))
    assert (used(alice).repos_public, used(alice).repos_private) == (0, 0)


@pytest.mark.usefixtures("immediate_deletion")   # what deleting removes at once
def test_the_write_that_crosses_the_limit_succeeds_and_the_next_is_refused(quota_on):
    alice = scene.user("alice")
    group_of(alice, "small", 10 ** 9, "size:repos:all")
    scene.repo(alice, "one", auto_init=True)
    size = used(alice).repos_public
    admin.edit_rule("small", EditQuotaRuleOptions(limit=size + 1))
    # Below the limit: allowed, though this repository takes usage past it.
    second = scene.repo(alice, "two", auto_init=True)
    second_size = repos.repo_by_id(int(second.repo.id)).quota_size
    assert second_size > 0 and used(alice).repos_public == size + second_size
    with pytest.raises(QuotaExceeded) as refused:
        scene.repo(alice, "three")
    assert (str(refused.value), refused.value.user_id, refused.value.username) == (
        "quota exceeded", int(alice.id), "alice")
    assert repos.repo_by_name("alice", "three") is None
    # Deleting a repository gives its bytes back in the deletion's transaction.
    repo_service.delete_repo(scene.caller(alice), second)
    assert used(alice).repos_public == size
    # A caller that knows what it adds is refused when that would pass the limit.
    quota.ensure_within(int(alice.id), "size:repos:all", adding=1)
    with pytest.raises(QuotaExceeded):
        quota.ensure_within(int(alice.id), "size:repos:all", adding=2)
    # Subjects outside every rule of the account's groups are refused.
    assert not quota.allows(int(alice.id), "size:assets:attachments:releases")


def test_own_groups_then_default_groups_then_the_implicit_total_decide(quota_on):
    alice = scene.user("alice")
    with unit_of_work.writing():
        quota.stage_attachment_usage(int(alice.id), "releases", 700)
        quota.stage_attachment_usage(int(alice.id), "releases", 300)   # summed in one update
        quota.stage_attachment_usage(int(alice.id), "issues", 20)
    assert (used(alice).attachments_releases, used(alice).attachments_issues) == (1000, 20)
    with pytest.raises(ValueError, match="issues or releases"):
        quota.stage_attachment_usage(int(alice.id), "wiki", 1)

    def allowed(**env):
        with settings_env(env):
            return quota.allows(int(alice.id), "size:all"), group_names(alice)

    # No group at all: the implicit one of [quota.default] TOTAL (humanized: 1020 bytes are
    # below 1 KiB, 1024, and not below 1 KB, 1000).
    assert allowed(**{DEFAULT_TOTAL: "1 KiB"}) == (True, [])
    assert allowed(**{DEFAULT_TOTAL: "1 KB"}) == (False, [])
    rule("roomy", 10 ** 6, "size:all")
    group("roomy", "roomy")
    assert allowed(**{DEFAULT_TOTAL: "1 KB", DEFAULT_GROUPS: "missing, roomy"}) == (
        True, ["roomy"])
    # The account's own groups replace the default ones.
    group_of(alice, "tight", 1000, "size:all")
    assert allowed(**{DEFAULT_GROUPS: "roomy"}) == (False, ["tight"])


def test_only_an_organization_s_owners_see_its_quota(quota_on):
    alice, bob = scene.user("alice"), scene.user("bob")
    root = scene.user("root", admin=True)
    scene.org(alice, "acme")
    assert quota.org_for_quota(alice, "acme").login == "acme"
    assert quota.org_for_quota(root, "acme").login == "acme"     # site admins own every org
    with pytest.raises(PermissionDenied, match="Must be an organization owner"):
        quota.org_for_quota(bob, "acme")
    for name in ("nothing", "alice"):                             # unknown, or a user
        with pytest.raises(NotFoundError, match=rf"organization does not exist \[name: {name}\]"):
            quota.org_for_quota(alice, name)
