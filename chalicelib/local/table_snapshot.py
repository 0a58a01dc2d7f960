"""DynamoDB tables in a snapshot of the local runtime: a base file per table and the
deltas taken after it.

    <snap>/dynamodb/<table>.jsonl               the base.  Line 1: {"table": <CreateTable
                                                arguments, GSIs and LSIs included>,
                                                "ttl_attribute": name|null}; then one item
                                                per line in DynamoDB's JSON ({"pk": {"S":
                                                ...}}; B and BS values base64)
    <snap>/dynamodb/<table>.deltas/<n>.jsonl    one per compaction since the base, applied
                                                in order: {"put": item} or {"delete": key}
                                                per line, one line per key written

Why deltas: a compaction runs every ``state.COMPACT_RECORDS`` journaled writes, and
saving a table whole costs what the table holds.  With a base alone, a write cost a
share of the whole instance (at 2,000 repositories with their issues and search
entries, snapshots of 30 MB every thousand writes were most of what the local runtime
did).  A compaction whose journal says which keys it wrote (PutItem, UpdateItem,
DeleteItem, BatchWriteItem, TransactWriteItems) now reads those keys again
(BatchGetItem, consistent) and writes them as one delta; the base and the earlier deltas
are hard links to the previous snapshot's.  Once the deltas together pass half the
base's size they are merged into a new base, file with file (a Scan through moto would
cost the whole table for every page: at 10,000 repositories a save took minutes, with
writes paused); after any other kind of write (CreateTable, PartiQL, TTL settings) the
table is saved whole through a Scan.  A write costs a bounded share of a save, and a
start restores at most one and a half times the table.

Like the rest of the snapshot this goes through the AWS APIs, not moto's internals.
"""
from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import IO, Callable, Iterable

from chalicelib.local.files import atomic_write, chunks

_BATCH_WRITE_LIMIT = 25
_BATCH_GET_LIMIT = 100
# The deltas are merged into a new base once they pass this share of the base's size.
DELTAS_SHARE = 0.5
# Journaled actions whose request names every key it writes.
_KEYED_WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem",
                           "TransactWriteItems"})


def _map_binary(value: dict, convert: Callable) -> dict:
    """Apply ``convert`` to the binary parts of an AttributeValue (bytes <-> base64)."""
    (kind, inner), = value.items()
    if kind == "B":
        return {"B": convert(inner)}
    if kind == "BS":
        return {"BS": [convert(v) for v in inner]}
    if kind == "M":
        return {"M": {k: _map_binary(v, convert) for k, v in inner.items()}}
    if kind == "L":
        return {"L": [_map_binary(v, convert) for v in inner]}
    return value


def _to_plain(item: dict) -> dict:
    encode = lambda b: base64.b64encode(b).decode("ascii")  # noqa: E731
    return {k: _map_binary(v, encode) for k, v in item.items()}


def _from_plain(item: dict) -> dict:
    return {k: _map_binary(v, base64.b64decode) for k, v in item.items()}


def _create_table_arguments(table: dict) -> dict:
    """CreateTable arguments that rebuild ``table`` (a DescribeTable answer)."""
    on_demand = table.get("BillingModeSummary", {}).get("BillingMode") == "PAY_PER_REQUEST"

    def capacity(described: dict) -> dict:
        throughput = described["ProvisionedThroughput"]
        return {"ProvisionedThroughput": {
            "ReadCapacityUnits": throughput["ReadCapacityUnits"],
            "WriteCapacityUnits": throughput["WriteCapacityUnits"]}}

    args = {"TableName": table["TableName"], "KeySchema": table["KeySchema"],
            "AttributeDefinitions": table["AttributeDefinitions"]}
    args.update({"BillingMode": "PAY_PER_REQUEST"} if on_demand else capacity(table))
    for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        indexes = []
        for index in table.get(kind) or []:
            spec = {k: index[k] for k in ("IndexName", "KeySchema", "Projection")}
            if kind == "GlobalSecondaryIndexes" and not on_demand:
                spec.update(capacity(index))
            indexes.append(spec)
        if indexes:
            args[kind] = indexes
    stream = table.get("StreamSpecification")
    if stream and stream.get("StreamEnabled"):
        args["StreamSpecification"] = stream
    return args


def save_tables(ddb, folder: Path, previous: Path | None, records: Iterable | None,
                dirs: set[Path], check: Callable[[], None]) -> None:
    """Save every table into ``folder``: as the previous snapshot's base and deltas and
    one delta more where ``records`` (the journal since ``previous``; None: unknown)
    tell which keys were written, whole otherwise."""
    names = [name for page in ddb.get_paginator("list_tables").paginate()
             for name in page["TableNames"]]
    described = {name: ddb.describe_table(TableName=name)["Table"] for name in names}
    schemas = {name: [key["AttributeName"] for key in table["KeySchema"]]
               for name, table in described.items()}
    written = written_keys(records, schemas) if previous is not None and records is not None \
        else None
    for name in names:
        check()
        base = folder / "dynamodb" / f"{name}.jsonl"
        before = previous / "dynamodb" / f"{name}.jsonl" if previous is not None else None
        if written is None or before is None or not before.exists():
            _save_whole(ddb, described[name], base, dirs, check)
            continue
        delta = _delta_text(ddb, name, list(written.get(name, {}).values()), check)
        earlier = sorted(_deltas_dir(before).glob("*.jsonl"))
        if sum(path.stat().st_size for path in earlier) + len(delta) > \
                before.stat().st_size * DELTAS_SHARE:
            _merge(before, [*earlier, delta], schemas[name], base, dirs, check)
            continue
        _link_previous(before, base, earlier, dirs)
        if delta:
            atomic_write(_deltas_dir(base) / f"{len(earlier) + 1:06d}.jsonl",
                         lambda fh: fh.write(delta), dirs)


def written_keys(records: Iterable, schemas: dict[str, list[str]]) \
        -> dict[str, dict[str, dict]] | None:
    """{table: {key as text: key}} of every item the journal ``records`` wrote, or None
    when one of them wrote something else or in a way this cannot read."""
    written: dict[str, dict[str, dict]] = {}

    def note(table: object, item: object) -> bool:
        schema = schemas.get(table) if isinstance(table, str) else None
        if schema is None or not isinstance(item, dict) or any(a not in item for a in schema):
            return False
        key = {attr: item[attr] for attr in schema}
        written.setdefault(table, {})[json.dumps(_to_plain(key), sort_keys=True)] = key
        return True

    for record in records:
        if record.service != "dynamodb":
            continue
        action = (record.environ.get("HTTP_X_AMZ_TARGET") or "").rpartition(".")[2]
        if action not in _KEYED_WRITES or record.environ.get("HTTP_CONTENT_ENCODING"):
            return None
        try:
            body = json.loads(record.body or b"{}")
        except ValueError:
            return None
        if not isinstance(body, dict) or not all(
                note(table, item) for table, item in _named_items(action, body)):
            return None
    return written


def _named_items(action: str, body: dict) -> Iterable[tuple[object, object]]:
    """(table name, item or key) of each item a keyed write names."""
    if action in ("PutItem", "UpdateItem", "DeleteItem"):
        yield body.get("TableName"), body.get("Item" if action == "PutItem" else "Key")
    elif action == "BatchWriteItem":
        requests = body.get("RequestItems")
        for table, writes in requests.items() if isinstance(requests, dict) else [(None, None)]:
            for write in writes if isinstance(writes, list) else [None]:
                inner = write.get("PutRequest") or write.get("DeleteRequest") \
                    if isinstance(write, dict) else None
                yield table, (inner or {}).get("Item") or (inner or {}).get("Key")
    else:
        items = body.get("TransactItems")
        for entry in items if isinstance(items, list) else [None]:
            operation = next(iter(entry.values()), None) if isinstance(entry, dict) else None
            if isinstance(operation, dict):
                yield operation.get("TableName"), operation.get("Item") or operation.get("Key")
            else:
                yield None, None


def _deltas_dir(base: Path) -> Path:
    return base.with_name(base.name.removesuffix(".jsonl") + ".deltas")


def _link_previous(before: Path, base: Path, deltas: list[Path], dirs: set[Path]) -> None:
    """Hard-link the previous base and its deltas into the new snapshot."""
    base.parent.mkdir(parents=True, exist_ok=True)
    base.hardlink_to(before)
    dirs.add(base.parent)
    if deltas:
        linked = _deltas_dir(base)
        linked.mkdir(exist_ok=True)
        for delta in deltas:
            (linked / delta.name).hardlink_to(delta)
        dirs.add(linked)


def _merge(before: Path, deltas: list, schema: list[str], base: Path, dirs: set[Path],
           check: Callable) -> None:
    """A new base from the previous base and the deltas after it (files, or a delta's
    text), merged as files: a Scan through moto costs the whole table for every page
    (it walks from the first item to the page's start), a file merge what the files
    hold."""
    items: dict[str, str] = {}

    def key_of(item: dict) -> str:
        return json.dumps({attr: item[attr] for attr in schema}, sort_keys=True)

    with open(before, encoding="utf-8") as fh:
        header = fh.readline()
        for line in fh:
            if line.strip():
                items[key_of(json.loads(line))] = line.rstrip("\n")
    for delta in deltas:
        check()
        text = delta.decode() if isinstance(delta, bytes) else delta.read_text("utf-8")
        for line in text.splitlines():
            if not line.strip():
                continue
            change = json.loads(line)
            if "put" in change:
                items[key_of(change["put"])] = json.dumps(change["put"])
            else:
                items.pop(key_of(change["delete"]), None)

    def write(fh: IO[bytes]) -> None:
        fh.write(header.encode())
        for line in items.values():
            fh.write((line + "\n").encode())

    atomic_write(base, write, dirs)


def _save_whole(ddb, table: dict, path: Path, dirs: set[Path], check: Callable) -> None:
    name = table["TableName"]
    ttl = ddb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
    header = {"table": _create_table_arguments(table),
              "ttl_attribute": ttl.get("AttributeName")
              if ttl.get("TimeToLiveStatus") in ("ENABLED", "ENABLING") else None}

    def write(fh: IO[bytes]) -> None:
        fh.write((json.dumps(header) + "\n").encode())
        for page in ddb.get_paginator("scan").paginate(TableName=name, ConsistentRead=True):
            check()
            for item in page["Items"]:
                fh.write((json.dumps(_to_plain(item)) + "\n").encode())

    atomic_write(path, write, dirs)


def _delta_text(ddb, name: str, keys: list[dict], check: Callable) -> bytes:
    """The current value of each of ``keys`` (or its deletion), as a delta file's text."""
    lines = []
    for batch in chunks(keys, _BATCH_GET_LIMIT):
        check()
        found: dict[str, dict] = {}
        pending = {name: {"Keys": batch, "ConsistentRead": True}}
        while pending:
            answer = ddb.batch_get_item(RequestItems=pending)
            for item in answer["Responses"].get(name, []):
                found[_key_text(item, batch[0])] = item
            pending = answer.get("UnprocessedKeys") or None
        for key in batch:
            item = found.get(_key_text(key, key))
            lines.append({"put": _to_plain(item)} if item is not None
                         else {"delete": _to_plain(key)})
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def _key_text(item: dict, key: dict) -> str:
    """The key of ``item`` (its attributes named in ``key``), as text."""
    return json.dumps(_to_plain({attr: item[attr] for attr in key}), sort_keys=True)


def restore_table(ddb, path: Path) -> None:
    """Create the table of the base ``path`` and load it, then its deltas in order."""
    with open(path, encoding="utf-8") as fh:
        header = json.loads(fh.readline())
        name = header["table"]["TableName"]
        ddb.create_table(**header["table"])
        if header.get("ttl_attribute"):
            ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={
                "Enabled": True, "AttributeName": header["ttl_attribute"]})
        _write_all(ddb, name, ({"PutRequest": {"Item": _from_plain(json.loads(line))}}
                               for line in fh if line.strip()))
    for delta in sorted(_deltas_dir(path).glob("*.jsonl")):
        with open(delta, encoding="utf-8") as fh:
            lines = (json.loads(line) for line in fh if line.strip())
            _write_all(ddb, name, ({"PutRequest": {"Item": _from_plain(line["put"])}}
                                   if "put" in line else
                                   {"DeleteRequest": {"Key": _from_plain(line["delete"])}}
                                   for line in lines))


def _write_all(ddb, name: str, requests: Iterable[dict]) -> None:
    for batch in chunks(requests, _BATCH_WRITE_LIMIT):
        pending = {name: batch}
        while pending:
            pending = ddb.batch_write_item(RequestItems=pending).get("UnprocessedItems")
