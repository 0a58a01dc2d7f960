"""The unit of work: one object that owns a request's reads, writes and events.

Reads by key go through its identity map, so an item is read at most once per unit and
keys known up front are fetched together in one BatchGetItem (``prefetch``).  Store
modules stage writes in it (``put``, ``update``, ``delete``, ``check``) with a label
each; services raise domain events in it (``raise_event``).  ``commit()`` sends all of
it as one ``TransactWriteItems``, the events as outbox items in the same transaction
(``chalicelib.store.outbox``), so a change and its events exist together or not at all.
A lone write with no event goes as a plain conditional write (half the write cost).

DynamoDB takes at most 100 items in a transaction.  A larger unit (a push moving many
refs, a big deletion) is committed as a documented sequence: chunks of 100 in staging
order, the outbox items in the last chunk, so the events exist only once every change
does; a failure part-way leaves the earlier chunks, which each caller must tolerate
(they are written so that redoing the operation completes it).

After a commit, what was put is served from the identity map, what was deleted is known
absent, and updated keys are forgotten (a later read in the unit reads them again).
Hooks registered with ``after_commit`` see the outbox items (the local runtime wakes its
relay with them; no AWS call is made for that on the request path).

The gateway opens a unit per request (``start``); outside one (CLI, jobs, tests calling
services) ``current()`` opens one that caches nothing, so nothing stale outlives a call.
"""
from __future__ import annotations

import contextlib
import logging
import os
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from pynamodb.exceptions import (DeleteError, DoesNotExist, PutError, TransactWriteError,
                                 UpdateError)
from pynamodb.transactions import TransactWrite

from chalicelib import events as domain_events
from chalicelib.errors import ConditionFailed, TooLarge
from chalicelib.store import outbox
from chalicelib.store.table import Item, connection

log = logging.getLogger("nimbus.store")

Key = tuple[str, str]
TRANSACTION_LIMIT = 100
_ABSENT = object()
# PynamoDB sends condition checks, then deletes, puts and updates; DynamoDB reports the
# cancellation reasons in that order, so staged operations are sorted the same way.
_ORDER = {"check": 0, "delete": 1, "put": 2, "update": 3}
_TX_METHOD = {"check": "condition_check", "delete": "delete", "put": "save", "update": "update"}
# Set NIMBUS_FAULT=after-commit to kill the process right after a commit, before any
# relay sees its events (crash tests of the outbox).
FAULT_ENV = "NIMBUS_FAULT"

_current: ContextVar["UnitOfWork | None"] = ContextVar("nimbus_unit_of_work", default=None)
_after_commit: list[Callable[[list], None]] = []


@dataclass
class Staged:
    label: str
    kind: str                  # check | delete | put | update
    item: Item
    condition: Any = None
    actions: list = field(default_factory=list)
    must_not_exist: bool = False
    # Counters an update ADDs (attribute -> amount), summed over the unit (add_counts).
    counts: dict = field(default_factory=dict)

    @property
    def key(self) -> Key:
        return (self.item.pk, self.item.sk)

    def transaction_args(self) -> tuple[tuple, dict]:
        if self.kind == "check":
            return (type(self.item), self.item.pk, self.item.sk), {"condition": self.condition}
        if self.kind == "update":
            return (self.item,), {"actions": self.update_actions(), "condition": self.condition}
        return (self.item,), {"condition": self.condition}

    def update_actions(self) -> list:
        """An update's actions with one ADD per counter (see ``add_counts``)."""
        model = type(self.item)
        return self.actions + [getattr(model, name).add(amount)
                               for name, amount in self.counts.items()]


class UnitOfWork:
    def __init__(self, *, cache: bool = True):
        self._cache = cache
        self._items: dict[Key, Any] = {}
        self._staged: list[Staged] = []
        self._events: list[domain_events.Event] = []
        self.committed_events: list[domain_events.Event] = []

    # Reads ---------------------------------------------------------------------------

    def prefetch(self, keys: Iterable[Key | None], *, consistent: bool = False) -> None:
        """Read every key not yet known in one BatchGetItem (``consistent``: strongly
        consistent reads, for what must reflect a write that just returned)."""
        if not self._cache:
            return
        wanted = list(dict.fromkeys(k for k in keys if k is not None and k not in self._items))
        if not wanted:
            return
        found = {(item.pk, item.sk): item
                 for item in Item.batch_get(wanted, consistent_read=consistent)}
        for key in wanted:
            self._items[key] = found.get(key, _ABSENT)

    def get(self, model: type[Item], key: Key, *, consistent: bool = False):
        """The item at ``key`` as ``model`` (or None), read at most once per unit."""
        if key in self._items and not consistent:
            hit = self._items[key]
            if hit is _ABSENT:
                return None
            return hit if isinstance(hit, model) else None
        try:
            item = model.get(*key, consistent_read=consistent)
        except DoesNotExist:
            item = None
        self.remember(key, item)
        return item

    def remember(self, key: Key, item) -> None:
        if self._cache:
            self._items[key] = _ABSENT if item is None else item

    def forget(self, key: Key) -> None:
        self._items.pop(key, None)

    # Staging -------------------------------------------------------------------------

    def put(self, item: Item, *, label: str = "item", condition=None,
            must_not_exist: bool = False) -> None:
        """Save ``item`` whole; ``must_not_exist`` makes a taken key fail the commit
        with ``ConditionFailed(label, exists=True)``."""
        if must_not_exist:
            free = type(item).pk.does_not_exist()
            condition = free if condition is None else free & condition
        self._staged.append(Staged(label, "put", item, condition, must_not_exist=must_not_exist))

    def update(self, item: Item, actions: list, *, label: str = "item", condition=None) -> None:
        """Stage an update; a second update of an item already staged for update joins
        it (DynamoDB refuses two operations on one item in a transaction): actions
        appended, conditions and-ed.  Their actions must touch different attributes."""
        key = (item.pk, item.sk)
        for op in self._staged:
            if op.kind == "update" and op.key == key:
                op.actions.extend(actions)
                if condition is not None:
                    op.condition = condition if op.condition is None else op.condition & condition
                return
        self._staged.append(Staged(label, "update", item, condition, list(actions)))

    def add_counts(self, item: Item, counts: dict[str, int], *, label: str = "counters",
                   actions: list = ()) -> None:
        """Stage ``ADD`` of ``counts`` (attribute -> amount) on ``item``, which the update
        creates if absent (``actions``, e.g. setting its discriminator, go with the first
        call only).  Amounts staged for the same item in this unit are summed: writers
        that each move a counter of one item in one transaction send one action per
        attribute, as DynamoDB requires."""
        key = (item.pk, item.sk)
        for op in self._staged:
            if op.kind == "update" and op.key == key:
                for name, amount in counts.items():
                    op.counts[name] = op.counts.get(name, 0) + amount
                return
        self._staged.append(Staged(label, "update", item, None, list(actions), counts=dict(counts)))

    def delete(self, item: Item, *, label: str = "item", condition=None) -> None:
        self._staged.append(Staged(label, "delete", item, condition))

    def check(self, item: Item, condition, *, label: str = "check") -> None:
        self._staged.append(Staged(label, "check", item, condition))

    def raise_event(self, event: domain_events.Event) -> domain_events.Event:
        stamped = event.stamped()
        self._events.append(stamped)
        return stamped

    @property
    def pending(self) -> bool:
        return bool(self._staged or self._events)

    def rollback(self) -> None:
        self._staged.clear()
        self._events.clear()

    # Commit --------------------------------------------------------------------------

    def commit(self) -> None:
        """Write everything staged and its events; raises ConditionFailed naming the
        first operation whose condition failed (then nothing of that chunk was
        written).  Staged work is dropped either way."""
        staged, raised = self._staged, self._events
        self._staged, self._events = [], []
        if not staged and not raised:
            return
        boxed = [outbox.item_for(event) for event in raised]
        operations = staged + [Staged("outbox", "put", item) for item in boxed]
        if len(operations) == 1 and not boxed:
            _write_one(operations[0])
        else:
            for chunk in _chunks(staged, boxed):
                _transact(chunk)
        self._learn(staged)
        self.committed_events.extend(raised)
        _fault_point("after-commit")
        for hook in list(_after_commit):
            try:
                hook(boxed)
            except Exception:  # noqa: BLE001 - the write has committed; the sweep relays
                log.exception("after-commit hook %r failed", hook)

    def _learn(self, staged: list[Staged]) -> None:
        for op in staged:
            if op.kind == "put":
                self.remember(op.key, op.item)
            elif op.kind == "delete":
                self.remember(op.key, None)
            elif op.kind == "update":
                self.forget(op.key)


def _chunks(staged: list[Staged], boxed: list[Item]) -> Iterator[list[Staged]]:
    tail = [Staged("outbox", "put", item) for item in boxed]
    if len(staged) + len(tail) <= TRANSACTION_LIMIT:
        yield staged + tail
        return
    if len(tail) > TRANSACTION_LIMIT:
        raise ValueError(f"{len(tail)} events in one unit of work; at most "
                         f"{TRANSACTION_LIMIT} fit the last transaction")
    head_size = len(staged) - max(0, TRANSACTION_LIMIT - len(tail))
    head, last = staged[:head_size], staged[head_size:]
    for start in range(0, len(head), TRANSACTION_LIMIT):
        yield head[start:start + TRANSACTION_LIMIT]
    yield last + tail


def _transact(chunk: list[Staged]) -> None:
    ordered = sorted(chunk, key=lambda op: _ORDER[op.kind])
    try:
        with TransactWrite(connection=connection()) as tx:
            for op in ordered:
                args, kwargs = op.transaction_args()
                getattr(tx, _TX_METHOD[op.kind])(*args, **kwargs)
    except TransactWriteError as exc:
        for op, reason in zip(ordered, exc.cancellation_reasons or []):
            if reason is not None and reason.code == "ConditionalCheckFailed":
                raise ConditionFailed(op.label, exists=op.must_not_exist) from None
            if reason is not None and reason.code == "ValidationError" \
                    and "maximum allowed size" in (reason.message or ""):
                # An update that grows an item past DynamoDB's 400 KB cancels the whole
                # transaction (a lone write answers a ValidationException instead, which
                # the gateway recognises): nothing was written, the client may send less.
                raise TooLarge("the change is too large to store") from exc
        raise


def _write_one(op: Staged) -> None:
    try:
        if op.kind == "put":
            op.item.save(condition=op.condition)
        elif op.kind == "update":
            op.item.update(actions=op.update_actions(), condition=op.condition)
        elif op.kind == "delete":
            op.item.delete(condition=op.condition)
        else:
            _transact([op])
    except (PutError, UpdateError, DeleteError) as exc:
        if exc.cause_response_code == "ConditionalCheckFailedException":
            raise ConditionFailed(op.label, exists=op.must_not_exist) from None
        raise


def _fault_point(name: str) -> None:
    if os.environ.get(FAULT_ENV) == name:
        log.error("fault injected at %s: exiting", name)
        os._exit(137)


# The current unit ------------------------------------------------------------------------

@contextlib.contextmanager
def start() -> Iterator[UnitOfWork]:
    """Open a unit for the duration of a request or a job."""
    unit = UnitOfWork()
    token = _current.set(unit)
    try:
        yield unit
    finally:
        if unit.pending:
            log.warning("unit of work ended with uncommitted changes: dropped")
        _current.reset(token)


@contextlib.contextmanager
def detached() -> Iterator[UnitOfWork]:
    """A unit of its own that caches no reads, beside the one open: work that runs
    inside a request as a job would (a project migration's first turn) reads what the
    table holds and leaves the request's identity map as it was."""
    unit = UnitOfWork(cache=False)
    token = _current.set(unit)
    try:
        yield unit
    finally:
        _current.reset(token)


@contextlib.contextmanager
def writing() -> Iterator[UnitOfWork]:
    """Stage writes and events in the current unit; commit them when the block ends,
    drop them if it raises.  What services use for every write."""
    unit = current()
    try:
        yield unit
    except BaseException:
        unit.rollback()
        raise
    unit.commit()


def current() -> UnitOfWork:
    """The open unit; outside one, a unit that caches no reads, opened for this
    context."""
    unit = _current.get()
    if unit is None:
        unit = UnitOfWork(cache=False)
        _current.set(unit)
    return unit


def after_commit(hook: Callable[[list], None]) -> None:
    """Call ``hook(outbox_items)`` after every commit in this process."""
    _after_commit.append(hook)


def remove_after_commit(hook: Callable[[list], None]) -> None:
    _after_commit[:] = [h for h in _after_commit if h is not hook]


# Module-level shorthands for the current unit (what store modules call).

def get(model: type[Item], key: Key, *, consistent: bool = False):
    return current().get(model, key, consistent=consistent)


def prefetch(keys: Iterable[Key | None], *, consistent: bool = False) -> None:
    current().prefetch(keys, consistent=consistent)


def remember(key: Key, item) -> None:
    current().remember(key, item)


def forget(key: Key) -> None:
    current().forget(key)


def raise_event(event: domain_events.Event) -> domain_events.Event:
    return current().raise_event(event)


def commit() -> None:
    current().commit()
