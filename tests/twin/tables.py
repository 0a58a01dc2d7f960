"""A DynamoDB table in memory: its items by key, and its global secondary indexes.

Each partition (items of one hash key) keeps a sorted list of entries, so a Query
reads only the partition it names, from the right place (``bisect``), in key order.
Table entries are ``(range,)``; index entries are ``(index range, table hash, table
range)``, which orders items with equal index keys by their table key and gives every
entry a unique position to resume from.  Key values are ordered as DynamoDB orders
them (``values.key_order``: strings by UTF-8 bytes, numbers by value, binary by
bytes).  An index holds only the items that have both of its key attributes.
"""
from __future__ import annotations

import bisect
import time
from operator import itemgetter

from tests.twin import values
from tests.twin.errors import validation

_FIRST = itemgetter(0)
MAX_HASH_KEY_BYTES = 2048
MAX_RANGE_KEY_BYTES = 1024


class Partition:
    __slots__ = ("entries", "items")

    def __init__(self):
        self.entries: list[tuple] = []
        self.items: dict = {}       # table partitions: range order -> item


class Index:
    """A global secondary index (or the table's own key, ``name`` None)."""

    def __init__(self, name: str | None, hash_name: str, range_name: str | None,
                 projection: dict | None = None):
        self.name, self.hash_name, self.range_name = name, hash_name, range_name
        self.projection = projection or {"ProjectionType": "ALL"}
        self.partitions: dict = {}

    def key_names(self) -> tuple:
        return (self.hash_name,) + ((self.range_name,) if self.range_name else ())

    def add(self, hash_order, entry: tuple) -> None:
        partition = self.partitions.get(hash_order)
        if partition is None:
            partition = self.partitions[hash_order] = Partition()
        bisect.insort(partition.entries, entry)

    def discard(self, hash_order, entry: tuple) -> None:
        partition = self.partitions.get(hash_order)
        if partition is not None:
            at = bisect.bisect_left(partition.entries, entry)
            if at < len(partition.entries) and partition.entries[at] == entry:
                del partition.entries[at]


def _range_slice(entries: list, op: str | None, bounds: list) -> tuple[int, int]:
    """Positions [start, end) of the entries whose first member meets the condition."""
    if op is None:
        return 0, len(entries)
    low = bounds[0]
    if op == "=":
        return (bisect.bisect_left(entries, low, key=_FIRST),
                bisect.bisect_right(entries, low, key=_FIRST))
    if op == "<":
        return 0, bisect.bisect_left(entries, low, key=_FIRST)
    if op == "<=":
        return 0, bisect.bisect_right(entries, low, key=_FIRST)
    if op == ">":
        return bisect.bisect_right(entries, low, key=_FIRST), len(entries)
    if op == ">=":
        return bisect.bisect_left(entries, low, key=_FIRST), len(entries)
    if op == "BETWEEN":
        return (bisect.bisect_left(entries, low, key=_FIRST),
                bisect.bisect_right(entries, bounds[1], key=_FIRST))
    start = end = bisect.bisect_left(entries, low, key=_FIRST)     # begins_with
    while end < len(entries) and entries[end][0][:len(low)] == low:
        end += 1
    return start, end


class Table:
    def __init__(self, name: str, definition: dict):
        self.name = name
        self.definition = definition           # CreateTable's request, for DescribeTable
        self.created = time.time()
        self.types = {a["AttributeName"]: a["AttributeType"]
                      for a in definition.get("AttributeDefinitions", [])}
        hash_name, range_name = _key_schema(definition["KeySchema"])
        self.key = Index(None, hash_name, range_name)
        self.indexes: dict[str, Index] = {}
        for spec in definition.get("GlobalSecondaryIndexes", []) or []:
            self.add_index(spec)
        self.sizes: dict = {}                  # (hash order, range order) -> item size
        self.ttl = None

    def add_index(self, spec: dict) -> Index:
        index = Index(spec["IndexName"], *_key_schema(spec["KeySchema"]), spec.get("Projection"))
        self.indexes[index.name] = index
        for partition in list(self.key.partitions.values()):
            for item in partition.items.values():
                self._index_item(index, item, add=True)
        return index

    # -- keys
    def key_of(self, key: dict) -> tuple:
        """(hash order, range order) of a request's Key, which must be exactly the key."""
        if type(key) is not dict or set(key) != set(self.key.key_names()):
            raise validation("The provided key element does not match the schema")
        return self._key_orders(key, lambda name, expected, actual: validation(
            "The provided key element does not match the schema"))

    def key_of_item(self, item: dict) -> tuple:
        for name in self.key.key_names():
            if name not in item:
                raise validation(f"One or more parameter values were invalid: Missing the key "
                                 f"{name} in the item")
        return self._key_orders(item, lambda name, expected, actual: validation(
            f"One or more parameter values were invalid: Type mismatch for key {name} "
            f"expected: {expected} actual: {actual}"))

    def _key_orders(self, source: dict, mismatch) -> tuple:
        orders = []
        for name in self.key.key_names():
            value = source[name]
            expected = self.types.get(name, "S")
            actual = values.kind(value)
            if actual != expected:
                raise mismatch(name, expected, actual)
            if value[actual] == "":
                raise validation("One or more parameter values are not valid. The "
                                 "AttributeValue for a key attribute cannot contain an empty "
                                 f"string value. Key: {name}")
            orders.append(values.key_order(value))
        limit = values.value_size(source[self.key.hash_name])
        if limit > MAX_HASH_KEY_BYTES:
            raise validation("One or more parameter values were invalid: Size of hashkey has "
                             "exceeded the maximum size limit of2048 bytes")
        if self.key.range_name and values.value_size(source[self.key.range_name]) \
                > MAX_RANGE_KEY_BYTES:
            raise validation("One or more parameter values were invalid: Aggregated size of "
                             "all range keys has exceeded the size limit of 1024 bytes")
        return orders[0], (orders[1] if len(orders) > 1 else None)

    def key_dict(self, item: dict, index: Index | None = None) -> dict:
        names = self.key.key_names() + (index.key_names() if index else ())
        return {name: item[name] for name in names}

    def check_index_keys(self, item: dict) -> None:
        """DynamoDB refuses an item whose index key attributes have the wrong type or
        are empty strings."""
        for index in self.indexes.values():
            for name in index.key_names():
                value = item.get(name)
                if value is None:
                    continue
                expected, actual = self.types.get(name, "S"), values.kind(value)
                if actual != expected:
                    raise validation(f"One or more parameter values were invalid: Type mismatch "
                                     f"for Index Key {name} Expected: {expected} Actual: {actual} "
                                     f"IndexName: {index.name}")
                if value[actual] == "":
                    raise validation("One or more parameter values are not valid. A value "
                                     "specified for a secondary index key is not supported. The "
                                     "AttributeValue for a key attribute cannot contain an "
                                     f"empty string value. IndexName: {index.name}, "
                                     f"IndexKey: {name}")

    # -- items
    def get(self, key: tuple):
        partition = self.key.partitions.get(key[0])
        return None if partition is None else partition.items.get(key[1])

    def put(self, key: tuple, item: dict, size: int) -> None:
        old = self.get(key)
        if old is not None:
            self._unindex(old)
        else:
            partition = self.key.partitions.get(key[0])
            if partition is None:
                partition = self.key.partitions[key[0]] = Partition()
            bisect.insort(partition.entries, (key[1],))
        self.key.partitions[key[0]].items[key[1]] = item
        self.sizes[key] = size
        for index in self.indexes.values():
            self._index_item(index, item, add=True)

    def delete(self, key: tuple) -> None:
        old = self.get(key)
        if old is None:
            return
        self._unindex(old)
        partition = self.key.partitions[key[0]]
        del partition.items[key[1]]
        at = bisect.bisect_left(partition.entries, (key[1],))
        del partition.entries[at]
        del self.sizes[key]

    def _unindex(self, item: dict) -> None:
        for index in self.indexes.values():
            self._index_item(index, item, add=False)

    def _index_item(self, index: Index, item: dict, add: bool) -> None:
        names = index.key_names()
        if any(name not in item for name in names):
            return
        table_key = (values.key_order(item[self.key.hash_name]),
                     values.key_order(item[self.key.range_name]) if self.key.range_name else None)
        hash_order = values.key_order(item[index.hash_name])
        range_order = values.key_order(item[index.range_name]) if index.range_name else None
        entry = (range_order, *table_key)
        if add:
            index.add(hash_order, entry)
        else:
            index.discard(hash_order, entry)

    def count(self) -> int:
        return len(self.sizes)

    def bytes(self) -> int:
        return sum(self.sizes.values())

    # -- reading in order
    def item_of(self, index: Index, entry: tuple) -> dict:
        if index is self.key:
            raise AssertionError("table entries are read from their partition")
        return self.key.partitions[entry[1]].items[entry[2]]

    def ordered(self, index: Index, hash_order, op, bounds, forward: bool, after: tuple | None):
        """Items of one partition of ``index`` meeting the range condition, in order,
        starting after the entry ``after`` (ExclusiveStartKey)."""
        partition = index.partitions.get(hash_order)
        if partition is None:
            return
        entries = partition.entries
        start, end = _range_slice(entries, op, bounds)
        if after is not None:
            if forward:
                start = max(start, bisect.bisect_right(entries, after))
            else:
                end = min(end, bisect.bisect_left(entries, after))
        positions = range(start, end) if forward else range(end - 1, start - 1, -1)
        if index is self.key:
            for at in positions:
                yield partition.items[entries[at][0]]
        else:
            for at in positions:
                yield self.item_of(index, entries[at])

    def entry_of(self, index: Index, key: dict) -> tuple:
        """The entry an ExclusiveStartKey names (its hash order first)."""
        table_key = (values.key_order(key[self.key.hash_name]),
                     values.key_order(key[self.key.range_name]) if self.key.range_name else None)
        if index is self.key:
            return table_key[0], (table_key[1],)
        range_order = values.key_order(key[index.range_name]) if index.range_name else None
        return values.key_order(key[index.hash_name]), (range_order, *table_key)


def _key_schema(schema: list) -> tuple:
    hash_name = next(k["AttributeName"] for k in schema if k["KeyType"] == "HASH")
    range_name = next((k["AttributeName"] for k in schema if k["KeyType"] == "RANGE"), None)
    return hash_name, range_name
