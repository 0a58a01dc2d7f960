"""Who is notified of what, and the threads' states, on the in-memory twin (the fast
layer): followers (repository watchers, subscribers, participants) less the actor and
those who unsubscribed; mentions and review requests whatever they said; only people
who may read the repository; one thread per person and subject, unread again on new
activity (pinned stays pinned); a redelivered event changes nothing; marking."""
from __future__ import annotations

import pytest

from chalicelib import notifications, repos
from chalicelib.notifications import service, store
from chalicelib.notifications.states import PINNED, READ, UNREAD
from chalicelib.repos import access
from tests import memory_scene as scene
from tests.conftest import deliver_to


def deliver() -> list:
    return deliver_to(notifications)


class Proj(scene.Tracker):
    """alice's ``proj``: bob writes and watches it, carol reads it, dave is a stranger."""

    def threads(self, who, **query):
        found, _ = service.list_threads(self.people[who], service.ThreadQuery(**query),
                                        offset=0, limit=50)
        return found


@pytest.fixture
def proj(memory):
    found = Proj()
    found.people, view = scene.shared_repo("proj", others=("dave",))
    found.repo_id = int(view.repo.id)
    bob = found.people["bob"]
    access.follow(access.WATCHES, bob, repos.view_of(view.repo, scene.caller(bob)))
    deliver()
    return found


def test_an_opened_issue_notifies_watchers_and_the_mentioned_not_the_poster(proj):
    issue = proj.open("alice", "Crash on start", "cc @carol and @dave")
    deliver()
    (bob,) = proj.threads("bob")
    assert (bob.source, bob.title, bob.state, bob.status, bob.reason) == \
        ("Issue", "Crash on start", "open", UNREAD, "watching")
    assert int(bob.subject_id) == int(issue.id) and int(bob.number) == int(issue.number)
    (carol,) = proj.threads("carol")
    assert carol.reason == "mention"
    assert proj.threads("alice") == []
    assert [t.reason for t in proj.threads("dave")] == ["mention"]    # proj is public


def test_mentions_reach_only_who_may_read_the_repository(memory):
    people, view = scene.shared_repo("secret", private=True, others=("dave",))
    proj = Proj()
    proj.people, proj.repo_id = people, int(view.repo.id)
    proj.open("alice", "Leak", "ping @dave and @carol")
    deliver()
    assert proj.threads("dave") == []
    assert [t.reason for t in proj.threads("carol")] == ["mention"]


def test_a_comment_notifies_participants_and_keeps_one_thread_per_person(proj):
    issue = proj.open("bob", "Flaky test")
    deliver()
    assert proj.threads("alice") == []         # bob posted; alice does not watch
    comment = proj.comment("carol", issue.number, "Seen it too")
    deliver()
    (bob,) = proj.threads("bob")
    assert bob.reason == "participating" and int(bob.latest_comment_id) == int(comment.id)
    service.mark_thread(proj.people["bob"], int(bob.id), READ)
    proj.comment("alice", issue.number, "Fixing")
    deliver()
    threads = proj.threads("bob", statuses=service.ThreadQuery().statuses + (READ,))
    assert [(t.id, t.status) for t in threads] == [(bob.id, UNREAD)]
    assert [t.reason for t in proj.threads("carol")] == ["participating"]


def test_unsubscribing_stops_a_watcher_and_mentions_still_arrive(proj):
    issue = proj.open("alice", "Docs")
    deliver()
    (thread,) = proj.threads("bob")
    service.mark_thread(proj.people["bob"], int(thread.id), READ)
    service.set_watching(int(issue.id), proj.repo_id, int(proj.people["bob"].id), False)
    assert not service.watch_state(int(issue.id), proj.repo_id, int(proj.people["bob"].id),
                                   participant=False).watching     # though watching proj
    proj.comment("alice", issue.number, "More docs")
    deliver()
    assert proj.threads("bob") == []
    proj.comment("alice", issue.number, "@bob please look")
    deliver()
    assert [t.reason for t in proj.threads("bob")] == ["mention"]


def test_a_redelivered_event_changes_no_thread(proj):
    proj.open("alice", "Once")
    events = deliver()
    (before,) = proj.threads("bob")
    for event in events:
        notifications.on_event(event)           # the consumer killed and retried
    (after,) = proj.threads("bob")
    assert (after.id, after.updated, after.status) == (before.id, before.updated, before.status)
    assert [int(link.user_id) for link in store.links_of("Issue", int(before.subject_id))] \
        == [int(proj.people["bob"].id)]


def test_pinned_stays_pinned_and_the_new_count_counts_unread(proj):
    first, second = proj.open("alice", "One"), proj.open("alice", "Two")
    deliver()
    bob = proj.people["bob"]
    assert service.new_count(bob) == 2
    pinned = next(t for t in proj.threads("bob") if t.title == "One")
    service.mark_thread(bob, int(pinned.id), PINNED)
    assert service.new_count(bob) == 1
    proj.comment("alice", first.number, "again")
    deliver()
    assert {t.title: t.status for t in proj.threads("bob")} == {"One": PINNED, "Two": UNREAD}
    changed = service.mark_many(bob, statuses=(UNREAD,), status=READ, last_read_at=None)
    assert [t.title for t in changed] == ["Two"] and service.new_count(bob) == 0
    assert [t.title for t in proj.threads("bob")] == ["One"]           # unread and pinned
    assert {t.title for t in proj.threads("bob", statuses=(READ,))} == {"Two"}
    assert second.number != first.number


def test_someone_elses_thread_is_forbidden_and_a_missing_one_not_found(proj):
    proj.open("alice", "Mine")
    deliver()
    (thread,) = proj.threads("bob")
    with pytest.raises(service.PermissionDenied):
        service.thread_of(proj.people["carol"], int(thread.id))
    with pytest.raises(service.NotFoundError):
        service.thread_of(proj.people["bob"], 999999)


def test_a_checks_outcome_reaches_the_pull_requests_author(memory):
    from chalicelib import accounts, pulls
    from chalicelib.statuses import service as statuses
    from chalicelib.statuses.options import CreateStatusOption
    from tests.pulls.test_rules import make_project, open_pull

    project = make_project()
    issue = open_pull(project["carol"])             # carol's pull request, alice's repo
    deliver()
    head = pulls.pull_fields_of(issue).head_sha
    bob = scene.caller(accounts.account_by_name("bob"))
    view = repos.view_of(repos.repo_by_id(int(project.view.repo.id)), bob)
    statuses.create_status(view, bob, head, CreateStatusOption(state="pending", context="ci"))
    deliver()
    carol = accounts.account_by_name("carol")
    query = service.ThreadQuery()
    assert service.list_threads(carol, query, offset=0, limit=10)[0] == []   # pending: nothing
    statuses.create_status(view, bob, head, CreateStatusOption(state="failure", context="ci"))
    deliver()
    (thread,) = service.list_threads(carol, query, offset=0, limit=10)[0]
    assert (thread.source, thread.reason, thread.title, int(thread.number)) == \
        ("Pull", "ci_activity", "Add a", int(issue.number))
