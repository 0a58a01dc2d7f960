"""What a project migration brings beside issues and comments, on the in-memory twin:
a pull request's reviews and code comments (states, bodies, lines, dates, reviewers
matched by e-mail or the migrating user standing in, the pull request's verdicts),
written once however often a step resumes; assignees kept only when they are local
users who may be assigned; milestones' due dates and closed state; a GitLab reader's
merge request offset kept across turns."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from chalicelib import issues, migrations, pulls, repos
from chalicelib.migrations import importer_reviews, steps, store
from chalicelib.migrations.project import Milestone, Page, Review, ReviewComment
from chalicelib.reviews import store as review_store
from tests import memory_scene as scene
from tests.environment import settings_env
from tests.migrations.project_fakes import ALICE, BASE, STRANGER, FakeSource, pump
from tests.migrations.test_import_rules import start, task

pytestmark = pytest.mark.fast


def code_comment(n: int, k: int, who=STRANGER) -> ReviewComment:
    return ReviewComment(id=n * 1000 + k, author=who, body=f"line note {k}", path="a.txt",
                         diff_hunk="@@ -1 +1 @@\n-a\n+b", line=k + 1 if k % 2 == 0 else -(k + 1),
                         commit_id="d" * 40, created=BASE + 600 + k, updated=BASE + 700 + k)


@dataclass
class ReviewedSource(FakeSource):
    """Pulls 3 and 6: an approval by alice with code comments, a stranger's request for
    changes, a pending review (not brought); issues assigned to alice, bob and nobody
    known; a milestone with a due date."""
    notes_per_review: int = 3
    offset_asked: int = 0

    def reviews(self, pull_number: int) -> list:
        self.calls.append("reviews")
        return [
            Review(id=pull_number * 10 + 2, pull_number=pull_number, author=STRANGER,
                   state="REQUEST_CHANGES", body="please fix", commit_id="e" * 40,
                   created=BASE + 400),
            Review(id=pull_number * 10 + 1, pull_number=pull_number, author=ALICE,
                   state="APPROVED", body="lgtm", commit_id="d" * 40, official=True,
                   created=BASE + 300,
                   comments=tuple(code_comment(pull_number, k)
                                  for k in range(self.notes_per_review))),
            Review(id=pull_number * 10 + 3, pull_number=pull_number, author=STRANGER,
                   state="PENDING", body="draft", created=BASE + 500),
        ]

    def issues(self, page: int, per_page: int) -> Page:
        found = super().issues(page, per_page)
        items = [type(i)(**{**i.__dict__, "assignees": ("Alice", "bob", "nobody-here")})
                 for i in found.items]
        return Page(items, found.last)

    def milestones(self) -> list:
        return [Milestone("v1", "first", "open", deadline=BASE + 9000, created=BASE),
                Milestone("v0", "", "closed", deadline=BASE + 100, created=BASE,
                          closed=BASE + 50)]

    def pull_offset(self) -> int:
        self.offset_asked += 1
        return 41


@pytest.fixture
def world(memory, monkeypatch):
    with settings_env({"NIMBUS__MIGRATIONS__ALLOW_LOCALNETWORKS": "true",
                       "NIMBUS__MIGRATIONS__INLINE_SECONDS": "0"}):   # turns queued
        source = ReviewedSource(issues_n=4, pulls_n=2)
        opened: list[dict] = []

        def opener(*args, **kw):
            opened.append(kw)
            return source

        migrations.use_source_opener(opener)

        def no_git(run):
            run.state["default_branch"] = "main"
            steps.commit(run, run.next_step)

        steps.STEP_RUNNERS["issues"]
        monkeypatch.setitem(steps.STEP_RUNNERS, "git", no_git)
        alice = scene.user("alice")
        scene.user("bob")
        yield {"source": source, "alice": alice, "opened": opened}
        migrations.use_source_opener(None)


def repo_id() -> int:
    return int(repos.repo_by_name("alice", "proj").id)


def test_reviews_and_code_comments_come_with_their_pull(world):
    start(world["alice"])
    pump()
    assert task().status == "done", task().error
    rid, alice = repo_id(), world["alice"]
    for number in world["source"].numbers()[1]:
        found = review_store.reviews_of(rid, number, consistent=True)
        assert [r.state for r in found] == ["APPROVED", "REQUEST_CHANGES"]   # pending left
        approval, rejection = found
        assert approval.reviewer_id == int(alice.id) and approval.reviewer["login"] == "alice"
        assert rejection.reviewer_id == int(alice.id)        # the migrator stands in
        assert (approval.body, approval.commit_id, approval.official) == ("lgtm", "d" * 40, True)
        assert approval.submitted_at == BASE + 300 and rejection.submitted_at == BASE + 400
        assert approval.comments_count == 3 and rejection.comments_count == 0
        notes = review_store.comments_of(rid, number, approval.id, consistent=True)
        assert [(c.body, c.line, c.path) for c in notes] == [
            ("line note 0", 1, "a.txt"), ("line note 1", -2, "a.txt"), ("line note 2", 3, "a.txt")]
        assert notes[0].created == BASE + 600 and notes[0].updated == BASE + 700
        assert notes[0].diff_hunk.startswith("@@") and notes[0].commit_id == "d" * 40
        verdicts = pulls.pull_fields_of(issues.issue_item(rid, number)).verdicts
        assert {(v["review_id"], v["state"]) for v in verdicts} == {
            (rejection.id, "REQUEST_CHANGES")}     # the same person: the later verdict stands
    counts = store.loads(task().counts)
    assert counts["reviews"] == 4 and counts["review_comments"] == 6


def test_reviews_resume_without_duplicates(world, monkeypatch):
    """One write per turn, comments in chunks of two: every review and comment once."""
    monkeypatch.setattr(steps, "TURN_SECONDS", 0.0)
    monkeypatch.setattr(importer_reviews, "CHUNK_ITEMS", 2)
    world["source"].notes_per_review = 5
    start(world["alice"])
    pump()
    assert task().status == "done", task().error
    rid = repo_id()
    for number in world["source"].numbers()[1]:
        found = review_store.reviews_of(rid, number, consistent=True)
        assert len(found) == 2
        notes = review_store.comments_of(rid, number, consistent=True)
        assert sorted(c.body for c in notes) == [f"line note {k}" for k in range(5)]
        assert found[0].comments_count == 5


def test_review_written_twice_is_refused(world):
    """A review's key is taken once: a cursor gone wrong cannot double it."""
    from chalicelib import reviews
    from chalicelib.errors import ConditionFailed
    from chalicelib.store import unit_of_work

    start(world["alice"])
    pump()
    rid = repo_id()
    review = review_store.reviews_of(rid, 3, consistent=True)[0]
    again = reviews.ImportedReview(local_id=review.id,
                                   author=issues.ImportedAuthor(world["alice"]),
                                   state="APPROVED")
    with pytest.raises(ConditionFailed), unit_of_work.writing():
        reviews.stage_imported_review(rid, 3, again)
    assert len(review_store.reviews_of(rid, 3, consistent=True)) == 2


def test_assignees_only_local_users_who_may_be_assigned(world):
    start(world["alice"])
    pump()
    one = issues.issue_item(repo_id(), 1)
    assert [int(i) for i in one.assignee_ids] == [int(world["alice"].id)]   # bob: no access


def test_milestones_keep_due_dates_and_closed_state(world):
    start(world["alice"])
    pump()
    tracker = issues.get_tracker(repo_id(), consistent=True)
    by_title = {e["title"]: e for e in tracker.milestones.values()}
    assert int(by_title["v1"]["due"]) == BASE + 9000 and by_title["v1"]["state"] == "open"
    assert int(by_title["v0"]["due"]) == BASE + 100 and by_title["v0"]["state"] == "closed"
    assert int(by_title["v0"]["closed_at"]) == BASE + 50
    assert int(by_title["v1"]["closed_at"]) == 0


def test_gitlab_offset_is_kept_across_turns(world, monkeypatch):
    monkeypatch.setattr(steps, "TURN_SECONDS", 0.0)
    from chalicelib.migrations import service
    from chalicelib.repo_admin.options import MigrateRepoOptions

    option = MigrateRepoOptions(clone_addr="http://127.0.0.1:9/group/proj", repo_name="proj",
                                service="gitlab", auth_token="t", labels=True, issues=True)
    service.start(scene.caller(world["alice"]), option)
    pump()
    assert task().status == "done", task().error
    assert store.loads(task().state)["pull_offset"] == 41
    assert world["source"].offset_asked == 1                 # asked at the first turn only
    turns = [kw.get("pull_offset") for kw in world["opened"][1:]]
    assert len(turns) > 2 and turns[0] is None and set(turns[1:]) == {41}


def test_gitlab_reader_takes_the_offset_given():
    from chalicelib.migrations import sources

    with settings_env({"NIMBUS__MIGRATIONS__ALLOW_LOCALNETWORKS": "true",
                       "NIMBUS__MIGRATIONS__INLINE_SECONDS": "0"}):   # turns queued
        reader = sources.open_source("gitlab", "http://127.0.0.1:9/group/proj", token="t",
                                     pull_offset=12)
    assert reader.pull_offset() == 12          # no request: the loopback port answers none


def test_search_index_takes_migrated_issues_a_page_per_event(world, monkeypatch):
    from chalicelib import events, search
    from chalicelib.search import issue_index_store, issue_indexing
    from tests.conftest import drain_outbox

    monkeypatch.setattr(issue_indexing, "IMPORTED_PAGE", 2)
    start(world["alice"], labels=True, issues=True, pull_requests=True)
    pump_all, pages = 0, 0
    while pump_all < 100:
        waiting = drain_outbox()
        if not waiting:
            break
        for event in waiting:
            if isinstance(event, events.MigrationStepDue):
                migrations.on_event(event)
            elif isinstance(event, search.EVENT_TYPES) and search.wants_event(event):
                search.on_event(event)
                pages += isinstance(event, events.ImportedIssuesIndexDue)
        pump_all += 1
    assert task().status == "done"
    indexed = sorted(int(d.number) for d in issue_index_store.docs_of_repo(repo_id()))
    issues_n, pulls_n = world["source"].numbers()
    assert indexed == sorted(issues_n + pulls_n)
    # Six records, two a page: the first page with the repository, two more, and one
    # that finds nothing left (a full page cannot tell it was the last).
    assert pages == 3
