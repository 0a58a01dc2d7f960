"""The DynamoDB shortcuts of chalicelib/local/moto_speed.py change no answer.

Each request below is sent twice to the local runtime's embedded moto, once with the
shortcuts and once with moto's own code (``moto_speed.uninstall()``), and what the
client receives (status, the body byte for byte, and botocore's parsed answer) must be
the same: items of every attribute type, pages and their LastEvaluatedKey, Count and
ScannedCount, ConsumedCapacity, index queries, and errors (ConditionalCheckFailed with
the item, TransactionCanceled with its CancellationReasons, validation errors).
"""
from __future__ import annotations

import base64
import copy
import os

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError
from moto import mock_aws

from chalicelib.local import moto_speed
from chalicelib.local.aws_requests import serialized_mock_aws
from chalicelib.local.runtime import LocalRuntime

TABLE, NUMBERS, PLAIN = "speed", "speed-numbers", "speed-plain"


def _client(endpoint: str | None):
    return boto3.session.Session().client(
        "dynamodb", region_name="us-east-1", endpoint_url=endpoint,
        aws_access_key_id="testing", aws_secret_access_key="testing",
        config=Config(retries={"max_attempts": 1}))


def _item(partition: str, sort: str, n: int) -> dict:
    return {
        "pk": {"S": partition}, "sk": {"S": sort},
        "g": {"S": f"G{n % 3}"}, "gs": {"S": f"{n % 4:02d}-{sort}"},
        "text": {"S": f"é ü \"quoted\" \\ {n}"}, "empty": {"S": ""},
        "num": {"N": str(n * 1.5)}, "big": {"N": "12345678901234567890.123"},
        "bin": {"B": bytes([n % 256, 0, 255, 10])},
        "strings": {"SS": ["a", f"b{n}"]}, "numbers": {"NS": ["1", "2.5", str(-n)]},
        "binaries": {"BS": [b"\x00\x01", bytes([n % 256])]},
        "flag": {"BOOL": n % 2 == 0}, "nothing": {"NULL": True},
        "map": {"M": {"inner": {"M": {"deep": {"L": [{"N": "1"}, {"S": "x"},
                                                     {"B": b"\xff"}]}}},
                      "list": {"L": [{"BOOL": False}, {"NULL": True}, {"SS": ["z"]}]}}},
        "list": {"L": [{"M": {"k": {"S": "v"}}}, {"L": []}, {"M": {}}]},
    }


def _fill(ddb) -> None:
    ddb.create_table(
        TableName=TABLE, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": name, "AttributeType": "S"}
                              for name in ("pk", "sk", "g", "gs")],
        GlobalSecondaryIndexes=[{
            "IndexName": "by-g", "Projection": {"ProjectionType": "ALL"},
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                          {"AttributeName": "gs", "KeyType": "RANGE"}]}])
    ddb.create_table(
        TableName=NUMBERS, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "n", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "n", "AttributeType": "N"}])
    ddb.create_table(
        TableName=PLAIN, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    rows = [_item(f"P{p}", f"s{n:03d}" if p else f"REF#{n}", n)
            for p in range(3) for n in range(40)]
    for start in range(0, len(rows), 25):
        ddb.batch_write_item(RequestItems={TABLE: [{"PutRequest": {"Item": row}}
                                                   for row in rows[start:start + 25]]})
    for n in range(12):     # ~100 KB each, in UTF-8: a Query page stops at 1 MB
        ddb.put_item(TableName=TABLE, Item={"pk": {"S": "BIG"}, "sk": {"S": f"b{n:02d}"},
                                            "text": {"S": "é" * 50_000}, "n": {"N": str(n)}})
    for number in ("10", "9", "100", "-1", "1.5", "0", "-20.25", "1e3"):
        for partition in ("a", "b"):
            ddb.put_item(TableName=NUMBERS, Item={"pk": {"S": partition}, "n": {"N": number}})
    for key in ("x", "y"):
        ddb.put_item(TableName=PLAIN, Item={"pk": {"S": key}, "v": {"L": [{"N": "1"}]}})


P0 = {":p": {"S": "P0"}}
FAILED_CONDITION = {"ConditionExpression": "attribute_not_exists(pk)",
                    "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}
# (operation, parameters); each answer must not change what the next one sees, so the
# writes write what is already there, or fail.
REQUESTS = [
    ("get_item", {"TableName": TABLE, "Key": {"pk": {"S": "P1"}, "sk": {"S": "s007"}}}),
    ("get_item", {"TableName": TABLE, "Key": {"pk": {"S": "P1"}, "sk": {"S": "none"}},
                  "ReturnConsumedCapacity": "TOTAL"}),
    ("get_item", {"TableName": TABLE, "Key": {"pk": {"S": "P2"}, "sk": {"S": "s001"}},
                  "ProjectionExpression": "#m.inner, bin, numbers",
                  "ExpressionAttributeNames": {"#m": "map"}}),
    ("batch_get_item", {"RequestItems": {TABLE: {"Keys": [
        {"pk": {"S": "P0"}, "sk": {"S": f"REF#{n}"}} for n in (3, 1, 2, 99)]}},
        "ReturnConsumedCapacity": "TOTAL"}),
    ("query", {"TableName": TABLE, "KeyConditionExpression": "pk = :p",
               "ExpressionAttributeValues": P0}),
    ("query", {"TableName": TABLE, "KeyConditionExpression": "pk = :p",
               "ExpressionAttributeValues": P0, "Limit": 7, "ScanIndexForward": False,
               "ReturnConsumedCapacity": "INDEXES"}),
    ("query", {"TableName": TABLE, "KeyConditionExpression": "pk = :p AND begins_with(sk, :s)",
               "FilterExpression": "flag = :t", "ProjectionExpression": "sk, num",
               "ExpressionAttributeValues": {**P0, ":s": {"S": "REF#1"}, ":t": {"BOOL": True}}}),
    ("query", {"TableName": TABLE, "KeyConditionExpression": "pk = :p AND sk BETWEEN :a AND :b",
               "ExpressionAttributeValues": {":p": {"S": "P2"}, ":a": {"S": "s010"},
                                             ":b": {"S": "s020"}}, "Select": "COUNT"}),
    ("query", {"TableName": TABLE, "KeyConditionExpression": "pk = :p",
               "ExpressionAttributeValues": {":p": {"S": "nobody"}}}),
    ("query", {"TableName": TABLE, "IndexName": "by-g", "KeyConditionExpression": "g = :g",
               "ExpressionAttributeValues": {":g": {"S": "G1"}}, "Limit": 9}),
    ("query", {"TableName": TABLE, "IndexName": "by-g",
               "KeyConditionExpression": "g = :g AND begins_with(gs, :s)",
               "ExpressionAttributeValues": {":g": {"S": "G2"}, ":s": {"S": "02"}},
               "ScanIndexForward": False}),
    ("query", {"TableName": NUMBERS, "KeyConditionExpression": "pk = :p",
               "ExpressionAttributeValues": {":p": {"S": "b"}}, "Limit": 3}),
    ("query", {"TableName": NUMBERS, "KeyConditionExpression": "pk = :p AND n > :n",
               "ExpressionAttributeValues": {":p": {"S": "a"}, ":n": {"N": "1"}}}),
    ("query", {"TableName": PLAIN, "KeyConditionExpression": "pk = :p",
               "ExpressionAttributeValues": {":p": {"S": "y"}}}),
    ("scan", {"TableName": TABLE, "Limit": 25, "FilterExpression": "flag = :t",
              "ExpressionAttributeValues": {":t": {"BOOL": False}}}),
    ("describe_table", {"TableName": TABLE}),
    ("list_tables", {}),
    ("put_item", {"TableName": TABLE, "Item": _item("P1", "s005", 5), "ReturnValues": "ALL_OLD"}),
    ("update_item", {"TableName": TABLE, "Key": {"pk": {"S": "P1"}, "sk": {"S": "s006"}},
                     "UpdateExpression": "SET num = :n", "ReturnValues": "ALL_NEW",
                     "ExpressionAttributeValues": {":n": {"N": "9"}}}),
    ("put_item", {"TableName": TABLE, "Item": _item("P1", "s004", 4), **FAILED_CONDITION}),
    ("transact_write_items", {"TransactItems": [
        {"ConditionCheck": {"TableName": TABLE, "Key": {"pk": {"S": "P1"}, "sk": {"S": "s001"}},
                            "ConditionExpression": "attribute_exists(pk)"}},
        {"Put": {"TableName": TABLE, "Item": _item("P1", "s002", 2), **FAILED_CONDITION}}]}),
    ("query", {"TableName": TABLE, "KeyConditionExpression": "nope = :p",
               "ExpressionAttributeValues": P0}),
    ("get_item", {"TableName": "missing", "Key": {"pk": {"S": "x"}}}),
    ("query", {"TableName": TABLE, "KeyConditionExpression": "pk = :p",
               "ExpressionAttributeValues": {":p": {"S": "BIG"}}, "ProjectionExpression": "sk"}),
]


def _ask(ddb, operation: str, params: dict) -> tuple:
    """(HTTP status, body bytes, parsed answer or error) of one request."""
    seen: list = []

    def keep(response_dict, **kwargs):
        seen.append((response_dict["status_code"], response_dict["body"]))

    ddb.meta.events.register("before-parse.dynamodb.*", keep)
    try:
        answer = getattr(ddb, operation)(**copy.deepcopy(params))
    except ClientError as error:
        answer = error.response
    finally:
        ddb.meta.events.unregister("before-parse.dynamodb.*", keep)
    answer = {key: value for key, value in answer.items() if key != "ResponseMetadata"}
    return seen[-1][0], seen[-1][1], answer


def _all_pages(ddb, **params) -> list:
    pages = []
    while True:
        page = ddb.query(**params)
        pages.append((page["Items"], page["Count"], page["ScannedCount"]))
        if "LastEvaluatedKey" not in page:
            return pages
        params["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def _answers(ddb) -> list:
    answers = [_ask(ddb, operation, params) for operation, params in REQUESTS]
    pages = _all_pages(ddb, TableName=TABLE, KeyConditionExpression="pk = :p",
                       ExpressionAttributeValues={":p": {"S": "P2"}}, Limit=6)
    index_pages = _all_pages(ddb, TableName=TABLE, IndexName="by-g", Limit=11,
                             KeyConditionExpression="g = :g",
                             ExpressionAttributeValues={":g": {"S": "G0"}})
    return answers + [pages, index_pages]


def _compare_with_moto(ddb) -> list:
    assert moto_speed.installed()
    fast = _answers(ddb)
    moto_speed.uninstall()
    try:
        assert not moto_speed.installed()
        slow = _answers(ddb)
    finally:
        assert moto_speed.install()
    for (operation, params), mine, motos in zip(REQUESTS, fast, slow):
        assert mine == motos, (operation, params)
    assert fast[len(REQUESTS):] == slow[len(REQUESTS):]
    return fast


@pytest.fixture(scope="module")
def embedded(tmp_path_factory):
    with LocalRuntime(port=0, data_dir=tmp_path_factory.mktemp("speed"),
                      handler=lambda event, context: {"statusCode": 204},
                      access_log=False) as runtime:
        ddb = _client(runtime.moto.endpoint)
        _fill(ddb)
        yield ddb


def test_embedded_answers_are_moto_s(embedded):
    answers = _compare_with_moto(embedded)
    by_request = dict(zip(range(len(REQUESTS)), answers))
    status, _, item = by_request[0]
    assert status == 200
    assert item["Item"]["bin"] == {"B": bytes([7, 0, 255, 10])}
    assert item["Item"]["map"]["M"]["inner"]["M"]["deep"]["L"][2] == {"B": b"\xff"}
    assert item["Item"]["binaries"]["BS"] == [b"\x00\x01", b"\x07"]
    assert by_request[1][2] == {"ConsumedCapacity": {"TableName": TABLE, "CapacityUnits": 0.5}}
    paged = by_request[5][2]
    assert paged["Count"] == paged["ScannedCount"] == 7
    assert paged["LastEvaluatedKey"] == {"pk": {"S": "P0"}, "sk": {"S": "REF#39"}}  # descending, as strings
    assert paged["ConsumedCapacity"]["Table"] == {"CapacityUnits": 1.0}
    assert by_request[7][2]["Count"] == 11 and "Items" not in by_request[7][2]
    numbers = [row["n"]["N"] for row in by_request[12][2]["Items"]]
    assert numbers == ["1.5", "9", "10", "100", "1e3"]
    status, body, error = by_request[19]
    assert status == 400 and error["Error"]["Code"] == "ConditionalCheckFailedException"
    assert error["Item"]["sk"] == {"S": "s004"}
    status, _, error = by_request[20]
    assert status == 400 and error["Error"]["Code"] == "TransactionCanceledException"
    reasons = [reason["Code"] for reason in error["CancellationReasons"]]
    assert reasons == ["None", "ConditionalCheckFailed"]
    assert by_request[21][0] == 400 and by_request[22][0] == 400
    big = by_request[23][2]
    assert big["Count"] == 9 and big["LastEvaluatedKey"]["sk"] == {"S": "b08"}
    pages, index_pages = answers[-2:]
    assert [len(items) for items, _, _ in pages] == [6] * 6 + [4]
    keys = [row["sk"]["S"] for items, _, _ in pages for row in items]
    assert keys == [f"s{n:03d}" for n in range(40)]
    index_keys = [row["gs"]["S"] for items, _, _ in index_pages for row in items]
    assert len(index_keys) == 3 * 14 and index_keys == sorted(index_keys)


def test_in_process_answers_are_moto_s():
    """The tests' ``mock_aws`` (conftest) gets the same shortcuts.  (mock_aws empties
    moto's process-wide state when it ends: the embedded runtime's tests come first.)"""
    with mock_aws(), serialized_mock_aws():
        ddb = _client(None)
        _fill(ddb)
        _compare_with_moto(ddb)


def test_verify_mode_checks_every_answer(monkeypatch):
    """NIMBUS_MOTO_VERIFY=1 serializes each answer both ways: the broad suites can run
    under it to check the shortcuts on real traffic."""
    monkeypatch.setenv("NIMBUS_MOTO_VERIFY", "1")
    with mock_aws(), serialized_mock_aws():
        ddb = _client(None)
        _fill(ddb)
        pages = _all_pages(ddb, TableName=TABLE, KeyConditionExpression="pk = :p",
                           ExpressionAttributeValues=P0, Limit=13)
    assert sum(count for _, count, _ in pages) == 40
    assert base64.b64encode(pages[0][0][0]["bin"]["B"]) == b"AAD/Cg=="


def _queue_story(sqs) -> list:
    """What a client sees of a queue through sends, receives, deletes and counts (ids and
    receipt handles are random: left out)."""
    url = sqs.create_queue(QueueName="speed-events", Attributes={
        "VisibilityTimeout": "60"})["QueueUrl"]
    story: list = []
    for start in range(0, 25, 10):
        sqs.send_message_batch(QueueUrl=url, Entries=[
            {"Id": str(n), "MessageBody": f"event {n}"} for n in range(start, min(start + 10, 25))])
    sqs.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=60)

    def counts() -> dict:
        names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible",
                 "ApproximateNumberOfMessagesDelayed", "MessageRetentionPeriod"]
        return sqs.get_queue_attributes(QueueUrl=url, AttributeNames=names)["Attributes"]

    story.append(counts())
    received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    story.append(sorted(m["Body"] for m in received))
    story.append(counts())
    for message in received[:4]:
        sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    sqs.delete_message(QueueUrl=url, ReceiptHandle=received[0]["ReceiptHandle"])  # again
    try:
        sqs.delete_message(QueueUrl=url, ReceiptHandle="not-a-handle")
    except ClientError as error:
        story.append(error.response["Error"]["Code"])
    story.append(counts())
    rest = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    story.append(sorted(m["Body"] for m in rest))
    story.append(counts())
    sqs.delete_queue(QueueUrl=url)
    return story


def test_queue_answers_are_moto_s():
    """The SQS shortcuts (one clock reading per scan, the retention period read alone, a
    delete in one pass) give a client the same answers as moto's own code."""
    with mock_aws(), serialized_mock_aws():
        sqs = boto3.session.Session().client(
            "sqs", region_name="us-east-1", aws_access_key_id="testing",
            aws_secret_access_key="testing")
        assert moto_speed.installed()
        fast = _queue_story(sqs)
        moto_speed.uninstall()
        try:
            slow = _queue_story(sqs)
        finally:
            assert moto_speed.install()
    assert fast == slow
    assert fast[0]["ApproximateNumberOfMessages"] == "25"
    assert fast[0]["ApproximateNumberOfMessagesDelayed"] == "1"
    assert fast[2]["ApproximateNumberOfMessagesNotVisible"] == "10"   # in flight (a delayed one is neither)
    assert "ReceiptHandleIsInvalid" in fast
    assert fast[4]["ApproximateNumberOfMessagesNotVisible"] == "6"
    assert len(fast[5]) == 10


def _index_story(ddb) -> list:
    """Index queries between writes that move items into, out of and between the index's
    partitions, through every kind of write (the buckets must follow each one)."""
    _fill(ddb)

    def partition(g: str) -> list:
        return [row["sk"]["S"] + "/" + row["pk"]["S"] for items, _, _ in _all_pages(
            ddb, TableName=TABLE, IndexName="by-g", KeyConditionExpression="g = :g",
            ExpressionAttributeValues={":g": {"S": g}}, Limit=17) for row in items]

    story = [partition("G1")]
    ddb.put_item(TableName=TABLE, Item=_item("P9", "s900", 1))
    story.append(partition("G1"))
    ddb.update_item(TableName=TABLE, Key={"pk": {"S": "P0"}, "sk": {"S": "REF#1"}},
                    UpdateExpression="SET g = :g", ExpressionAttributeValues={":g": {"S": "G2"}})
    story += [partition("G1"), partition("G2")]
    ddb.update_item(TableName=TABLE, Key={"pk": {"S": "P0"}, "sk": {"S": "REF#4"}},
                    UpdateExpression="REMOVE g")
    ddb.delete_item(TableName=TABLE, Key={"pk": {"S": "P1"}, "sk": {"S": "s007"}})
    story.append(partition("G1"))
    try:    # cancelled: the first write is put back
        ddb.transact_write_items(TransactItems=[
            {"Update": {"TableName": TABLE, "Key": {"pk": {"S": "P2"}, "sk": {"S": "s010"}},
                        "UpdateExpression": "SET g = :g",
                        "ExpressionAttributeValues": {":g": {"S": "G7"}}}},
            {"Put": {"TableName": TABLE, "Item": _item("P1", "s002", 2), **FAILED_CONDITION}}])
    except ClientError as error:
        story.append(error.response["Error"]["Code"])
    story += [partition("G7"), partition("G1")]
    ddb.batch_write_item(RequestItems={TABLE: [
        {"PutRequest": {"Item": {**_item("P8", f"s{n:03d}", n), "g": {"S": "G7"}}}}
        for n in range(5)] + [{"DeleteRequest": {"Key": {"pk": {"S": "P2"}, "sk": {"S": "s013"}}}}]})
    ddb.execute_statement(Statement=f"UPDATE \"{TABLE}\" SET g='G7' WHERE pk='P2' AND sk='s016'")
    story += [partition("G7"), partition("G1")]
    return story


def _told_both_ways(story) -> tuple[list, list]:
    """``story`` told in a fresh mock with the shortcuts, then in one without."""
    with mock_aws(), serialized_mock_aws():
        assert moto_speed.installed()
        fast = story(_client(None))
    moto_speed.uninstall()
    try:
        with mock_aws(), serialized_mock_aws():
            moto_speed.uninstall()      # serialized_mock_aws installs them
            slow = story(_client(None))
    finally:
        assert moto_speed.install()
    return fast, slow


def test_index_queries_follow_writes():
    """Index queries read sorted partitions kept between writes: after each kind of
    write they answer what moto's own code answers."""
    fast, slow = _told_both_ways(_index_story)
    assert fast == slow
    assert "s900/P9" in fast[1] and "REF#1/P0" not in fast[2] and "REF#1/P0" in fast[3]
    assert "TransactionCanceledException" in fast and fast[6] == []
    assert len(fast[8]) == 6 and "s016/P2" in fast[8]


# Every key condition the sorted windows of moto_query.py compute, both ways and at
# page sizes around the margins, on the table's key and on an index.
_CONDITIONS = [
    ("pk = :p", {}),
    ("pk = :p AND sk = :a", {":a": {"S": "s010"}}),
    ("pk = :p AND sk < :a", {":a": {"S": "s010"}}),
    ("pk = :p AND sk <= :a", {":a": {"S": "s010"}}),
    ("pk = :p AND sk > :a", {":a": {"S": "s030"}}),
    ("pk = :p AND sk >= :a", {":a": {"S": "s030"}}),
    ("pk = :p AND sk BETWEEN :a AND :b", {":a": {"S": "s005"}, ":b": {"S": "s0155"}}),
    ("pk = :p AND begins_with(sk, :a)", {":a": {"S": "s01"}}),
    ("pk = :p AND begins_with(sk, :a)", {":a": {"S": "s"}}),
    ("pk = :p AND begins_with(sk, :a)", {":a": {"S": "zz"}}),
]
_INDEX_CONDITIONS = [
    ("g = :g", {}),
    ("g = :g AND gs = :a", {":a": {"S": "01-s013"}}),
    ("g = :g AND gs < :a", {":a": {"S": "02"}}),
    ("g = :g AND gs >= :a", {":a": {"S": "02"}}),
    ("g = :g AND gs BETWEEN :a AND :b", {":a": {"S": "01"}, ":b": {"S": "02-s9"}}),
    ("g = :g AND begins_with(gs, :a)", {":a": {"S": "03-"}}),
]


# Page sizes: one item, a few (an odd size, so pages end mid-run of ties), and more
# than a window holds; NIMBUS_FULL_STORIES=1 adds the sizes in between.
_LIMITS = (1, 2, 3, 7, 100) if os.environ.get("NIMBUS_FULL_STORIES") else (1, 3, 100)


def _range_story(ddb) -> list:
    _fill(ddb)
    # Ties on the index's range key: the table's keys order them.
    for n in range(6):
        ddb.put_item(TableName=TABLE, Item={"pk": {"S": f"T{n % 2}"}, "sk": {"S": f"t{n}"},
                                            "g": {"S": "G1"}, "gs": {"S": "01-tie"}})

    def read_all() -> list:
        story = []
        for limit in _LIMITS:
            for forward in (True, False):
                for condition, values in _CONDITIONS:
                    story.append(_all_pages(
                        ddb, TableName=TABLE, KeyConditionExpression=condition,
                        ExpressionAttributeValues={":p": {"S": "P2"}, **values},
                        Limit=limit, ScanIndexForward=forward))
                for condition, values in _INDEX_CONDITIONS:
                    story.append(_all_pages(
                        ddb, TableName=TABLE, IndexName="by-g",
                        KeyConditionExpression=condition,
                        ExpressionAttributeValues={":g": {"S": "G1"}, **values},
                        Limit=limit, ScanIndexForward=forward))
        story.append(_all_pages(ddb, TableName=TABLE, KeyConditionExpression="pk = :p",
                                ExpressionAttributeValues={":p": {"S": "P2"},
                                                           ":t": {"BOOL": True}},
                                FilterExpression="flag = :t", Limit=4))
        return story

    story = [read_all()]
    ddb.put_item(TableName=TABLE, Item=_item("P2", "s0105", 7))      # into the middle
    ddb.delete_item(TableName=TABLE, Key={"pk": {"S": "P2"}, "sk": {"S": "s011"}})
    ddb.update_item(TableName=TABLE, Key={"pk": {"S": "P2"}, "sk": {"S": "s012"}},
                    UpdateExpression="SET gs = :s", ExpressionAttributeValues={
                        ":s": {"S": "00-moved"}})
    ddb.put_item(TableName=TABLE, Item={**_item("P2", "s013", 13), "g": {"S": "G1"}})
    story.append(read_all())
    return story


def test_sorted_windows_answer_as_moto():
    """A Query given only its window of a sorted partition answers what moto's own
    code answers, page by page, for every key condition both ways, before and after
    writes that add, remove and move items."""
    fast, slow = _told_both_ways(_range_story)
    assert fast == slow
    first = fast[0]
    assert len(first) == len(_LIMITS) * 2 * (len(_CONDITIONS) + len(_INDEX_CONDITIONS)) + 1
    assert any(len(pages) > 5 for pages in first)
    assert fast[0] != fast[1]      # the writes show
