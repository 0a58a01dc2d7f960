"""Blocking's rules on the in-memory twin (the fast layer): who may be blocked and what
each refusal answers, the list and its record, organizations' owners, what a block
refuses in the other domains (through their services), and what the check costs."""
from __future__ import annotations

import pytest

from chalicelib import accounts, aws, issues, repos
from chalicelib.errors import InvalidInput, NotFoundError, PermissionDenied
from chalicelib.http import schemas
from chalicelib.issues.options import CreateIssueCommentOption, CreateIssueOption
from chalicelib.repos import access
from chalicelib.repos.options import AddCollaboratorOption
from chalicelib.store import unit_of_work
from tests import memory_scene as scene

BLOCKED = "user is blocked by the poster or repository owner"


@pytest.fixture
def people(memory):
    found = {name: scene.user(name) for name in ("alice", "bob", "carol")}
    found["root"] = scene.user("boss", admin=True)
    return found


# Blocking itself -------------------------------------------------------------------------------

def test_block_list_unblock_and_repeats_change_nothing(people):
    alice = people["alice"]
    accounts.block_user(alice, alice, "bob")
    accounts.block_user(alice, alice, "BOB")            # twice: still one block
    listed = accounts.blocked_users(alice)
    assert [b.user_id for b in listed] == [int(people["bob"].id)]
    record = accounts.blocked_user_record(listed[0])
    assert set(record) == set(schemas.RECORDS["BlockedUser"]) == {"block_id", "created_at"}
    assert record["block_id"] == int(people["bob"].id)
    assert accounts.is_blocked(alice.id, people["bob"].id)
    assert not accounts.is_blocked(people["bob"].id, alice.id)       # one way only
    accounts.unblock_user(alice, alice, "bob")
    accounts.unblock_user(alice, alice, "bob")          # not blocked: no error
    assert accounts.blocked_users(alice) == []
    assert not accounts.is_blocked(alice.id, people["bob"].id)


@pytest.mark.parametrize("name, error, text", [
    ("nobody", NotFoundError, "user redirect does not exist"),
    ("alice", InvalidInput, "you cannot block yourself"),
    ("boss", InvalidInput, "a site administrator cannot be blocked"),
    ("corp", InvalidInput, "corp is an organization"),
])
def test_who_cannot_be_blocked(people, name, error, text):
    scene.org(people["carol"], "corp")
    for change in (accounts.block_user, accounts.unblock_user):
        with pytest.raises(error, match=text):
            change(people["alice"], people["alice"], name)
    assert accounts.blocked_users(people["alice"]) == []


def test_a_private_user_one_cannot_see_is_not_found(people):
    scene.user("hermit", visibility="private")
    with pytest.raises(NotFoundError):
        accounts.block_user(people["alice"], people["alice"], "hermit")


# What a block refuses --------------------------------------------------------------------------

def _view(account, repo_id):
    return repos.view_of(repos.repo_by_id(repo_id), scene.caller(account))


def test_a_blocked_user_may_not_act_on_the_blockers_repositories(people):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    repo_id = int(scene.repo(alice, "proj", auto_init=True).repo.id)
    ctx = issues.issue_context(scene.caller(carol), _view(carol, repo_id))
    carols = issues.create_issue(ctx, CreateIssueOption(title="carol's"))
    accounts.block_user(alice, alice, "bob")

    bob_ctx = issues.issue_context(scene.caller(bob), _view(bob, repo_id))
    refusals = [
        lambda: issues.create_issue(bob_ctx, CreateIssueOption(title="hi")),
        lambda: issues.create_comment(bob_ctx, int(carols.number),
                                      CreateIssueCommentOption(body="hi")),
        lambda: access.follow(access.STARS, bob, _view(bob, repo_id)),
        lambda: access.follow(access.WATCHES, bob, _view(bob, repo_id)),
        lambda: access.add_collaborator(alice, _view(alice, repo_id), "bob",
                                        AddCollaboratorOption(permission="write")),
    ]
    for refused in refusals:
        with pytest.raises(PermissionDenied, match=BLOCKED):
            refused()
    assert access.collaborators(_view(alice, repo_id)) == []

    accounts.unblock_user(alice, alice, "bob")
    issues.create_issue(bob_ctx, CreateIssueOption(title="hi"))
    access.follow(access.STARS, bob, _view(bob, repo_id))
    access.add_collaborator(alice, _view(alice, repo_id), "bob", AddCollaboratorOption())


def test_the_poster_of_an_issue_blocks_comments_on_it(people):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    repo_id = int(scene.repo(alice, "proj", auto_init=True).repo.id)
    carols = issues.create_issue(issues.issue_context(scene.caller(carol), _view(carol, repo_id)),
                                 CreateIssueOption(title="carol's"))
    accounts.block_user(carol, carol, "bob")
    bob_ctx = issues.issue_context(scene.caller(bob), _view(bob, repo_id))
    with pytest.raises(PermissionDenied, match=BLOCKED):
        issues.create_comment(bob_ctx, int(carols.number), CreateIssueCommentOption(body="x"))
    issues.create_issue(bob_ctx, CreateIssueOption(title="still allowed: alice did not block"))


def test_a_user_who_blocked_the_owner_is_not_added_as_collaborator(people):
    alice = people["alice"]
    view = scene.repo(alice, "proj")
    accounts.block_user(people["bob"], people["bob"], "alice")
    with pytest.raises(PermissionDenied, match=BLOCKED):
        access.add_collaborator(alice, view, "bob", AddCollaboratorOption())


def test_an_organization_blocks_for_its_repositories(people):
    alice, bob = people["alice"], people["bob"]
    corp = scene.org(alice, "corp")
    repo_id = int(scene.repo(corp, "tool", actor=alice).repo.id)
    accounts.block_user(alice, corp, "bob")
    assert [b.user_id for b in accounts.blocked_users(corp)] == [int(bob.id)]
    with pytest.raises(PermissionDenied, match=BLOCKED):
        access.follow(access.STARS, bob, _view(bob, repo_id))


# What the check costs --------------------------------------------------------------------------

def test_the_check_is_one_get_item_and_none_once_preloaded(people):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    accounts.block_user(alice, alice, "bob")
    calls: list = []
    counting = [False]
    aws.add_call_hook(lambda model, **_: calls.append(model.name) if counting[0] else None)
    with unit_of_work.start() as uow:
        counting[0] = True
        assert accounts.is_blocked(alice.id, bob.id)
        assert calls == ["GetItem"]
        uow.prefetch([accounts.block_key(alice.id, carol.id)])
        calls.clear()
        accounts.check_not_blocked([alice.id], carol.id)        # preloaded: no call
        assert not accounts.is_blocked(bob.id, bob.id)           # oneself: no call
        assert calls == []
        with pytest.raises(PermissionDenied, match=BLOCKED):
            accounts.check_not_blocked([alice.id], bob.id)        # read once already
        assert calls == []
        counting[0] = False


# Follows --------------------------------------------------------------------------------------

def test_a_block_ends_follows_both_ways_and_refuses_new_ones(people):
    from chalicelib.accounts import follows

    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    follows.follow(alice, "bob")
    follows.follow(bob, "alice")
    follows.follow(carol, "alice")
    accounts.block_user(alice, alice, "bob")
    assert not follows.am_following(alice, "bob")
    assert not follows.am_following(bob, "alice")
    assert follows.am_following(carol, "alice")                  # others keep theirs
    counts = {name: scene.fresh(people[name]) for name in ("alice", "bob")}
    assert (counts["alice"].num_followers, counts["alice"].num_following) == (1, 0)
    assert (counts["bob"].num_followers, counts["bob"].num_following) == (0, 0)
    for who, whom in ((bob, "alice"), (alice, "bob")):
        with pytest.raises(PermissionDenied, match=BLOCKED):
            follows.follow(who, whom)
    accounts.unblock_user(alice, alice, "bob")
    follows.follow(bob, "alice")
    assert follows.am_following(bob, "alice")


def test_a_follow_made_between_the_read_and_the_block_does_not_outlive_it(people, monkeypatch):
    """The follows read absent are checked absent in the block's transaction: one made
    meanwhile fails it, and the block reads again and ends that follow too."""
    from chalicelib.accounts import block_store, follows

    alice, bob = people["alice"], people["bob"]
    read = block_store.follows_between
    reads = []

    def racing(one, other):
        found = read(one, other)
        reads.append(found)
        if len(reads) == 1:
            follows.follow(bob, "alice")        # lands after the read, before the commit
        return found

    monkeypatch.setattr(block_store, "follows_between", racing)
    accounts.block_user(alice, alice, "bob")
    assert len(reads) == 2 and reads[1][(int(bob.id), int(alice.id))]
    assert not follows.am_following(bob, "alice")
    assert scene.fresh(alice).num_followers == 0
