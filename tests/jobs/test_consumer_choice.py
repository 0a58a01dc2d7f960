"""Which consumers an event reaches (``wants_event``, asked before the claim), on the
in-memory twin: a tag pushed to a repository without hooks runs the activity feed (Forgejo
shows the tag pushed: one write) and the two records of every change — the audit log
and the ref history — and costs no other delivery mark; a hook, a branch, the default
branch bring their consumers back."""
from __future__ import annotations

import json

from chalicelib import accounts, events, repos
from chalicelib.jobs import consumers
from chalicelib.store import outbox
from chalicelib.webhooks import service as hooks
from chalicelib.webhooks.options import CreateHookOption
from tests import memory_scene as scene

ZERO = "0" * 40
SHA = "1" * 40
# Every ref move is recorded, a tag's too: the audit log and the ref history.
RECORDERS = {"audit-log", "ref-history"}


def pushed(owner, view, ref: str, **fields) -> events.Event:
    return events.RepositoryPushed(
        actor_id=int(owner.id), actor=events.snapshot(accounts.account_values(owner)),
        repo_id=int(view.repo.id), repo=events.snapshot(repos.repo_values(view.repo)),
        ref=ref, before=ZERO, after=SHA, **fields).stamped()


def ran(event: events.Event) -> set[str]:
    """The consumers that took the event (a delivery mark says so)."""
    consumers.handle_message(json.dumps(events.to_message(event)))
    return {c.name for c in consumers.consumers_for(event)
            if outbox.is_done(event.event_id, c.name)}


def test_a_tag_nobody_subscribes_to_runs_the_feed_and_the_records_alone(memory):
    alice = scene.user("alice")
    view = scene.repo(alice, "app", auto_init=True)
    tag = pushed(alice, view, "refs/tags/v1")
    created = events.RefCreated(actor_id=int(alice.id), repo_id=int(view.repo.id),
                                repo=tag.repo, ref="v1", ref_type="tag", sha=SHA).stamped()
    assert ran(tag) == {"activity-feeds", *RECORDERS} and ran(created) == {"audit-log"}
    # no other mark: each other consumer could still claim the event
    assert all(outbox.claim(tag.event_id, c.name, lease_seconds=1)
               for c in consumers.consumers_for(tag)
               if c.name not in {"activity-feeds", *RECORDERS})


def test_a_hook_of_the_repository_or_its_owner_brings_webhook_delivery_back(memory):
    alice = scene.user("alice")
    org = scene.org(alice, "acme")
    mine, theirs = scene.repo(alice, "app"), scene.repo(org, "tool")
    option = CreateHookOption(type="forgejo", events=["push", "create"], active=True,
                              config={"url": "http://8.8.8.8/hook", "content_type": "json"})
    hooks.create_hook(alice, hooks.org_scope(alice, "acme"), option)
    assert ran(pushed(alice, mine, "refs/tags/v1")) == {"activity-feeds", *RECORDERS}
    assert ran(pushed(alice, theirs, "refs/tags/v1")) == {"webhook-delivery", "activity-feeds",
                                                          *RECORDERS}
    hooks.create_hook(alice, hooks.repo_scope(repos.view_of(mine.repo, scene.caller(alice))),
                      option)
    assert ran(pushed(alice, mine, "refs/tags/v2")) == {"webhook-delivery", "activity-feeds",
                                                        *RECORDERS}


def test_branches_and_the_default_branch_bring_their_consumers(memory):
    alice = scene.user("alice")
    view = scene.repo(alice, "app", auto_init=True)
    assert view.repo.default_branch == "main"
    assert ran(pushed(alice, view, "refs/heads/topic")) == {
        "pull-request-sync", "issue-references", "activity-feeds", "search-index", *RECORDERS}
    assert ran(pushed(alice, view, "refs/heads/main")) == {
        "pull-request-sync", "issue-references", "language-stats", "activity-feeds",
        "search-index", *RECORDERS}
    deleted = pushed(alice, view, "refs/heads/topic")
    deleted = events.RepositoryPushed(**{**deleted.__dict__, "before": SHA, "after": ZERO,
                                         "event_id": ""}).stamped()
    # a deleted branch names no commits (the feed shows the deletion)
    assert ran(deleted) == {"pull-request-sync", "activity-feeds", *RECORDERS}


def test_a_batch_looks_up_hooks_once(memory, monkeypatch):
    alice, bob = scene.user("alice"), scene.user("bob")
    app, lib = scene.repo(alice, "app", auto_init=True), scene.repo(bob, "lib", auto_init=True)
    looked: list = []
    real = hooks.active_hooks_of
    monkeypatch.setattr(hooks, "active_hooks_of",
                        lambda *scope: looked.append(scope) or real(*scope))
    tags = [json.dumps(events.to_message(pushed(alice, app, f"refs/tags/v{n}")))
            for n in range(5)]
    other = json.dumps(events.to_message(pushed(bob, lib, "refs/tags/v1")))
    assert consumers.handle_batch([*tags, other]) == [True] * 6
    assert looked == [("repo", int(app.repo.id)), ("org", int(alice.id)), ("system", 0),
                      ("repo", int(lib.repo.id)), ("org", int(bob.id))]
    looked.clear()
    for body in tags[:2]:                    # one by one: each event looks for itself
        consumers.handle_message(body)
    assert len(looked) == 6
