"""TransactWriteItems in moto at the cost of the items it names, not of the table.

moto 5.2.5 deep-copies every table a transaction names before it starts, so that it
can put the copy back when a condition fails.  On a table of a few thousand items that
copy is most of what a write costs locally (about 40 ms for an issue create on the
bench's table, and it grows with every item), in the tests and in ``make run`` alike.

:func:`install` makes moto skip that copy and keeps, instead, the items the
transaction names (at most 100), putting exactly those back when moto raises.  That is
the same rollback: a transaction writes no other item.  It relies on the transaction
running alone, which the locks of ``aws_requests.py`` guarantee (every DynamoDB request
holds the service's lock exclusively, in the embedded server and under ``mock_aws``);
moto's own copy gave no isolation from other threads either.

What differs: the stream records of a rolled-back transaction's writes stay in moto's
stream shard (nothing here reads moto's streams; AWS writes none for a cancelled
transaction).
"""
from __future__ import annotations

import copy
import threading
import types
from typing import Any

_installed = threading.Lock()
_skipping = threading.local()


def install() -> None:
    """Patch moto's DynamoDB backend, once per process."""
    from moto.dynamodb import models
    from moto.dynamodb.models.table import Table

    with _installed:
        backend = models.DynamoDBBackend
        if getattr(backend.transact_write_items, "keeps_items_only", False):
            return
        whole_table_copy = backend.transact_write_items

        def deepcopy(value: Any, memo: dict | None = None) -> Any:
            if isinstance(value, Table) and getattr(_skipping, "active", False):
                return value    # moto's backup of a whole table: the caller keeps items
            return copy.deepcopy(value, memo)

        # The models module calls copy.deepcopy for the backup and elsewhere.
        models.copy = types.SimpleNamespace(deepcopy=deepcopy, copy=copy.copy)

        def transact_write_items(self, transact_items: list[dict[str, Any]]) -> None:
            kept = _named_items(self, transact_items)
            _skipping.active = True
            try:
                return whole_table_copy(self, transact_items)
            except BaseException:
                _put_back(kept)
                raise
            finally:
                _skipping.active = False

        transact_write_items.keeps_items_only = True
        backend.transact_write_items = transact_write_items


def _named_items(backend, transact_items: list[dict[str, Any]]) -> list[tuple]:
    """(table, hash key, range key, a copy of the item or None) for each operation."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    kept = []
    for entry in transact_items[:100]:      # moto refuses more before it writes
        if not isinstance(entry, dict) or len(entry) != 1:
            continue
        operation = next(iter(entry.values()))
        table = backend.tables.get(operation.get("TableName")) \
            if isinstance(operation, dict) else None
        if table is None:
            continue
        key = operation.get("Key") or operation.get("Item") or {}
        try:
            hash_key = DynamoType(key[table.hash_key_attr])
            range_key = DynamoType(key[table.range_key_attr]) if table.range_key_attr else None
        except (KeyError, TypeError):
            continue        # moto answers a ValidationException before writing
        item = _item(table, hash_key, range_key)
        kept.append((table, hash_key, range_key, copy.deepcopy(item)))
    return kept


def _item(table, hash_key, range_key):
    if range_key is None:
        return table.items.get(hash_key)
    partition = table.items.get(hash_key)
    return partition.get(range_key) if partition else None


def _put_back(kept: list[tuple]) -> None:
    from chalicelib.local import moto_query

    for table, hash_key, range_key, item in reversed(kept):
        moto_query.item_changed(table, hash_key, range_key)     # written past moto's methods
        if range_key is None:
            if item is None:
                table.items.pop(hash_key, None)
            else:
                table.items[hash_key] = item
        elif item is None:
            partition = table.items.get(hash_key)
            if partition is not None:
                partition.pop(range_key, None)
        else:
            table.items[hash_key][range_key] = item
