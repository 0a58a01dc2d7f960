"""Request bodies the quota rules answered before the edge checked bodies, answered
with the same 422 texts now: names that are not texts are "Required", the lists keep
their own texts (a nested rule's fields too), and an empty value of any type for a
group's rules still means none."""
from __future__ import annotations

import pytest

from tests.quota import test_quota


@pytest.fixture
def api(fast_api):
    """These texts are the rules' and need no moto: the in-memory twin (the fast layer)."""
    return fast_api

# The fixtures: quota enabled, and a site admin's token.
quota_on, admin = test_quota.quota_on, test_quota.admin

SUBJECTS = "[Subjects]: expected a list of strings"
RULES = "[Rules]: expected a list of rules"


def _refused(response, text):
    assert response.status == 422, response
    assert response.json["message"] == text


@pytest.mark.parametrize("body, text", [
    ({"name": 1, "limit": 1}, "[Name]: Required"),
    ({"name": ["r"], "limit": 1}, "[Name]: Required"),
    ({"name": "r", "limit": 1, "subjects": "size:all"}, SUBJECTS),
    ({"name": "r", "limit": 1, "subjects": [1]}, SUBJECTS),
])
def test_create_rule(quota_on, admin, body, text):
    _refused(quota_on.post("/admin/quota/rules", token=admin, json=body), text)


@pytest.mark.parametrize("subjects", ["size:all", [1], {"a": "size:all"}])
def test_edit_rule(quota_on, admin, subjects):
    test_quota.rule(quota_on, admin, "r", 1, ["size:all"])
    _refused(quota_on.patch("/admin/quota/rules/r", token=admin, json={"subjects": subjects}),
             SUBJECTS)


@pytest.mark.parametrize("body, text", [
    ({"name": 1}, "[Name]: Required"),
    ({"name": "g", "rules": "r"}, RULES),
    ({"name": "g", "rules": 1}, RULES),
    ({"name": "g", "rules": True}, RULES),
    ({"name": "g", "rules": {"name": "r"}}, RULES),
    ({"name": "g", "rules": [1]}, RULES),
    ({"name": "g", "rules": [{"name": "r"}, "r"]}, RULES),
    ({"name": "g", "rules": [{"name": 1}]}, "[Rules.Name]: Required"),
    ({"name": "g", "rules": [{"name": "r", "limit": "1"}]}, "[Limit]: expected an integer"),
    ({"name": "g", "rules": [{"name": "r", "subjects": "size:all"}]}, SUBJECTS),
    ({"name": "g", "rules": [{"name": "r", "subjects": [2]}]}, SUBJECTS),
])
def test_create_group(quota_on, admin, body, text):
    _refused(quota_on.post("/admin/quota/groups", token=admin, json=body), text)


@pytest.mark.parametrize("rules", ["", 0, False, {}, None, []])
def test_a_group_with_empty_rules_of_any_type_has_none(quota_on, admin, rules):
    made = quota_on.post("/admin/quota/groups", token=admin, json={"name": "g", "rules": rules})
    assert made.status == 201, made
    assert made.json == {"name": "g", "rules": []}


@pytest.mark.parametrize("groups", ["g", [1], {"g": 1}])
def test_set_user_groups(quota_on, admin, groups):
    quota_on.create_user("alice")
    _refused(quota_on.post("/admin/users/alice/quota/groups", token=admin,
                           json={"groups": groups}), "[Groups]: expected a list of strings")
