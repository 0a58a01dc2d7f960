"""The transactional outbox: one item per domain event, written in the same transaction
as the change that raised it (``unit_of_work.commit``), removed once relayed.

| item | pk | sk |
|---|---|---|
| outbox | ``OUTBOX#<shard 0..SHARDS-1>`` | ``<unix ms, 13 digits>#<event id>`` |
| delivery mark | ``DELIVERY#<event id>`` | ``<consumer name>`` |

Events spread over ``SHARDS`` partitions (by event id) so no partition takes every
write; the sweep reads each shard oldest first.  In AWS the table's stream hands new
outbox items to the relay function; the sweep only picks up what that left behind.

Delivery marks make consumers idempotent: a consumer claims (event, consumer) with a
conditional put before it runs, marks it done after, and releases it if it failed, so
the same event published twice is handled once.  Both kinds expire through the
table's TTL attribute ``expires``.
"""
from __future__ import annotations

import json
import zlib
from typing import Iterable, Iterator

from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.exceptions import PutError, UpdateError

from chalicelib import clock
from chalicelib import events as domain_events
from chalicelib.store.table import Item

SHARDS = 4
OUTBOX_PREFIX = "OUTBOX#"
# Outbox items left this long are surely stuck; kept a week so the sweep can find them.
OUTBOX_KEEP_SECONDS = 7 * 24 * 3600
DELIVERY_KEEP_SECONDS = 14 * 24 * 3600


class OutboxItem(Item, discriminator="outbox"):
    event_id = UnicodeAttribute()
    event_type = UnicodeAttribute()
    message = UnicodeAttribute()           # JSON of events.to_message(event)
    created = NumberAttribute()            # unix seconds (float)
    expires = NumberAttribute(null=True)   # TTL


class DeliveryMark(Item, discriminator="delivery"):
    status = UnicodeAttribute(default="running")   # running | done
    lease_until = NumberAttribute(default=0)
    expires = NumberAttribute(null=True)


def shard_of(event_id: str) -> int:
    return zlib.crc32(event_id.encode()) % SHARDS


def item_for(event: domain_events.Event) -> OutboxItem:
    created = event.occurred_at or clock.now()
    pk = f"{OUTBOX_PREFIX}{shard_of(event.event_id)}"
    sk = f"{int(created * 1000):013d}#{event.event_id}"
    return OutboxItem(pk, sk, event_id=event.event_id, event_type=type(event).__name__,
                      message=json.dumps(domain_events.to_message(event), separators=(",", ":"),
                                         ensure_ascii=False),
                      created=created, expires=int(created) + OUTBOX_KEEP_SECONDS)


def message_of(item: OutboxItem) -> dict:
    return json.loads(item.message)


def is_outbox_key(pk: str) -> bool:
    return pk.startswith(OUTBOX_PREFIX)


def from_stream_image(image: dict) -> OutboxItem | None:
    """An outbox item from a DynamoDB stream record's NewImage (None for other items)."""
    if image.get("kind", {}).get("S") != "outbox":
        return None
    item = OutboxItem()
    item.deserialize(image)
    return item


def pending(*, older_than: float | None = None, limit: int = 500) -> Iterator[OutboxItem]:
    """Outbox items, oldest first per shard; ``older_than`` (unix seconds) skips the
    ones younger than that, which the stream or the committing process still handles."""
    cutoff = f"{int((older_than if older_than is not None else clock.now() + 60) * 1000):013d}"
    for shard in range(SHARDS):
        yield from OutboxItem.query(f"{OUTBOX_PREFIX}{shard}", OutboxItem.sk < cutoff,
                                    consistent_read=True, limit=limit, page_size=min(limit, 100))


def remove(items: Iterable[OutboxItem]) -> None:
    items = list(items)
    if not items:
        return
    with OutboxItem.batch_write() as batch:
        for item in items:
            batch.delete(OutboxItem(item.pk, item.sk))


def _mark_key(event_id: str, consumer: str) -> tuple[str, str]:
    return f"DELIVERY#{event_id}", consumer


def claim(event_id: str, consumer: str, *, lease_seconds: float) -> bool:
    """Take (event, consumer) for handling: False when it is done, or running under
    someone else's live lease."""
    now = clock.now()
    mark = DeliveryMark(*_mark_key(event_id, consumer), status="running",
                        lease_until=now + lease_seconds,
                        expires=int(now) + DELIVERY_KEEP_SECONDS)
    free = DeliveryMark.pk.does_not_exist() | (
        (DeliveryMark.status == "running") & (DeliveryMark.lease_until < now))
    try:
        mark.save(condition=free)
    except PutError as exc:
        if exc.cause_response_code == "ConditionalCheckFailedException":
            return False
        raise
    return True


def finish(event_id: str, consumer: str) -> None:
    mark = DeliveryMark(*_mark_key(event_id, consumer))
    try:
        mark.update(actions=[DeliveryMark.status.set("done")],
                    condition=DeliveryMark.pk.exists())
    except UpdateError as exc:  # pragma: no cover - the mark expired under us
        if exc.cause_response_code != "ConditionalCheckFailedException":
            raise


def release(event_id: str, consumer: str) -> None:
    DeliveryMark(*_mark_key(event_id, consumer)).delete()


def is_done(event_id: str, consumer: str) -> bool:
    try:
        return DeliveryMark.get(*_mark_key(event_id, consumer),
                                consistent_read=True).status == "done"
    except DeliveryMark.DoesNotExist:
        return False
