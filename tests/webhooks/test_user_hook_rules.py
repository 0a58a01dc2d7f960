"""User hooks' rules on the in-memory twin (the fast layer): a user's hooks are their
own (``user_scope``; someone else's id is not found), they live in the user's account
partition, and an event of a repository the user owns reaches them — through the owner's
one query, the one an organization's hooks are found with, so a user's repository costs
no lookup more (``wants_event``) — with the same event, ``active`` and branch filters as
repository and organization hooks.

Hook URLs are IP literals: a host name would be resolved when the hook is made."""
from __future__ import annotations

import json

import pytest

from chalicelib import accounts, events, repos
from chalicelib.errors import InvalidInput, NotFoundError
from chalicelib.jobs import consumers
from chalicelib.store import outbox
from chalicelib.webhooks import deliveries as webhook_deliveries
from chalicelib.webhooks import delivery_store
from chalicelib.webhooks import service as hooks
from chalicelib.webhooks import store as hook_store
from chalicelib.webhooks.options import CreateHookOption, EditHookOption
from tests import memory_scene as scene
from tests.conftest import drain_outbox

URL = "http://8.8.8.8/hook"
SHA = "1" * 40


def option(**fields) -> CreateHookOption:
    fields.setdefault("active", True)
    return CreateHookOption(type="forgejo", config={"url": URL, "content_type": "json",
                                                    "secret": "s3cret"}, **fields)


def pushed(owner, view, ref: str) -> events.Event:
    return events.RepositoryPushed(
        actor_id=int(owner.id), actor=events.snapshot(accounts.account_values(owner)),
        repo_id=int(view.repo.id), repo=events.snapshot(repos.repo_values(view.repo)),
        ref=ref, before="0" * 40, after=SHA).stamped()


def ran(event: events.Event) -> set[str]:
    consumers.handle_message(json.dumps(events.to_message(event)))
    return {c.name for c in consumers.consumers_for(event)
            if outbox.is_done(event.event_id, c.name)}


@pytest.fixture
def people(memory):
    return {name: scene.user(name, admin=name == "root") for name in ("alice", "bob", "root")}


def test_a_user_s_hooks_are_their_own(people):
    alice, bob, root = people["alice"], people["bob"], people["root"]
    mine = hooks.user_scope(alice)
    assert mine == hooks.Scope("user", int(alice.id))
    made = hooks.create_hook(alice, mine, option(events=["issues_only"]))
    assert (made.owner_kind, int(made.owner_id)) == ("user", int(alice.id))
    # In alice's account partition, beside what an organization's hooks would be.
    assert (made.pk, made.sk) == hook_store.hook_key("org", int(alice.id), int(made.id))
    assert [int(h.id) for h in hooks.list_hooks(mine)] == [int(made.id)]
    for other in (bob, root):                  # a site admin has no way in either
        theirs = hooks.user_scope(other)
        assert hooks.list_hooks(theirs) == []
        with pytest.raises(NotFoundError, match=rf"webhook does not exist \[id: {made.id}\]"):
            hooks.get_hook(theirs, int(made.id))
        with pytest.raises(NotFoundError):
            hooks.edit_hook(other, theirs, int(made.id), EditHookOption(active=False))
        with pytest.raises(NotFoundError):
            hooks.delete_hook(other, theirs, int(made.id))
    assert hooks.get_hook(mine, int(made.id)).active is True
    # A user hook is never a system hook, whatever its config says.
    odd = hooks.create_hook(alice, mine, CreateHookOption(
        type="forgejo", config={"url": URL, "content_type": "json", "is_system_webhook": "x"}))
    assert odd.is_system is False


def test_validation_is_the_repository_hooks(people):
    alice = people["alice"]
    mine = hooks.user_scope(alice)
    for fields, message in (({"events": ["tags"]}, "Invalid hook event: tags"),
                            ({"branch_filter": "[main"},
                             "[BranchFilter]: unexpected end of input")):
        with pytest.raises(InvalidInput) as refused:
            hooks.create_hook(alice, mine, option(**fields))
        assert refused.value.message == message
    with pytest.raises(InvalidInput, match="^Invalid url$"):
        hooks.create_hook(alice, mine, CreateHookOption(
            type="forgejo", config={"url": "ftp://8.8.8.8/", "content_type": "json"}))
    assert hooks.list_hooks(mine) == []


def test_each_change_is_one_event_naming_the_user(people):
    alice = people["alice"]
    mine = hooks.user_scope(alice)
    drain_outbox()
    hook_id = int(hooks.create_hook(alice, mine, option()).id)
    hooks.edit_hook(alice, mine, hook_id, EditHookOption(events=["create"]))
    hooks.delete_hook(alice, mine, hook_id)
    changes = [e for e in drain_outbox() if isinstance(e, events.HookChanged)]
    assert [(e.action, e.owner_kind, e.owner_id, e.hook_id) for e in changes] == [
        (action, "user", int(alice.id), hook_id) for action in ("created", "edited", "deleted")]
    assert hooks.list_hooks(mine) == []


def test_an_event_of_the_user_s_repository_reaches_the_user_s_active_hooks(people):
    alice, bob = people["alice"], people["bob"]
    app = scene.repo(alice, "app")
    acme = scene.org(alice, "acme")
    tool = scene.repo(acme, "tool", actor=alice)
    on_repo = hooks.repo_scope(repos.view_of(app.repo, scene.caller(alice)))

    def made(scope, actor=alice, **fields) -> int:
        return int(hooks.create_hook(actor, scope, option(**fields)).id)

    repo_pushes = made(on_repo, events=["push"])
    pushes = made(hooks.user_scope(alice), events=["push"])
    main_only = made(hooks.user_scope(alice), events=["push", "issues"], branch_filter="main")
    made(hooks.user_scope(alice), events=["push", "issues"], active=False)   # inactive
    made(hooks.user_scope(bob), actor=bob, events=["push", "issues"])        # bob's
    org_hook = made(hooks.org_scope(alice, "acme"), events=["push"])

    def reached(view, owner, event, branch=None):
        return [int(h.id) for h in hooks.matching_hooks(view.repo, owner, event, branch)]

    # The repository's hooks, then its owner's (here the user's), in id order.
    assert reached(app, alice, "push", "main") == [repo_pushes, pushes, main_only]
    assert reached(app, alice, "push", "dev") == [repo_pushes, pushes]
    assert reached(app, alice, "push") == [repo_pushes, pushes, main_only]   # a tag
    assert reached(app, alice, "issues") == [main_only]
    assert reached(app, alice, "release") == []
    # alice's hooks hear only the repositories she owns, not her organization's.
    assert reached(tool, acme, "push", "main") == [org_hook]


def test_a_user_hook_costs_no_lookup_more_and_gets_the_delivery(people, monkeypatch):
    alice, bob = people["alice"], people["bob"]
    app, lib = scene.repo(alice, "app"), scene.repo(bob, "lib")
    assert "webhook-delivery" not in ran(pushed(alice, app, "refs/tags/v1"))   # no hook yet
    hook = hooks.create_hook(alice, hooks.user_scope(alice), option(events=["push"]))
    looked: list = []
    real = hooks.active_hooks_of
    monkeypatch.setattr(hooks, "active_hooks_of",
                        lambda *scope: looked.append(scope) or real(*scope))
    tags = [json.dumps(events.to_message(pushed(alice, app, f"refs/tags/v{n}")))
            for n in range(2, 5)]
    other = json.dumps(events.to_message(pushed(bob, lib, "refs/tags/v1")))
    assert consumers.handle_batch([*tags, other]) == [True] * 4
    # The three queries an organization's repository costs, once per batch.
    assert looked == [("repo", int(app.repo.id)), ("org", int(alice.id)), ("system", 0),
                      ("repo", int(lib.repo.id)), ("org", int(bob.id))]
    ref = webhook_deliveries.ref_of(hook)
    assert ref == f"user#{int(alice.id)}#{int(hook.id)}"
    assert ref in webhook_deliveries.due_lanes()
    # The worker finds the hook again by its ref (the lane names a user hook).
    assert int(hook_store.get(*delivery_store.parse_ref(ref)).id) == int(hook.id)
    assert "webhook-delivery" not in ran(pushed(bob, lib, "refs/tags/v2"))     # bob has none
