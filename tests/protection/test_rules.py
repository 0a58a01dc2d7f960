"""chalicelib.protection.rules: globs as gobwas reads them, who may push, merge and
approve, file patterns, required contexts, tag rules, the order of branch rules."""
from __future__ import annotations

import pytest

from chalicelib.protection.rules import (BranchRule, Protection, Pusher, TagRule, glob_match,
                                         required_contexts_state, valid_glob)


def pusher(user_id=7, *, teams=(), write=True, deploy_key=False) -> Pusher:
    return Pusher(user_id, f"u{user_id}", frozenset(teams), can_write=write,
                  is_repo_admin=False, is_site_admin=False, deploy_key=deploy_key)


@pytest.mark.parametrize("pattern,name,expected", [
    ("release/*", "release/1.0", True),
    ("release/*", "release/1/x", False),        # * stops at the separator
    ("release/**", "release/1/x", True),
    ("rel?ase", "release", True),
    ("rel?ase", "rel/ase", False),
    ("v[0-9].x", "v1.x", True),
    ("v[!0-9].x", "v1.x", False),
    ("{main,develop}", "develop", True),
    ("{main,dev*}", "devel", True),
    ("{main,dev*}", "feature", False),
    ("feat\\*", "feat*", True),
    ("feat\\*", "feature", False),
    ("Main*", "main-1", False),                  # globs are case-sensitive
    ("[", "[", True),                            # an invalid glob matches literally
])
def test_glob_match(pattern, name, expected):
    assert glob_match(pattern, name) is expected


def test_invalid_globs_are_known():
    assert not valid_glob("[")
    assert not valid_glob("{a,b")
    assert valid_glob("release/**")


def test_plain_rule_names_match_case_insensitively():
    assert BranchRule("Main").matches("main")
    assert not BranchRule("main").matches("main2")


def test_rule_for_prefers_plain_names_then_the_oldest_glob():
    protection = Protection([BranchRule("**", id=1, created=1),
                             BranchRule("release/*", id=2, created=2),
                             BranchRule("release/1", id=3, created=3)])
    assert protection.rule_for("release/1").rule_name == "release/1"
    assert protection.rule_for("release/2").rule_name == "**"
    newer_first = Protection([BranchRule("release/*", id=2, created=5),
                              BranchRule("**", id=1, created=9)])
    assert newer_first.rule_for("release/2").rule_name == "release/*"
    assert Protection().rule_for("main") is None


def test_push_rules():
    rule = BranchRule("main")
    assert not rule.can_push(pusher())                       # enable_push off
    rule.enable_push = True
    assert rule.can_push(pusher()) and not rule.can_push(pusher(write=False))
    assert rule.can_push(pusher(deploy_key=True))
    rule.enable_push_whitelist = True
    rule.push_whitelist_user_ids = [7]
    rule.push_whitelist_team_ids = [30]
    assert rule.can_push(pusher(7))
    assert not rule.can_push(pusher(8))
    assert rule.can_push(pusher(8, teams={30}))
    assert not rule.can_push(pusher(7, write=False))         # pushing needs write anyway
    assert not rule.can_push(pusher(deploy_key=True))
    rule.push_whitelist_deploy_keys = True
    assert rule.can_push(pusher(deploy_key=True))


def test_force_push_rules():
    rule = BranchRule("main", enable_push=True)
    assert not rule.can_force_push(pusher())                 # off: nobody force pushes
    rule.enable_force_push = True
    assert rule.can_force_push(pusher())
    rule.enable_force_push_allowlist = True
    assert not rule.can_force_push(pusher(7))
    rule.force_push_allowlist_team_ids = [3]
    assert rule.can_force_push(pusher(7, teams={3}))
    rule.enable_push = False                                  # force pushing extends pushing
    assert not rule.can_force_push(pusher(7, teams={3}))


def test_merge_and_official_approvers():
    rule = BranchRule("main")
    assert rule.can_merge(pusher()) and not rule.can_merge(pusher(write=False))
    assert rule.is_official_approver(pusher()) and not rule.is_official_approver(
        pusher(write=False))
    rule.enable_merge_whitelist = True
    rule.merge_whitelist_user_ids = [9]
    assert not rule.can_merge(pusher(7)) and rule.can_merge(pusher(9, write=False))
    rule.enable_approvals_whitelist = True
    rule.approvals_whitelist_team_ids = [4]
    assert not rule.is_official_approver(pusher(7)) and rule.is_official_approver(
        pusher(7, teams={4}))


def test_file_patterns():
    rule = BranchRule("main", protected_file_patterns=" *.LOCK ; .github/** ;[")
    assert rule.protected_files(["src/a.py", "Cargo.lock"]) == "Cargo.lock"
    assert rule.protected_files([".github/workflows/ci.yml"]) == ".github/workflows/ci.yml"
    assert rule.protected_files(["src/Cargo.lock"]) is None   # * stops at / and .
    assert rule.protected_files(["a.b.lock"]) is None
    assert BranchRule("x").protected_files(["a"]) is None
    rule.unprotected_file_patterns = "docs/**;*.md"
    assert rule.only_unprotected(["docs/a/b.txt", "README.md"])
    assert not rule.only_unprotected(["docs/a.txt", "src/x.py"])
    assert not BranchRule("x").only_unprotected(["docs/a"])


def test_required_contexts_state():
    assert required_contexts_state({}, ["ci/*"]) == "pending"
    assert required_contexts_state({"a": "success", "b": "failure"}, []) == "failure"
    statuses = {"ci/build": "success", "ci/test": "success", "lint": "failure"}
    assert required_contexts_state(statuses, ["ci/*"]) == "success"
    assert required_contexts_state(statuses, ["ci/*", "deploy"]) == "pending"
    assert required_contexts_state(statuses, ["ci/*", "lint"]) == "failure"
    assert required_contexts_state({"ci/build": "success", "ci/test": "error"},
                                   ["ci/*"]) == "error"
    assert BranchRule("m", status_check_contexts=["ci/build"]).required_contexts_state(
        statuses) == "success"


def test_tag_rules():
    protection = Protection(tag_rules=[TagRule(1, "v*", [7]), TagRule(2, "/^rc-\\d+$/", [],
                                                                      [5])])
    assert protection.tag_allowed("other", pusher(8))
    assert protection.tag_allowed("v1.0", pusher(7))
    assert not protection.tag_allowed("v1.0", pusher(8))
    assert protection.tag_allowed("rc-3", pusher(8, teams={5}))
    assert not protection.tag_allowed("rc-3", pusher(7))
    assert protection.tag_allowed("rc-x", pusher(8))
    # Any matching rule that lists the pusher allows.
    both = Protection(tag_rules=[TagRule(1, "v*", [1]), TagRule(2, "v1*", [2])])
    assert both.tag_allowed("v1", pusher(2)) and both.tag_allowed("v1", pusher(1))
    assert not both.tag_allowed("v1", pusher(3))
