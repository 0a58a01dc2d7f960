"""DynamoDB requests are atomic under concurrency, in the embedded moto of the local
runtime and in the in-process ``mock_aws`` of the test fixtures.

moto alone is not (chalicelib/local/aws_requests.py): without the locks these tests
fail every round (lost updates, two transactions winning on one version, 500s).
``NIMBUS_RACE_ROUNDS`` sets how many rounds each test runs (50 to check by hand).
"""
from __future__ import annotations

import os
import sys
import threading

import boto3
import pytest
from botocore.config import Config
from moto import mock_aws

from chalicelib.local.aws_requests import serialized_mock_aws
from chalicelib.local.runtime import LocalRuntime

ROUNDS = int(os.environ.get("NIMBUS_RACE_ROUNDS", "2"))
PUTTERS = 32
TRANSACTORS = 16
COMMITS_EACH = int(os.environ.get("NIMBUS_RACE_COMMITS", "1"))
FILLER_ROWS = int(os.environ.get("NIMBUS_RACE_FILLER", "0"))
SWITCH_INTERVAL = float(os.environ.get("NIMBUS_RACE_SWITCH", "0.0005"))


def _client(endpoint: str | None):
    # One attempt: a 500 must show, not be retried away.  Enough connections for all.
    made = boto3.session.Session().client(
        "dynamodb", region_name="us-east-1", endpoint_url=endpoint,
        aws_access_key_id="testing", aws_secret_access_key="testing",
        config=Config(retries={"max_attempts": 1}, max_pool_connections=PUTTERS * 2))
    # botocore builds a client's exception classes on first use, without a lock: two
    # threads racing there get different classes, and an ``except`` naming one misses
    # the other.  Build them before any thread starts.
    made.exceptions.ConditionalCheckFailedException  # noqa: B018 - evaluated for its effect
    return made


def _create_table(ddb, name: str) -> str:
    """A table of its own for each round, with FILLER_ROWS other items: unpatched, moto
    copies the whole table for every transaction (and puts the copy back when one
    fails, undoing what other threads wrote meanwhile), so the table's size set how long
    its race window stayed open (chalicelib/local/moto_transactions.py now keeps only
    the named items)."""
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    rows = [{"PutRequest": {"Item": {"pk": {"S": f"filler-{row}"}, "x": {"S": "x" * 100}}}}
            for row in range(FILLER_ROWS)]
    for start in range(0, len(rows), 25):
        ddb.batch_write_item(RequestItems={name: rows[start:start + 25]})
    return name


@pytest.fixture(autouse=True)
def frequent_thread_switches():
    """Switch threads every few microseconds instead of every 5 ms, so that a race
    window of a few lines (moto's check, then write) opens often, as it would with
    real parallelism."""
    default = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL)
    yield
    sys.setswitchinterval(default)


def _together(count: int, work) -> list[str]:
    """Run ``work(i)`` in ``count`` threads released at once; the errors they raised."""
    start = threading.Barrier(count)
    errors: list[str] = []

    def run(i: int) -> None:
        start.wait()
        try:
            work(i)
        except Exception as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(repr(exc)[:300])

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return errors


def conditional_puts_have_one_winner(ddb, round_: int) -> None:
    table, key = _create_table(ddb, f"names-{round_}"), "name"
    winners = []

    def put(i: int) -> None:
        try:
            ddb.put_item(TableName=table, Item={"pk": {"S": key}, "winner": {"N": str(i)}},
                         ConditionExpression="attribute_not_exists(pk)")
            winners.append(i)
        except ddb.exceptions.ConditionalCheckFailedException:
            pass

    errors = _together(PUTTERS, put)
    assert errors == []
    assert len(winners) == 1
    stored = ddb.get_item(TableName=table, Key={"pk": {"S": key}}, ConsistentRead=True)["Item"]
    assert stored["winner"]["N"] == str(winners[0])


def versioned_transactions_lose_no_update(ddb, round_: int) -> None:
    """Each thread commits COMMITS_EACH transactions, each moving the counter from the
    version it read to the next and creating a marker item for that version."""
    table, key = _create_table(ddb, f"counters-{round_}"), "counter"
    counter = {"pk": {"S": key}}
    ddb.put_item(TableName=table, Item={**counter, "version": {"N": "0"}})
    committed: list[int] = []

    def commit(i: int) -> None:
        done = 0
        while done < COMMITS_EACH:
            item = ddb.get_item(TableName=table, Key=counter, ConsistentRead=True)["Item"]
            seen = int(item["version"]["N"])
            try:
                ddb.transact_write_items(TransactItems=[
                    {"Update": {"TableName": table, "Key": counter,
                                "UpdateExpression": "SET version = :next",
                                "ConditionExpression": "version = :seen",
                                "ExpressionAttributeValues": {":seen": {"N": str(seen)},
                                                              ":next": {"N": str(seen + 1)}}}},
                    {"Put": {"TableName": table,
                             "Item": {"pk": {"S": f"{key}-v{seen + 1}"}, "by": {"N": str(i)}},
                             "ConditionExpression": "attribute_not_exists(pk)"}}])
            except ddb.exceptions.TransactionCanceledException:
                continue  # another thread moved the version first: read again
            committed.append(seen + 1)
            done += 1

    errors = _together(TRANSACTORS, commit)
    assert errors == []
    assert sorted(committed) == list(range(1, TRANSACTORS * COMMITS_EACH + 1))
    final = ddb.get_item(TableName=table, Key=counter, ConsistentRead=True)["Item"]
    assert final["version"]["N"] == str(len(committed))
    for version in committed:
        marker = {"pk": {"S": f"{key}-v{version}"}}
        assert "Item" in ddb.get_item(TableName=table, Key=marker, ConsistentRead=True)


@pytest.fixture(scope="module")
def embedded_dynamodb(tmp_path_factory):
    """A client of the local runtime's embedded moto (through its HTTP endpoint)."""
    with LocalRuntime(port=0, data_dir=tmp_path_factory.mktemp("race"),
                      handler=lambda event, context: {"statusCode": 204},
                      access_log=False) as runtime:
        yield _client(runtime.moto.endpoint)


@pytest.fixture
def in_process_dynamodb():
    """A client of ``mock_aws``, serialized as conftest's ``aws`` fixture should be."""
    with mock_aws(), serialized_mock_aws():
        yield _client(None)


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_embedded_conditional_puts_have_one_winner(embedded_dynamodb, round_):
    conditional_puts_have_one_winner(embedded_dynamodb, round_)


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_embedded_transactions_lose_no_update(embedded_dynamodb, round_):
    versioned_transactions_lose_no_update(embedded_dynamodb, round_)


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_in_process_conditional_puts_have_one_winner(in_process_dynamodb, round_):
    conditional_puts_have_one_winner(in_process_dynamodb, round_)


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_in_process_transactions_lose_no_update(in_process_dynamodb, round_):
    versioned_transactions_lose_no_update(in_process_dynamodb, round_)


def a_failed_transaction_leaves_every_item_as_it_was(ddb, round_: int) -> None:
    """moto_transactions keeps only the named items for the rollback: a transaction
    that fails half-way (a condition, or an invalid update after writes) must still
    change nothing, and items it does not name must stay."""
    from botocore.exceptions import ClientError

    table = _create_table(ddb, f"rollback-{round_}")
    ddb.put_item(TableName=table, Item={"pk": {"S": "counter"}, "n": {"N": "1"}})
    ddb.put_item(TableName=table, Item={"pk": {"S": "bystander"}, "n": {"N": "7"}})
    writes = [
        {"Put": {"TableName": table, "Item": {"pk": {"S": "new"}, "n": {"N": "1"}}}},
        {"Update": {"TableName": table, "Key": {"pk": {"S": "counter"}},
                    "UpdateExpression": "SET n = n + :one",
                    "ExpressionAttributeValues": {":one": {"N": "1"}}}},
        {"Delete": {"TableName": table, "Key": {"pk": {"S": "bystander"}}}},
    ]
    failing_last = [
        {"ConditionCheck": {"TableName": table, "Key": {"pk": {"S": "absent"}},
                            "ConditionExpression": "attribute_exists(pk)"}},
        {"Update": {"TableName": table, "Key": {"pk": {"S": "counter2"}},
                    "UpdateExpression": "SET n = n + :one",     # n missing: invalid
                    "ExpressionAttributeValues": {":one": {"N": "1"}}}},
    ]
    for failing in failing_last:
        with pytest.raises(ClientError):
            ddb.transact_write_items(TransactItems=[*writes, failing])
        items = {item["pk"]["S"]: item["n"]["N"]
                 for item in ddb.scan(TableName=table, ConsistentRead=True)["Items"]}
        assert items == {"counter": "1", "bystander": "7"}, items
    ddb.transact_write_items(TransactItems=writes)
    items = {item["pk"]["S"]: item["n"]["N"]
             for item in ddb.scan(TableName=table, ConsistentRead=True)["Items"]}
    assert items == {"counter": "2", "new": "1"}


def test_embedded_failed_transaction_rolls_back(embedded_dynamodb):
    a_failed_transaction_leaves_every_item_as_it_was(embedded_dynamodb, 0)


def test_in_process_failed_transaction_rolls_back(in_process_dynamodb):
    a_failed_transaction_leaves_every_item_as_it_was(in_process_dynamodb, 0)
