"""What the twin does as AWS does where moto 5.2.5 does otherwise (or crashes), its
refusal of what it does not model, and its atomicity under threads.  Twin only."""
from __future__ import annotations

import threading

import pytest
from botocore.exceptions import ClientError

from tests.twin.differential import backend, client
from tests.twin.errors import Unsupported
from tests.twin.test_twin_dynamodb import TABLE, make_table

S = lambda text: {"S": text}  # noqa: E731
N = lambda number: {"N": str(number)}  # noqa: E731
KEY = {"pk": S("k"), "sk": S("1")}


@pytest.fixture
def ddb():
    with backend("twin"):
        made = client("dynamodb")
        make_table(made)
        yield made


def code(call, **kwargs) -> tuple[str, str]:
    with pytest.raises(ClientError) as caught:
        call(**kwargs)
    return caught.value.response["Error"]["Code"], caught.value.response["Error"]["Message"]


def test_numbers_come_back_normalised(ddb):
    ddb.put_item(TableName=TABLE, Item={**KEY, "a": N("1.50"), "b": N("1E+2"), "c": N("-0"),
                                        "s": {"NS": ["01", "2.0"]}})
    item = ddb.get_item(TableName=TABLE, Key=KEY)["Item"]
    assert (item["a"], item["b"], item["c"]) == (N("1.5"), N("100"), N("0"))
    assert sorted(item["s"]["NS"]) == ["1", "2"]
    assert code(ddb.put_item, TableName=TABLE, Item={**KEY, "a": N("1" * 39)})[0] \
        == "ValidationException"


def test_requests_dynamodb_refuses_and_moto_accepts(ddb):
    assert code(ddb.get_item, TableName=TABLE, Key={"pk": N(1), "sk": S("1")}) == (
        "ValidationException", "The provided key element does not match the schema")
    assert code(ddb.put_item, TableName=TABLE, Item=KEY, ConditionExpression="a = :a",
                ExpressionAttributeValues={":a": N(1), ":b": N(2)})[1] == (
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:b}")
    assert "not defined" in code(ddb.put_item, TableName=TABLE, Item=KEY,
                                 ConditionExpression="#a = :a",
                                 ExpressionAttributeValues={":a": N(1)})[1]
    assert "reserved keyword; reserved keyword: name" in code(
        ddb.put_item, TableName=TABLE, Item=KEY, ConditionExpression="name = :a",
        ExpressionAttributeValues={":a": N(1)})[1]
    assert code(ddb.batch_write_item, RequestItems={TABLE: [
        {"PutRequest": {"Item": KEY}}, {"DeleteRequest": {"Key": KEY}}]})[1] \
        == "Provided list of item keys contains duplicates"
    assert code(ddb.batch_write_item, RequestItems={TABLE: [
        {"PutRequest": {"Item": {"pk": S("k"), "sk": S(str(i))}}} for i in range(26)]})[0] \
        == "ValidationException"
    assert code(ddb.query, TableName=TABLE, IndexName="nope",
                KeyConditionExpression="gsi1pk = :g", ExpressionAttributeValues={
                    ":g": S("g")}) == ("ValidationException",
                                       "The table does not have the specified index: nope")
    assert code(ddb.query, TableName=TABLE, KeyConditionExpression="pk = :p AND sk = :n",
                ExpressionAttributeValues={":p": S("k"), ":n": N(1)})[0] == "ValidationException"
    assert code(ddb.query, TableName=TABLE, KeyConditionExpression="pk = :p OR sk = :p",
                ExpressionAttributeValues={":p": S("k")})[1] \
        == "Invalid operator used in KeyConditionExpression: OR"


def test_conditions_on_missing_attributes(ddb):
    ddb.put_item(TableName=TABLE, Item=KEY)
    # A missing attribute equals nothing, NULL included, and differs from everything.
    for condition, holds in (("a <> :v", True), ("a = :v", False), ("a = :null", False),
                             ("a < :v", False), ("NOT (a = :v)", True)):
        values = {":v": N(1)} if ":v" in condition else {":null": {"NULL": True}}
        try:
            ddb.put_item(TableName=TABLE, Item=KEY, ConditionExpression=condition,
                         ExpressionAttributeValues=values)
            assert holds, condition
        except ClientError as exc:
            assert not holds and exc.response["Error"]["Code"] \
                == "ConditionalCheckFailedException", condition


def test_update_answers_and_data_errors_in_transactions(ddb):
    ddb.put_item(TableName=TABLE, Item={**KEY, "m": {"M": {"a": N(1), "b": N(2)}},
                                        "s": S("text")})
    answer = ddb.update_item(TableName=TABLE, Key=KEY, UpdateExpression="SET m.a = :v",
                             ExpressionAttributeValues={":v": N(5)}, ReturnValues="UPDATED_NEW")
    assert answer["Attributes"] == {"m": {"M": {"a": N(5)}}}
    assert "operand type" in code(ddb.update_item, TableName=TABLE, Key=KEY,
                                  UpdateExpression="SET a = s + :v",
                                  ExpressionAttributeValues={":v": S("x")})[1]
    # Inside a transaction a data-dependent refusal is a ValidationError reason.
    with pytest.raises(ClientError) as caught:
        ddb.transact_write_items(TransactItems=[
            {"Update": {"TableName": TABLE, "Key": KEY, "UpdateExpression": "SET a = s + :v",
                        "ExpressionAttributeValues": {":v": N(1)}}},
            {"Put": {"TableName": TABLE, "Item": {"pk": S("k"), "sk": S("2")}}}])
    assert caught.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert [r["Code"] for r in caught.value.response["CancellationReasons"]] \
        == ["ValidationError", "None"]
    big = {"Update": {"TableName": TABLE, "Key": KEY, "UpdateExpression": "SET d = :d",
                      "ExpressionAttributeValues": {":d": S("x" * 409_700)}}}
    with pytest.raises(ClientError) as caught:
        ddb.transact_write_items(TransactItems=[big])
    reason = caught.value.response["CancellationReasons"][0]
    assert reason == {"Code": "ValidationError",
                      "Message": "Item size to update has exceeded the maximum allowed size"}


def test_s3_quiet_deletes_and_unknown_uploads():
    with backend("twin"):
        s3 = client("s3")
        s3.create_bucket(Bucket="bkt")
        s3.put_object(Bucket="bkt", Key="k", Body=b"x")
        assert "Deleted" not in s3.delete_objects(Bucket="bkt", Delete={
            "Objects": [{"Key": "k"}], "Quiet": True})
        assert code(s3.upload_part, Bucket="bkt", Key="k", UploadId="nope", PartNumber=1,
                    Body=b"x")[0] == "NoSuchUpload"
        assert code(s3.put_object, Bucket="bkt", Key="k", Body=b"x",
                    ChecksumSHA256="AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")[0] == "BadDigest"


def test_what_the_twin_does_not_model_fails_loudly(ddb):
    with pytest.raises(Unsupported, match="dynamodb DescribeContinuousBackups"):
        ddb.describe_continuous_backups(TableName=TABLE)
    s3 = client("s3")
    s3.create_bucket(Bucket="bkt")
    with pytest.raises(Unsupported, match="s3 GetBucketPolicy"):
        s3.get_bucket_policy(Bucket="bkt")
    with pytest.raises(Unsupported, match="sns"):
        client("sns").list_topics()


def test_each_request_is_atomic_under_threads(ddb):
    ddb.put_item(TableName=TABLE, Item={**KEY, "n": N(0)})
    won, lost = [], []

    def work(i: int) -> None:
        for _ in range(25):
            ddb.update_item(TableName=TABLE, Key=KEY, UpdateExpression="ADD n :one",
                            ExpressionAttributeValues={":one": N(1)})
        try:
            ddb.put_item(TableName=TABLE, Item={"pk": S("once"), "sk": S("1"), "by": N(i)},
                         ConditionExpression="attribute_not_exists(pk)")
            won.append(i)
        except ClientError:
            lost.append(i)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert ddb.get_item(TableName=TABLE, Key=KEY)["Item"]["n"] == N(200)
    assert len(won) == 1 and len(lost) == 7
