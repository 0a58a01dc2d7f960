"""Webhook deliveries in the table: each delivery's record (its payload, state and
attempts), the queue of a hook's deliveries still to be sent, and the lanes that tell
workers which hooks have work.

| item | pk | sk |
|---|---|---|
| delivery | ``WHD#<hook ref>`` | ``<delivery id, 16 digits>`` |
| queued delivery (not yet final) | ``WHQ#<hook ref>`` | ``<delivery id, 16 digits>`` |
| lane (a hook with queued deliveries) | ``WHLANE#<shard 0..3>`` | ``<hook ref>`` |

``<hook ref>`` is ``<owner kind>#<owner id>#<hook id>``.  Delivery ids grow with the
time of the event (microseconds), so a hook's queue reads oldest first and its history
newest first, each with one Query.  The queue holds only what is not final, so finding
the next delivery never reads past history; the lane is the one item a worker leases to
send a hook's deliveries in order (one sender per hook at a time), and what the sweep
looks for after a crash.  Deliveries expire through the table's TTL attribute
``expires``; queue items and lanes never expire (they go when their delivery is final).

A delivery, its queue item and its lane's ``generation`` bump are one transaction, so a
delivery exists exactly when a worker can find it.
"""
from __future__ import annotations

import zlib
from typing import Iterable

from pynamodb.exceptions import DeleteError, UpdateError

from chalicelib import clock
from chalicelib.store import unit_of_work
from chalicelib.webhooks.models import DeliveryLane, HookDelivery, QueuedDelivery

SHARDS = 4
DELIVERY = "webhook-delivery"     # ConditionFailed label: the delivery id is taken
DIGITS = 16


# Keys --------------------------------------------------------------------------------------

def hook_ref(owner_kind: str, owner_id: int, hook_id: int) -> str:
    return f"{owner_kind}#{int(owner_id)}#{int(hook_id)}"


def parse_ref(ref: str) -> tuple[str, int, int]:
    kind, owner, hook = ref.split("#")
    return kind, int(owner), int(hook)


def _sk(delivery_id: int) -> str:
    return f"{int(delivery_id):0{DIGITS}d}"


def delivery_key(ref: str, delivery_id: int) -> tuple[str, str]:
    return f"WHD#{ref}", _sk(delivery_id)


def queue_key(ref: str, delivery_id: int) -> tuple[str, str]:
    return f"WHQ#{ref}", _sk(delivery_id)


def lane_key(ref: str) -> tuple[str, str]:
    return f"WHLANE#{zlib.crc32(ref.encode()) % SHARDS}", ref


def compress(text: str) -> bytes:
    return zlib.compress(text.encode("utf-8"), 6)


# Writing -----------------------------------------------------------------------------------

def new_delivery(ref: str, delivery_id: int, **fields) -> HookDelivery:
    kind, owner, hook = parse_ref(ref)
    return HookDelivery(*delivery_key(ref, delivery_id), id=delivery_id, owner_kind=kind,
                        owner_id=owner, hook_id=hook, **fields)


def stage_enqueue(delivery: HookDelivery, now: float) -> None:
    """The delivery (its id must be free: ``DELIVERY``), its queue item and its lane's
    bump, in the current unit of work."""
    ref = hook_ref(delivery.owner_kind, delivery.owner_id, delivery.hook_id)
    uow = unit_of_work.current()
    uow.put(delivery, label=DELIVERY, must_not_exist=True)
    uow.put(QueuedDelivery(*queue_key(ref, delivery.id), delivery_id=delivery.id))
    lane = DeliveryLane(*lane_key(ref))
    uow.update(lane, actions=[
        DeliveryLane.kind.set(DeliveryLane),      # an update that creates sets no kind
        DeliveryLane.generation.add(1),
        DeliveryLane.owner_kind.set(delivery.owner_kind),
        DeliveryLane.owner_id.set(delivery.owner_id),
        DeliveryLane.hook_id.set(delivery.hook_id),
        # A lane waiting for a retry keeps its time: the new delivery is behind it.
        DeliveryLane.next_at.set(DeliveryLane.next_at | now),
        DeliveryLane.lease_until.set(DeliveryLane.lease_until | 0),
    ], label="webhook-lane")


def save_attempt(delivery: HookDelivery, *, final: bool) -> None:
    """Write the delivery after an attempt; a final one then leaves the queue.  Two
    plain writes, not a transaction: a crash between them leaves a queue item whose
    delivery is final, which the next worker removes without sending."""
    delivery.save()
    if final:
        unqueue(hook_ref(delivery.owner_kind, delivery.owner_id, delivery.hook_id),
                int(delivery.id))


def unqueue(ref: str, delivery_id: int) -> None:
    QueuedDelivery(*queue_key(ref, delivery_id)).delete()


# Reading -----------------------------------------------------------------------------------

def get(ref: str, delivery_id: int) -> HookDelivery | None:
    try:
        return HookDelivery.get(*delivery_key(ref, delivery_id), consistent_read=True)
    except HookDelivery.DoesNotExist:
        return None


def queued(ref: str, limit: int) -> list[int]:
    """The ids of the hook's deliveries that are not final, oldest first."""
    return [int(q.delivery_id) for q in QueuedDelivery.query(
        f"WHQ#{ref}", consistent_read=True, limit=limit, page_size=limit)]


def get_many(ref: str, ids: Iterable[int]) -> dict[int, HookDelivery]:
    wanted = [delivery_key(ref, i) for i in ids]
    return {int(d.id): d for d in HookDelivery.batch_get(wanted, consistent_read=True)}


def history(ref: str, *, before: int | None, limit: int) -> list[HookDelivery]:
    """The hook's deliveries, newest first, older than ``before`` (a delivery id)."""
    condition = HookDelivery.sk < _sk(before) if before else None
    return list(HookDelivery.query(f"WHD#{ref}", condition, scan_index_forward=False,
                                   limit=limit, page_size=limit))


def count(ref: str) -> int:
    return HookDelivery.count(f"WHD#{ref}")


# Lanes -------------------------------------------------------------------------------------

def claim_lane(ref: str, owner: str, lease_seconds: float, *, force: bool = False
               ) -> DeliveryLane | None:
    """Lease the hook's lane for ``owner``; None when there is none or another worker
    holds a live lease (``force``: take it anyway; a restarted local runtime)."""
    now = clock.now()
    lane = DeliveryLane(*lane_key(ref))
    condition = DeliveryLane.pk.exists()
    if not force:
        condition &= DeliveryLane.lease_until < now
    try:
        lane.update(actions=[DeliveryLane.lease_until.set(now + lease_seconds),
                             DeliveryLane.lease_owner.set(owner)], condition=condition)
    except UpdateError as exc:
        if exc.cause_response_code == "ConditionalCheckFailedException":
            return None
        raise
    return lane


def release_lane(ref: str, owner: str, next_at: float) -> bool:
    """Give the lease back; the lane is due again at ``next_at``."""
    lane = DeliveryLane(*lane_key(ref))
    try:
        lane.update(actions=[DeliveryLane.lease_until.set(0), DeliveryLane.next_at.set(next_at)],
                    condition=DeliveryLane.lease_owner == owner)
    except UpdateError as exc:
        if exc.cause_response_code == "ConditionalCheckFailedException":
            return False
        raise
    return True


def drop_lane(ref: str, owner: str, generation: int) -> bool:
    """Remove the lane once its queue is empty; False if a delivery was enqueued since
    ``generation`` was read (the caller looks again) or the lease was lost."""
    try:
        DeliveryLane(*lane_key(ref)).delete(condition=(DeliveryLane.generation == generation)
                                            & (DeliveryLane.lease_owner == owner))
    except DeleteError as exc:
        if exc.cause_response_code == "ConditionalCheckFailedException":
            return False
        raise
    return True


def due_lanes(now: float, *, ignore_leases: bool = False) -> list[DeliveryLane]:
    """Lanes due at ``now`` whose lease has run out (or every lane: ``ignore_leases``)."""
    found: list[DeliveryLane] = []
    for shard in range(SHARDS):
        for lane in DeliveryLane.query(f"WHLANE#{shard}", consistent_read=True):
            if ignore_leases or (lane.next_at <= now and lane.lease_until < now):
                found.append(lane)
    return found


def lane_ref(lane: DeliveryLane) -> str:
    return lane.sk
