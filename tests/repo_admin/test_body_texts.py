"""Request bodies the repository rules answered before the edge checked bodies,
answered the same way now: the pull request settings of repoEdit keep the texts that
named them by their JSON names, and fields no rule reads (or reads only with
``auto_init`` or ``mirror``) take any value."""
from __future__ import annotations

import pytest

from tests.repo_admin import test_migrations


@pytest.fixture
def api(fast_api):
    """These texts are the rules' and need no moto: the in-memory twin (the fast layer)."""
    return fast_api

# The fixtures: a remote served on loopback, and migrations allowed from it.
remote, local_networks_allowed = test_migrations.remote, test_migrations.local_networks_allowed

FLAGS = ("ignore_whitespace_conflicts", "allow_merge_commits", "allow_rebase",
         "allow_rebase_explicit", "allow_squash_merge", "allow_fast_forward_only_merge",
         "allow_manual_merge", "autodetect_manual_merge", "allow_rebase_update",
         "default_delete_branch_after_merge", "default_allow_maintainer_edit")
STYLES = ("default_merge_style", "default_update_style")


@pytest.fixture
def alice(api):
    api.create_user("alice")
    token = api.create_token("alice")
    assert api.post("/user/repos", token=token, json={"name": "proj"}).status == 201
    return token


@pytest.mark.parametrize("body, text", [
    *[({name: "yes"}, f"[{name}]: expected true or false") for name in FLAGS],
    *[({name: 1}, f"[{name}]: expected true or false") for name in FLAGS[:2]],
    *[({name: True}, f"[{name}]: expected a string") for name in STYLES],
    *[({name: ["merge"]}, f"[{name}]: expected a string") for name in STYLES],
])
def test_edit_merge_settings(api, alice, body, text):
    r = api.patch("/repos/alice/proj", token=alice, json=body)
    assert r.status == 422, r
    assert r.json["message"] == text


@pytest.mark.parametrize("extra", [
    {"issue_labels": 1, "trust_model": ["x"]},
    {"gitignores": 5, "license": True, "readme": {"a": 1}},        # no auto_init: unread
    {"auto_init": True, "gitignores": 0, "license": False, "readme": []},   # empty: none
])
def test_create_repo_ignores_what_it_does_not_read(api, alice, extra):
    r = api.post("/user/repos", token=alice, json={"name": "other", **extra})
    assert r.status == 201, r
    assert r.json["full_name"] == "alice/other"


@pytest.mark.parametrize("field, label", [("gitignores", "Gitignores"),
                                          ("license", "License"), ("readme", "Readme")])
def test_create_repo_template_that_is_not_a_text(api, alice, field, label):
    r = api.post("/user/repos", token=alice, json={"name": "other", "auto_init": True,
                                                   field: ["Python"]})
    assert r.status == 422, r
    assert r.json["message"] == f"[{label}]: expected a string"


def test_migrate_ignores_what_it_does_not_read(api, alice, remote,
                                               local_networks_allowed):
    r = api.post("/repos/migrate", token=alice, json={
        "clone_addr": remote["url"], "repo_name": "copy", "service": 1, "wiki": "yes",
        "milestones": 1, "labels": [], "issues": {}, "pull_requests": "no", "releases": 0,
        "lfs_endpoint": 5, "mirror": False, "mirror_interval": 10})
    assert r.status == 201, r
    assert r.json["full_name"] == "alice/copy" and r.json["mirror"] is False


def test_migrate_lfs_that_is_not_a_flag(api, alice):
    # Read now (Git LFS in migrations): a flag, and with it the endpoint a text.
    for extra, message in (({"lfs": "true"}, "[LFS]: expected true or false"),
                           ({"lfs": True, "lfs_endpoint": 5}, "[LFSEndpoint]: expected a string")):
        r = api.post("/repos/migrate", token=alice, json={
            "clone_addr": "https://example.com/a.git", "repo_name": "m", **extra})
        assert r.status == 422 and r.json["message"] == message, r


@pytest.mark.parametrize("interval", [0, 600, ["10m"]])
def test_a_mirror_interval_that_is_not_a_text(api, alice, interval):
    r = api.post("/repos/migrate", token=alice, json={
        "clone_addr": "https://example.com/a.git", "repo_name": "m", "mirror": True,
        "mirror_interval": interval})
    assert r.status == 422, r
    assert r.json["message"] == "[MirrorInterval]: expected a string"
