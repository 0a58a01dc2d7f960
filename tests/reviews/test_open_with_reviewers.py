"""Opening a pull request with ``reviewers`` (CreatePullRequestOption), on the in-memory
twin (``reviews.open_pull``, what repoCreatePullRequest calls): the reviews are requested in the transaction that opens it, by the review request
rules; a name that is nobody, or the opener, refuses the whole pull request."""
from __future__ import annotations

import pytest

from chalicelib import pulls, reviews
from chalicelib.errors import InvalidInput
from tests.pulls.test_rules import make_project


@pytest.fixture
def project(memory):
    return make_project()


def _open(ctx, **fields):
    return reviews.open_pull(ctx, pulls.CreatePullRequestOption(
        head="feature", base="main", title="Add a", **fields))


def test_reviewers_are_requested_with_the_pull_request(project):
    issue = _open(project["alice"], reviewers=["bob", "carol", "bob"])
    fields = pulls.pull_fields_of(issue)
    assert [r["login"] for r in fields.requested_reviewers] == ["bob", "carol"]
    made = reviews.list_reviews(project["alice"], int(issue.number))
    assert sorted((r.reviewer["login"], r.state, r.number) for r in made) == [
        ("bob", "REQUEST_REVIEW", 1), ("carol", "REQUEST_REVIEW", 1)]
    # The merge gate's copy counts them as open requests.
    ids = {int(r.reviewer_id): r.id for r in made}
    assert sorted((v["reviewer_id"], v["review_id"], v["state"]) for v in fields.verdicts) == \
        sorted((rid, review_id, "REQUEST_REVIEW") for rid, review_id in ids.items())


@pytest.mark.parametrize("names, message", [
    (["nobody"], "User 'nobody' not exist"),
    (["alice"], "poster of pr can't be reviewer"),
])
def test_a_refused_reviewer_opens_nothing(project, names, message):
    with pytest.raises(InvalidInput, match=message):
        _open(project["alice"], reviewers=["bob", *names])
    found, total = pulls.list_pulls(project["alice"], pulls.PullQuery(state="all"), 0, 10)
    assert (found, total) == ([], 0)
    # The number was not taken: the next pull request is #1.
    assert int(_open(project["alice"]).number) == 1


def test_team_reviewers_of_a_user_repository_are_ignored(project):
    issue = _open(project["bob"], team_reviewers=["owners"])
    assert pulls.pull_fields_of(issue).requested_teams == []
