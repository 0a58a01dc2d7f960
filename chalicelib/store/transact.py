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
