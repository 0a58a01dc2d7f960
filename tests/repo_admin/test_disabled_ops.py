"""Git hooks and unadopted repositories, answered as a Forgejo with git hooks disabled
and with nothing unadopted answers them (fast: the in-memory twin)."""
from __future__ import annotations

import pytest

from tests.conftest import ADMIN

pytestmark = pytest.mark.fast


@pytest.fixture
def scene(fast_api):
    api = fast_api
    for name in ("alice", "bob"):
        api.create_user(name)
    alice, bob = api.create_token("alice"), api.create_token("bob")
    assert api.post("/user/repos", token=alice, json={"name": "proj"}).status == 201
    assert api.post("/user/repos", token=alice, json={"name": "secret",
                                                      "private": True}).status == 201
    return api, alice, bob, api.create_token(*ADMIN)


HOOK_CALLS = [("get", "/repos/alice/proj/hooks/git", None),
              ("get", "/repos/alice/proj/hooks/git/pre-receive", None),
              ("patch", "/repos/alice/proj/hooks/git/pre-receive", {"content": "#!/bin/sh\n"}),
              ("delete", "/repos/alice/proj/hooks/git/pre-receive", None)]


@pytest.mark.parametrize("method, path, body", HOOK_CALLS)
def test_git_hooks_are_disabled_for_everyone(scene, method, path, body):
    api, alice, bob, root = scene
    kw = {"json": body} if body is not None else {}
    for token in (alice, root):                      # the owner and a site admin
        r = getattr(api, method)(path, token=token, **kw)
        assert (r.status, r.json["message"]) == (403, "must be allowed to edit Git hooks")
    r = getattr(api, method)(path, token=bob, **kw)  # a reader, not an admin
    assert r.status == 403 and "admin" in r.json["message"]
    assert getattr(api, method)(path, **kw).status == 401
    hidden = path.replace("/proj/", "/secret/")
    assert getattr(api, method)(hidden, token=bob, **kw).status == 404


def test_the_webhooks_still_answer_below_hooks(scene):
    api, alice, _, _ = scene
    assert api.get("/repos/alice/proj/hooks", token=alice).status == 200
    assert api.get("/repos/alice/proj/hooks/12345", token=alice).status == 404


def test_nothing_is_ever_unadopted(scene):
    api, alice, _, root = scene
    r = api.get("/admin/unadopted?pattern=*&page=1&limit=10", token=root)
    assert (r.status, r.json, r.headers["x-total-count"]) == (200, [], "0")
    for method in ("post", "delete"):
        assert getattr(api, method)("/admin/unadopted/alice/proj", token=root).status == 404
        assert getattr(api, method)("/admin/unadopted/alice/other", token=root).status == 404
        assert getattr(api, method)("/admin/unadopted/nobody/x", token=root).status == 404
        assert getattr(api, method)("/admin/unadopted/alice/proj", token=alice).status == 403
    assert api.get("/admin/unadopted", token=alice).status == 403
    # The repository that exists is untouched.
    assert api.get("/repos/alice/proj", token=alice).status == 200
