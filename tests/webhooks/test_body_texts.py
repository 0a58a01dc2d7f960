"""The hooks' 422 texts for wrongly typed bodies, as the rules gave them before the bodies
were checked at the edge (clients may match them)."""
import pytest


@pytest.fixture
def api(fast_api):
    """These texts are the rules' and need no moto: the in-memory twin (the fast layer)."""
    return fast_api

HOOK = {"type": "gitea", "config": {"url": "https://ci.example.com/hook", "content_type": "json"}}


@pytest.fixture
def alice(api):
    api.create_user("alice")
    token = api.create_token("alice")
    assert api.post("/user/repos", token=token, json={"name": "app"}).status == 201
    return token


@pytest.mark.parametrize("config", [
    {"url": 5, "content_type": "json"},
    {"url": "https://ci.example.com/hook", "content_type": "json", "secret": None},
    {"url": "https://ci.example.com/hook", "content_type": ["json"]},
    ["https://ci.example.com/hook"],
    "https://ci.example.com/hook",
])
def test_config_that_is_not_an_object_of_strings(api, alice, config):
    r = api.post("/repos/alice/app/hooks", token=alice, json={**HOOK, "config": config})
    assert r.status == 422, r
    assert r.json["message"] == "[Config]: expected an object of strings"
    hook = api.post("/repos/alice/app/hooks", token=alice, json=HOOK)
    assert hook.status == 201, hook
    r = api.patch(f"/repos/alice/app/hooks/{hook.json['id']}", token=alice,
                  json={"config": config})
    assert r.status == 422, r
    assert r.json["message"] == "[Config]: expected an object of strings"
