"""A DynamoDB Query in the embedded moto at the cost of the page it answers.

moto 5.2.5 answers a Query by collecting every candidate of the partition (on an index:
of the table), sorting them as DynamoType objects and walking from the first until the
page is full.  Its cost grows with the partition, and a search list or an instance-wide
index partition grows with the instance: a Query of 10 items took 1.4 ms in a partition
of 100 items, 46 ms in one of 10,000 and 98 ms on an index (``bench/README.md``, "The
local backend's DynamoDB answers").  DynamoDB itself reads only the page.

Here each partition (and each index partition) is kept as a list sorted in DynamoDB's
order, built once and then changed item by item as writes touch them.  A Query gives
moto only the *window* of that list its answer can come from: the items the key
condition selects, after the ``ExclusiveStartKey``, at most ``Limit`` + 1 of them (moto
answers a ``LastEvaluatedKey`` when it meets one more item after a full page, even one
the condition leaves out: so the window reaches one item past the selected ones), and
two before the start key, which moto's own start-key test skips.  moto then does everything else as it
always does (conditions, size limit, filter, projection, the answer's bytes): what a
client receives is unchanged; ``tests/test_local_backend_speed.py`` compares the
answers with moto's own code, page by page, between writes of every kind.

The window is computed only where the order is plain: string keys (sorted natively,
in code point order, which is moto's and DynamoDB's UTF-8 byte order), one hash and one
range attribute, a range condition of ``=``, ``<``, ``<=``, ``>``, ``>=``, ``BETWEEN`` or
``begins_with`` on string values.  Every other Query gets the whole sorted list (or
moto's own candidates) and is exactly as correct, only slower.

Writes: ``item_changed`` is told each key a write touched (moto_speed wraps moto's
write methods); the sorted lists are mended for those keys before the next Query.  A
write whose keys are not known (PartiQL, table changes, a restored backup) calls
``everything_changed``, and the lists are built again when next asked.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any

# Mended lists are kept on the table object itself, under these names.
_STATE = "_nimbus_sorted"
# Bumped by everything_changed: lists of an older generation are dropped.
_generation = [0]
_COMPARISONS = {"=": "EQ", "EQ": "EQ", "<": "LT", "LT": "LT", "<=": "LE", "LE": "LE",
                ">": "GT", "GT": "GT", ">=": "GE", "GE": "GE", "BETWEEN": "BETWEEN",
                "BEGINS_WITH": "BEGINS_WITH"}
_START_MARGIN = 2


def everything_changed() -> None:
    """Any item of any table may have changed."""
    _generation[0] += 1


def item_changed(table, hash_key, range_key) -> None:
    """The item at this key (DynamoType values) may have been written, replaced or
    deleted, or its attributes changed."""
    state = table.__dict__.get(_STATE)
    if state is not None and state.generation == _generation[0]:
        state.dirty.add((hash_key, range_key))


def key_of(table, key: dict) -> tuple | None:
    """(hash, range) as DynamoType values from a request's ``Key`` or ``Item``."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    try:
        hash_key = DynamoType(key[table.hash_key_attr])
        range_key = DynamoType(key[table.range_key_attr]) if table.range_key_attr else None
    except (KeyError, TypeError, AttributeError):
        return None
    return hash_key, range_key


class _Sorted:
    """One partition's items in query order: ``keys`` (tuples of strings) beside them."""

    __slots__ = ("keys", "items")

    def __init__(self) -> None:
        self.keys: list[tuple] = []
        self.items: list = []

    def add(self, key: tuple, item) -> None:
        at = bisect_left(self.keys, key)
        self.keys.insert(at, key)
        self.items.insert(at, item)

    def remove(self, key: tuple) -> None:
        at = bisect_left(self.keys, key)
        if at < len(self.keys) and self.keys[at] == key:
            del self.keys[at]
            del self.items[at]


class _Family:
    """The sorted partitions of one way of reading a table: its own key (``index`` is
    None; partitions built as asked) or one index (built whole at first use)."""

    def __init__(self, index: tuple[str, str] | None):
        self.index = index
        self.partitions: dict[str, _Sorted] = {}
        self.where: dict[tuple, tuple[str, tuple]] = {}    # item key -> (partition, key)

    def place(self, table, item_key: tuple, item) -> tuple[str, tuple] | None:
        """Where ``item`` sorts in this family, or None when it is not in it."""
        attrs = getattr(item, "attrs", None)
        if not isinstance(attrs, dict):
            return None
        if self.index is None:
            return item_key[0], (item_key[1],)
        hash_value, range_value = attrs.get(self.index[0]), attrs.get(self.index[1])
        if not _is_string(hash_value) or not _is_string(range_value):
            return None     # DynamoDB leaves it out of the index
        return hash_value.value, (range_value.value, *item_key)

    def put(self, table, item_key: tuple, item) -> None:
        found = self.place(table, item_key, item) if item is not None else None
        if found is None:
            return
        name, key = found
        if self.index is None and name not in self.partitions:
            return          # built from the table when first asked
        self.partitions.setdefault(name, _Sorted()).add(key, item)
        self.where[item_key] = found

    def drop(self, item_key: tuple) -> None:
        found = self.where.pop(item_key, None)
        if found is not None:
            self.partitions[found[0]].remove(found[1])


class _TableState:
    def __init__(self) -> None:
        self.generation = _generation[0]
        self.families: dict[tuple[str, str] | None, _Family] = {}
        self.dirty: set[tuple] = set()


def _is_string(value) -> bool:
    return value is not None and getattr(value, "type", None) == "S" \
        and type(value.value) is str


def _state(table) -> _TableState:
    state = table.__dict__.get(_STATE)
    if state is None or state.generation != _generation[0]:
        state = table.__dict__[_STATE] = _TableState()
    if state.dirty:
        for hash_key, range_key in state.dirty:
            item_key = (hash_key.value, range_key.value if range_key is not None else None)
            item = _live(table, hash_key, range_key)
            for family in state.families.values():
                family.drop(item_key)
                family.put(table, item_key, item)
        state.dirty.clear()
    return state


def _live(table, hash_key, range_key):
    partition = table.items.get(hash_key)
    if partition is None:
        return None
    return partition.get(range_key) if range_key is not None else partition


def _string_keys(table) -> bool:
    return (table.hash_key_type == "S" and table.range_key_attr is not None
            and table.range_key_type == "S")


def _partition(table, hash_value) -> _Sorted:
    """The table's partition ``hash_value`` (a DynamoType), sorted on its range keys."""
    family = _state(table).families.setdefault(None, _Family(None))
    found = family.partitions.get(hash_value.value)
    if found is None:
        found = family.partitions[hash_value.value] = _Sorted()
        stored = table.items.get(hash_value) or {}
        pairs = sorted(((range_key.value,), item) for range_key, item in stored.items()
                       if _is_string(range_key))
        found.keys = [key for key, _ in pairs]
        found.items = [item for _, item in pairs]
        for (range_value,), _ in pairs:
            family.where[(hash_value.value, range_value)] = (hash_value.value, (range_value,))
    return found


def _index_partition(table, index: tuple[str, str], hash_value: str) -> _Sorted:
    state = _state(table)
    family = state.families.get(index)
    if family is None:
        family = state.families[index] = _Family(index)
        for partition in table.items.values():
            for range_key, item in partition.items():
                if _is_string(item.hash_key) and _is_string(range_key):
                    family.put(table, (item.hash_key.value, range_key.value), item)
    return family.partitions.get(hash_value) or _Sorted()


def _index_keys(table, index_name: str) -> tuple[str, str] | None:
    """(hash attribute, range attribute) of a one-attribute-each string index."""
    for index in table.all_indexes():
        if index.name != index_name:
            continue
        hashes = [key["AttributeName"] for key in index.schema if key["KeyType"] == "HASH"]
        ranges = [key["AttributeName"] for key in index.schema if key["KeyType"] == "RANGE"]
        if len(hashes) == 1 and len(ranges) == 1:
            return hashes[0], ranges[0]
    return None


def candidates(table, arguments: dict[str, Any]) -> list | None:
    """What Table.query needs to see of the table for this Query (its bound
    arguments), in order, or None when moto must look at everything."""
    if not _string_keys(table) or arguments.get("filter_kwargs"):
        return None
    index_name = arguments.get("index_name")
    if index_name:
        index = _index_keys(table, index_name)
        conditions = dict(arguments.get("hash_key_conditions") or ())
        if index is None or set(conditions) != {index[0]} or \
                not _is_string(conditions[index[0]]):
            return None
        listed = _index_partition(table, index, conditions[index[0]].value)
        start_attrs = (index[1], table.hash_key_attr, table.range_key_attr)
    else:
        hash_key = arguments.get("hash_key")
        if not _is_string(hash_key):
            return None
        listed = _partition(table, hash_key)
        start_attrs = (table.range_key_attr,)
    return _window(listed, arguments, start_attrs)


def _window(listed: _Sorted, arguments: dict, start_attrs: tuple[str, ...]) -> list:
    keys = listed.keys
    span = _span(keys, arguments)
    if span is None:
        return list(listed.items)
    low, high = span
    limit = arguments.get("limit")
    if type(limit) is not int or limit < 1:
        return listed.items[low:high]
    given = arguments.get("exclusive_start_key")
    start = _start_key(given, start_attrs) if given else None
    if given and start is None:
        return listed.items[low:high]   # moto decides what such a start key means
    if arguments.get("scan_index_forward", True) is False:
        end = high if start is None else max(low, min(high, bisect_left(keys, start, low, high)
                                                        + _START_MARGIN))
        return listed.items[max(0, low - 1, end - _START_MARGIN - limit - 1):end]
    begin = low if start is None else max(low, bisect_right(keys, start, low, high)
                                          - _START_MARGIN)
    return listed.items[begin:min(high + 1, begin + _START_MARGIN + limit + 1)]


def _span(keys: list[tuple], arguments: dict) -> tuple[int, int] | None:
    """[low, high) of the keys the range condition keeps; None when it cannot tell."""
    comparison = arguments.get("range_comparison")
    conditions = arguments.get("range_key_conditions") or ()
    if len(conditions) > 1:
        return None
    if not comparison:
        return 0, len(keys)
    operator = _COMPARISONS.get(comparison.upper())
    values = arguments.get("range_objs") or []
    if operator is None or not values or not all(_is_string(value) for value in values):
        return None
    first = values[0].value
    after = first + "\0"        # the least string greater than ``first`` (and its ties)
    if operator == "EQ":
        return bisect_left(keys, (first,)), bisect_left(keys, (after,))
    if operator == "LT":
        return 0, bisect_left(keys, (first,))
    if operator == "LE":
        return 0, bisect_left(keys, (after,))
    if operator == "GT":
        return bisect_left(keys, (after,)), len(keys)
    if operator == "GE":
        return bisect_left(keys, (first,)), len(keys)
    if operator == "BETWEEN":
        if len(values) != 2:
            return None
        return bisect_left(keys, (first,)), bisect_left(keys, (values[1].value + "\0",))
    low = bisect_left(keys, (first,))      # BEGINS_WITH: the keys with it are together
    return low, bisect_left(keys, True, low, key=lambda key: not key[0].startswith(first))


def _start_key(start: Any, attrs: tuple[str, ...]) -> tuple | None:
    """The start key's place in the sorted keys, or None when it is not plain strings."""
    if not isinstance(start, dict):
        return None
    values = []
    for attr in attrs:
        value = start.get(attr)
        if not isinstance(value, dict) or type(value.get("S")) is not str:
            return None
        values.append(value["S"])
    return tuple(values)
