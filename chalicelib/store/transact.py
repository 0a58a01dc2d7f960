"""Transactions that create items which must not exist yet (records with their claims)."""
from __future__ import annotations

from pynamodb.exceptions import TransactWriteError
from pynamodb.models import Model
from pynamodb.transactions import TransactWrite

from chalicelib.services.errors import AlreadyExists
from chalicelib.store.table import connection


def put_new(*labelled: tuple[str, Model]) -> None:
    """Save every item on condition that its key is free, all or nothing.

    Raises AlreadyExists(label) naming the first item whose key was taken.  All
    actions are puts, so DynamoDB's cancellation reasons follow the order given.
    """
    try:
        with TransactWrite(connection=connection()) as tx:
            for _, item in labelled:
                tx.save(item, condition=type(item).pk.does_not_exist())
    except TransactWriteError as exc:
        reasons = exc.cancellation_reasons or []
        for (label, _), reason in zip(labelled, reasons):
            if reason is not None and reason.code == "ConditionalCheckFailed":
                raise AlreadyExists(label) from None
        raise


_TX_METHOD = {"check": "condition_check", "delete": "delete", "save": "save", "update": "update"}
# PynamoDB sends condition checks, then deletes, puts and updates; DynamoDB reports the
# cancellation reasons in that order, so operations are sorted the same way here.
_TX_ORDER = {"check": 0, "delete": 1, "save": 2, "update": 3}


def commit_labelled(*ops: tuple) -> str | None:
    """Run ``(label, kind, args, kwargs)`` operations (kind: check, delete, save, update)
    as one transaction.  None on success, else the label of the first operation whose
    condition failed (and then nothing was written)."""
    ordered = sorted(ops, key=lambda op: _TX_ORDER[op[1]])
    try:
        with TransactWrite(connection=connection()) as tx:
            for _, kind, args, kwargs in ordered:
                getattr(tx, _TX_METHOD[kind])(*args, **kwargs)
    except TransactWriteError as exc:
        for (label, *_), reason in zip(ordered, exc.cancellation_reasons or []):
            if reason is not None and reason.code == "ConditionalCheckFailed":
                return label
        raise
    return None
