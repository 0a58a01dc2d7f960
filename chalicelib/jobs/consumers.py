"""The events queue worker: hands each domain event to the consumers that want it.

Delivery is at least once (the relay may publish an item twice, SQS may redeliver), so
each (event, consumer) pair is claimed with a delivery mark before the consumer runs
(``chalicelib.store.outbox.claim``): the same event reaches a consumer once.  A consumer
that fails releases its claim and the message is retried by SQS, then dead-lettered.

Consumers register here with the event types they take (``_load_builtin``).  A batch
consumer (``register_batch``: the EventBridge bridge, ``jobs/bridge.py``) takes a whole
batch at once, each event claimed as for any consumer, before the others run.
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Callable, Iterable

from chalicelib import clock, telemetry
from chalicelib import events as domain_events
from chalicelib.events import batches
from chalicelib.store import outbox

log = logging.getLogger("nimbus.consumers")

# A consumer that takes longer than this may be run again by a redelivery.
LEASE_SECONDS = 300.0


def _every(event: domain_events.Event) -> bool:
    return True


@dataclass(frozen=True)
class Consumer:
    name: str
    kinds: tuple[type[domain_events.Event], ...]
    handle: Callable[[domain_events.Event], None]
    # Asked before the claim: an event the consumer would ignore costs no delivery marks
    # (a tag nobody subscribes to must cost next to nothing).
    wants: Callable[[domain_events.Event], bool] = _every


_consumers: dict[str, Consumer] = {}


def register(name: str, kinds: Iterable[type[domain_events.Event]],
             handle: Callable[[domain_events.Event], None],
             wants: Callable[[domain_events.Event], bool] = _every) -> None:
    _consumers[name] = Consumer(name, tuple(kinds), handle, wants)


@dataclass(frozen=True)
class BatchConsumer:
    name: str
    # The batch's events it takes, in order -> whether each was handled.
    handle: Callable[[list[domain_events.Event]], list[bool]]
    wants: Callable[[domain_events.Event], bool] = _every


_batch_consumers: dict[str, BatchConsumer] = {}


def register_batch(name: str, handle: Callable[[list[domain_events.Event]], list[bool]],
                   wants: Callable[[domain_events.Event], bool] = _every) -> None:
    _batch_consumers[name] = BatchConsumer(name, handle, wants)


def unregister(name: str) -> None:
    _consumers.pop(name, None)
    _batch_consumers.pop(name, None)


def consumers_for(event: domain_events.Event) -> list[Consumer]:
    _load_builtin()
    return [c for c in _consumers.values() if isinstance(event, c.kinds)]


def decode(body: str | dict) -> domain_events.Event | None:
    """The event a queue message carries (None, logged, for one this version cannot
    read: it is dropped)."""
    message = json.loads(body) if isinstance(body, str) else body
    if "stored_at" in message:     # too large for SQS: the relay left it in S3
        message = _stored_message(message["stored_at"])
    try:
        return domain_events.from_message(message)
    except (domain_events.UnknownEvent, TypeError) as exc:
        log.error("dropping undecodable event message %s: %s", message.get("id"), exc)
        return None


def handle_message(body: str | dict) -> int:
    """Run the event in one queue message through its consumers (the batch consumers as
    a batch of one); returns how many ran.  Raises if a consumer failed (the message is
    then retried)."""
    event = decode(body)
    if event is None:
        return 0
    if not run_batch_consumers([event])[0]:
        raise RuntimeError(f"a batch consumer failed on event {event.event_id}")
    return run_consumers(event)


def run_batch_consumers(batch: list[domain_events.Event | None]) -> list[bool]:
    """Hand the batch to each batch consumer, the events it wants and has not handled
    yet (claimed one by one); whether each event went well (a failed one's claim is
    released: its message must be delivered again)."""
    _load_builtin()
    ok = [True] * len(batch)
    for consumer in list(_batch_consumers.values()):
        taken = [n for n, event in enumerate(batch)
                 if event is not None and consumer.wants(event)]
        if not taken:
            continue
        with telemetry.run("consumer_run", "Consumer", {"Consumer": consumer.name},
                           event_type="batch", events=len(taken)) as run:
            claimed = [n for n in taken if outbox.claim(batch[n].event_id, consumer.name,
                                                        lease_seconds=LEASE_SECONDS)]
            if not claimed:
                run.outcome = "duplicate"
                continue
            try:
                handled = consumer.handle([batch[n] for n in claimed])
            except Exception as exc:  # noqa: BLE001 - the others still run; SQS retries
                log.exception("batch consumer %s failed", consumer.name)
                handled = [False] * len(claimed)
                run.failed(exc)
            for n, done in zip(claimed, handled):
                if done:
                    outbox.finish(batch[n].event_id, consumer.name)
                else:
                    outbox.release(batch[n].event_id, consumer.name)
                    ok[n] = False
            if not all(handled) and run.outcome != "failed":
                run.failed(RuntimeError("some events were not handled"))
    return ok


def run_consumers(event: domain_events.Event) -> int:
    """Run ``event`` through the per-event consumers that take it; how many ran.  Raises
    if one failed (after the others ran)."""
    ran, failed = 0, None
    for consumer in consumers_for(event):
        if not consumer.wants(event):
            continue
        # One telemetry line per run: the claim, the consumer and the delivery mark.
        with telemetry.run("consumer_run", "Consumer", {"Consumer": consumer.name},
                           event_type=type(event).__name__, event_id=event.event_id) as run:
            if event.occurred_at:
                # From the commit to this run: the outbox, the relay and the queue's wait.
                telemetry.add("EventAge", round(max(0.0, clock.now() - event.occurred_at), 3),
                              telemetry.SECONDS)
            if not outbox.claim(event.event_id, consumer.name, lease_seconds=LEASE_SECONDS):
                run.outcome = "duplicate"     # done, or running under another's lease
                continue
            try:
                consumer.handle(event)
            except Exception as exc:  # noqa: BLE001 - the others still run; SQS retries
                log.exception("consumer %s failed on event %s", consumer.name, event.event_id)
                run.failed(exc)
                outbox.release(event.event_id, consumer.name)
                failed = exc
                continue
            outbox.finish(event.event_id, consumer.name)
            ran += 1
    if failed is not None:
        raise failed
    return ran


def lane_of(message: dict) -> str:
    """The lane an event runs in where the worker keeps an order (the local runtime,
    ``local/event_lanes.py``): its repository's, or its own for an event about no
    repository."""
    repo_id = (message.get("data") or {}).get("repo_id")
    return f"repo:{int(repo_id)}" if repo_id else f"event:{message.get('id')}"


def _stored_message(key: str) -> dict:
    from chalicelib import aws
    from chalicelib.settings import get_settings

    stored = aws.client("s3").get_object(Bucket=get_settings().aws.BUCKET, Key=key)
    return json.loads(stored["Body"].read())


def handle_sqs_records(bodies: Iterable[str]) -> int:
    """The worker function: one SQS batch (a failure fails it: SQS retries it)."""
    done = handle_batch(bodies)
    if not all(done):
        raise RuntimeError(f"{done.count(False)} of {len(done)} event messages failed")
    return len(done)


def handle_batch(bodies: Iterable[str]) -> list[bool]:
    """Run several messages as one batch (``events.batches``): the batch consumers first,
    then each message's consumers; whether each succeeded (a failed one stays on the
    queue for a redelivery)."""
    done = []
    with batches.handling():
        decoded = []
        for body in bodies:
            try:
                decoded.append(decode(body))
            except Exception as exc:  # noqa: BLE001 - the queue delivers it again
                log.warning("event message not read (%s); it stays on the queue", exc)
                decoded.append(exc)
        events_only = [e if isinstance(e, domain_events.Event) else None for e in decoded]
        batch_ok = run_batch_consumers(events_only)
        for event, ok in zip(decoded, batch_ok):
            if isinstance(event, Exception):
                done.append(False)
                continue
            try:
                if event is not None:
                    run_consumers(event)
            except Exception as exc:  # noqa: BLE001 - the queue delivers it again
                log.warning("event message not handled (%s); it stays on the queue", exc)
                done.append(False)
                continue
            done.append(ok)
    return done


def poll(url: str, *, wait_seconds: int = 0, max_messages: int = 10) -> int:
    """Receive and handle one batch from the queue, as the worker function would (the
    tests drive the queue with it; the local runtime reads the outbox itself)."""
    from chalicelib import aws

    sqs = aws.client("sqs")
    received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=max_messages,
                                   WaitTimeSeconds=wait_seconds).get("Messages", [])
    done = handle_batch(message["Body"] for message in received)
    _delete(url, [m["ReceiptHandle"] for m, ok in zip(received, done) if ok])
    return sum(done)


def _delete(url: str, receipt_handles: list[str]) -> None:
    """Remove handled messages from the queue, ten a call (a failed message is left:
    redelivered, then dead-lettered)."""
    from chalicelib import aws

    sqs = aws.client("sqs")
    for start in range(0, len(receipt_handles), 10):
        chunk = receipt_handles[start:start + 10]
        sqs.delete_message_batch(QueueUrl=url, Entries=[
            {"Id": str(n), "ReceiptHandle": handle} for n, handle in enumerate(chunk)])


_builtin_loaded = False


def _load_builtin() -> None:
    """The consumers that ship with the service (imported on first use: the API
    function never needs them)."""
    global _builtin_loaded
    if _builtin_loaded:
        return
    from chalicelib import (issues, languages, lfs, notifications, pulls, repo_admin, repos,
                            reviews, webhooks)

    # Every change on the operator's EventBridge bus too, when one is configured.
    from chalicelib.jobs import bridge

    register_batch(bridge.CONSUMER, bridge.publish, bridge.wants)
    register("repository-cleanup", (domain_events.RepositoryDeleted,
                                    domain_events.RepositoryPurged),
             repo_admin.on_repository_deleted)
    # A push to a repository with push mirrors that sync on commit pushes to them.
    register("push-mirrors", (domain_events.RepositoryPushed,), repo_admin.push_mirrors_pushed,
             repo_admin.push_mirrors_want)
    # A renamed owner's repositories that the rename's request did not get to move.
    register("owner-rename", (domain_events.AccountRenamed,), repos.on_owner_renamed)
    # A fork needs the Git LFS objects its parent needed (for the collection and quota).
    register("lfs-needs", lfs.EVENT_TYPES, lfs.on_event)
    register("pull-request-sync", pulls.EVENT_TYPES, pulls.on_event, pulls.wants_event)
    # Reviews of an old head become stale (approvals dismissed when the rule says so).
    register("review-stale", reviews.EVENT_TYPES, reviews.on_event, reviews.wants_event)
    register("language-stats", languages.EVENT_TYPES, languages.on_event,
             languages.wants_event)
    # "Closes #1" in merged pull requests and default-branch commits; references.
    register("issue-references", issues.EVENT_TYPES, issues.on_event, issues.wants_event)
    # Threads for the people who follow an issue, pull request or release.
    register("notifications", notifications.EVENT_TYPES, notifications.on_event,
             notifications.wants_event)
    # Activity feeds and the heatmap (chalicelib/activity).
    from chalicelib import activity

    register("activity-feeds", activity.EVENT_TYPES, activity.on_event, activity.wants_event)
    # Every move of a branch or tag, kept for its undo (chalicelib/ref_history).
    from chalicelib import ref_history

    register("ref-history", ref_history.EVENT_TYPES, ref_history.on_event,
             ref_history.wants_event)
    # The search index (chalicelib/search): what a search finds follows every change.
    from chalicelib import search

    register("search-index", search.EVENT_TYPES, search.on_event, search.wants_event)
    # Writes each event's webhook deliveries to the table; webhooks/consumers.py sends them.
    register("webhook-delivery", webhooks.EVENT_TYPES, webhooks.on_event,
             webhooks.wants_event)
    # A project migration's steps (chalicelib/migrations): one turn per event.
    from chalicelib import migrations

    register("migration-steps", migrations.EVENT_TYPES, migrations.on_event,
             migrations.wants_event)
    # The audit log (chalicelib/audit): every change but background scheduling notes.
    from chalicelib import audit

    register("audit-log", audit.EVENT_TYPES, audit.on_event, audit.wants_event)
    _builtin_loaded = True
