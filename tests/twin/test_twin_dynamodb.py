"""DynamoDB through raw boto3 calls: the same requests against moto and the twin give
the same answers and the same errors (tests/twin/differential.py)."""
from __future__ import annotations

from tests.twin.differential import Record, assert_same, client

TABLE = "things"


def make_table(ddb, name: str = TABLE, range_type: str = "S") -> None:
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": t} for n, t in (
            ("pk", "S"), ("sk", range_type), ("gsi1pk", "S"), ("gsi1sk", "S"))],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[{"IndexName": "gsi1", "Projection": {"ProjectionType": "ALL"},
                                 "KeySchema": [{"AttributeName": "gsi1pk", "KeyType": "HASH"},
                                               {"AttributeName": "gsi1sk", "KeyType": "RANGE"}]}])


def S(text: str) -> dict:
    return {"S": text}


def N(number) -> dict:
    return {"N": str(number)}


def test_put_get_delete_with_conditions_and_return_values():
    def scenario():
        ddb, log = client("dynamodb"), Record()
        make_table(ddb)
        key = {"pk": S("a"), "sk": S("1")}
        log.call(ddb.put_item, TableName=TABLE, Item={**key, "n": N("1.5"), "s": S("x")},
                 ReturnValues="ALL_OLD")
        log.call(ddb.put_item, TableName=TABLE, Item={**key, "n": N(2)},
                 ConditionExpression="attribute_not_exists(pk)")
        log.call(ddb.put_item, TableName=TABLE, Item={**key, "n": N(2)},
                 ConditionExpression="attribute_not_exists(pk)",
                 ReturnValuesOnConditionCheckFailure="ALL_OLD")
        log.call(ddb.put_item, TableName=TABLE, Item={**key, "n": N(3)}, ReturnValues="ALL_OLD",
                 ConditionExpression="#n = :one AND s IN (:x, :y)",
                 ExpressionAttributeNames={"#n": "n"},
                 ExpressionAttributeValues={":one": N("1.5"), ":x": S("x"), ":y": S("y")})
        log.call(ddb.get_item, TableName=TABLE, Key=key, ConsistentRead=True)
        log.call(ddb.get_item, TableName=TABLE, Key={"pk": S("a"), "sk": S("2")})
        log.call(ddb.get_item, TableName=TABLE, Key={"pk": S("a")}, code_only=True)
        log.call(ddb.get_item, TableName="missing", Key=key)
        log.call(ddb.delete_item, TableName=TABLE, Key=key, ConditionExpression="n > :v",
                 ExpressionAttributeValues={":v": N(5)})
        log.call(ddb.delete_item, TableName=TABLE, Key=key, ReturnValues="ALL_OLD",
                 ConditionExpression="n <> :v", ExpressionAttributeValues={":v": N(5)})
        log.call(ddb.delete_item, TableName=TABLE, Key=key, ReturnValues="ALL_OLD")
        log.call(ddb.put_item, TableName=TABLE, Item={"pk": S(""), "sk": S("1")}, code_only=True)
        log.call(ddb.put_item, TableName=TABLE, Item={"pk": S("a")})
        log.call(ddb.put_item, TableName=TABLE, Item={"pk": S("a"), "sk": N(1)})
        log.call(ddb.put_item, TableName=TABLE, Item={**key, "ss": {"SS": []}}, code_only=True)
        log.call(ddb.put_item, TableName=TABLE, Item={**key, "gsi1pk": S("")})
        log.call(ddb.put_item, TableName=TABLE, Item={**key, "e": S(""), "l": {"L": []},
                                                      "m": {"M": {}}})
        log.call(ddb.get_item, TableName=TABLE, Key=key)
        log.call(ddb.put_item, TableName=TABLE, Item=key, ConditionExpression="e = :v",
                 ExpressionAttributeValues={":v": S("")})
        log.call(ddb.put_item, TableName=TABLE, Item=key, ConditionExpression="name = :v",
                 ExpressionAttributeValues={":v": S("")})
        return log
    assert_same(scenario)


def test_item_size_limit():
    def scenario():
        ddb, log = client("dynamodb"), Record()
        make_table(ddb)
        key = {"pk": S("big"), "sk": S("1")}
        log.call(ddb.put_item, TableName=TABLE, Item={**key, "d": S("x" * 400_000)})
        log.call(ddb.put_item, TableName=TABLE, Item={**key, "d": S("x" * 410_000)})
        log.call(ddb.update_item, TableName=TABLE, Key=key, UpdateExpression="SET e = :v",
                 ExpressionAttributeValues={":v": S("y" * 20_000)})
        log.note(len(ddb.get_item(TableName=TABLE, Key=key)["Item"]["d"]["S"]))
        return log
    assert_same(scenario)


def test_updates_of_every_kind():
    def scenario():
        ddb, log = client("dynamodb"), Record()
        make_table(ddb)
        key = {"pk": S("u"), "sk": S("1")}

        def update(expression, values=None, names=None, returns="ALL_NEW", code_only=False,
                   **extra):
            kwargs = {"TableName": TABLE, "Key": key, "UpdateExpression": expression,
                      "ReturnValues": returns, **extra}
            if values:
                kwargs["ExpressionAttributeValues"] = values
            if names:
                kwargs["ExpressionAttributeNames"] = names
            log.call(ddb.update_item, code_only=code_only, **kwargs)

        update("ADD hits :one", {":one": N(1)})                  # creates the item
        update("ADD hits :one", {":one": N("0.5")}, returns="UPDATED_NEW")
        update("SET #c = if_not_exists(#c, :zero) + :two", {":zero": N(0), ":two": N(2)},
               {"#c": "count"})
        update("SET l = list_append(if_not_exists(l, :empty), :xs)",
               {":empty": {"L": []}, ":xs": {"L": [S("a"), S("b")]}})
        update("SET l[5] = :c, m = :m", {":c": S("c"), ":m": {"M": {"k": {"L": [N(1), N(2)]}}}})
        update("SET l = :c", {":c": {"L": [S("B")]}}, returns="UPDATED_OLD")
        update("SET m.k[1] = :v, m.j = :v REMOVE l[0]", {":v": N(9)})
        update("ADD tags :t", {":t": {"SS": ["x", "y"]}})
        update("ADD tags :t DELETE nums :n", {":t": {"SS": ["y", "z"]}, ":n": {"NS": ["1"]}})
        update("DELETE tags :t", {":t": {"SS": ["x", "y", "z"]}}, returns="UPDATED_OLD")
        update("SET a = :v, b = a", {":v": N(1)})
        update("SET hits = hits - :v", {":v": N(10)}, returns="UPDATED_NEW")
        update("SET a = nothing + :v", {":v": N(1)})
        update("SET a = s + :v", {":v": N(1)})
        update("SET m.missing.deep = :v", {":v": N(1)})
        update("SET pk = :v", {":v": S("other")})
        update("SET a = :v REMOVE a", {":v": N(1)}, code_only=True)
        update("SET m = :v, m.k = :v", {":v": N(1)}, code_only=True)
        update("SET a = :v SET b = :v", {":v": N(1)}, code_only=True)
        update("ADD s :v", {":v": S("text")}, code_only=True)
        update("ADD hits :v", {":v": {"SS": ["a"]}})
        update("REMOVE a, b, nothing", returns="ALL_OLD")
        update("SET x = :v", {":v": N(1)}, ConditionExpression="attribute_exists(nope)",
               ReturnValuesOnConditionCheckFailure="ALL_OLD")
        update("SET gsi1pk = :v", {":v": S("")})
        update("SET gsi1pk = :v, gsi1sk = :w", {":v": S("g"), ":w": S("1")}, returns="NONE")
        log.call(ddb.query, TableName=TABLE, IndexName="gsi1",
                 KeyConditionExpression="gsi1pk = :g", ExpressionAttributeValues={":g": S("g")})
        return log
    assert_same(scenario)


def fill(ddb, count: int = 12) -> None:
    for i in range(count):
        item = {"pk": S("p"), "sk": S(f"{i:02d}"), "n": N(i), "odd": {"BOOL": bool(i % 2)}}
        if i % 3:
            item.update(gsi1pk=S("g"), gsi1sk=S(f"{(i * 7) % 5}"))
        ddb.put_item(TableName=TABLE, Item=item)
    ddb.put_item(TableName=TABLE, Item={"pk": S("q"), "sk": S("00"), "gsi1pk": S("g"),
                                        "gsi1sk": S("2")})


def test_queries_filters_limits_paging_reverse_and_indexes():
    def scenario():
        ddb, log = client("dynamodb"), Record()
        make_table(ddb)
        fill(ddb)

        def query(**kwargs):
            kwargs.setdefault("TableName", TABLE)
            return log.call(ddb.query, **kwargs)

        p = {":p": S("p")}
        query(KeyConditionExpression="pk = :p", ExpressionAttributeValues=p)
        query(KeyConditionExpression="pk = :p AND sk BETWEEN :a AND :b",
              ExpressionAttributeValues={**p, ":a": S("03"), ":b": S("07")},
              ScanIndexForward=False)
        query(KeyConditionExpression="pk = :p AND begins_with(sk, :a)",
              ExpressionAttributeValues={**p, ":a": S("1")})
        query(KeyConditionExpression="pk = :p AND sk > :a", FilterExpression="odd = :t",
              ExpressionAttributeValues={**p, ":a": S("02"), ":t": {"BOOL": True}}, Limit=4)
        query(KeyConditionExpression="pk = :p", Select="COUNT", FilterExpression="n >= :five",
              ExpressionAttributeValues={**p, ":five": N(5)})
        query(KeyConditionExpression="pk = :p", ProjectionExpression="sk, #n",
              ExpressionAttributeNames={"#n": "n"}, ExpressionAttributeValues=p, Limit=3)
        page = query(KeyConditionExpression="pk = :p", ExpressionAttributeValues=p, Limit=5,
                     ScanIndexForward=False)
        while page and "LastEvaluatedKey" in page:
            page = query(KeyConditionExpression="pk = :p", ExpressionAttributeValues=p, Limit=5,
                         ScanIndexForward=False, ExclusiveStartKey=page["LastEvaluatedKey"])
        query(IndexName="gsi1", KeyConditionExpression="gsi1pk = :g",
              ExpressionAttributeValues={":g": S("g")})
        page = query(IndexName="gsi1", KeyConditionExpression="gsi1pk = :g AND gsi1sk >= :s",
                     ExpressionAttributeValues={":g": S("g"), ":s": S("1")}, Limit=2)
        while page and "LastEvaluatedKey" in page:
            page = query(IndexName="gsi1", KeyConditionExpression="gsi1pk = :g AND gsi1sk >= :s",
                         ExpressionAttributeValues={":g": S("g"), ":s": S("1")}, Limit=2,
                         ExclusiveStartKey=page["LastEvaluatedKey"])
        query(IndexName="gsi1", KeyConditionExpression="gsi1pk = :g", ConsistentRead=True,
              ExpressionAttributeValues={":g": S("g")})
        query(KeyConditionExpression="sk = :p", ExpressionAttributeValues=p)
        return log
    assert_same(scenario)


def test_scans_segments_and_numbers_ordered_by_value():
    def scenario():
        ddb, log = client("dynamodb"), Record()
        make_table(ddb, "numbers", range_type="N")
        for value in ("10", "-3", "2.5", "100", "0", "-0.01", "1000000000000000000000", "7"):
            log.call(ddb.put_item, TableName="numbers",
                     Item={"pk": S("n"), "sk": N(value), "v": N(value)})
        log.call(ddb.query, TableName="numbers", KeyConditionExpression="pk = :n",
                 ExpressionAttributeValues={":n": S("n")})
        log.call(ddb.query, TableName="numbers", KeyConditionExpression="pk = :n AND sk < :z",
                 ExpressionAttributeValues={":n": S("n"), ":z": N(1)}, ScanIndexForward=False)
        keys = set()
        for segment in range(3):
            answer = ddb.scan(TableName="numbers", Segment=segment, TotalSegments=3)
            keys |= {item["sk"]["N"] for item in answer["Items"]}
        log.note(sorted(keys))
        found, start = [], {}
        while True:
            answer = ddb.scan(TableName="numbers", Limit=3, FilterExpression="v > :z",
                              ExpressionAttributeValues={":z": N(0)}, **start)
            found += [item["sk"]["N"] for item in answer["Items"]]
            if "LastEvaluatedKey" not in answer:
                break
            start = {"ExclusiveStartKey": answer["LastEvaluatedKey"]}
        log.note(sorted(found))
        log.call(ddb.scan, TableName="numbers", Segment=3, TotalSegments=3, code_only=True)
        return log
    assert_same(scenario)


def test_batches():
    def scenario():
        ddb, log = client("dynamodb"), Record()
        make_table(ddb)
        log.call(ddb.batch_write_item, RequestItems={TABLE: [
            {"PutRequest": {"Item": {"pk": S("b"), "sk": S(str(i)), "v": N(i)}}}
            for i in range(5)]})
        log.call(ddb.batch_write_item, RequestItems={TABLE: [
            {"DeleteRequest": {"Key": {"pk": S("b"), "sk": S("0")}}}]})
        answer = log.call(ddb.batch_get_item, RequestItems={TABLE: {
            "Keys": [{"pk": S("b"), "sk": S(str(i))} for i in range(6)],
            "ProjectionExpression": "sk, v", "ConsistentRead": True}})
        log.note(sorted(i["sk"]["S"] for i in answer["Responses"][TABLE]))
        log.call(ddb.batch_get_item, RequestItems={TABLE: {
            "Keys": [{"pk": S("b"), "sk": S("1")}, {"pk": S("b"), "sk": S("1")}]}})
        log.call(ddb.batch_get_item, RequestItems={TABLE: {
            "Keys": [{"pk": S("b"), "sk": S(str(i))} for i in range(101)]}}, code_only=True)
        return log
    assert_same(scenario)


def test_transactions_commit_whole_or_cancel_with_reasons():
    def scenario():
        ddb, log = client("dynamodb"), Record()
        make_table(ddb)
        one, two = {"pk": S("t"), "sk": S("1")}, {"pk": S("t"), "sk": S("2")}
        log.call(ddb.transact_write_items, TransactItems=[
            {"Put": {"TableName": TABLE, "Item": {**one, "v": N(1)},
                     "ConditionExpression": "attribute_not_exists(pk)"}},
            {"Update": {"TableName": TABLE, "Key": two, "UpdateExpression": "ADD v :one",
                        "ExpressionAttributeValues": {":one": N(1)}}}])
        log.call(ddb.transact_write_items, TransactItems=[
            {"ConditionCheck": {"TableName": TABLE, "Key": one,
                                "ConditionExpression": "v = :one",
                                "ExpressionAttributeValues": {":one": N(1)}}},
            {"Put": {"TableName": TABLE, "Item": {**two, "v": N(5)},
                     "ConditionExpression": "attribute_not_exists(pk)",
                     "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
            {"Delete": {"TableName": TABLE, "Key": {"pk": S("t"), "sk": S("3")}}}])
        log.call(ddb.transact_write_items, TransactItems=[
            {"Delete": {"TableName": TABLE, "Key": one,
                        "ConditionExpression": "v = :two",
                        "ExpressionAttributeValues": {":two": N(2)}}},
            {"Update": {"TableName": TABLE, "Key": two, "UpdateExpression": "SET w = :w",
                        "ConditionExpression": "v = :one",
                        "ExpressionAttributeValues": {":one": N(1), ":w": S("w")}}}])
        log.call(ddb.transact_write_items, TransactItems=[
            {"Put": {"TableName": TABLE, "Item": {**one, "v": N(9)}}},
            {"Delete": {"TableName": TABLE, "Key": one}}])
        log.call(ddb.transact_write_items, TransactItems=[
            {"Put": {"TableName": TABLE, "Item": {"pk": S("t"), "sk": S(f"x{i}")}}}
            for i in range(101)])
        log.call(ddb.transact_get_items, TransactItems=[
            {"Get": {"TableName": TABLE, "Key": key}} for key in (one, two,
                                                                   {"pk": S("t"), "sk": S("9")})])
        log.call(ddb.transact_write_items, TransactItems=[
            {"Update": {"TableName": TABLE, "Key": two, "UpdateExpression": "SET w = :w",
                        "ConditionExpression": "v = :one",
                        "ExpressionAttributeValues": {":one": N(1), ":w": S("changed")}}}])
        log.call(ddb.get_item, TableName=TABLE, Key=two)
        return log
    assert_same(scenario)


def test_tables_and_ttl():
    def scenario():
        ddb, log = client("dynamodb"), Record()
        make_table(ddb)
        log.call(ddb.list_tables)
        log.call(ddb.describe_time_to_live, TableName=TABLE)
        log.call(ddb.update_time_to_live, TableName=TABLE,
                 TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"})
        log.call(ddb.describe_time_to_live, TableName=TABLE)
        ddb.put_item(TableName=TABLE, Item={"pk": S("i"), "sk": S("1"), "gsi2pk": S("x"),
                                            "gsi2sk": S("y")})
        ddb.update_table(TableName=TABLE, AttributeDefinitions=[
            {"AttributeName": "gsi2pk", "AttributeType": "S"},
            {"AttributeName": "gsi2sk", "AttributeType": "S"}], GlobalSecondaryIndexUpdates=[
            {"Create": {"IndexName": "gsi2", "Projection": {"ProjectionType": "ALL"},
                        "KeySchema": [{"AttributeName": "gsi2pk", "KeyType": "HASH"},
                                      {"AttributeName": "gsi2sk", "KeyType": "RANGE"}]}}])
        described = ddb.describe_table(TableName=TABLE)["Table"]
        log.note(sorted(i["IndexName"] for i in described["GlobalSecondaryIndexes"]))
        log.note([described["TableStatus"], described["KeySchema"], described["ItemCount"]])
        log.call(ddb.query, TableName=TABLE, IndexName="gsi2",
                 KeyConditionExpression="gsi2pk = :x", ExpressionAttributeValues={":x": S("x")})
        log.call(ddb.describe_table, TableName="missing")
        log.call(ddb.create_table, TableName=TABLE, BillingMode="PAY_PER_REQUEST",
                 AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                 KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        ddb.delete_table(TableName=TABLE)
        log.call(ddb.list_tables)
        return log
    assert_same(scenario)
