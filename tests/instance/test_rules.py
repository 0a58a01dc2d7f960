"""The instance domain's rules, on the in-memory twin (the fast layer), at the HTTP edge
where they live: the version Forgejo clients read (Forgejo's API version, then Nimbus's
own) and the API settings, which are the configured ``[api]`` values, for anyone."""
from __future__ import annotations

from chalicelib import API_COMPAT_VERSION, __version__
from chalicelib.settings import overridden
from tests import memory_scene as scene
from tests.conftest import ADMIN


def test_the_version_is_forgejo_s_api_version_then_nimbus_s(fast_api):
    anonymous = fast_api.get("/version")
    assert anonymous.status == 200
    assert anonymous.json == {"version": f"{API_COMPAT_VERSION}+nimbus-{__version__}"}
    # Clients compare the part before "+" with Forgejo's releases.
    assert anonymous.json["version"].split("+")[0] == "1.22.0"
    assert fast_api.get("/version", auth=ADMIN).json == anonymous.json


def test_the_api_settings_are_the_configured_ones(fast_api):
    defaults = {"max_response_items": 50, "default_paging_num": 30,
                "default_git_trees_per_page": 1000, "default_max_blob_size": 10485760}
    assert fast_api.get("/settings/api").json == defaults
    with overridden({"NIMBUS__API__MAX_RESPONSE_ITEMS": "7",
                     "NIMBUS__API__DEFAULT_PAGING_NUM": "3"}):
        configured = fast_api.get("/settings/api", auth=ADMIN)
        assert configured.status == 200
        assert configured.json == dict(defaults, max_response_items=7, default_paging_num=3)
    assert fast_api.get("/settings/api").json == defaults


def test_the_configured_page_size_is_what_a_list_answers(fast_api):
    for i in range(5):
        scene.user(f"user{i}")
    with overridden({"NIMBUS__API__MAX_RESPONSE_ITEMS": "4",
                     "NIMBUS__API__DEFAULT_PAGING_NUM": "2"}):
        paged = fast_api.get("/admin/users", auth=ADMIN)
        capped = fast_api.get("/admin/users?limit=50", auth=ADMIN)
    assert paged.status == 200 and len(paged.json) == 2              # default_paging_num
    assert len(capped.json) == 4                                     # max_response_items
    assert paged.headers["x-total-count"] == "6"                     # root and five users
