"""A Query of one page in the local runtime's moto, as its partition grows.

    .venv/bin/python bench/local_query_sizes.py [--sizes 100 1000 10000] [--repeat 20]

For each size, a partition of that many items is added to one table (and an index
partition of as many), then a Query of 10 items is timed, moto's own code
(``moto_speed.uninstall()``) and the patched code (``moto_query.py``'s sorted windows)
in turn: on the table's key, newest first, with ``begins_with``, with an
``ExclusiveStartKey`` in the middle, and on the index.  DynamoDB reads only the page:
the patched column should not grow with the size.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _queries(size: int) -> dict[str, dict]:
    key = {":p": {"S": f"P{size}"}}
    middle = {"pk": {"S": f"P{size}"}, "sk": {"S": f"s{size // 2:06d}"}}
    return {
        "table": dict(KeyConditionExpression="pk = :p", ExpressionAttributeValues=key),
        "newest first": dict(KeyConditionExpression="pk = :p", ScanIndexForward=False,
                             ExpressionAttributeValues=key),
        "begins_with": dict(KeyConditionExpression="pk = :p AND begins_with(sk, :b)",
                            ExpressionAttributeValues={**key, ":b": {"S": "s0000"}}),
        "from the middle": dict(KeyConditionExpression="pk = :p", ExclusiveStartKey=middle,
                                ExpressionAttributeValues=key),
        "index": dict(IndexName="by-g", KeyConditionExpression="g = :g",
                      ExpressionAttributeValues={":g": {"S": f"G{size}"}}),
    }


def main() -> int:
    import boto3
    from moto import mock_aws

    from chalicelib.local import moto_speed

    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10000])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    with mock_aws():
        moto_speed.install()
        ddb = boto3.client("dynamodb", region_name="us-east-1")
        ddb.create_table(
            TableName="t", BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                       {"AttributeName": "sk", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"}
                                  for a in ("pk", "sk", "g", "gs")],
            GlobalSecondaryIndexes=[{
                "IndexName": "by-g", "Projection": {"ProjectionType": "ALL"},
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                              {"AttributeName": "gs", "KeyType": "RANGE"}]}])
        print(f"{'':28}{'moto':>10}{'patched':>10}   (ms, median of {args.repeat})")
        for size in sorted(args.sizes):
            for n in range(size):
                ddb.put_item(TableName="t", Item={
                    "pk": {"S": f"P{size}"}, "sk": {"S": f"s{n:06d}"}, "g": {"S": f"G{size}"},
                    "gs": {"S": f"x{n:06d}"}, "text": {"S": "some words " * 5}})
            for name, query in _queries(size).items():
                times = {}
                for label in ("moto", "patched"):
                    if label == "moto":
                        moto_speed.uninstall()
                    else:
                        moto_speed.install()
                    ddb.query(TableName="t", Limit=10, **query)
                    samples = []
                    for _ in range(args.repeat):
                        started = time.perf_counter()
                        ddb.query(TableName="t", Limit=10, **query)
                        samples.append(time.perf_counter() - started)
                    times[label] = statistics.median(samples) * 1000
                print(f"{size:>6} {name:21}{times['moto']:>10.2f}{times['patched']:>10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
