"""A hook's deliveries as its owners see them: the history (newest first), one
delivery with its attempts, redelivery, and the test delivery (``repoTestHook``).

Who may: whoever may manage the hook (``hooks.repo_scope``, ``hooks.org_scope``,
``hooks.system_scope``): the hook is looked up in that scope first, so a delivery of
another hook, repository or organization is a 404.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib import clock, events
from chalicelib.errors import InvalidInput, NotFoundError
from chalicelib.webhooks import deliveries as webhook_deliveries
from chalicelib.webhooks import delivery_store as store
from chalicelib.webhooks import service as hooks
from chalicelib.webhooks import sources as webhook_sources

if TYPE_CHECKING:
    from chalicelib.webhooks.delivery_store import HookDelivery
    from chalicelib.webhooks.store import Hook

MAX_PAGE = 100


@dataclass
class Page:
    deliveries: list
    next_cursor: int | None      # pass as ``cursor`` for the next (older) page


def list_deliveries(scope: hooks.Scope, hook_id: int, *, limit: int,
                    cursor: int | None) -> Page:
    hook = hooks.get_hook(scope, hook_id)
    limit = max(1, min(MAX_PAGE, limit))
    found = store.history(webhook_deliveries.ref_of(hook), before=cursor, limit=limit)
    more = len(found) == limit
    return Page(found, int(found[-1].id) if more and found else None)


def get_delivery(scope: hooks.Scope, hook_id: int, delivery_id: int) -> HookDelivery:
    hook = hooks.get_hook(scope, hook_id)
    found = store.get(webhook_deliveries.ref_of(hook), delivery_id)
    if found is None:
        raise NotFoundError(f"webhook delivery does not exist [id: {delivery_id}]")
    return found


def redeliver(scope: hooks.Scope, hook_id: int, delivery_id: int) -> HookDelivery:
    """A new delivery of the same request text, at the end of the hook's queue."""
    hook = hooks.get_hook(scope, hook_id)
    old = get_delivery(scope, hook_id, delivery_id)
    made = webhook_deliveries.enqueue(
        hook, text=old.payload_text, event=old.event, event_type=old.event_type,
        action=old.action, content_kind=old.content_kind, http_method=old.http_method,
        default_headers=bool(old.default_headers), repo_id=int(old.repo_id or 0),
        redelivery=True, occurred_at=clock.now())
    webhook_deliveries.notify([webhook_deliveries.ref_of(hook)])
    return made


@dataclass
class TestPush:
    """What a test delivery is made of (``api`` builds the payload from it)."""
    hook: Hook
    repo: dict          # snapshots, as a push event carries them
    actor: dict
    ref: str
    commit: events.PushedCommit


def test_push(scope: hooks.Scope, view, actor, hook_id: int, ref: str | None) -> TestPush:
    """Forgejo's PrepareTestWebhook: the default branch's head commit (or ``ref``,
    resolved as a branch, tag or commit id, and named verbatim), 404 on an empty
    repository or an unknown ref."""
    hook = hooks.get_hook(scope, hook_id)
    repo = view.repo
    if repo.empty:
        raise NotFoundError("repository is empty")
    sha = webhook_sources.resolve_ref(repo, ref) if ref else None
    if ref and sha is None:
        raise NotFoundError(f"unrecognized repository reference: {ref}")
    commit = (webhook_sources.commit_at(repo, sha) if sha
              else webhook_sources.head_commit(repo, repo.default_branch))
    if commit is None:
        raise NotFoundError("repository is empty")
    return TestPush(hook, events.snapshot(repo), events.snapshot(actor),
                    ref or f"refs/heads/{repo.default_branch}", commit)


def send_test(test: TestPush, request, payload) -> HookDelivery | None:
    """Queue the test delivery (``request``: ``api.webhook_formats.Request``; None when
    the hook's type gets no message), recorded like any other."""
    if request is None:
        raise InvalidInput(f"a {test.hook.hook_type} hook gets no test delivery here")
    made = webhook_deliveries.enqueue(
        test.hook, text=request.text, event=payload.event, event_type=payload.event_type,
        action="", content_kind=request.content_kind, http_method=request.http_method,
        default_headers=request.default_headers, repo_id=int(test.repo.get("id") or 0),
        occurred_at=clock.now())
    webhook_deliveries.notify([webhook_deliveries.ref_of(test.hook)])
    return made
