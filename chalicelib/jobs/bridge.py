"""Every domain event on an Amazon EventBridge bus too, when ``[events]
EVENTBRIDGE_BUS`` names one: AWS users wire their systems to a forge with rules, not with
webhooks to a public URL (docs/extensions.md).

The queue worker hands this module a whole batch (``jobs/consumers.py``, a batch
consumer): each event is claimed with a delivery mark like any consumer's, so a
redelivered message puts nothing twice, then the batch goes out in ``PutEvents`` calls of
up to ten entries and 256 KB, in the batch's order (a repository's events are in commit
order within a batch, and its batches follow one another locally).  Entries EventBridge
refused are sent again with a backoff; an event still refused releases its claim and its
message fails, so the queue delivers it again.

An entry: source ``nimbus``, detail-type the event's name (``RepositoryPushed``), detail
the event's wire form (``events.to_message``: its fields with the repository and actor
snapshots, secrets never copied into events in the first place), time the commit's.  A
detail too large for one entry loses its largest fields and says which
(``truncated``).
"""
from __future__ import annotations

import json
import logging
import time
from datetime import datetime, timezone
from typing import Callable

from chalicelib import events as domain_events
from chalicelib.settings import get_settings

log = logging.getLogger("nimbus.eventbridge")

SOURCE = "nimbus"
CONSUMER = "eventbridge"
MAX_ENTRIES = 10                 # PutEvents: entries per call
MAX_CALL_BYTES = 256 * 1024      # PutEvents: the whole call, every entry counted
# An entry's size as EventBridge counts it is its source, detail-type, detail and
# resources; one entry is kept well below a call so that a large one still fits alone.
MAX_DETAIL_BYTES = 200 * 1024
ATTEMPTS = 4
BACKOFF_SECONDS = 0.2


def bus() -> str:
    return get_settings().events.EVENTBRIDGE_BUS


def wants(event: domain_events.Event) -> bool:
    """Every change once a bus is configured; none of the service's own work items."""
    return bool(bus()) and not isinstance(event, domain_events.WORK_ITEMS)


def detail_of(event: domain_events.Event) -> dict:
    """The event's wire form, within one entry's size (largest fields dropped first)."""
    message = domain_events.to_message(event)
    detail = {"id": message["id"], "type": message["type"], **message["data"]}
    dropped = []
    while len(_encoded(detail)) > MAX_DETAIL_BYTES:
        sizes = {name: len(_encoded(value)) for name, value in detail.items()
                 if name not in ("id", "type", "event_id", "repo_id", "actor_id", "truncated")}
        if not sizes:
            break
        largest = max(sizes, key=sizes.get)
        dropped.append(largest)
        detail.pop(largest)
        detail["truncated"] = sorted(dropped)
    return detail


def entry_of(event: domain_events.Event, bus_name: str) -> dict:
    return {"Source": SOURCE, "DetailType": type(event).__name__,
            "Detail": _encoded(detail_of(event)), "EventBusName": bus_name,
            "Time": datetime.fromtimestamp(event.occurred_at or time.time(), timezone.utc)}


def _encoded(value) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, default=str)


def _size(entry: dict) -> int:
    return sum(len(entry[name].encode()) for name in ("Source", "DetailType", "Detail"))


def calls_of(entries: list[dict]) -> list[list[int]]:
    """The entries' positions grouped into PutEvents calls, in order: at most
    MAX_ENTRIES and MAX_CALL_BYTES each."""
    calls: list[list[int]] = []
    size = 0
    for position, entry in enumerate(entries):
        if not calls or len(calls[-1]) == MAX_ENTRIES or size + _size(entry) > MAX_CALL_BYTES:
            calls.append([])
            size = 0
        calls[-1].append(position)
        size += _size(entry)
    return calls


def publish(batch: list[domain_events.Event], *,
            sleep: Callable[[float], None] = time.sleep) -> list[bool]:
    """Put the events on the bus, in order; whether each was accepted.  A refused entry
    (throttled, an internal error) is sent again, up to ATTEMPTS times in all."""
    from chalicelib import aws

    name = bus()
    entries = [entry_of(event, name) for event in batch]
    accepted = [False] * len(entries)
    client = aws.client("events")
    for positions in calls_of(entries):
        pending = positions
        for attempt in range(ATTEMPTS):
            if attempt:
                sleep(BACKOFF_SECONDS * 2 ** (attempt - 1))
            answer = client.put_events(Entries=[entries[p] for p in pending])
            refused = []
            for position, result in zip(pending, answer.get("Entries", [])):
                if result.get("EventId"):
                    accepted[position] = True
                else:
                    refused.append(position)
                    log.warning("EventBridge refused event %s: %s %s", batch[position].event_id,
                                result.get("ErrorCode"), result.get("ErrorMessage"))
            pending = refused
            if not pending:
                break
    return accepted
