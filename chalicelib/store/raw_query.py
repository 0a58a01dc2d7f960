"""Query answers made of string attributes, read without botocore's response parser.

botocore parses a DynamoDB answer by walking its model: each attribute value is a
structure of ten possible members, each looked up, so a Query of 5,000 refs
(``git ls-remote`` of a repository with thousands of pull request refs) spent more
time in the parser than DynamoDB took to answer.  Within ``strings()``, a Query's
``Items`` are taken from the answer by ``json.loads`` before botocore parses the rest
(its ``before-parse`` event; the rest, ``LastEvaluatedKey`` included, is parsed as
usual).  Only when every value of every item is a string (``{"S": ...}``), which
botocore would give unchanged: anything else (numbers, binary, lists, maps) is left to
the parser.  Errors are never touched.
"""
from __future__ import annotations

import contextlib
import json
import threading
from typing import Iterator

__all__ = ["strings", "register"]

_EVENT = "before-parse.dynamodb.Query"
_local = threading.local()


def register(client) -> None:
    """Give ``client`` (botocore, DynamoDB) the hook; harmless when it has it."""
    client.meta.events.register(_EVENT, _take_items, unique_id="nimbus-raw-query-items")


@contextlib.contextmanager
def strings(client) -> Iterator[None]:
    """Queries this thread makes through ``client`` meanwhile are read this way."""
    register(client)
    _local.active = True
    try:
        yield
    finally:
        _local.active = False


def _take_items(response_dict: dict, customized_response_dict: dict, **_) -> None:
    if not getattr(_local, "active", False) or response_dict.get("status_code", 200) >= 300:
        return
    try:
        body = json.loads(response_dict["body"])
    except ValueError:
        # Not JSON: the Lambda runtime's own botocore (infra/README.md, "AWS SDK")
        # may one day speak another protocol to DynamoDB; its parser reads it as usual.
        return
    items = body.get("Items") if isinstance(body, dict) else None
    if not isinstance(items, list) or not all(
            type(value) is dict and len(value) == 1 and type(value.get("S")) is str
            for item in items for value in item.values()):
        return
    del body["Items"]
    customized_response_dict["Items"] = items
    response_dict["body"] = json.dumps(body).encode()
