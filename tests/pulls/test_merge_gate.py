"""The merge gate (pulls/gate.py) in process, with no consumer run between the writes:
what it decides must come from the commits it merges, never from flags a consumer has
not yet written."""
from __future__ import annotations

from tests.pulls.test_pulls import R, branch_to, open_pull, scene  # noqa: F401

RULE = {"rule_name": "main", "required_approvals": 1, "dismiss_stale_approvals": True,
        "enable_push": True}


def protect(api, token, **extra):
    r = api.post(f"{R}/branch_protections", token=token, json={**RULE, **extra})
    assert r.status == 201, r


def merge(api, token, number, **extra):
    return api.post(f"{R}/pulls/{number}/merge", token=token, json={"Do": "merge", **extra})


def test_an_approval_of_an_older_head_does_not_count_before_any_consumer_ran(api, scene):
    protect(api, scene["alice"])
    pull = open_pull(api, scene["bob"])
    r = api.post(f"{R}/pulls/{pull['number']}/reviews", token=scene["alice"],
                 json={"event": "APPROVED", "body": "ok"})
    assert r.status == 200, r
    assert r.json["commit_id"] == scene["feature"] and r.json["stale"] is False
    # The head moves; the push consumer (which would mark the approval stale) never runs.
    branch_to(api, scene["bob"], "feature", scene["feature"],
              {"README.md": b"hello\n", "a.txt": b"a\n", "late.txt": b"late\n"}, "late")
    r = merge(api, scene["alice"], pull["number"])
    assert r.status == 405, r
    assert r.json["message"] == "not allowed to merge [reason: Does not have enough approvals]"


def test_an_approval_of_the_head_lets_it_merge_and_force_merge_is_for_admins(api, scene):
    protect(api, scene["alice"], required_approvals=2)
    pull = open_pull(api, scene["bob"])
    assert api.post(f"{R}/pulls/{pull['number']}/reviews", token=scene["alice"],
                    json={"event": "APPROVED"}).status == 200
    assert merge(api, scene["alice"], pull["number"]).status == 405
    # bob (a writer, not an admin) may not override the rule; alice (the owner) may.
    assert merge(api, scene["bob"], pull["number"], force_merge=True).status == 405
    r = merge(api, scene["alice"], pull["number"], force_merge=True)
    assert r.status == 200, r


def test_a_rule_that_applies_to_admins_holds_the_owner_too(api, scene):
    protect(api, scene["alice"], apply_to_admins=True)
    pull = open_pull(api, scene["bob"])
    r = merge(api, scene["alice"], pull["number"], force_merge=True)
    assert r.status == 405 and "enough approvals" in r.json["message"]


def test_the_merge_allow_list_decides_who_may_merge(api, scene):
    protect(api, scene["alice"], required_approvals=0, enable_merge_whitelist=True,
            merge_whitelist_usernames=["alice"])
    pull = open_pull(api, scene["bob"])
    r = merge(api, scene["bob"], pull["number"])
    assert r.status == 405 and r.json["message"] == "User not allowed to merge PR"
    assert merge(api, scene["alice"], pull["number"]).status == 200
