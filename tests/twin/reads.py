"""Query and Scan: pages of items in key order, as DynamoDB reads them.

A page ends when ``Limit`` items have been read (before the filter: ``Limit`` counts
what is evaluated) or when the items read reach 1 MB; ``LastEvaluatedKey`` (the table
key, plus the index key on an index) is given when the page stopped early and more
items follow, which is also when moto gives one.  ``ScannedCount`` counts the items
read, ``Count`` those that passed the filter.
"""
from __future__ import annotations

import zlib

from tests.twin import values
from tests.twin.errors import Unsupported, validation
from tests.twin.evaluate import Binder, condition, project, projection
from tests.twin.expressions import parse
from tests.twin.tables import Index, Table

PAGE_BYTES = 1024 * 1024
_LEGACY = ("KeyConditions", "QueryFilter", "ScanFilter", "ConditionalOperator",
           "AttributesToGet")
_KEY_OPERATORS = ("=", "<", "<=", ">", ">=")


def _index(table: Table, body: dict) -> Index:
    name = body.get("IndexName")
    if name is None:
        return table.key
    if name not in table.indexes:
        raise validation(f"The table does not have the specified index: {name}")
    if body.get("ConsistentRead"):
        raise validation("Consistent reads are not supported on global secondary indexes")
    return table.indexes[name]


def _common(table: Table, body: dict, operation: str):
    for legacy in _LEGACY:
        if legacy in body:
            raise Unsupported("dynamodb", operation, f"the legacy parameter {legacy}")
    index = _index(table, body)
    binder = Binder(body.get("ExpressionAttributeNames"), body.get("ExpressionAttributeValues"))
    text = body.get("FilterExpression")
    keep = None if text is None else condition(parse("FilterExpression", text), binder,
                                               "FilterExpression")
    paths = ()
    if "ProjectionExpression" in body:
        paths = projection(parse("ProjectionExpression", body["ProjectionExpression"]), binder)
    select = body.get("Select")
    if select == "SPECIFIC_ATTRIBUTES" and not paths:
        raise validation("1 validation error detected: SPECIFIC_ATTRIBUTES requires a "
                         "ProjectionExpression")
    if select in ("COUNT", "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES") and paths:
        raise validation("Cannot specify the ProjectionExpression when choosing to get only "
                         "the Count" if select == "COUNT" else
                         f"ProjectionExpression cannot be used with Select {select}")
    limit = body.get("Limit")
    if limit is not None and limit < 1:
        raise validation(f"1 validation error detected: Value '{limit}' at 'limit' failed to "
                         "satisfy constraint: Member must have value greater than or equal to 1")
    return index, binder, keep, paths, select, limit


def _start(table: Table, index: Index, body: dict):
    start = body.get("ExclusiveStartKey")
    if start is None:
        return None
    start = values.canonical_item(start)
    needed = set(table.key.key_names()) | set(index.key_names())
    if set(start) != needed:
        raise validation("The provided starting key is invalid: The provided key element does "
                         "not match the schema")
    return table.entry_of(index, start)


def _key_condition(tree, binder: Binder, table: Table, index: Index):
    """(hash order, range operator, range bounds) of a KeyConditionExpression."""
    kind = "KeyConditionExpression"
    parts = []

    def collect(node):
        if node[0] == "and":
            collect(node[1])
            collect(node[2])
        elif node[0] in ("or", "not", "in") or (node[0] == "cmp" and node[1] == "<>"):
            word = {"cmp": "<>"}.get(node[0], node[0].upper())
            raise validation(f"Invalid operator used in KeyConditionExpression: {word}")
        else:
            parts.append(node)
    collect(tree)
    found = {}
    for node in parts:
        if node[0] == "call" and node[1] != "begins_with":
            raise validation(f"Invalid {kind}: The function is not allowed in a key condition "
                             f"expression; function: {node[1]}")
        if node[0] == "call":
            subject, rest = node[2][0], node[2][1:]
        elif node[0] == "cmp":
            subject, rest = node[2], (node[3],)
        else:
            subject, rest = node[1], node[2:]
        if subject[0] != "path" or len(subject[1]) != 1 or any(r[0] != "value" for r in rest):
            raise validation("Query key condition not supported")
        name = binder.path(subject, kind)[0]
        if name in found:
            raise validation("KeyConditionExpressions must only contain one condition per key")
        op = node[1] if node[0] == "cmp" else ("BETWEEN" if node[0] == "between"
                                               else "begins_with")
        found[name] = (op, [binder.value(r[1], kind) for r in rest])
    if index.hash_name not in found:
        raise validation(f"Query condition missed key schema element: {index.hash_name}")
    extra = set(found) - {index.hash_name, index.range_name}
    if extra:
        raise validation(f"Query condition missed key schema element: "
                         f"{index.range_name or sorted(extra)[0]}")
    op, (hash_value,) = found[index.hash_name]
    if op != "=":
        raise validation("Query key condition not supported")
    for name, (op, bounds) in found.items():
        expected = table.types.get(name, "S")
        for bound in bounds:
            if values.kind(bound) != expected:
                if op == "begins_with":
                    raise validation(f"Invalid {kind}: Incorrect operand type for operator or "
                                     f"function; operator or function: begins_with, operand "
                                     f"type: {values.kind(bound)}")
                raise validation("One or more parameter values were invalid: Condition "
                                 "parameter type does not match schema type")
        if op == "begins_with" and expected == "N":
            raise validation(f"Invalid {kind}: Incorrect operand type for operator or function; "
                             "operator or function: begins_with, operand type: N")
    range_op, bounds = found.get(index.range_name, (None, []))
    orders = [values.key_order(b) for b in bounds]
    if range_op == "BETWEEN" and orders[0] > orders[1]:
        raise validation("Invalid KeyConditionExpression: The BETWEEN operator requires upper "
                         "bound to be greater than or equal to lower bound")
    return values.key_order(hash_value), range_op, orders


def _page(table: Table, index: Index, items, keep, paths, select, limit) -> dict:
    """Read ``items`` (an iterator in order) until the page is full."""
    hash_name, range_name = table.key.hash_name, table.key.range_name
    found, scanned, total, last, more = [], 0, 0, None, False
    for item in items:
        size = table.sizes[(values.key_order(item[hash_name]),
                            values.key_order(item[range_name]) if range_name else None)]
        if scanned and total + size > PAGE_BYTES:
            more = True
            break
        scanned += 1
        total += size
        last = item
        if keep is None or keep(item):
            found.append(item)
        if limit is not None and scanned >= limit:
            more = next(items, None) is not None
            break
    if index.projection.get("ProjectionType") != "ALL" and index is not table.key:
        kept = set(table.key.key_names()) | set(index.key_names()) \
            | set(index.projection.get("NonKeyAttributes", ()))
        found = [{k: v for k, v in item.items() if k in kept} for item in found]
    out = {"Count": len(found), "ScannedCount": scanned}
    if select != "COUNT":
        out["Items"] = [project(item, paths) for item in found] if paths else found
    if more:
        out["LastEvaluatedKey"] = table.key_dict(last, None if index is table.key else index)
    return out


def query(table: Table, body: dict) -> dict:
    index, binder, keep, paths, select, limit = _common(table, body, "Query")
    text = body.get("KeyConditionExpression")
    if text is None:
        raise validation("Either the KeyConditions or KeyConditionExpression parameter must be "
                         "specified in the request.")
    hash_order, op, bounds = _key_condition(parse("KeyConditionExpression", text), binder,
                                            table, index)
    binder.finish()
    start = _start(table, index, body)
    forward = body.get("ScanIndexForward", True)
    items = table.ordered(index, hash_order, op, bounds, forward,
                          start[1] if start is not None and start[0] == hash_order else None)
    return _page(table, index, iter(items), keep, paths, select, limit)


def _segment_of(hash_order, total: int) -> int:
    return zlib.crc32(repr(hash_order).encode("utf-8")) % total


def scan(table: Table, body: dict) -> dict:
    index, binder, keep, paths, select, limit = _common(table, body, "Scan")
    binder.finish()
    segment, total = body.get("Segment"), body.get("TotalSegments")
    if (segment is None) != (total is None):
        raise validation("The TotalSegments parameter is required but was not present in the "
                         "request when Segment parameter is present" if total is None else
                         "The Segment parameter is required but was not present in the request "
                         "when parameter TotalSegments is present")
    if total is not None and not 0 <= segment < total:
        raise validation(f"The Segment parameter is zero-based and must be less than parameter "
                         f"TotalSegments: Segment: {segment} is not less than TotalSegments: "
                         f"{total}")
    start = _start(table, index, body)

    def items():
        started = start is None
        for hash_order in list(index.partitions):
            if total is not None and _segment_of(hash_order, total) != segment:
                continue
            after = None
            if not started:
                if hash_order != start[0]:
                    continue
                started, after = True, start[1]
            yield from table.ordered(index, hash_order, None, [], True, after)
    return _page(table, index, items(), keep, paths, select, limit)
