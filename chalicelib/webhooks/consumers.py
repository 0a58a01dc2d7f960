"""Webhook delivery's two jobs.

``on_event`` is the ``webhook-delivery`` consumer (``jobs/consumers.py``): it turns a
domain event into Forgejo's payloads (``webhooks/payloads.py``), finds the hooks
that want each (the repository's, its owner's, the system hooks: event, active,
branch filter), renders each hook's request (``webhooks/formats.py``) and writes one
delivery per hook to the table (``services/webhook_deliveries.enqueue``; the same event
again writes nothing new), then wakes the delivery workers through the webhook queue.

The delivery worker sends what the table holds: ``handle_sqs_records`` (the
``webhook_worker`` function on the webhook queue) runs the lanes its messages name;
``sweep`` (a schedule) wakes the lanes that are due and not leased — after a crash, a
lost message, or a retry further away than SQS can delay a message; ``deliver_due``
runs due lanes in this process (the local runtime's worker thread).
"""
from __future__ import annotations

import json
import logging
import threading
from typing import Iterable

from chalicelib import clock, telemetry
from chalicelib import events as domain_events
from chalicelib.events import batches
from chalicelib.webhooks import deliveries as webhook_deliveries
from chalicelib.webhooks import formats as webhook_formats
from chalicelib.webhooks import payloads as webhook_payloads
from chalicelib.webhooks import service as hooks

log = logging.getLogger("nimbus.webhooks")

EVENT_TYPES = (domain_events.RepositoryPushed, domain_events.RefCreated,
               domain_events.RefDeleted, domain_events.RepositoryForked,
               domain_events.RepositoryCreated, domain_events.RepositoryMigrated,
               domain_events.RepositoryDeleted, domain_events.IssueChanged,
               domain_events.IssueCommentChanged, domain_events.CommitStatusCreated,
               domain_events.PullReviewChanged, domain_events.ReviewRequestChanged,
               *(t for t in (getattr(domain_events, "ReleaseChanged", None),) if t))


# The hooks looked up for the event a worker thread last asked about (``wants_event``),
# so that ``on_event`` right after it does not query them again; within a batch
# (``events.batches``) the batch's memo serves every event of it.
_looked_up = threading.local()


def wants_event(event: domain_events.Event) -> bool:
    """Checked before the event is claimed: does any active hook of the repository, its
    owner or the system exist?  Without one, no payload is built (a tag pushed to a
    repository without hooks costs three queries, once per batch).  A fork's payload
    goes to its parent's hooks: forks always go on."""
    if isinstance(event, domain_events.RepositoryForked):
        return True
    if not isinstance(event, domain_events.RepoEvent) or not event.repo:
        return False
    _looked_up.memo = (event.event_id, {})       # a redelivery looks again
    return bool(_hooks_in_scope(event, int(event.repo_id or event.repo.get("id") or 0),
                                int(event.repo.get("owner_id") or 0)))


def _hooks_in_scope(event: domain_events.Event, repo_id: int, owner_id: int) -> list:
    memo = batches.memo()
    if memo is None:
        mine = getattr(_looked_up, "memo", None)
        if mine is None or mine[0] != event.event_id:
            mine = _looked_up.memo = (event.event_id, {})
        memo = mine[1]
    found = []
    # "org": the owner's account partition, an organization's hooks or a user's.
    for kind, owner in (("repo", repo_id), ("org", owner_id), ("system", 0)):
        key = ("webhook-hooks", kind, owner)     # the system's hooks: once for every repository
        if key not in memo:
            memo[key] = hooks.active_hooks_of(kind, owner)
        found += memo[key]
    return found


def on_event(event: domain_events.Event) -> list[str]:
    """Write the event's deliveries; the lanes (hooks) that got one."""
    try:
        return _write_deliveries(event)
    finally:
        _looked_up.memo = None


def _write_deliveries(event: domain_events.Event) -> list[str]:
    lanes: list[str] = []
    for index, payload in enumerate(webhook_payloads.payloads(event)):
        found = _hooks_in_scope(event, int(payload.repo.id), int(payload.owner.id))
        for hook in hooks.select_hooks(found, payload.event_type, payload.branch):
            request = webhook_formats.request_for(hook, payload)
            if request is None:
                continue
            webhook_deliveries.enqueue(
                hook, text=request.text, event=payload.event, event_type=payload.event_type,
                action=payload.action, content_kind=request.content_kind,
                http_method=request.http_method, default_headers=request.default_headers,
                repo_id=int(payload.repo.id), event_id=f"{event.event_id}#{index}",
                occurred_at=event.occurred_at)
            lanes.append(webhook_deliveries.ref_of(hook))
    webhook_deliveries.notify(lanes)
    return lanes


def run_lanes(refs: Iterable[str], *, force: bool = False) -> int:
    """Run each lane; re-wake the ones that stopped early or wait for a retry."""
    sent = 0
    for ref in dict.fromkeys(refs):
        # One telemetry line per lane run; its attempts count WebhookDeliveries etc.
        with telemetry.run("webhook_lane_run", "WebhookLane", lane=ref) as measured:
            run = webhook_deliveries.run_lane(ref, force=force)
            measured.fields.update(sent=run.sent, taken=run.taken)
        sent += run.sent
        if run.due_at is not None:
            webhook_deliveries.notify([ref], delay=max(0.0, run.due_at - clock.now()))
    return sent


def handle_sqs_records(bodies: Iterable[str]) -> int:
    refs = []
    for body in bodies:
        try:
            refs.append(json.loads(body)["lane"])
        except (ValueError, KeyError, TypeError):
            log.error("dropping a webhook queue message that names no lane: %.200s", body)
    return run_lanes(refs)


def sweep() -> int:
    """Wake every lane that is due and not leased (the schedule)."""
    due = webhook_deliveries.due_lanes()
    webhook_deliveries.notify(due)
    return len(due)


def deliver_due(*, every: bool = False) -> int:
    """Run the due lanes here (``every``: all lanes, leases broken: a restarted local
    runtime, whose leases were all its own)."""
    return run_lanes(webhook_deliveries.due_lanes(every=every), force=every)

