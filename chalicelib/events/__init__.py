"""Domain events: typed facts that a write produces, below every layer.

A service raises an event by staging it in its unit of work
(``chalicelib.store.unit_of_work``); the unit writes it as an outbox item in the same
transaction as the change, so an event exists exactly when its change does.  The relay
(``chalicelib.jobs.relay``) moves outbox items to the events queue and the queue worker
(``chalicelib.jobs.consumers``) hands each event to its consumers, at least once, with
consumers idempotent on ``event_id``.

Payloads carry what a consumer (a webhook, later) needs without reading the table
again: ``actor`` and ``repo`` are snapshots of the stored records taken when the event
was raised (secrets left out), the rest names the change.  ``to_message`` and
``from_message`` are the wire form (JSON-safe dicts) used by the outbox and the queue.
"""
from __future__ import annotations

import contextlib
import dataclasses
import uuid
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Mapping

from chalicelib import clock

# Attributes never copied into an event (they would travel through SQS and logs).
SECRET_ATTRIBUTES = frozenset({"password_hash", "mirror_auth", "token_hash", "secret",
                               "authorization_header"})
# Storage bookkeeping, not data: ``kind`` holds PynamoDB's model class.
INTERNAL_ATTRIBUTES = frozenset({"kind", "pk", "sk"})


def changes_between(before: Mapping, after: Mapping) -> tuple[tuple[str, Any], ...]:
    """(field, previous value) for every field of two snapshots that differs."""
    return tuple(sorted((name, before.get(name)) for name in set(before) | set(after)
                        if before.get(name) != after.get(name) and name not in ("updated", "version")))


def snapshot(record: Any) -> dict:
    """A stored record (anything with ``attribute_values``, or a mapping) as plain JSON
    data, secrets left out; None gives {}."""
    if record is None:
        return {}
    values = getattr(record, "attribute_values", record)
    return {name: _plain(value) for name, value in dict(values).items()
            if name not in SECRET_ATTRIBUTES and name not in INTERNAL_ATTRIBUTES
            and not name.startswith("gsi")}


def _plain(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return sorted(_plain(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    as_dict = getattr(value, "as_dict", None)       # PynamoDB MapAttribute values
    if callable(as_dict):
        return _plain(as_dict())
    return value


# Where the change being written came from: the request's id and the caller's address
# (the gateway sets it for a request; background work has none).  The audit log records it.
_origin: ContextVar[Mapping] = ContextVar("nimbus_event_origin", default={})


@contextlib.contextmanager
def originating(*, request_id: str, address: str):
    """Stamp every event staged inside the block with this request's id and address."""
    token = _origin.set({"request_id": request_id, "address": address})
    try:
        yield
    finally:
        _origin.reset(token)


@dataclass(frozen=True)
class Event:
    actor_id: int | None
    # Filled in when the event is staged (unit of work), unless given.
    event_id: str = ""
    occurred_at: float = 0.0
    actor: Mapping = field(default_factory=dict)     # snapshot of the acting account
    origin: Mapping = field(default_factory=dict)    # {"request_id", "address"}, if any

    def stamped(self) -> "Event":
        """This event with an id, a time and its origin (each kept if already set)."""
        return dataclasses.replace(self, event_id=self.event_id or uuid.uuid4().hex,
                                   occurred_at=self.occurred_at or clock.now(),
                                   origin=self.origin or dict(_origin.get()))


@dataclass(frozen=True)
class RepoEvent(Event):
    """An event about one repository; ``repo`` is its snapshot."""
    repo_id: int = 0
    repo: Mapping = field(default_factory=dict)


# Wire form ------------------------------------------------------------------------------

def _event_types() -> dict[str, type[Event]]:
    import importlib

    importlib.import_module("chalicelib.events.types")    # defines the concrete events

    found: dict[str, type[Event]] = {}
    pending = [Event]
    while pending:
        cls = pending.pop()
        found[cls.__name__] = cls
        pending.extend(cls.__subclasses__())
    return found


def to_message(event: Event) -> dict:
    """The event as JSON-safe data: {"type", "id", "data"}."""
    return {"type": type(event).__name__, "id": event.event_id,
            "data": _plain(dataclasses.asdict(event))}


class UnknownEvent(ValueError):
    """A message names an event type this version does not know."""


def from_message(message: Mapping) -> Event:
    cls = _event_types().get(str(message.get("type")))
    if cls is None:
        raise UnknownEvent(f"unknown event type {message.get('type')!r}")
    data = dict(message.get("data") or {})
    known = {f.name: f for f in dataclasses.fields(cls)}
    values: dict[str, Any] = {}
    for name, value in data.items():
        if name not in known:
            continue        # a field a newer version added: ignored, not fatal
        if name == "commits":
            from chalicelib.events.types import PushedCommit

            value = tuple(PushedCommit(**c) for c in value or ())
        elif name in ("changes",):
            value = tuple(tuple(pair) for pair in value or ())
        elif isinstance(value, list):
            value = tuple(value)
        values[name] = value
    values.setdefault("actor_id", None)
    return cls(**values)


def __getattr__(name: str):
    """The concrete event types (``chalicelib.events.types``), loaded on first use."""
    if name.startswith("__"):       # import machinery probing (__path__ etc.)
        raise AttributeError(name)
    import importlib

    types = importlib.import_module("chalicelib.events.types")
    try:
        value = getattr(types, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    globals()[name] = value
    return value
