"""Request bodies the teams rule answered before the edge checked bodies, answered with
the same 422 texts now: units it does not know, whatever their type, and unit modes."""
from __future__ import annotations

import pytest

from tests.orgs import test_orgs


@pytest.fixture
def api(fast_api):
    """These texts are the rules' and need no moto: the in-memory twin (the fast layer)."""
    return fast_api

org = test_orgs.org     # the fixture: acme, owned by olive


def _write(api, token, how, body):
    """Create a team with ``body`` (``how`` "create"), or edit one (``how`` "edit")."""
    if how == "create":
        return api.post("/orgs/acme/teams", token=token, json={"name": "devs", **body})
    made = api.post("/orgs/acme/teams", token=token, json={"name": "devs"})
    assert made.status == 201, made
    return api.patch(f"/teams/{made.json['id']}", token=token, json=body)


@pytest.mark.parametrize("how", ["create", "edit"])
@pytest.mark.parametrize("body, text", [
    ({"units": [1]}, "[Units]: unknown units [1]"),
    ({"units": ["repo.code", True, None]}, "[Units]: unknown units [True, None]"),
    ({"units_map": {"repo.code": 1}}, "[UnitsMap]: invalid unit 'repo.code' or mode 1"),
    ({"units_map": {"repo.code": ["read"]}},
     "[UnitsMap]: invalid unit 'repo.code' or mode ['read']"),
])
def test_units_keep_their_texts(api, org, how, body, text):
    r = _write(api, org["olive"], how, body)
    assert r.status == 422, r
    assert r.json["message"] == text
