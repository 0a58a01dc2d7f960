"""The unit of work's rules, on the in-memory twin (the fast layer), where DynamoDB's
transaction answers differ from a lone write's."""
from __future__ import annotations

import pytest

from chalicelib.errors import ConditionFailed, TooLarge
from chalicelib.store import unit_of_work
from chalicelib.store.keys import keys
from chalicelib.store.table import Claim, Counter


def stored(key) -> bool:
    return unit_of_work.UnitOfWork(cache=False).get(Counter, key) is not None


def test_an_update_past_400_kb_in_a_transaction_is_too_large_and_writes_nothing(memory):
    from chalicelib.issues.models import IssueTracker

    tracker = IssueTracker("R#1", "ITRACKER", labels={"1": {"name": "x" * 300_000}})
    tracker.save()
    with pytest.raises(TooLarge), unit_of_work.writing() as uow:
        uow.put(Counter(*keys.counter("other"), value=1), label="counter")
        uow.update(IssueTracker("R#1", "ITRACKER"),
                   [IssueTracker.milestones.set({"1": {"title": "y" * 200_000}})], label="tracker")
    assert not stored(keys.counter("other"))          # the whole transaction was refused


def test_a_failed_condition_names_the_label_of_the_write_that_failed(memory):
    Claim(*keys.claim("LOGIN", "alice"), owner_id=1).save()
    with pytest.raises(ConditionFailed) as failed, unit_of_work.writing() as uow:
        uow.put(Counter(*keys.counter("n"), value=1), label="counter")
        uow.put(Claim(*keys.claim("LOGIN", "alice"), owner_id=2), label="name",
                must_not_exist=True)
    assert (failed.value.label, failed.value.exists) == ("name", True)
    assert not stored(keys.counter("n"))
