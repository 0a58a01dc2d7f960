"""chalicelib.protection.store: one item per repository, every write conditional on
the version read, tolerant loads."""
from __future__ import annotations

import json

import pytest

from chalicelib.errors import ConditionFailed
from chalicelib.protection import store
from chalicelib.protection.rules import BranchRule, Protection, TagRule
from chalicelib.store import unit_of_work


@pytest.fixture
def repo(api):
    from chalicelib.repos import store as repo_store

    api.create_user("alice")
    token = api.create_token("alice")
    assert api.post("/user/repos", token=token, json={"name": "r"}).status == 201
    return repo_store.get("alice", "r")


def put(repo, read, new, **kw):
    with unit_of_work.writing():
        store.stage_put(repo, read, new, **kw)


def test_empty_then_round_trip(repo):
    assert store.get(repo.id) == Protection()
    assert store.protection_key(repo.id) == (f"R#{repo.id}", "PROTECTION")
    rules = Protection([BranchRule("main", enable_push=True, push_whitelist_user_ids=[3],
                                   status_check_contexts=["ci/*"], created=5)],
                       [TagRule(1, "v*", [3], [4], created=6)])
    put(repo, Protection(), rules)
    got = store.get(repo.id, consistent=True)
    assert got.version == 1
    assert got.branch_rules == rules.branch_rules and got.tag_rules == rules.tag_rules
    assert got.tag_id_mark == 1
    assert got.next_tag_id() == 2


def test_two_writers_from_one_read_never_lose_a_rule(repo):
    """Both read the same version; the second write must fail, not overwrite the
    first (without the version condition it would silently drop rule ``a``)."""
    read = store.get(repo.id)
    put(repo, read, Protection([BranchRule("a")]))
    with pytest.raises(ConditionFailed) as failed:
        put(repo, read, Protection([BranchRule("b")]))
    assert failed.value.label == store.RULES
    again = store.get(repo.id, consistent=True)
    put(repo, again, Protection([*again.branch_rules, BranchRule("b")]))
    stale = again                                   # version 1: an update, not a create
    with pytest.raises(ConditionFailed):
        put(repo, stale, Protection([BranchRule("c")]))
    final = store.get(repo.id, consistent=True)
    assert [r.rule_name for r in final.branch_rules] == ["a", "b"] and final.version == 2


def test_tag_ids_are_not_reused(repo):
    put(repo, Protection(), Protection(tag_rules=[TagRule(1, "a"), TagRule(2, "b")]))
    read = store.get(repo.id, consistent=True)
    put(repo, read, Protection(tag_rules=[TagRule(1, "a")]))
    read = store.get(repo.id, consistent=True)
    assert read.next_tag_id() == 3
    put(repo, read, Protection())
    assert store.get(repo.id, consistent=True).next_tag_id() == 3


def test_loads_are_tolerant(repo):
    key = store.protection_key(repo.id)
    store.ProtectionItem(*key, version=4, rules=json.dumps({
        "branch": [{"rule_name": "main", "enable_push": "yes", "required_approvals": 2,
                    "push_whitelist_user_ids": [1, "x", True], "unknown": 1},
                   {"no_name": True}, "junk"],
        "tag": [{"id": 3, "name_pattern": "v*", "whitelist_user_ids": "bad"},
                {"name_pattern": "no id"}]})).save()
    got = store.get(repo.id, consistent=True)
    assert got.version == 4
    [rule] = got.branch_rules
    assert (rule.rule_name, rule.enable_push, rule.required_approvals,
            rule.push_whitelist_user_ids) == ("main", False, 2, [1])
    [tag] = got.tag_rules
    assert (tag.id, tag.name_pattern, tag.whitelist_user_ids) == (3, "v*", [])
    store.ProtectionItem(*key, version=5, rules="{not json").save()
    assert store.get(repo.id, consistent=True) == Protection(version=5)
