"""The issue tracker's rules, on the in-memory twin (the fast layer): numbers, counters
kept exact in the same transaction, labels and milestones, comments, who may do what."""
from __future__ import annotations

import pytest

from chalicelib import issues, repos
from chalicelib.errors import InvalidInput, NotFoundError, PermissionDenied
from chalicelib.issues import comments, meta, service
from chalicelib.issues.options import (CreateIssueCommentOption, CreateLabelOption,
                                       CreateMilestoneOption, EditIssueOption,
                                       IssueLabelsOption)
from tests import memory_scene as scene


class Tracker(dict):
    """alice's public ``proj`` and bob, a stranger to it; ``tracker["alice"]`` is the
    tracker as alice sees it now (a request's context: each operation takes a new one,
    as each request does)."""

    def __missing__(self, name):
        caller = scene.caller(self.people[name])
        return issues.issue_context(caller, repos.view_of(self.view.repo, caller))


@pytest.fixture
def tracker(memory):
    found = Tracker()
    found.people = {"alice": scene.user("alice"), "bob": scene.user("bob")}
    found.view = scene.repo(found.people["alice"], "proj")
    return found


def create(ctx, title, **fields):
    return service.create_issue(ctx, issues.CreateIssueOption(title=title, **fields))


def open_count(view):
    return repos.repo_by_id(int(view.repo.id)).num_open_issues


def test_numbers_follow_each_other_and_the_open_count_is_exact(tracker):
    assert create(tracker["alice"], "one").number == 1
    assert create(tracker["bob"], "two").number == 2
    assert open_count(tracker.view) == 2
    service.edit_issue(tracker["alice"], 1, EditIssueOption(state="closed"))
    assert open_count(tracker.view) == 1
    query = service.IssueQuery(state="all")
    found, total = service.list_issues(tracker["alice"], query, 0, 10)
    assert ([i.number for i in found], total) == ([2, 1], 2)


def test_a_blank_title_is_required_and_burns_no_number(tracker):
    with pytest.raises(InvalidInput, match="Title"):
        create(tracker["alice"], "   ")
    assert create(tracker["alice"], "real").number == 1


def test_only_writers_close_others_issues(tracker):
    create(tracker["alice"], "alice's")
    with pytest.raises(PermissionDenied):
        service.edit_issue(tracker["bob"], 1, EditIssueOption(state="closed"))
    create(tracker["bob"], "bob's")
    closed = service.edit_issue(tracker["bob"], 2, EditIssueOption(state="closed"))
    assert closed.state == "closed"


def test_an_exclusive_scope_keeps_one_label_of_the_scope(tracker):
    def label(name, exclusive=False):
        option = CreateLabelOption(name=name, color="#ff0000", exclusive=exclusive)
        return meta.create_label(tracker["alice"], option)[0]

    high, low, bug = label("prio/high", True), label("prio/low", True), label("bug")
    create(tracker["alice"], "t")
    service.add_labels(tracker["alice"], 1, IssueLabelsOption(labels=[high, bug]))
    service.add_labels(tracker["alice"], 1, IssueLabelsOption(labels=[low]))
    assert sorted(service.issue_labels(tracker["alice"], 1)[0]) == sorted([low, bug])


def test_a_milestone_counts_its_open_and_closed_issues(tracker):
    milestone, _ = meta.create_milestone(tracker["alice"], CreateMilestoneOption(title="v1"))
    create(tracker["alice"], "a", milestone=milestone)
    create(tracker["alice"], "b", milestone=milestone)
    service.edit_issue(tracker["alice"], 2, EditIssueOption(state="closed"))
    _, found = meta.find_milestone(tracker["alice"], "v1")
    assert (found["o"], found["c"]) == (1, 1)


def test_comments_count_and_an_unknown_issue_is_404(tracker):
    create(tracker["alice"], "t")
    comments.create_comment(tracker["bob"], 1, CreateIssueCommentOption(body="me too"))
    assert service.get_issue(tracker["alice"], 1).num_comments == 1
    assert [c.body for c in comments.issue_comments(tracker["alice"], 1)] == ["me too"]
    with pytest.raises(NotFoundError):
        comments.create_comment(tracker["bob"], 9, CreateIssueCommentOption(body="?"))
