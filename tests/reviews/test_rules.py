"""The code review domain's rules, on the in-memory twin (the fast layer): approving and
requesting changes (never on one's own pull request), pending reviews seen by their
author alone and submitted once, which verdicts are official, review requests and who
may make them, dismissals, and an approval as the protected base branch's merge gate
counts it."""
from __future__ import annotations

import pytest

from chalicelib import accounts, protection, pulls, reviews
from chalicelib.errors import (InvalidInput, NotAllowed, NotFoundError, PermissionDenied,
                               RefProtected)
from chalicelib.reviews import requests, service
from chalicelib.reviews.options import DismissPullReviewOptions, PullReviewRequestOptions
from tests import memory_scene as scene
from tests.pulls.test_rules import commit_file, make_project, merge, open_pull, tip


@pytest.fixture
def project(memory):
    """tests/pulls/test_rules.py's scene (alice owns ``proj``, bob writes, carol reads)
    with pull request 1, ``feature`` into ``main``, opened by carol; dave only reads."""
    found = make_project()
    scene.user("dave")
    open_pull(found["carol"])
    return found


def review(ctx, event: str = "", body: str = "", **fields):
    return reviews.create_review(ctx, 1, reviews.CreatePullReviewOptions(
        event=event, body=body, **fields))


def pull_fields(project):
    return pulls.pull_fields_of(pulls.get_pull(project["alice"], 1, consistent=True))


def test_the_poster_may_not_judge_their_own_pull_request(project):
    refusals = [("carol", "APPROVED", "ok", "approve your own pull is not allowed"),
                ("carol", "REQUEST_CHANGES", "no", "reject your own pull is not allowed"),
                ("bob", "REQUEST_CHANGES", " ", "REQUEST_CHANGES requires a body"),
                ("bob", "COMMENT", "", "COMMENT requires a body or a comment")]
    for who, event, body, text in refusals:
        with pytest.raises(InvalidInput, match=text):
            review(project[who], event, body)
    assert reviews.list_reviews(project["alice"], 1) == []
    # A comment of the poster's own is fine.
    assert review(project["carol"], "COMMENT", "note to self").state == "COMMENT"


def test_a_pending_review_is_its_author_s_alone_and_is_submitted_once(project):
    draft = review(project["bob"], body="first look")
    assert (draft.state, draft.commit_id) == ("PENDING", tip(project, "feature"))
    assert review(project["bob"], body="more").id == draft.id      # one pending per reviewer
    assert [r.id for r in reviews.list_reviews(project["bob"], 1)] == [draft.id]
    assert reviews.list_reviews(project["alice"], 1) == []
    with pytest.raises(NotFoundError, match="review does not exist"):
        service.get_review(project["alice"], 1, draft.id)
    scene.user("root", admin=True)
    assert service.get_review(project["root"], 1, draft.id).body == "more"
    with pytest.raises(InvalidInput, match="review stay pending"):
        reviews.submit_review(project["bob"], 1, draft.id, reviews.SubmitPullReviewOptions())
    done = reviews.submit_review(project["bob"], 1, draft.id, reviews.SubmitPullReviewOptions(
        event="REQUEST_CHANGES", body="please fix"))
    assert (done.state, done.official, done.stale) == ("REQUEST_CHANGES", True, False)
    with pytest.raises(InvalidInput, match="only a pending review can be submitted"):
        reviews.submit_review(project["bob"], 1, draft.id, reviews.SubmitPullReviewOptions(
            event="APPROVED"))
    assert [r.state for r in reviews.list_reviews(project["alice"], 1)] == ["REQUEST_CHANGES"]


def test_a_verdict_is_official_from_a_writer_and_replaces_their_earlier_one(project):
    head = tip(project, "feature")
    rejected = review(project["bob"], "REQUEST_CHANGES", "not yet")
    approved = review(project["bob"], "APPROVED", "now yes")
    mere_reader = review(project["dave"], "APPROVED", "lgtm")
    assert (approved.official, mere_reader.official) == (True, False)
    assert service.get_review(project["alice"], 1, rejected.id).official is False
    # The pull request keeps each reviewer's standing verdict, for the merge gate.
    standing = {v["reviewer_id"]: (v["state"], v["official"], v["commit_id"])
                for v in pull_fields(project).verdicts}
    bob, dave = (int(accounts.account_by_name(n).id) for n in ("bob", "dave"))
    assert standing == {bob: ("APPROVED", True, head), dave: ("APPROVED", False, head)}
    # A verdict on a commit other than the head is stale.
    older = review(project["alice"], "APPROVED", "as of main",
                   commit_id=tip(project, "main"))
    assert older.stale is True and older.official is True


def test_review_requests_and_who_may_make_them(project):
    asked = requests.change_requests(project["carol"], 1, PullReviewRequestOptions(
        reviewers=["bob"]), adding=True)
    assert [(r.state, r.reviewer["login"]) for r in asked] == [("REQUEST_REVIEW", "bob")]
    assert [s["login"] for s in pull_fields(project).requested_reviewers] == ["bob"]
    assert requests.change_requests(project["carol"], 1, PullReviewRequestOptions(
        reviewers=["bob"]), adding=True) == []                     # asked already
    refusals = [("alice", "carol", InvalidInput, "poster of pr can't be reviewer"),
                ("alice", "ghost", NotFoundError, "User 'ghost' not exist"),
                ("dave", "alice", InvalidInput, "Doer can't choose reviewer")]
    for doer, name, kind, text in refusals:
        with pytest.raises(kind, match=text):
            requests.change_requests(project[doer], 1, PullReviewRequestOptions(
                reviewers=[name]), adding=True)
    # bob's approval ends his request; a withdrawn request is gone too.
    review(project["bob"], "APPROVED", "fine")
    assert pull_fields(project).requested_reviewers == []
    requests.change_requests(project["carol"], 1, PullReviewRequestOptions(
        reviewers=["alice"]), adding=True)
    requests.change_requests(project["carol"], 1, PullReviewRequestOptions(
        reviewers=["alice"]), adding=False)
    assert pull_fields(project).requested_reviewers == []
    assert sorted(r.state for r in reviews.list_reviews(project["alice"], 1)) == [
        "APPROVED", "REQUEST_REVIEW"]


def test_dismissing_is_for_repository_admins_and_deleting_for_the_reviewer(project):
    approval = review(project["bob"], "APPROVED", "ok")
    comment = review(project["dave"], "COMMENT", "hm")
    with pytest.raises(PermissionDenied, match="Must be repo admin"):
        service.dismiss(project["bob"], 1, approval.id, DismissPullReviewOptions(), True)
    with pytest.raises(PermissionDenied, match="type is not Approve or change request"):
        service.dismiss(project["alice"], 1, comment.id, DismissPullReviewOptions(), True)
    dismissed = service.dismiss(project["alice"], 1, approval.id, DismissPullReviewOptions(),
                                True)
    assert dismissed.dismissed is True
    assert [v["dismissed"] for v in pull_fields(project).verdicts] == [True]
    with pytest.raises(PermissionDenied, match="only admin and user itself"):
        service.delete_review(project["alice"], 1, approval.id)
    service.delete_review(project["bob"], 1, approval.id)
    with pytest.raises(NotFoundError):
        service.get_review(project["alice"], 1, approval.id)
    assert pull_fields(project).verdicts == []


def test_a_protected_base_merges_once_an_official_approval_stands(project):
    alice = accounts.account_by_name("alice")
    protection.create_branch_rule(project.view_as("alice"), scene.caller(alice),
                                  protection.CreateBranchProtectionOption(
                                      rule_name="main", required_approvals=1))
    main = tip(project, "main")
    review(project["dave"], "APPROVED", "a reader's approval does not count")
    with pytest.raises(NotAllowed, match="Does not have enough approvals"):
        merge(project["alice"])
    approval = review(project["bob"], "APPROVED", "ok")
    service.dismiss(project["alice"], 1, approval.id, DismissPullReviewOptions(), True)
    with pytest.raises(NotAllowed, match="Does not have enough approvals"):
        merge(project["alice"])
    # The rule takes no direct writes to main either: the merge is the way in.
    with pytest.raises(RefProtected, match="Not allowed to push to protected branch main"):
        commit_file(project, "direct.txt", "direct")
    assert tip(project, "main") == main
    service.dismiss(project["alice"], 1, approval.id, None, False)
    assert merge(project["alice"]) == 200
    assert pull_fields(project).merged and tip(project, "main") != main
    # A merged pull request takes no more verdicts.
    with pytest.raises(InvalidInput, match="can't submit review for a closed or merged PR"):
        review(project["dave"], "REQUEST_CHANGES", "too late")
