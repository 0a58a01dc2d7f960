"""Branch and tag protection through the API: CRUD, Forgejo's errors, names to ids,
who may, and the conditional write under racing admins."""
from __future__ import annotations

import threading
from collections import Counter

import pytest

from chalicelib.http import schemas
from tests.accounts.test_users import assert_matches_forgejo as _assert_matches

R = "/repos/alice/guarded"
BP = f"{R}/branch_protections"
TP = f"{R}/tag_protections"


@pytest.fixture
def people(api):
    """alice owns ``guarded`` (with a first commit); bob writes to it, carol reads it,
    dave is a stranger; erin admins it."""
    tokens = {}
    for name in ("alice", "bob", "carol", "dave", "erin"):
        api.create_user(name)
        tokens[name] = api.create_token(name)
    assert api.post("/user/repos", token=tokens["alice"], json={
        "name": "guarded", "auto_init": True}).status == 201
    for name, mode in (("bob", "write"), ("carol", "read"), ("erin", "admin")):
        assert api.put(f"{R}/collaborators/{name}", token=tokens["alice"],
                       json={"permission": mode}).status == 204
    return tokens


def assert_record(record: dict, name: str) -> None:
    _assert_matches(record, name)
    assert set(record) == set(schemas.RECORDS[name])


def test_branch_protection_crud(api, people):
    alice = people["alice"]
    assert api.get(BP, token=alice).json == []
    r = api.post(BP, token=alice, json={
        "rule_name": "main", "enable_push": True, "enable_push_whitelist": True,
        "push_whitelist_usernames": ["Bob", "carol"], "push_whitelist_deploy_keys": True,
        "required_approvals": 2, "enable_status_check": True,
        "status_check_contexts": ["ci/*"], "protected_file_patterns": "*.lock",
        "approvals_whitelist_username": ["carol"], "enable_approvals_whitelist": True})
    assert r.status == 201, r
    rule = r.json
    assert_record(rule, "BranchProtection")
    assert (rule["branch_name"], rule["rule_name"]) == ("main", "main")
    # carol only reads: dropped from the push list, kept for approvals (read suffices).
    assert rule["push_whitelist_usernames"] == ["bob"]
    assert rule["approvals_whitelist_username"] == ["carol"]
    assert rule["push_whitelist_deploy_keys"] and rule["required_approvals"] == 2
    assert rule["status_check_contexts"] == ["ci/*"]
    assert rule["push_whitelist_teams"] == [] and rule["created_at"].endswith("Z")

    # A glob rule: branch_name empty; {name} may hold slashes.
    r = api.post(BP, token=alice, json={"branch_name": "release/*"})
    assert r.status == 201 and r.json["branch_name"] == "" and \
        r.json["rule_name"] == "release/*"
    assert [b["rule_name"] for b in api.get(BP, token=alice).json] == ["main", "release/*"]
    assert api.get(f"{BP}/release/*", token=alice).json["rule_name"] == "release/*"

    # Edit: only what is given; turning pushes off clears the allowlist switches.
    r = api.patch(f"{BP}/main", token=alice, json={"required_approvals": 1,
                                                    "enable_push": False})
    assert r.status == 200, r
    assert (r.json["required_approvals"], r.json["enable_push"],
            r.json["enable_push_whitelist"], r.json["push_whitelist_deploy_keys"]) == \
        (1, False, False, False)
    assert r.json["status_check_contexts"] == ["ci/*"] and \
        r.json["push_whitelist_usernames"] == ["bob"]
    r = api.patch(f"{BP}/main", token=alice, json={"push_whitelist_usernames": [],
                                                    "required_approvals": -1})
    assert r.json["push_whitelist_usernames"] == [] and r.json["required_approvals"] == 1
    assert api.get(f"{BP}/main", token=alice).json == r.json

    assert api.delete(f"{BP}/main", token=alice).status == 204
    assert api.get(f"{BP}/main", token=alice).status == 404
    assert api.delete(f"{BP}/main", token=alice).status == 404
    assert api.patch(f"{BP}/main", token=alice, json={}).status == 404


def test_branch_protection_errors(api, people):
    alice = people["alice"]
    r = api.post(BP, token=alice, json={})
    assert r.status == 400 and r.json["message"] == "both rule_name and branch_name are empty"
    assert api.post(BP, token=alice, json={"rule_name": "main"}).status == 201
    r = api.post(BP, token=alice, json={"rule_name": "main"})
    assert r.status == 403 and r.json["message"] == "Branch protection already exist"
    r = api.post(BP, token=alice, json={"rule_name": "dev",
                                        "merge_whitelist_usernames": ["nobody"]})
    assert r.status == 422 and "user does not exist" in r.json["message"]
    r = api.post(BP, token=alice, json={"rule_name": "dev", "enable_push": "yes"})
    assert r.status == 422
    assert api.get(f"{BP}/dev", token=alice).status == 404


def test_only_repository_admins(api, people):
    assert api.post(BP, token=people["alice"], json={"rule_name": "main"}).status == 201
    assert api.get(BP, token=people["erin"]).status == 200            # an admin collaborator
    for name in ("bob", "carol", "dave"):
        assert api.get(BP, token=people[name]).status == 403, name
        r = api.post(BP, token=people[name], json={"rule_name": "x"})
        assert r.status == 403, name
        assert api.delete(f"{BP}/main", token=people[name]).status == 403
        assert api.get(TP, token=people[name]).status == 403
    assert api.get(BP).status in (401, 403)
    assert api.get(f"{BP}/main", token=people["alice"]).status == 200


def test_tag_protection_crud_and_errors(api, people):
    alice = people["alice"]
    r = api.post(TP, token=alice, json={"name_pattern": "v*"})
    assert r.status == 400 and \
        r.json["message"] == "both whitelist_usernames and whitelist_teams are empty"
    r = api.post(TP, token=alice, json={"name_pattern": " ", "whitelist_usernames": ["bob"]})
    assert r.status == 400 and r.json["message"] == "name_pattern are empty"
    r = api.post(TP, token=alice, json={"name_pattern": "v*", "whitelist_usernames": ["ghost"]})
    assert r.status == 422
    r = api.post(TP, token=alice, json={"name_pattern": " v* ", "whitelist_usernames": ["bob"]})
    assert r.status == 201, r
    assert_record(r.json, "TagProtection")
    assert (r.json["id"], r.json["name_pattern"], r.json["whitelist_usernames"]) == \
        (1, "v*", ["bob"])
    r = api.post(TP, token=alice, json={"name_pattern": "v*", "whitelist_usernames": ["bob"]})
    assert r.status == 403 and r.json["message"] == "Tag protection already exist"
    r = api.post(TP, token=alice, json={"name_pattern": "/(/", "whitelist_usernames": ["bob"]})
    assert r.status == 422
    r = api.post(TP, token=alice, json={"name_pattern": "/^rc/", "whitelist_usernames": ["bob"]})
    assert r.status == 201 and r.json["id"] == 2
    r = api.patch(f"{TP}/1", token=alice, json={"whitelist_usernames": ["carol", "bob"]})
    assert r.status == 200 and r.json["whitelist_usernames"] == ["bob", "carol"]
    assert r.json["name_pattern"] == "v*"
    assert [t["id"] for t in api.get(TP, token=alice).json] == [1, 2]
    assert api.get(f"{TP}/1", token=alice).json == r.json
    assert api.delete(f"{TP}/2", token=alice).status == 204
    assert api.get(f"{TP}/2", token=alice).status == 404
    assert api.patch(f"{TP}/2", token=alice, json={}).status == 404
    # Ids are not given out twice.
    r = api.post(TP, token=alice, json={"name_pattern": "w*", "whitelist_usernames": ["bob"]})
    assert r.json["id"] == 3


def test_organization_teams(api, people):
    alice = people["alice"]
    assert api.post("/orgs", token=alice, json={"username": "acme"}).status == 201
    assert api.post("/orgs/acme/repos", token=alice, json={"name": "app"}).status == 201
    r = api.post("/orgs/acme/teams", token=alice, json={
        "name": "devs", "permission": "write", "includes_all_repositories": True,
        "units": ["repo.code"]})
    assert r.status == 201, r
    base = "/repos/acme/app/branch_protections"
    r = api.post(base, token=alice, json={"rule_name": "main", "push_whitelist_teams": ["ghosts"]})
    assert r.status == 422 and "team does not exist" in r.json["message"]
    r = api.post(base, token=alice, json={"rule_name": "main", "merge_whitelist_teams": ["Devs"]})
    assert r.status == 201 and r.json["merge_whitelist_teams"] == ["devs"], r
    r = api.post("/repos/acme/app/tag_protections", token=alice,
                 json={"name_pattern": "v*", "whitelist_teams": ["devs"]})
    assert r.status == 201 and r.json["whitelist_teams"] == ["devs"]
    # A user's repository ignores team lists, as Forgejo.
    r = api.post(BP, token=alice, json={"rule_name": "main", "push_whitelist_teams": ["x"]})
    assert r.status == 201 and r.json["push_whitelist_teams"] == []


def branch(api, token, name="main"):
    return api.get(f"{R}/branches/{name}", token=token).json


def test_branch_records_tell_the_caller_what_the_rule_allows(api, people):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    plain = branch(api, bob)
    assert (plain["protected"], plain["user_can_push"], plain["user_can_merge"],
            plain["effective_branch_protection_name"]) == (False, True, True, "")
    assert api.post(BP, token=alice, json={
        "rule_name": "ma*", "enable_push": True, "enable_push_whitelist": True,
        "push_whitelist_usernames": ["alice"], "enable_status_check": True,
        "status_check_contexts": ["ci"], "required_approvals": 2,
        "enable_merge_whitelist": True, "merge_whitelist_usernames": ["bob"]}).status == 201
    for token, push, merge in ((alice, True, False), (bob, False, True),
                               (carol, False, False), (None, False, False)):
        record = branch(api, token)
        assert (record["protected"], record["required_approvals"],
                record["enable_status_check"], record["status_check_contexts"],
                record["effective_branch_protection_name"]) == (True, 2, True, ["ci"], "ma*")
        assert (record["user_can_push"], record["user_can_merge"]) == (push, merge), token
    listed = api.get(f"{R}/branches", token=bob).json
    assert [(b["name"], b["protected"], b["user_can_push"]) for b in listed] == \
        [("main", True, False)]


def test_racing_admins_never_lose_a_rule(api, people):
    """Eight creates at once, two per name: every name lands once, each duplicate gets
    Forgejo's 403, and the item ends with all four rules."""
    from tests.test_races import one_request_at_a_time, together

    alice = people["alice"]
    with one_request_at_a_time():
        answers = together(8, lambda i: api.post(BP, token=alice,
                                                 json={"rule_name": f"r{i % 4}"}))
    assert Counter(a.status for a in answers) == Counter({201: 4, 403: 4}), answers
    assert sorted(b["rule_name"] for b in api.get(BP, token=alice).json) == \
        ["r0", "r1", "r2", "r3"]
    with one_request_at_a_time():
        answers = together(4, lambda i: api.patch(f"{BP}/r{i}", token=alice,
                                                  json={"required_approvals": i + 1}))
    assert Counter(a.status for a in answers) == Counter({200: 4})
    assert sorted(b["required_approvals"] for b in api.get(BP, token=alice).json) == [1, 2, 3, 4]


def test_pusher_of_reads_teams_and_access(api, people):
    """``gate.pusher_of`` from a repository record: access decided, teams from the
    caller's membership of the owning organization."""
    from chalicelib.accounts import store as account_store
    from chalicelib.protection.gate import pusher_of
    from chalicelib.repos import store as repo_store

    alice = people["alice"]
    assert api.post("/orgs", token=alice, json={"username": "acme"}).status == 201
    assert api.post("/orgs/acme/repos", token=alice, json={"name": "app"}).status == 201
    team = api.post("/orgs/acme/teams", token=alice, json={
        "name": "devs", "permission": "write", "includes_all_repositories": True,
        "units": ["repo.code"]}).json
    assert api.put(f"/teams/{team['id']}/members/bob", token=alice).status == 204
    repo = repo_store.get("acme", "app")
    bob = pusher_of(repo, account_store.get_by_name("bob"))
    assert (bob.login, bob.team_ids, bob.can_write, bob.is_repo_admin) == \
        ("bob", frozenset({team["id"]}), True, False)
    carol = pusher_of(repo, account_store.get_by_name("carol"))
    assert carol.team_ids == frozenset() and not carol.can_write
    anonymous = pusher_of(repo, None)
    assert anonymous.user_id == 0 and not anonymous.can_write
    assert pusher_of(repo, None, deploy_key=True).can_write
