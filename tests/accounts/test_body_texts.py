"""Request bodies the accounts rules answered before the edge checked bodies, answered
the same way now: a scope that is not a text is the scope rule's 400, and
``send_notify`` (read by no rule) takes any value."""
from __future__ import annotations

import pytest

from tests.conftest import ADMIN


@pytest.fixture
def api(fast_api):
    """These texts are the rules' and need no moto: the in-memory twin (the fast layer)."""
    return fast_api


@pytest.mark.parametrize("scope, shown", [(1, "1"), (True, "True"), (None, "None")])
def test_a_scope_that_is_not_a_text_is_an_invalid_scope(api, scope, shown):
    api.create_user("alice")
    r = api.post("/users/alice/tokens", auth=("alice", "secret-pass-1"),
                 json={"name": "t", "scopes": ["read:user", scope]})
    assert r.status == 400, r
    assert r.json["message"] == ("invalid access token scope provided: "
                                 f"invalid access token scope: {shown}")


@pytest.mark.parametrize("value", ["yes", 1, {}, [True]])
def test_send_notify_of_any_type_is_ignored(api, value):
    r = api.post("/admin/users", auth=ADMIN, json={
        "username": "alice", "password": "secret-pass-1", "email": "alice@example.com",
        "send_notify": value})
    assert r.status == 201, r
    assert r.json["login"] == "alice"
