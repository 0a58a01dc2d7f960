"""A table is saved as the previous snapshot's base and deltas plus one delta of the keys
the journal wrote (chalicelib/local/table_snapshot.py), and a restart restores it exactly.

Each test writes through every kind of keyed write, compacts, and compares what a full
scan shows before a restart and after it.
"""
from __future__ import annotations

import json

from chalicelib.local import table_snapshot
from chalicelib.local.runtime import LocalRuntime


def _handler(event, context):
    return {"statusCode": 204}


def _runtime(path) -> LocalRuntime:
    return LocalRuntime(port=0, data_dir=path, handler=_handler, access_log=False)


def _scan(ddb, table: str) -> list:
    items = [item for page in ddb.get_paginator("scan").paginate(TableName=table)
             for item in page["Items"]]
    return sorted(items, key=lambda item: (item["pk"]["S"], item["sk"]["S"]))


def _folder(rt):
    return rt.state.folder(rt.state.generation) / "dynamodb"


def _item(pk: str, sk: str, **more) -> dict:
    return {"pk": {"S": pk}, "sk": {"S": sk}, **more}


def _keyed_writes(ddb, table: str) -> None:
    ddb.put_item(TableName=table, Item=_item("A", "2", v={"B": b"\x00\xff"}))
    ddb.update_item(TableName=table, Key={"pk": {"S": "A"}, "sk": {"S": "1"}},
                    UpdateExpression="SET n = n + :one",
                    ExpressionAttributeValues={":one": {"N": "1"}})
    ddb.delete_item(TableName=table, Key={"pk": {"S": "A"}, "sk": {"S": "3"}})
    ddb.batch_write_item(RequestItems={table: [
        {"PutRequest": {"Item": _item("B", str(n), n={"N": str(n)})}} for n in range(5)] + [
        {"DeleteRequest": {"Key": {"pk": {"S": "A"}, "sk": {"S": "4"}}}}]})
    ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": table, "Item": _item("C", "1", gsi1pk={"S": "G"},
                                                     gsi1sk={"S": "x"})}},
        {"Update": {"TableName": table, "Key": {"pk": {"S": "B"}, "sk": {"S": "0"}},
                    "UpdateExpression": "REMOVE n"}},
        {"Delete": {"TableName": table, "Key": {"pk": {"S": "B"}, "sk": {"S": "1"}}}},
        {"ConditionCheck": {"TableName": table, "Key": {"pk": {"S": "A"}, "sk": {"S": "1"}},
                            "ConditionExpression": "attribute_exists(pk)"}}])


def test_keyed_writes_become_a_delta_that_a_restart_restores(tmp_path):
    with _runtime(tmp_path) as rt:
        table, ddb = rt.settings.aws.TABLE, rt.moto.client("dynamodb")
        for n in range(1, 60):
            ddb.put_item(TableName=table, Item=_item("A", str(n), n={"N": "1"},
                                                       pad={"S": "x" * 200}))
        rt.snapshot()
        base = _folder(rt) / f"{table}.jsonl"
        base_inode = base.stat().st_ino
        _keyed_writes(ddb, table)
        rt.snapshot()
        folder = _folder(rt)
        assert (folder / f"{table}.jsonl").stat().st_ino == base_inode    # linked, not saved
        delta = folder / f"{table}.deltas" / "000001.jsonl"
        lines = [json.loads(line) for line in delta.read_text().splitlines()]
        deleted = sorted(line["delete"]["sk"]["S"] for line in lines if "delete" in line)
        assert deleted == ["1", "3", "4"] and len(lines) == 10   # each key once
        ddb.put_item(TableName=table, Item=_item("D", "1"))
        rt.snapshot()
        assert (_folder(rt) / f"{table}.deltas" / "000002.jsonl").exists()
        ddb.put_item(TableName=table, Item=_item("D", "2"))     # left in the journal
        before = _scan(ddb, table)

    with _runtime(tmp_path) as rt:
        assert _scan(rt.moto.client("dynamodb"), table) == before
        found = rt.moto.client("dynamodb").query(
            TableName=table, IndexName="gsi1", KeyConditionExpression="gsi1pk = :g",
            ExpressionAttributeValues={":g": {"S": "G"}})["Items"]
        assert [item["pk"]["S"] for item in found] == ["C"]
    assert {"pk": {"S": "A"}, "sk": {"S": "2"}, "v": {"B": b"\x00\xff"}} in before
    assert not [i for i in before if i["pk"]["S"] == "B" and i["sk"]["S"] == "1"]


def test_a_write_without_keys_saves_whole_and_large_deltas_merge_as_files(tmp_path, monkeypatch):
    with _runtime(tmp_path) as rt:
        table, ddb = rt.settings.aws.TABLE, rt.moto.client("dynamodb")
        for n in range(20):
            ddb.put_item(TableName=table, Item=_item("A", str(n)))
        rt.snapshot()
        ddb.execute_statement(Statement=f"UPDATE \"{table}\" SET v='w' WHERE pk='A' AND sk='1'")
        rt.snapshot()       # PartiQL: which keys it wrote is not read from the journal
        assert not (_folder(rt) / f"{table}.deltas").exists()
        ddb.put_item(TableName=table, Item=_item("A", "x"))
        ddb.delete_item(TableName=table, Key={"pk": {"S": "A"}, "sk": {"S": "2"}})
        rt.snapshot()
        assert (_folder(rt) / f"{table}.deltas" / "000001.jsonl").exists()
        monkeypatch.setattr(table_snapshot, "DELTAS_SHARE", 0.0)
        ddb.put_item(TableName=table, Item=_item("A", "y", v={"B": b"\x01"}))
        ddb.delete_item(TableName=table, Key={"pk": {"S": "A"}, "sk": {"S": "3"}})
        rt.snapshot()       # past the share: base and deltas merged, as files
        assert not (_folder(rt) / f"{table}.deltas").exists()
        merged = (_folder(rt) / f"{table}.jsonl").read_text().splitlines()
        before = _scan(ddb, table)
    assert len(merged) == 1 + len(before)       # the header, then each item once
    with _runtime(tmp_path) as rt:
        assert _scan(rt.moto.client("dynamodb"), table) == before
    assert len(before) == 20 and {"S": "w"} in [item.get("v") for item in before]
    assert {"B": b"\x01"} in [item.get("v") for item in before]


def test_written_keys_refuses_what_it_cannot_read():
    class Record:
        service = "dynamodb"

        def __init__(self, action: str, body: dict):
            self.environ = {"HTTP_X_AMZ_TARGET": f"DynamoDB_20120810.{action}"}
            self.body = json.dumps(body).encode()

    schemas = {"t": ["pk", "sk"]}
    key = {"pk": {"S": "a"}, "sk": {"S": "b"}}
    assert table_snapshot.written_keys([Record("PutItem", {"TableName": "t", "Item": key})],
                                       schemas) == {"t": {json.dumps(key, sort_keys=True): key}}
    for refused in (Record("CreateTable", {"TableName": "u"}),
                    Record("PutItem", {"TableName": "other", "Item": key}),
                    Record("DeleteItem", {"TableName": "t", "Key": {"pk": {"S": "a"}}}),
                    Record("BatchWriteItem", {"RequestItems": {"t": [{"Nope": {}}]}}),
                    Record("TransactWriteItems", {"TransactItems": ["x"]})):
        assert table_snapshot.written_keys([refused], schemas) is None
