"""Property tests (hypothesis): random items and random condition expressions give the
same answers on moto and on the twin, and random sort keys come back in the same order.

Both backends stay up for the whole module: a moto client made under ``mock_aws``
before the twin is installed talks to moto, a client made after talks to the twin
(the twin's handler goes first; botocore still calls moto's, so moto is paused while
the twin's client works).  Each example writes to a partition of its own.
"""
from __future__ import annotations

import contextlib
import itertools

import pytest
from botocore.exceptions import ClientError
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.twin.differential import error_of, twin_installed
from tests.twin.test_twin_dynamodb import TABLE, make_table

NAMES = {"#a": "a", "#b": "b", "#c": "c", "#x": "x", "#y": "y"}
PATHS = ["#a", "#b", "#c", "#a.#x", "#a[0]", "#b.#y", "#b[1]"]
_partitions = itertools.count()

text = st.text(alphabet="ab\u00e9\U0001f600", max_size=3)
scalars = st.one_of(
    text.map(lambda s: {"S": s}),
    st.integers(-20, 20).map(lambda n: {"N": str(n)}),
    st.sampled_from(["0.5", "-1.25", "100"]).map(lambda n: {"N": n}),
    st.binary(max_size=3).map(lambda b: {"B": b}),
    st.booleans().map(lambda b: {"BOOL": b}),
    st.just({"NULL": True}),
    st.sets(text, min_size=1, max_size=3).map(lambda s: {"SS": sorted(s)}),
    st.sets(st.integers(-3, 3), min_size=1, max_size=3).map(
        lambda s: {"NS": [str(n) for n in sorted(s)]}),
)
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3).map(lambda items: {"L": items}),
    st.dictionaries(st.sampled_from("xyz"), inner, max_size=3).map(lambda m: {"M": m})),
    max_leaves=5)
comparable = values.filter(lambda v: v != {"NULL": True})
orderable = st.one_of(text.map(lambda s: {"S": s}),
                      st.integers(-20, 20).map(lambda n: {"N": str(n)}),
                      st.binary(max_size=3).map(lambda b: {"B": b}))
items = st.fixed_dictionaries({}, optional={"a": values, "b": values, "c": scalars})


@st.composite
def conditions(draw, depth: int = 0, prefix: str = "v") -> tuple[str, dict]:
    """(expression text, the values it uses); ``prefix`` keeps value names distinct."""
    used: dict = {}

    def value(strategy=values) -> str:
        name = f":{prefix}{len(used)}"
        used[name] = draw(strategy)
        return name

    path = lambda: draw(st.sampled_from(PATHS))  # noqa: E731
    kind = draw(st.sampled_from(["cmp", "order", "fn", "between", "in", "size"]
                                + (["and", "or", "not"] if depth < 2 else [])))
    if kind in ("and", "or"):
        left, left_values = draw(conditions(depth + 1, prefix + "l"))
        right, right_values = draw(conditions(depth + 1, prefix + "r"))
        return f"({left}) {kind.upper()} ({right})", {**left_values, **right_values}
    if kind == "not":
        inner, inner_values = draw(conditions(depth + 1, prefix + "n"))
        return f"NOT ({inner})", inner_values
    if kind == "cmp":
        # Not NULL: moto takes a missing attribute as equal to NULL, DynamoDB does not.
        return f"{path()} {draw(st.sampled_from(['=', '<>']))} {value(comparable)}", used
    if kind == "order":
        op = draw(st.sampled_from(["<", "<=", ">", ">="]))
        return f"{path()} {op} {value(orderable)}", used
    if kind == "size":
        op = draw(st.sampled_from(["=", "<", ">="]))
        return f"size({path()}) {op} {value(st.integers(0, 3).map(lambda n: {'N': str(n)}))}", used
    if kind == "between":
        low, high = sorted(draw(st.lists(st.integers(-20, 20), min_size=2, max_size=2)))
        used[f":{prefix}lo"], used[f":{prefix}hi"] = {"N": str(low)}, {"N": str(high)}
        return f"{path()} BETWEEN :{prefix}lo AND :{prefix}hi", used
    if kind == "in":
        return f"{path()} IN ({value(comparable)}, {value(comparable)})", used
    function = draw(st.sampled_from(["attribute_exists", "attribute_not_exists", "begins_with",
                                     "contains", "attribute_type"]))
    if function.startswith("attribute_") and function != "attribute_type":
        return f"{function}({path()})", used
    if function == "begins_with":
        prefix = st.one_of(text.map(lambda s: {"S": s}), st.binary(max_size=2).map(
            lambda b: {"B": b}))
        return f"begins_with({path()}, {value(prefix)})", used
    if function == "attribute_type":
        kinds = st.sampled_from(["S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS"])
        return f"attribute_type({path()}, {value(kinds.map(lambda k: {'S': k}))})", used
    return f"contains({path()}, {value(scalars)})", used


@pytest.fixture(scope="module")
def clients():
    import boto3
    from moto import mock_aws

    def made():
        return boto3.session.Session().client("dynamodb", region_name="us-east-1")

    with mock_aws():
        moto_client = made()
        make_table(moto_client)
        with twin_installed():
            twin_client = made()
            make_table(twin_client)
            yield moto_client, twin_client


@contextlib.contextmanager
def only(client, clients):
    """moto's stubber answers nothing while the twin's client is in use."""
    from moto.core.models import botocore_stubber

    enabled = botocore_stubber.enabled
    botocore_stubber.enabled = client is clients[0]
    try:
        yield client
    finally:
        botocore_stubber.enabled = enabled


def _answer(call, moto: bool):
    try:
        return ("ok", call())
    except ClientError as exc:
        return error_of(exc)[:2]
    except Exception:  # noqa: BLE001 - moto's own crash (a TypeError in its evaluator)
        if not moto:
            raise
        return ("moto crashed",)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(stored=st.lists(items, min_size=1, max_size=4), condition=conditions())
def test_filters_agree(clients, stored, condition):
    expression, used = condition
    partition = f"p{next(_partitions)}"
    names = {k: v for k, v in NAMES.items() if k in expression.replace(".", " ").replace(
        "[", " ").replace("(", " ").replace(")", " ").split() or k + "." in expression
        or k + "[" in expression or k + ")" in expression or k + "," in expression}
    found = []
    for each in clients:
        with only(each, clients) as client:
            found.append(_filtered(client, clients, partition, stored, expression, used, names))
    # moto 5.2.5 crashes comparing values of different types and on a path through a
    # scalar, and orders and equates booleans as the numbers 0 and 1 (false = 0 holds
    # there); DynamoDB answers false to all of those, as the twin does: nothing to compare.
    assume(found[0] != ("moto crashed",))
    booleans = '"BOOL"' in (repr(stored) + repr(used)).replace("'", '"')
    assume(not (booleans and any(op in expression for op in (
        " < ", " <= ", " > ", " >= ", "BETWEEN", " = ", " <> ", " IN "))))
    assert found[0] == found[1], (expression, used, stored)


def _filtered(client, clients, partition, stored, expression, used, names):
    for n, item in enumerate(stored):
        client.put_item(TableName=TABLE, Item={"pk": {"S": partition},
                                               "sk": {"S": str(n)}, **item})
    kwargs = {"TableName": TABLE, "KeyConditionExpression": "pk = :pk",
              "FilterExpression": expression, "ExpressionAttributeValues": {
                  ":pk": {"S": partition}, **used}}
    if names:
        kwargs["ExpressionAttributeNames"] = names
    return _answer(lambda: [i["sk"]["S"] for i in client.query(**kwargs)["Items"]],
                   moto=client is clients[0])


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(keys=st.sets(st.text(alphabet="aZ0~\u00e9\u0800\uffee\U0001f600", min_size=1,
                            max_size=4), min_size=1, max_size=8),
       forward=st.booleans(), limit=st.integers(1, 4))
def test_sort_order_and_paging_agree(clients, keys, forward, limit):
    partition = f"order{next(_partitions)}"
    pages = []
    for each in clients:
        with only(each, clients) as client:
            pages.append(_pages(client, partition, keys, forward, limit))
    assert pages[0] == pages[1]


def _pages(client, partition, keys, forward, limit):
    for key in keys:
        client.put_item(TableName=TABLE, Item={"pk": {"S": partition}, "sk": {"S": key},
                                               "gsi1pk": {"S": partition},
                                               "gsi1sk": {"S": key[:1]}})
    seen = []
    for index in (None, "gsi1"):
        start: dict = {}
        while True:
            extra = {"IndexName": index} if index else {}
            field = "gsi1pk" if index else "pk"
            answer = client.query(TableName=TABLE, KeyConditionExpression=f"{field} = :p",
                                  ExpressionAttributeValues={":p": {"S": partition}},
                                  ScanIndexForward=forward, Limit=limit, **extra, **start)
            seen.append([i["sk"]["S"] for i in answer["Items"]])
            if "LastEvaluatedKey" not in answer:
                break
            start = {"ExclusiveStartKey": answer["LastEvaluatedKey"]}
    return seen
