"""What the feeds and the heatmap hold, on the in-memory twin (the fast layer): an event
is copied into the actor's, the owner's and the repository's feed, newest first, with
Forgejo's op types and contents; a private repository's activities only to who may read
it and, in a user's feed, only to themself; hidden activity; a redelivered event writes
and counts nothing twice; the heatmap's 15-minute buckets."""
from __future__ import annotations

import json

import pytest

from chalicelib import activity, clock, events, issues, repos
from chalicelib.activity import service
from chalicelib.activity.states import BUCKET_SECONDS
from chalicelib.store import unit_of_work
from tests import memory_scene as scene
from tests.conftest import deliver_to


def deliver() -> list:
    return deliver_to(activity)


class Proj(scene.Tracker):
    """alice's repository: bob writes, carol reads, dave is a stranger."""

    def feed(self, viewer, **query):
        who = self.people.get(viewer) if viewer else None
        query.setdefault("include_private", False)
        shown, _ = service.feed_page(scene.caller(who) if who else repos.ANONYMOUS,
                                     service.FeedQuery(**query), offset=0, limit=50)
        return [(s.copy.op_type, s.actor.login, s.copy.content) for s in shown]

    def user_feed(self, viewer, owner, **query):
        who = self.people.get(viewer) if viewer else None
        account = self.people[owner]
        query.setdefault("include_private", service.privileged(who, account))
        return self.feed(viewer, user_id=int(account.id), **query)


def _proj(name: str, **fields) -> Proj:
    found = Proj()
    found.people, view = scene.shared_repo(name, others=("dave",), **fields)
    found.repo_id = int(view.repo.id)
    deliver()
    return found


@pytest.fixture
def proj(memory):
    return _proj("proj")


def test_an_issue_goes_to_the_actor_the_owner_and_the_repository_newest_first(proj):
    issue = proj.open("bob", "Crash on start")
    comment_body = "x" * 150 + "é" * 40
    proj.comment("carol", issue.number, comment_body)
    deliver()
    number = int(issue.number)
    excerpt = f"{number}|" + "x" * 150 + "é" * 25 + "…"       # 200 bytes, then "…"
    repo_feed = proj.feed("dave", repo_id=proj.repo_id, include_private=True)
    assert repo_feed[:2] == [("comment_issue", "carol", excerpt),
                             ("create_issue", "bob", f"{number}|Crash on start")]
    assert proj.user_feed("dave", "bob")[0] == ("create_issue", "bob", f"{number}|Crash on start")
    assert proj.user_feed("dave", "carol") == [("comment_issue", "carol", excerpt)]
    alice = proj.user_feed("alice", "alice")
    assert alice[:2] == repo_feed[:2] and alice[-1][0] == "create_repo"
    only = proj.user_feed("alice", "alice", only_performed_by=True)
    assert [op for op, *_ in only] == ["commit_repo", "create_repo"]     # auto_init


def test_closing_reopening_and_the_date_filter(proj):
    issue = proj.open("alice", "Docs")
    deliver()
    ctx = proj.ctx("bob")
    issues.edit_issue(ctx, issue.number, issues.EditIssueOption(state="closed"))
    issues.edit_issue(ctx, issue.number, issues.EditIssueOption(state="open"))
    deliver()
    ops = [op for op, *_ in proj.feed("alice", repo_id=proj.repo_id, include_private=True)]
    assert ops[:3] == ["reopen_issue", "close_issue", "create_issue"]
    today = service.parse_date(service.states.day_of(clock.now()))
    assert len(proj.feed("alice", repo_id=proj.repo_id, day=today)) == len(ops)
    assert proj.feed("alice", repo_id=proj.repo_id, day=today - 86400) == []
    assert service.parse_date("yesterday") is None                     # ignored, as Forgejo


def test_a_private_repository_shows_only_to_who_may_read_it(memory):
    proj = _proj("secret", private=True)
    proj.open("bob", "Leak")
    deliver()
    assert proj.feed("dave", repo_id=proj.repo_id, include_private=True) == []
    assert [op for op, *_ in proj.feed("carol", repo_id=proj.repo_id, include_private=True)] \
        == ["create_issue", "commit_repo", "create_repo"]
    # A user's feed shows private activities only to themself (and site admins).
    assert proj.user_feed("carol", "bob") == []
    assert [op for op, *_ in proj.user_feed("bob", "bob")] == ["create_issue"]


def test_hidden_activity_is_empty_to_others(proj):
    proj.open("bob", "Mine")
    deliver()
    bob = proj.people["bob"]
    bob.keep_activity_private = True
    with unit_of_work.writing():
        from chalicelib import accounts

        accounts.stage_save_account(bob)
    assert service.activity_hidden(proj.people["alice"], bob)
    assert not service.activity_hidden(bob, bob)
    assert service.heatmap(proj.people["alice"], bob) == []
    assert service.heatmap(bob, bob) != []
    # Others do not see bob's actions in other feeds either.
    assert [a for _, a, _ in proj.feed("alice", repo_id=proj.repo_id, include_private=True)] \
        == ["alice", "alice"]                 # the push of auto_init, the creation


def test_a_redelivered_event_writes_and_counts_nothing_twice(proj):
    proj.open("bob", "Once")
    ran = deliver()
    bob = proj.people["bob"]
    before = service.heatmap(bob, bob)
    for event in ran:
        activity.on_event(event)                # the consumer killed and retried
    assert service.heatmap(bob, bob) == before == [(before[0][0], 1)]
    assert len(proj.user_feed("bob", "bob")) == 1
    assert len(proj.feed("bob", repo_id=proj.repo_id, include_private=True)) == 3


def test_the_heatmap_counts_per_15_minute_bucket_and_public_ones_to_others(memory):
    proj = _proj("secret", private=True)
    public = scene.repo(proj.people["bob"], "open")
    alice, bob = proj.people["alice"], proj.people["bob"]
    base = (int(clock.now()) // 86400 - 1) * 86400       # yesterday, 00:00 UTC
    for offset, repo in ((60, public), (120, public), (BUCKET_SECONDS + 5, None)):
        event = events.IssueChanged(
            actor_id=int(bob.id), event_id=f"e{offset}", occurred_at=base + offset,
            repo_id=int(repo.repo.id) if repo else proj.repo_id,
            repo=repos.repo_values(repo.repo if repo else repos.repo_by_id(proj.repo_id)),
            issue_id=offset, number=1, action="opened", issue={"number": 1, "title": "t"})
        activity.on_event(event)
    mine = service.heatmap(bob, bob)
    assert (base, 2) in mine and (base + BUCKET_SECONDS, 1) in mine
    assert mine == sorted(mine)
    theirs = service.heatmap(alice, bob)
    assert (base, 2) in theirs and all(stamp != base + BUCKET_SECONDS for stamp, _ in theirs)


def test_a_push_records_forgejo_push_commits(proj):
    repo = repos.repo_by_id(proj.repo_id)
    commit = events.PushedCommit(id="a" * 40, message="Fix\n", author_name="Bob",
                                 author_email="bob@example.com", committer_name="Bob",
                                 committer_email="bob@example.com", timestamp=1700000000,
                                 tz_offset=3600)
    bob = int(proj.people["bob"].id)
    fields = dict(actor_id=bob, repo_id=proj.repo_id, repo=repos.repo_values(repo))
    activity.on_event(events.RepositoryPushed(
        event_id="p1", occurred_at=clock.now(), ref="refs/heads/main", before="b" * 40,
        after="a" * 40, commits=(commit,), total_commits=1, **fields))
    activity.on_event(events.RepositoryPushed(
        event_id="p2", occurred_at=clock.now() + 1, ref="refs/tags/v1", before="0" * 40,
        after="a" * 40, **fields))
    activity.on_event(events.RepositoryPushed(
        event_id="p3", occurred_at=clock.now() + 2, ref="refs/heads/old", before="a" * 40,
        after="0" * 40, **fields))
    found = [s.copy for s in service.feed_page(
        scene.caller(proj.people["bob"]), service.FeedQuery(user_id=bob),
        offset=0, limit=3)[0]]
    assert [(c.op_type, c.ref_name) for c in found] == [
        ("delete_branch", "refs/heads/old"), ("push_tag", "refs/tags/v1"),
        ("commit_repo", "refs/heads/main")]
    pushed = json.loads(found[2].content)
    assert pushed == {"Commits": [{
        "Sha1": "a" * 40, "Message": "Fix\n", "AuthorEmail": "bob@example.com",
        "AuthorName": "Bob", "CommitterEmail": "bob@example.com", "CommitterName": "Bob",
        "Timestamp": "2023-11-14T23:13:20+01:00"}], "HeadCommit": pushed["Commits"][0],
        "CompareURL": f"alice/proj/compare/{'b' * 40}...{'a' * 40}", "Len": 1}
    assert json.loads(found[1].content)["Commits"] == [] and found[0].content == ""


def test_pages_and_their_total(proj):
    for n in range(4):
        proj.open("bob", f"Issue {n}")
    deliver()
    caller, query = scene.caller(proj.people["bob"]), service.FeedQuery(repo_id=proj.repo_id,
                                                                        include_private=True)
    first, total = service.feed_page(caller, query, offset=0, limit=2)
    assert [s.copy.content for s in first] == ["4|Issue 3", "3|Issue 2"] and total == 3
    last, total = service.feed_page(caller, query, offset=4, limit=2)
    assert [s.copy.op_type for s in last] == ["commit_repo", "create_repo"] and total == 6
