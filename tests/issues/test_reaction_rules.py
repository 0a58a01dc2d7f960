"""Reactions to issues and comments, on the in-memory twin: allowed contents, one
reaction per user and content (also when two arrive at once), who may react, and what
goes with a deleted issue or comment."""
from __future__ import annotations

import threading

import pytest

from chalicelib import accounts, issues, repos
from chalicelib.errors import NotFoundError, PermissionDenied
from chalicelib.issues import comments, reaction_store, reactions, service, store
from chalicelib.issues.options import CreateIssueCommentOption
from chalicelib.settings import overridden
from chalicelib.store import unit_of_work
from tests import memory_scene as scene


class People(dict):
    """alice's public ``proj``; bob writes to it, carol and dave are strangers.
    ``people.ctx("bob")`` is the tracker as bob sees it now (a request's context)."""

    def ctx(self, name):
        caller = scene.caller(self[name])
        return issues.issue_context(caller, repos.view_of(self.view.repo, caller))


@pytest.fixture
def people(memory):
    found, view = scene.shared_repo("proj", writers=("bob",), readers=(),
                                    others=("carol", "dave"), auto_init=False)
    found = People(found)
    found.view = view
    service.create_issue(found.ctx("carol"), issues.CreateIssueOption(title="t"))
    return found


def react(people, name, content, number=1):
    ctx = people.ctx(name)
    return reactions.add_reaction(ctx, reactions.issue_target(ctx, number), content)


def listed(people, name="alice", number=1, comment_id=0):
    ctx = people.ctx(name)
    target = reactions.comment_target(ctx, comment_id) if comment_id \
        else reactions.issue_target(ctx, number)
    return [(r.user_id, r.content) for r in reactions.list_reactions(ctx, target)]


def comment_on(people, name, number=1):
    found, _ = comments.create_comment(people.ctx(name), number,
                                       CreateIssueCommentOption(body="hi"))
    return int(found.id)


def test_a_second_reaction_of_one_content_answers_the_first(people):
    first, added = react(people, "bob", "heart")
    assert added
    again, added_again = react(people, "bob", "heart")
    assert not added_again and again.created_ms == first.created_ms
    react(people, "carol", "heart")
    react(people, "bob", "+1")
    bob, carol = int(people["bob"].id), int(people["carol"].id)
    assert listed(people) == [(bob, "heart"), (carol, "heart"), (bob, "+1")]


def test_only_allowed_contents_and_only_those_are_listed(people):
    with pytest.raises(PermissionDenied, match="'gitea' is not an allowed reaction"):
        react(people, "bob", "gitea")
    with pytest.raises(PermissionDenied, match="'' is not an allowed reaction"):
        react(people, "bob", "")
    react(people, "bob", "rocket")
    react(people, "bob", "eyes")
    with overridden({"NIMBUS__UI__REACTIONS": "eyes, party"}):
        assert react(people, "carol", "party")[1]
        with pytest.raises(PermissionDenied):
            react(people, "carol", "rocket")
        assert [c for _, c in listed(people)] == ["eyes", "party"]
    assert [c for _, c in listed(people)] == ["rocket", "eyes"]


def test_two_identical_reactions_at_once_make_one(people):
    """The second request runs (in another thread, as another Lambda would) after the
    first decided to write and before it wrote: only the condition on the key keeps
    the two from both being new."""
    original = reaction_store.stage_add
    answers = []

    def racing(item):
        if not answers:
            answers.append(None)
            other = threading.Thread(target=lambda: answers.append(react(people, "bob", "laugh")))
            other.start()
            other.join()
        original(item)

    reaction_store.stage_add = racing
    try:
        mine = react(people, "bob", "laugh")
    finally:
        reaction_store.stage_add = original
    assert answers[1][1] is True and mine[1] is False
    assert mine[0].created_ms == answers[1][0].created_ms
    assert listed(people) == [(int(people["bob"].id), "laugh")]


def test_removing_takes_one_content_or_without_one_all_of_the_callers(people):
    for content in ("+1", "heart", "eyes"):
        react(people, "bob", content)
    react(people, "carol", "heart")
    ctx = people.ctx("bob")
    target = reactions.issue_target(ctx, 1)
    reactions.remove_reaction(ctx, target, "heart")
    reactions.remove_reaction(ctx, target, "confused")       # never there: nothing changes
    reactions.remove_reaction(ctx, target, "x" * 5000)       # could never be a reaction
    bob, carol = int(people["bob"].id), int(people["carol"].id)
    assert listed(people) == [(bob, "+1"), (bob, "eyes"), (carol, "heart")]
    reactions.remove_reaction(people.ctx("bob"), target, "")
    assert listed(people) == [(carol, "heart")]


def test_blocked_users_cannot_react_but_may_remove(people):
    react(people, "dave", "heart")
    accounts.block_user(people["carol"], people["carol"], "dave")    # carol posted #1
    with pytest.raises(PermissionDenied, match="blocked"):
        react(people, "dave", "+1")
    ctx = people.ctx("dave")
    reactions.remove_reaction(ctx, reactions.issue_target(ctx, 1), "heart")
    assert listed(people) == []
    # A comment's poster blocks too, on that comment only.
    cid = comment_on(people, "bob")
    accounts.block_user(people["bob"], people["bob"], "alice")
    ctx = people.ctx("alice")
    with pytest.raises(PermissionDenied, match="blocked"):
        reactions.add_reaction(ctx, reactions.comment_target(ctx, cid), "heart")
    assert react(people, "alice", "heart")[1]


def test_a_locked_issue_takes_reactions_from_writers_only(people):
    old = store.get_issue(int(people.view.repo.id), 1)
    locked = issues.copy_issue(old)
    locked.is_locked, locked.version = True, int(old.version) + 1
    with unit_of_work.writing():
        issues.stage_replace_issue(locked, int(old.version))
    with pytest.raises(PermissionDenied, match="no permission to change reaction"):
        react(people, "carol", "heart")
    ctx = people.ctx("carol")
    with pytest.raises(PermissionDenied, match="no permission to change reaction"):
        reactions.remove_reaction(ctx, reactions.issue_target(ctx, 1), "heart")
    assert react(people, "bob", "heart")[1]
    assert len(listed(people, "carol")) == 1        # reading is still anyone's


def test_comment_reactions_are_apart_from_the_issues_and_go_with_the_comment(people):
    cid = comment_on(people, "carol")
    other = comment_on(people, "carol")
    ctx = people.ctx("bob")
    reactions.add_reaction(ctx, reactions.comment_target(ctx, cid), "hooray")
    reactions.add_reaction(ctx, reactions.comment_target(ctx, other), "eyes")
    react(people, "bob", "+1")
    assert [c for _, c in listed(people, comment_id=cid)] == ["hooray"]
    assert [c for _, c in listed(people)] == ["+1"]
    assert reactions.reaction_counts(people.ctx("alice"), 1) == {
        0: [("+1", 1)], cid: [("hooray", 1)], other: [("eyes", 1)]}
    comments.delete_comment(people.ctx("carol"), cid)
    repo_id = int(people.view.repo.id)
    assert sorted(r.comment_id for r in reaction_store.reactions_under(repo_id, 1)) == [0, other]
    with pytest.raises(NotFoundError):
        reactions.comment_target(people.ctx("bob"), cid)


def test_a_deleted_issue_takes_every_reaction_under_it(people):
    cid = comment_on(people, "carol")
    ctx = people.ctx("bob")
    reactions.add_reaction(ctx, reactions.comment_target(ctx, cid), "hooray")
    react(people, "bob", "+1")
    service.create_issue(people.ctx("carol"), issues.CreateIssueOption(title="kept"))
    react(people, "bob", "+1", number=2)
    service.delete_issue(people.ctx("alice"), 1)
    repo_id = int(people.view.repo.id)
    assert reaction_store.reactions_under(repo_id, 1) == []
    assert len(reaction_store.reactions_under(repo_id, 2)) == 1


def test_a_reaction_to_an_issue_gone_meanwhile_is_not_written(people):
    ctx = people.ctx("bob")
    target = reactions.issue_target(ctx, 1)
    service.delete_issue(people.ctx("alice"), 1)
    with pytest.raises(NotFoundError):
        reactions.add_reaction(ctx, target, "heart")
    assert reaction_store.reactions_under(int(people.view.repo.id), 1) == []
