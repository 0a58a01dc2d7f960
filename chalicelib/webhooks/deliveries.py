"""Webhook delivery: every payload reaches every hook that subscribed, in order per hook,
even when the receiver is down for a while.

State lives in the table (``webhooks/delivery_store.py``), not in a queue: a delivery
is written (with its queue item and its hook's lane) before anyone tries to send it,
and a crash at any point leaves it there for the next worker.  The webhook queue only
wakes workers: a message names a lane (a hook), and a lost message costs a wait until
the sweep, never a delivery.

A delivery's states::

    pending --2xx--------------------------------------------> delivered
       |  \\--network error, timeout, 5xx, 429: attempts left --> pending (next_attempt_at
       |                                                          = now + backoff, or
       |                                                          Retry-After)
       |   \\-- the same, no attempts or time left ------------> dead (the dead letter)
       |    \\-- any other status, or an address not allowed ---> failed
       \\-- the hook was deleted or deactivated ----------------> dropped

One worker at a time holds a hook's lane (a lease) and sends its queued deliveries oldest
first; a delivery waiting for its retry holds back the ones behind it.  Redelivering
makes a new delivery (new id and GUID) at the end of the queue, as Forgejo's replay and
GitHub's redelivery do.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import logging
import random
import time
import uuid
from dataclasses import dataclass
from typing import Callable, Iterable
from urllib.parse import quote_plus, urlencode, urlsplit, urlunsplit

from chalicelib import aws, clock, telemetry
from chalicelib.errors import ConditionFailed
from chalicelib.settings import get_settings
from chalicelib.store import unit_of_work
from chalicelib.webhooks import delivery_store as store
from chalicelib.webhooks import sender as webhook_sender
from chalicelib.webhooks import store as hook_store

log = logging.getLogger("nimbus.webhooks")

# A worker holds a lane this long; it stops taking new deliveries after RUN_SECONDS
# (and passes the lane on), so one attempt more always ends inside the lease.
LEASE_SECONDS = 120.0
RUN_SECONDS = 45.0
BATCH = 25
MAX_RECORDED_ATTEMPTS = 20
SQS_DELAY_LIMIT = 900          # SQS delays a message at most 15 minutes
FINAL = ("delivered", "failed", "dead", "dropped")

Sender = Callable[..., webhook_sender.Outcome]


# Enqueueing --------------------------------------------------------------------------------

def enqueue(hook, *, text: str, event: str, event_type: str, action: str,
            content_kind: str, http_method: str, default_headers: bool, repo_id: int = 0,
            event_id: str = "", occurred_at: float | None = None,
            redelivery: bool = False) -> store.HookDelivery:
    """Write one delivery for ``hook``; the same (event, hook) twice writes it once.

    The id is the event's time in microseconds, so a hook's queue is in event order;
    a taken id (another event in the same microsecond) moves on by one."""
    now = clock.now()
    ref = ref_of(hook)
    delivery_id = int((occurred_at or now) * 1_000_000)
    settings = get_settings().webhook
    for _ in range(64):
        delivery = store.new_delivery(
            ref, delivery_id, guid=str(uuid.uuid4()), hook_type=hook.hook_type,
            repo_id=int(repo_id or 0), event_id=event_id, event=event, event_type=event_type,
            action=action, redelivery=redelivery, created=now, state="pending",
            next_attempt_at=now, payload=store.compress(text), http_method=http_method,
            content_kind=content_kind, default_headers=default_headers,
            expires=int(now) + settings.HISTORY_DAYS * 86400)
        try:
            with unit_of_work.writing():
                store.stage_enqueue(delivery, now)
            return delivery
        except ConditionFailed as failed:
            if failed.label != store.DELIVERY:
                raise
        existing = store.get(ref, delivery_id)
        if existing is not None and event_id and existing.event_id == event_id:
            return existing      # a redelivered event: written the first time
        delivery_id += 1
    raise RuntimeError(f"no free delivery id for hook {ref}")


def ref_of(hook) -> str:
    return store.hook_ref(hook.owner_kind, int(hook.owner_id), int(hook.id))


def notify(refs: Iterable[str], delay: float = 0.0) -> None:
    """Wake a worker for each lane (the webhook queue; a lost message waits for the
    sweep).  Delays past SQS's limit are left to the sweep."""
    refs = list(dict.fromkeys(refs))
    if not refs or delay > SQS_DELAY_LIMIT:
        return
    sqs = aws.client("sqs")
    url = queue_url()
    for start in range(0, len(refs), 10):
        sqs.send_message_batch(QueueUrl=url, Entries=[
            {"Id": str(n), "MessageBody": json.dumps({"lane": ref}),
             "DelaySeconds": int(max(0, min(delay, SQS_DELAY_LIMIT)))}
            for n, ref in enumerate(refs[start:start + 10])])


_queue_urls: dict[str, str] = {}


def queue_url() -> str:
    name = get_settings().aws.WEBHOOK_QUEUE
    if name not in _queue_urls:
        _queue_urls[name] = aws.client("sqs").get_queue_url(QueueName=name)["QueueUrl"]
    return _queue_urls[name]


# Sending -----------------------------------------------------------------------------------

def signature(secret: str, text: str) -> tuple[str, str]:
    """Hex HMAC-SHA1 and HMAC-SHA256 of ``text`` with ``secret`` (empty without one)."""
    if not secret:
        return "", ""
    key, data = secret.encode(), text.encode("utf-8")
    return (hmac.new(key, data, hashlib.sha1).hexdigest(),
            hmac.new(key, data, hashlib.sha256).hexdigest())


def default_headers(guid: str, event: str, event_type: str, secret: str,
                    text: str) -> list[tuple[str, str]]:
    """Forgejo's AddDefaultHeaders, in its order (X-GitHub-* spelt as Forgejo does)."""
    sha1, sha256 = signature(secret, text)
    out = []
    for family in ("Forgejo", "Gitea", "Gogs"):
        out += [(f"X-{family}-Delivery", guid), (f"X-{family}-Event", event),
                (f"X-{family}-Event-Type", event_type), (f"X-{family}-Signature", sha256)]
    out += [("X-Hub-Signature", "sha1=" + sha1), ("X-Hub-Signature-256", "sha256=" + sha256),
            ("X-GitHub-Delivery", guid), ("X-GitHub-Event", event),
            ("X-GitHub-Event-Type", event_type)]
    return out


@dataclass
class Prepared:
    method: str
    url: str
    headers: list[tuple[str, str]]
    body: bytes | None
    recorded_headers: dict[str, str]     # as kept in the history: Authorization redacted


def prepare(delivery: store.HookDelivery, hook) -> Prepared:
    """The request for ``delivery`` to ``hook`` as it is now (URL, secret, authorization)."""
    text = delivery.payload_text
    method, url, body = delivery.http_method or "POST", hook.url, text.encode("utf-8")
    headers: list[tuple[str, str]] = []
    if delivery.content_kind == "matrix":
        method = "PUT"
        url = f"{url}/{hashlib.sha1(body).hexdigest()}"   # the idempotent transaction id
        headers.append(("Content-Type", "application/json"))
    elif method == "GET":
        parts = urlsplit(url)
        query = (parts.query + "&" if parts.query else "") + urlencode({"payload": text})
        url, body = urlunsplit((parts.scheme, parts.netloc, parts.path, query, "")), None
    elif delivery.content_kind == "form":
        body = ("payload=" + quote_plus(text)).encode("ascii")
        headers.append(("Content-Type", "application/x-www-form-urlencoded"))
    else:
        headers.append(("Content-Type", "application/json"))
    if delivery.default_headers:
        headers += default_headers(delivery.guid, delivery.event, delivery.event_type,
                                   hook.secret or "", text)
    recorded = {k: v for k, v in headers}
    if hook.authorization_header:
        headers.append(("Authorization", hook.authorization_header))
        kind = hook.authorization_header.split(" ", 1)[0]
        recorded["Authorization"] = (f"{kind} ******" if kind in ("Bearer", "Basic")
                                     else "******")
    return Prepared(method, url, headers, body, recorded)


def backoff(attempt: int, retry_after: float | None = None) -> float:
    """Seconds before attempt ``attempt + 1``: doubling from BACKOFF_BASE_MS with equal
    jitter (half fixed, half random) up to BACKOFF_MAX_SECONDS, or what Retry-After asks
    (within the same cap)."""
    settings = get_settings().webhook
    cap = float(settings.BACKOFF_MAX_SECONDS)
    if retry_after is not None:
        return min(cap, max(0.0, retry_after))
    wait = min(cap, settings.BACKOFF_BASE_MS / 1000.0 * 2 ** max(0, attempt - 1))
    return wait / 2 + random.uniform(0, wait / 2)


def _status_text(outcome: webhook_sender.Outcome) -> str:
    if outcome.status_code == 0:
        return outcome.error
    if outcome.ok:
        return outcome.reason or "OK"
    return f"Invalid HTTP Response: {outcome.status_code}"


def attempt(delivery: store.HookDelivery, hook, send: Sender = webhook_sender.send) -> None:
    """Send ``delivery`` once and move it to its next state (not saved here)."""
    request = prepare(delivery, hook)
    started = clock.now()
    outcome = send(request.method, request.url, request.headers, request.body)
    settings = get_settings().webhook
    delivery.attempt_count = int(delivery.attempt_count or 0) + 1
    record = {"at": started, "url": webhook_sender.split_userinfo(request.url)[0],
              "method": request.method, "request_headers": request.recorded_headers,
              "status_code": outcome.status_code, "response_headers": outcome.headers,
              "response_body": outcome.body, "error": outcome.error,
              "duration": round(outcome.duration, 3)}
    attempts = json.loads(delivery.attempts or "[]") + [record]
    delivery.attempts = json.dumps(attempts[-MAX_RECORDED_ATTEMPTS:])
    delivery.status, delivery.status_code = _status_text(outcome), outcome.status_code
    delivery.delivered_at, delivery.duration = started, round(outcome.duration, 3)
    retryable = (outcome.status_code == 0 and not outcome.refused) or \
        outcome.status_code >= 500 or outcome.status_code == 429
    too_old = clock.now() - float(delivery.created) > settings.MAX_AGE_HOURS * 3600
    # The lane run's telemetry line counts every attempt, the failed ones (retried or
    # not) and the dead letters.
    telemetry.add("WebhookDeliveries")
    telemetry.add("WebhookFailures", 0 if outcome.ok else 1)
    if outcome.ok:
        delivery.state = "delivered"
    elif not retryable:
        delivery.state = "failed"
    elif delivery.attempt_count >= settings.MAX_ATTEMPTS or too_old:
        delivery.state = "dead"
        telemetry.add("WebhookDeadLetters")
        log.warning("webhook delivery %s to hook %s dead after %d attempts: %s",
                    delivery.guid, delivery.hook_id, delivery.attempt_count, delivery.status)
    else:
        delivery.state = "pending"
        delivery.next_attempt_at = clock.now() + backoff(delivery.attempt_count,
                                                         outcome.retry_after)


# The lane worker ---------------------------------------------------------------------------

@dataclass
class LaneRun:
    sent: int = 0
    due_at: float | None = None     # when the lane wants a worker again (None: done)
    taken: bool = True              # False: another worker holds it (or it is gone)


def _hook_of(ref: str):
    kind, owner, hook_id = store.parse_ref(ref)
    return hook_store.get(kind, owner, hook_id)


def run_lane(ref: str, *, owner: str | None = None, force: bool = False,
             send: Sender = webhook_sender.send, budget: float = RUN_SECONDS) -> LaneRun:
    """Send the hook's queued deliveries in order until its queue is empty, the next one
    waits for its retry, or ``budget`` seconds have passed."""
    owner = owner or uuid.uuid4().hex
    lane = store.claim_lane(ref, owner, LEASE_SECONDS, force=force)
    if lane is None:
        return LaneRun(taken=False)
    generation, run = int(lane.generation), LaneRun()
    stop_at = time.monotonic() + budget
    with unit_of_work.start():
        hook = _hook_of(ref)
    while True:
        ids = store.queued(ref, BATCH)
        if not ids:
            if store.drop_lane(ref, owner, generation):
                return run
            lane = store.claim_lane(ref, owner, LEASE_SECONDS, force=True)
            if lane is None:
                return run
            generation = int(lane.generation)
            continue
        found = store.get_many(ref, ids)
        for delivery_id in ids:
            delivery = found.get(delivery_id)
            if delivery is None or delivery.state in FINAL:
                store.unqueue(ref, delivery_id)
                continue
            if hook is None or not hook.active:
                delivery.state = "dropped"
                delivery.status = "the hook was deleted" if hook is None else "the hook is inactive"
                store.save_attempt(delivery, final=True)
                continue
            now = clock.now()
            if float(delivery.next_attempt_at or 0) > now or time.monotonic() > stop_at:
                run.due_at = max(now, float(delivery.next_attempt_at or 0))
                store.release_lane(ref, owner, run.due_at)
                return run
            attempt(delivery, hook, send)
            run.sent += 1
            store.save_attempt(delivery, final=delivery.state in FINAL)
            if delivery.state == "pending":       # waiting for its retry: the rest wait too
                run.due_at = float(delivery.next_attempt_at)
                store.release_lane(ref, owner, run.due_at)
                return run


def due_lanes(*, every: bool = False) -> list[str]:
    """Lanes due now whose lease ran out (``every``: all of them, leases ignored)."""
    return [store.lane_ref(lane) for lane in store.due_lanes(clock.now(), ignore_leases=every)]
