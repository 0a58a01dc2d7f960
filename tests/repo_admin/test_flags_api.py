"""The site admins' repository flags through the API (fast: the in-memory twin): list,
replace, delete all, check, add, delete one; 403 for anyone but a site admin, 404 for
a repository that does not exist, bad input 422 with nothing written."""
from __future__ import annotations

import pytest

from tests.conftest import ADMIN

pytestmark = pytest.mark.fast


@pytest.fixture
def scene(fast_api):
    api = fast_api
    api.create_user("alice")
    alice = api.create_token("alice")
    assert api.post("/user/repos", token=alice, json={"name": "proj"}).status == 201
    return Admin(api, api.create_token(*ADMIN)), alice


class Admin:
    """The client acting as the site admin unless a token is given."""

    def __init__(self, api, token):
        self.api, self.token = api, token

    def __getattr__(self, method):
        def call(path, **kw):
            kw.setdefault("token", self.token)
            return getattr(self.api, method)(path, **kw)
        return call


def test_admins_list_add_check_replace_and_delete_flags(scene):
    api, _ = scene
    base = "/repos/alice/proj/flags"
    assert (api.get(base).status, api.get(base).json) == (200, [])
    assert api.put(f"{base}/spam").status == 204
    assert api.put(f"{base}/reviewed").status == 204
    assert api.put(f"{base}/spam").status == 204                 # again: no error
    assert api.get(base).json == ["reviewed", "spam"]
    assert api.get(f"{base}/spam").status == 204
    assert api.get(f"{base}/other").status == 404
    assert api.delete(f"{base}/spam").status == 204
    assert api.delete(f"{base}/spam").status == 204              # absent: no error
    assert api.get(base).json == ["reviewed"]
    assert api.put(base, json={"flags": ["a", "b", "a"]}).status == 204
    assert api.get(base).json == ["a", "b"]
    assert api.delete(base).status == 204
    assert api.get(base).json == []
    assert api.get("/repos/alice/missing/flags").status == 404


def test_anyone_but_a_site_admin_is_refused(scene):
    api, alice = scene
    base = "/repos/alice/proj/flags"
    assert api.put(f"{base}/mine").status == 204
    for method, path in [("get", base), ("put", f"{base}/x"), ("delete", base),
                         ("get", f"{base}/mine"), ("delete", f"{base}/mine")]:
        r = getattr(api, method)(path, token=alice)
        assert r.status == 403, (method, path, r)
        assert "message" in r.json
    assert api.put(base, token=alice, json={"flags": []}).status == 403
    assert api.get(base, token=None).status in (401, 403)
    assert api.get(base).json == ["mine"]


def test_bad_flags_are_refused_and_nothing_is_written(scene):
    api, _ = scene
    base = "/repos/alice/proj/flags"
    api.put(f"{base}/kept")
    assert api.put(base, json={"flags": ["ok", ""]}).status == 422
    assert api.put(base, json={"flags": "not-a-list"}).status == 422
    assert api.put(base, json={"flags": ["x" * 256]}).status == 422
    assert api.get(base).json == ["kept"]
