"""Reads through ``Item``, the table's base model (store/table.py), on the in-memory twin:
a query, scan or count of every kind is sent without PynamoDB's ``kind IN (...)``
filter (it kept nothing out, cost every read its parsing, and DynamoDB refuses an IN of
more than 100 kinds), and what it finds still loads as each item's own kind."""
from __future__ import annotations

from chalicelib.store.keys import keys
from chalicelib.store.table import Claim, Counter, Item


def sent_filters(monkeypatch) -> list:
    connection = Item._get_connection()
    seen: list = []
    for name in ("query", "scan"):
        original = getattr(connection, name)

        def capture(*args, _original=original, **kwargs):
            seen.append(kwargs.get("filter_condition"))
            return _original(*args, **kwargs)

        monkeypatch.setattr(connection, name, capture)
    return seen


def test_a_read_of_every_kind_sends_no_kind_filter_and_loads_each_kind(memory, monkeypatch):
    Counter(*keys.counter("n"), value=3).save()
    Claim("CLAIM#x", "LOGIN#alice", owner_id=1).save()
    seen = sent_filters(monkeypatch)
    found = list(Item.query(keys.counter("n")[0]))
    assert [type(item) for item in found] == [Counter] and found[0].value == 3
    assert Item.count(keys.counter("n")[0]) == 1
    assert {type(item) for item in Item.scan()} >= {Counter, Claim}
    assert seen == [None, None, None]
    list(Counter.query(keys.counter("n")[0]))          # one kind: PynamoDB's filter stays
    assert "counter" in str(seen[-1].values)
