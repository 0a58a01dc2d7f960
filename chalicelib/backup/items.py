"""Table items as a dump holds them, and the table calls of a dump and a restore.

Items are read and written with the low-level DynamoDB client, never through the
models, and kept in DynamoDB's own JSON (``{"pk": {"S": "R#1"}, "size": {"N": "3"}}``,
binary values base64 as on the wire): an attribute no model declares, a kind the code
no longer has, each value's exact type, all come back as they were written.

Reads are strongly consistent (a Scan page, a BatchGetItem, a Query): each item as it
was when read, with every write acknowledged before.  The whole-table Scan is the
operator's dump and nothing else: no request path scans (docs/data-model.md).
"""
from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterable, Iterator

from chalicelib import aws
from chalicelib.settings import get_settings

Key = tuple[str, str]
# DynamoDB's limits: keys per BatchGetItem, items per BatchWriteItem.
GET_BATCH = 100
WRITE_BATCH = 25
RETRY_PAUSE = 0.05
RETRY_PAUSE_MAX = 2.0
RETRIES = 12


def _client():
    return aws.client("dynamodb"), get_settings().aws.TABLE


def _wire(value: dict, decode: bool) -> dict:
    """A value with its binary parts as base64 text (``decode``: back to bytes)."""
    (kind, inner), = value.items()
    if kind == "B":
        return {"B": base64.b64decode(inner) if decode else base64.b64encode(inner).decode()}
    if kind == "BS":
        return {"BS": [base64.b64decode(v) if decode else base64.b64encode(v).decode()
                       for v in inner]}
    if kind == "M":
        return {"M": {name: _wire(v, decode) for name, v in inner.items()}}
    if kind == "L":
        return {"L": [_wire(v, decode) for v in inner]}
    return value


def to_line(item: dict) -> str:
    return json.dumps({name: _wire(v, False) for name, v in item.items()},
                      ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def from_line(line: str) -> dict:
    return {name: _wire(v, True) for name, v in json.loads(line).items()}


def key_of(item: dict) -> Key:
    return item["pk"]["S"], item["sk"]["S"]


def text(item: dict | None, name: str) -> str | None:
    value = (item or {}).get(name) or {}
    return value.get("S") if "S" in value else value.get("N")


def kind_of(item: dict) -> str | None:
    return text(item, "kind")


def _pause(attempt: int) -> None:
    time.sleep(min(RETRY_PAUSE * (2 ** attempt), RETRY_PAUSE_MAX))


def scan_pages(page_size: int | None = None) -> Iterator[list[dict]]:
    """Every item of the table, a consistent Scan page at a time (``page_size`` items
    at most; DynamoDB's 1 MB otherwise)."""
    ddb, table = _client()
    request = {"TableName": table, "ConsistentRead": True}
    if page_size:
        request["Limit"] = int(page_size)
    while True:
        page = ddb.scan(**request)
        yield page.get("Items", [])
        if "LastEvaluatedKey" not in page:
            return
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def get_items(keys: Iterable[Key]) -> dict[Key, dict]:
    """The items at ``keys`` that exist, read consistently (BatchGetItem)."""
    ddb, table = _client()
    wanted, found = list(dict.fromkeys(keys)), {}
    for start in range(0, len(wanted), GET_BATCH):
        request = {table: {"ConsistentRead": True, "Keys": [
            {"pk": {"S": pk}, "sk": {"S": sk}} for pk, sk in wanted[start:start + GET_BATCH]]}}
        for attempt in range(RETRIES):
            answer = ddb.batch_get_item(RequestItems=request)
            for item in answer.get("Responses", {}).get(table, []):
                found[key_of(item)] = item
            request = answer.get("UnprocessedKeys") or {}
            if not request:
                break
            _pause(attempt)
        else:
            raise RuntimeError("DynamoDB kept keys of a BatchGetItem unprocessed")
    return found


def partition(pk: str) -> list[dict]:
    """Every item of one partition, read consistently (Query, page by page)."""
    ddb, table = _client()
    request = {"TableName": table, "ConsistentRead": True,
               "KeyConditionExpression": "pk = :pk", "ExpressionAttributeValues": {
                   ":pk": {"S": pk}}}
    items = []
    while True:
        page = ddb.query(**request)
        items += page.get("Items", [])
        if "LastEvaluatedKey" not in page:
            return items
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def table_has_items() -> bool:
    ddb, table = _client()
    return bool(ddb.scan(TableName=table, Limit=1, ConsistentRead=True).get("Items"))


class BatchPut:
    """Items put ``WRITE_BATCH`` at a time (BatchWriteItem), what DynamoDB leaves
    unprocessed sent again after a pause; ``flush`` before anything that must follow."""

    def __init__(self):
        self.ddb, self.table = _client()
        self.pending: list[dict] = []
        self.written = 0

    def put(self, item: dict) -> None:
        self.pending.append(item)
        if len(self.pending) == WRITE_BATCH:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        request = {self.table: [{"PutRequest": {"Item": item}} for item in self.pending]}
        count, self.pending = len(self.pending), []
        for attempt in range(RETRIES):
            request = self.ddb.batch_write_item(RequestItems=request).get("UnprocessedItems")
            if not request:
                self.written += count
                return
            _pause(attempt)
        raise RuntimeError("DynamoDB kept items of a BatchWriteItem unprocessed")
