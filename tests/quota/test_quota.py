"""Quota (issue 12): settings, the admin routes with Forgejo's codes, evaluation, the
user and organization routes, and the accounting of pushes, forks, deletions and
visibility changes (in-process, under moto).  The git CLI and racing writers:
``test_quota_git.py``."""
from __future__ import annotations

import os

import pytest

from chalicelib.quota import rules as quota_rules
from chalicelib.quota.rules import Group, Rule, Used
from tests.conftest import ADMIN
from tests.repo_admin.test_migrations import local_networks_allowed, remote  # noqa: F401 - fixtures

MiB = 1 << 20
QUOTA_ENV = ("NIMBUS__QUOTA__ENABLED", "NIMBUS__QUOTA__DEFAULT_GROUPS",
             "NIMBUS__QUOTA_0X2E_DEFAULT__TOTAL")


def set_quota(**values: str) -> None:
    """Quota settings for this process (NIMBUS__ variables; the cache dropped)."""
    from chalicelib.settings import reset_settings_cache

    names = {"enabled": QUOTA_ENV[0], "default_groups": QUOTA_ENV[1], "total": QUOTA_ENV[2]}
    for key, value in values.items():
        os.environ[names[key]] = value
    reset_settings_cache()


@pytest.fixture
def quota_on(api):
    set_quota(enabled="true")
    yield api
    from chalicelib.settings import reset_settings_cache

    for name in QUOTA_ENV:
        os.environ.pop(name, None)
    reset_settings_cache()


@pytest.fixture
def admin(quota_on):
    return quota_on.create_token(*ADMIN, name="quota-admin")


def rule(api, token, name, limit, subjects):
    r = api.post("/admin/quota/rules", token=token,
                 json={"name": name, "limit": limit, "subjects": subjects})
    assert r.status == 201, r
    return r.json


# Evaluation (pure) ----------------------------------------------------------------------------

def test_subjects_walk_up_to_their_parents():
    repos = Rule("r", 100, ("size:repos:all",))
    assert repos.matches("size:repos:public") and repos.matches("size:repos:private")
    assert not repos.matches("size:git:lfs") and not repos.matches("size:all")
    everything = Rule("a", 100, ("size:all",))
    assert all(everything.matches(s) for s in quota_rules.SUBJECTS if s != "none")
    assert not everything.matches("none")
    with pytest.raises(Exception, match=r"unrecognized quota limit subject: \[subject: size:wiki\]"):
        quota_rules.check_subject("size:wiki")


def test_a_rule_sums_all_its_subjects_and_compares_strictly():
    used = Used(repos_public=40, attachments_releases=60)
    both = Rule("b", 100, ("size:repos:all", "size:assets:attachments:all"))
    assert both.matches("size:repos:public")
    assert not both.allows(used)                     # 40 + 60 is not below 100
    assert Rule("c", 101, both.subjects).allows(used)
    assert not Rule("z", 0, ("size:all",)).allows(Used())     # 0 refuses everything
    assert Rule("u", -1, ("size:all",)).allows(Used(repos_public=10 ** 15))
    assert Rule("c", 101, both.subjects).allows(used, adding=1)
    assert not Rule("c", 101, both.subjects).allows(used, adding=2)


def test_groups_and_the_defaults():
    small = Group("small", (Rule("repos", 10, ("size:repos:all",)),))
    big = Group("big", (Rule("all", 1000, ("size:all",)),))
    used = Used(repos_private=50)
    # One group allowing is enough; a group allows only if all its matching rules do.
    assert quota_rules.allowed([small, big], used, "size:repos:all")
    assert not quota_rules.allowed([small], used, "size:repos:all")
    mixed = Group("mixed", small.rules + big.rules)
    assert not quota_rules.allowed([mixed], used, "size:repos:all")
    # No group has a rule for the subject: denied.
    assert not quota_rules.allowed([small], used, "size:assets:attachments:issues")
    # Own groups, else the default groups that exist, else the implicit one.
    known = {"small": small, "big": big}
    assert quota_rules.groups_for(["big"], known, ["small"], -1) == [big]
    assert quota_rules.groups_for(["gone"], known, ["nope", "small"], -1) == [small]
    implicit = quota_rules.groups_for([], known, ["nope"], 100)
    assert implicit == [quota_rules.implicit_group(100)]
    assert quota_rules.allowed(implicit, Used(repos_public=99), "size:git:lfs")
    assert not quota_rules.allowed(implicit, Used(repos_public=100), "size:git:lfs")
    assert quota_rules.allowed(quota_rules.groups_for([], {}, [], -1), used, "size:all")


def test_sizes_as_operators_write_them():
    assert quota_rules.parse_size("1 GiB") == 1 << 30
    assert quota_rules.parse_size("500MB") == 500 * 10 ** 6
    assert quota_rules.parse_size("1.5 KiB") == 1536
    assert quota_rules.parse_size("1024") == 1024
    assert quota_rules.parse_size("") == -1 and quota_rules.parse_size("lots") == -1


def test_settings_sections():
    from chalicelib.settings import load_settings

    s = load_settings({"NIMBUS__QUOTA__ENABLED": "true", "NIMBUS__QUOTA__DEFAULT_GROUPS": "a,b",
                       "NIMBUS__QUOTA_0X2E_DEFAULT__TOTAL": "1 MiB"})
    assert s.quota.ENABLED and s.quota.DEFAULT_GROUPS == "a,b"
    assert s.quota_default.TOTAL == "1 MiB"
    assert load_settings({}).quota.ENABLED is False


# Routes off and on ------------------------------------------------------------------------------

def test_quota_routes_do_not_exist_while_quota_is_off(api):
    token = api.create_token(*ADMIN)
    for path in ("/user/quota", "/admin/quota/rules", "/orgs/x/quota"):
        assert api.get(path).status == 404
        r = api.get(path, token=token)
        assert r.status == 404 and r.json["message"] == "The target couldn't be found."


def test_admin_rules(quota_on, admin):
    api = quota_on
    assert api.get("/admin/quota/rules", token=admin).json == []
    made = rule(api, admin, "repos", MiB, ["size:repos:all"])
    assert made == {"name": "repos", "limit": MiB, "subjects": ["size:repos:all"]}
    again = api.post("/admin/quota/rules", token=admin,
                     json={"name": "repos", "limit": 1, "subjects": []})
    assert again.status == 409 and again.json["message"] == "rule already exists: [name: repos]"
    no_limit = api.post("/admin/quota/rules", token=admin, json={"name": "x", "subjects": []})
    assert no_limit.status == 422 and no_limit.json["message"] == "[Limit]: Required"
    bad = api.post("/admin/quota/rules", token=admin,
                   json={"name": "x", "limit": 1, "subjects": ["size:wiki"]})
    assert bad.status == 422
    assert bad.json["message"] == "unrecognized quota limit subject: [subject: size:wiki]"
    assert api.get("/admin/quota/rules/repos", token=admin).json == made
    assert api.get("/admin/quota/rules/nope", token=admin).status == 404
    edited = api.patch("/admin/quota/rules/repos", token=admin, json={"limit": 5})
    assert edited.status == 200 and edited.json == dict(made, limit=5)
    edited = api.patch("/admin/quota/rules/repos", token=admin,
                       json={"subjects": ["size:all", "size:git:lfs"]})
    assert edited.json == {"name": "repos", "limit": 5, "subjects": ["size:all", "size:git:lfs"]}
    assert api.patch("/admin/quota/rules/repos", token=admin,
                     json={"subjects": ["bogus"]}).status == 422
    rule(api, admin, "empty", 0, [])
    assert api.get("/admin/quota/rules/empty", token=admin).json == {"name": "empty", "limit": 0}
    assert api.delete("/admin/quota/rules/repos", token=admin).status == 204
    assert api.delete("/admin/quota/rules/repos", token=admin).status == 404
    assert [r["name"] for r in api.get("/admin/quota/rules", token=admin).json] == ["empty"]
    user = api.create_token("root", ADMIN[1], name="not-admin-scope", scopes=("read:user",))
    assert api.get("/admin/quota/rules", token=user).status == 403


def test_admin_groups_rules_and_members(quota_on, admin):
    api = quota_on
    rule(api, admin, "existing", 7, ["size:git:all"])
    made = api.post("/admin/quota/groups", token=admin, json={
        "name": "team", "rules": [{"name": "existing", "limit": 99},
                                  {"name": "fresh", "subjects": ["size:assets:all"]}]})
    assert made.status == 201
    assert made.json == {"name": "team", "rules": [
        {"name": "existing", "limit": 7, "subjects": ["size:git:all"]},
        {"name": "fresh", "limit": 0, "subjects": ["size:assets:all"]}]}
    assert api.get("/admin/quota/rules/fresh", token=admin).status == 200
    again = api.post("/admin/quota/groups", token=admin, json={"name": "team"})
    assert again.status == 409 and again.json["message"] == "group already exists: [name: team]"
    assert api.post("/admin/quota/groups", token=admin, json={
        "name": "bad", "rules": [{"name": "b", "subjects": ["nope"]}]}).status == 422
    assert api.get("/admin/quota/groups/bad", token=admin).status == 404
    assert api.get("/admin/quota/groups/team", token=admin).json == made.json

    rule(api, admin, "third", 1, ["size:all"])
    path = "/admin/quota/groups/team/rules/third"
    assert api.put(path, token=admin).status == 204
    twice = api.put(path, token=admin)
    assert twice.status == 409
    assert twice.json["message"] == "rule already in group: [group: team, rule: third]"
    assert api.put("/admin/quota/groups/team/rules/none", token=admin).status == 404
    assert api.put("/admin/quota/groups/none/rules/third", token=admin).status == 404
    assert api.delete(path, token=admin).status == 204
    assert api.delete(path, token=admin).status == 404
    # Deleting a rule takes it out of its groups.
    assert api.delete("/admin/quota/rules/fresh", token=admin).status == 204
    assert [r["name"] for r in api.get("/admin/quota/groups/team", token=admin).json["rules"]] \
        == ["existing"]

    api.create_user("alice")
    member = "/admin/quota/groups/team/users/alice"
    assert api.put(member, token=admin).status == 204
    dup = api.put(member, token=admin)
    alice_id = api.get("/users/alice").json["id"]
    assert dup.status == 409
    assert dup.json["message"] == f"user already in group: [group: team, userID: {alice_id}]"
    assert api.put("/admin/quota/groups/team/users/nobody", token=admin).status == 404
    listed = api.get("/admin/quota/groups/team/users", token=admin)
    assert [u["login"] for u in listed.json] == ["alice"]
    info = api.get("/admin/users/alice/quota", token=admin).json
    assert info["groups"] == [{"name": "team", "rules": [
        {"name": "existing", "limit": 7, "subjects": ["size:git:all"]}]}]
    assert api.delete(member, token=admin).status == 204
    assert api.delete(member, token=admin).status == 404
    assert api.get("/admin/users/alice/quota", token=admin).json["groups"] == []

    # Setting groups replaces them; an unknown group is a 422; [] clears; null keeps.
    api.post("/admin/quota/groups", token=admin, json={"name": "other"})
    groups = "/admin/users/alice/quota/groups"
    assert api.post(groups, token=admin, json={"groups": ["team", "other"]}).status == 204
    assert {g["name"] for g in api.get("/admin/users/alice/quota", token=admin).json["groups"]} \
        == {"team", "other"}
    missing = api.post(groups, token=admin, json={"groups": ["team", "ghost"]})
    assert missing.status == 422 and missing.json["message"] == "group not found: [group: ghost]"
    assert api.post(groups, token=admin, json={"groups": None}).status == 204
    assert len(api.get("/admin/users/alice/quota", token=admin).json["groups"]) == 2
    assert api.post(groups, token=admin, json={"groups": ["other"]}).status == 204
    assert api.get("/admin/quota/groups/team/users", token=admin).json == []
    # Deleting a group removes its memberships.
    assert api.delete("/admin/quota/groups/other", token=admin).status == 204
    assert api.get("/admin/users/alice/quota", token=admin).json["groups"] == []
    assert api.delete("/admin/quota/groups/other", token=admin).status == 404


# The user and organization views ------------------------------------------------------------

def test_user_quota_info_check_and_lists(quota_on, admin):
    api = quota_on
    api.create_user("alice")
    alice = api.create_token("alice")
    info = api.get("/user/quota", token=alice)
    assert info.status == 200
    assert info.json == {"used": {"size": {
        "repos": {"public": 0, "private": 0}, "git": {"LFS": 0},
        "assets": {"attachments": {"issues": 0, "releases": 0}, "artifacts": 0,
                   "packages": {"all": 0}}}}, "groups": []}
    assert api.get("/user/quota").status == 401
    check = api.get("/user/quota/check?subject=size:repos:all", token=alice)
    assert check.status == 200 and check.json is True
    for subject in ("", "size:wiki"):
        r = api.get(f"/user/quota/check?subject={subject}", token=alice)
        assert r.status == 422
        assert r.json["message"] == f"unrecognized quota limit subject: [subject: {subject}]"
    for kind in ("attachments", "packages", "artifacts"):
        r = api.get(f"/user/quota/{kind}?page=1&limit=10", token=alice)
        assert r.status == 200 and r.json == [] and r.headers["x-total-count"] == "0"
    # Groups shown to the user carry no names.
    rule(api, admin, "none-at-all", 0, ["size:repos:all"])
    api.post("/admin/quota/groups", token=admin, json={"name": "g", "rules": [
        {"name": "none-at-all"}]})
    api.put("/admin/quota/groups/g/users/alice", token=admin)
    assert api.get("/user/quota", token=alice).json["groups"] == [
        {"rules": [{"limit": 0, "subjects": ["size:repos:all"]}]}]
    assert api.get("/user/quota/check?subject=size:repos:public", token=alice).json is False
    refused = api.post("/user/repos", token=alice, json={"name": "p"})
    assert refused.status == 413
    assert refused.json == {"message": "quota exceeded", "user_id": api.get(
        "/users/alice").json["id"], "username": "alice"}


def test_default_groups_and_total(quota_on, admin):
    api = quota_on
    api.create_user("alice")
    alice = api.create_token("alice")
    set_quota(total="0")
    assert api.get("/user/quota/check?subject=size:all", token=alice).json is False
    rule(api, admin, "lots", 10 * MiB, ["size:all"])
    api.post("/admin/quota/groups", token=admin, json={"name": "std", "rules": [{"name": "lots"}]})
    set_quota(default_groups="missing, std")
    assert api.get("/user/quota/check?subject=size:all", token=alice).json is True
    assert api.get("/user/quota", token=alice).json["groups"] == [
        {"rules": [{"limit": 10 * MiB, "subjects": ["size:all"]}]}]


def test_org_quota_needs_an_owner(quota_on, admin):
    api = quota_on
    api.create_user("alice")
    api.create_user("bob")
    alice, bob = api.create_token("alice"), api.create_token("bob")
    assert api.post("/orgs", token=alice, json={"username": "acme"}).status == 201
    assert api.get("/orgs/acme/quota", token=alice).status == 200
    assert api.get("/orgs/acme/quota", token=bob).status == 403
    assert api.get("/orgs/acme/quota/check?subject=size:all", token=bob).status == 403
    assert api.get("/orgs/nothing/quota", token=alice).status == 404
    assert api.get("/orgs/alice/quota", token=alice).status == 404      # a user, not an org
    assert api.get("/orgs/acme/quota", token=admin).status == 200       # site admins own all
    assert api.get("/orgs/acme/quota/check?subject=bogus", token=alice).status == 422
    assert api.get("/orgs/acme/quota/check?subject=size:all", token=alice).json is True
    for kind in ("attachments", "packages", "artifacts"):
        assert api.get(f"/orgs/acme/quota/{kind}", token=alice).json == []
        assert api.get(f"/orgs/acme/quota/{kind}", token=bob).status == 403


# Accounting ----------------------------------------------------------------------------------

def usage(owner: str) -> dict:
    from chalicelib.accounts import store as accounts
    from chalicelib.quota import store as quota

    return quota.get_usage(int(accounts.get_by_name(owner).id), consistent=True).counts


def repo_size(owner: str, name: str) -> int:
    from chalicelib.repos import store as repos

    return int(repos.get(owner, name).quota_size or 0)


def recount() -> list:
    from chalicelib.quota import check as quota_check

    return quota_check.recount()


def prepared_push(owner: str, name: str, content: bytes):
    """A commit with one file on main, its pack stored, its ref change planned (as the
    API writes commits: a pack, then a ref change through ``pushes``)."""
    from dulwich.objects import Blob, Commit, Tree

    from chalicelib.gitops import objects
    from chalicelib.contents import pushes
    from chalicelib.contents import files as repo_files
    from chalicelib.repos import store as repos

    repo = repos.get(owner, name)
    git = repo_files.open_git(repo)
    old = git.refs.as_dict().get(b"refs/heads/main")
    blob = Blob.from_string(content)
    tree = Tree()
    tree.add(b"data.bin", 0o100644, blob.id)
    made = Commit()
    made.tree = tree.id
    made.author = made.committer = b"A <a@example.com>"
    made.author_time = made.commit_time = 1_700_000_000
    made.author_timezone = made.commit_timezone = 0
    made.message, made.parents = b"data\n", [old] if old else []
    with objects.staged(git.object_store) as staged:
        for obj in (blob, tree, made):
            staged.add_object(obj)
    return pushes.prepare(repo, git, [("refs/heads/main", (old or b"0" * 40).decode(),
                                       made.id.decode())], actor=None)


def push_commit(owner: str, name: str, content: bytes) -> None:
    from chalicelib.contents import pushes

    pushes.commit(prepared_push(owner, name, content))


@pytest.mark.usefixtures("immediate_deletion")   # what deleting removes at once
def test_pushes_forks_deletions_and_visibility_move_usage(quota_on):
    api = quota_on
    api.create_user("alice")
    api.create_user("bob")
    alice, bob = api.create_token("alice"), api.create_token("bob")
    assert api.post("/user/repos", token=alice, json={"name": "pub"}).status == 201
    push_commit("alice", "pub", os.urandom(50_000))
    pub = repo_size("alice", "pub")
    assert pub > 50_000 and usage("alice")["repos_public"] == pub
    push_commit("alice", "pub", os.urandom(30_000))
    grown = repo_size("alice", "pub")
    assert grown > pub + 30_000 and usage("alice")["repos_public"] == grown

    # A fork shares the pool: it costs its owner nothing until something is pushed to it.
    assert api.post("/repos/alice/pub/forks", token=bob, json={}).status == 202
    assert repo_size("bob", "pub") == 0 and usage("bob")["repos_public"] == 0
    push_commit("bob", "pub", os.urandom(20_000))
    assert 20_000 < usage("bob")["repos_public"] == repo_size("bob", "pub") < 30_000
    assert usage("alice")["repos_public"] == grown          # the parent's owner unchanged

    # Visibility moves the bytes between the counters.
    assert api.patch("/repos/alice/pub", token=alice, json={"private": True}).status == 200
    assert usage("alice")["repos_public"] == 0 and usage("alice")["repos_private"] == grown
    push_commit("alice", "pub", b"small private change")
    assert usage("alice")["repos_private"] == repo_size("alice", "pub")
    assert recount() == []

    # Deleting releases the bytes; the fork keeps its own.
    bob_bytes = usage("bob")["repos_public"]
    assert api.delete("/repos/alice/pub", token=alice).status == 204
    assert usage("alice")["repos_private"] == 0 and usage("alice")["repos_public"] == 0
    assert usage("bob")["repos_public"] == bob_bytes
    assert recount() == []


def test_recount_repairs_drift(quota_on):
    from chalicelib.store import unit_of_work
    from chalicelib.accounts import store as accounts
    from chalicelib.quota import store as quota

    api = quota_on
    api.create_user("alice")
    alice = api.create_token("alice")
    api.post("/user/repos", token=alice, json={"name": "p"})
    push_commit("alice", "p", os.urandom(10_000))
    size = repo_size("alice", "p")
    alice_id = int(accounts.get_by_name("alice").id)
    with unit_of_work.writing():                     # drift: a counter gone wrong
        quota.stage_usage(alice_id, {"repos_public": 12_345, "repos_private": 7})
    found = recount()
    assert {(c.field, c.was, c.now, c.fixed) for c in found} == {
        ("repos_public", size + 12_345, size, True), ("repos_private", 7, 0, True)}
    assert usage("alice")["repos_public"] == size and recount() == []
    from chalicelib import cli

    assert cli.main(["--aws", "admin", "quota", "recount", "--dry-run"]) == 0


@pytest.mark.usefixtures("immediate_deletion")   # what deleting removes at once
def test_over_quota_refuses_create_fork_and_merge_with_413(quota_on, admin):
    api = quota_on
    api.create_user("alice")
    alice = api.create_token("alice")
    rule(api, admin, "tiny", 1000, ["size:repos:all"])
    api.post("/admin/quota/groups", token=admin, json={"name": "tiny", "rules": [{"name": "tiny"}]})
    api.put("/admin/quota/groups/tiny/users/alice", token=admin)
    assert api.post("/user/repos", token=alice, json={"name": "a"}).status == 201
    push_commit("alice", "a", os.urandom(5000))           # crosses the limit: allowed
    for method, path, body in (("POST", "/user/repos", {"name": "b"}),
                               ("POST", "/repos/alice/a/forks", {"name": "a2"})):
        r = api.request(method, path, token=alice, json=body)
        assert r.status == 413 and r.json["message"] == "quota exceeded", (path, r)
    assert api.get("/user/quota/check?subject=size:repos:all", token=alice).json is False
    assert api.delete("/repos/alice/a", token=alice).status == 204
    assert api.get("/user/quota/check?subject=size:repos:all", token=alice).json is True


def test_migration_and_mirror_sync_are_charged_and_checked(
        quota_on, admin, remote, local_networks_allowed):  # noqa: F811 - fixtures
    from chalicelib.jobs import schedules
    from tests.repo_admin.test_migrations import git

    api = quota_on
    api.create_user("alice")
    alice = api.create_token("alice")
    r = api.post("/repos/migrate", token=alice, json={
        "clone_addr": remote["url"], "repo_name": "mirror", "mirror": True,
        "mirror_interval": "10m", "private": True})
    assert r.status == 201, r
    migrated = repo_size("alice", "mirror")
    assert migrated > 0 and usage("alice")["repos_private"] == migrated
    work = remote["work"]
    (work / "more.bin").write_bytes(os.urandom(20_000))
    git("add", "more.bin", cwd=work)
    git("commit", "-q", "-m", "more", cwd=work)
    git("push", "-q", str(remote["bare"]), "main", cwd=work)
    assert api.post("/repos/alice/mirror/mirror-sync", token=alice).status == 200
    synced = repo_size("alice", "mirror")
    assert synced > migrated + 20_000 and usage("alice")["repos_private"] == synced
    assert recount() == []

    # Over quota: no migration, no sync (413), and the schedule skips the mirror.
    rule(api, admin, "small", 1000, ["size:all"])
    api.post("/admin/quota/groups", token=admin, json={"name": "g", "rules": [{"name": "small"}]})
    api.put("/admin/quota/groups/g/users/alice", token=admin)
    again = api.post("/repos/migrate", token=alice, json={
        "clone_addr": remote["url"], "repo_name": "copy"})
    assert again.status == 413 and again.json["username"] == "alice"
    assert api.post("/repos/alice/mirror/mirror-sync", token=alice).status == 413
    from chalicelib.store import unit_of_work
    from chalicelib.repo_admin import mirror_store as mirrors
    from chalicelib.repos import store as repos

    with unit_of_work.writing():
        mirrors.stage_schedule(repos.get("alice", "mirror"), 1)
    assert schedules.sync_mirrors() == 0


def test_compaction_keeps_the_charges(quota_on):
    from chalicelib.gitstore import compaction, packdb
    from chalicelib.repos import store as repos

    api = quota_on
    api.create_user("alice")
    api.create_user("bob")
    alice, bob = api.create_token("alice"), api.create_token("bob")
    api.post("/user/repos", token=alice, json={"name": "p"})
    push_commit("alice", "p", os.urandom(8_000))
    push_commit("alice", "p", os.urandom(8_000))
    api.post("/repos/alice/p/forks", token=bob, json={})
    push_commit("bob", "p", os.urandom(8_000))
    before = (usage("alice"), usage("bob"))
    pool = int(repos.get("alice", "p").pool_id)
    ids = [int(repos.get("alice", "p").id), int(repos.get("bob", "p").id)]
    assert compaction.compact_pool(pool, ids, min_age_seconds=0, grace_seconds=0)
    packs = packdb.list_packs(pool)
    assert [info.role for info in packs.values()] == ["compacted"]
    assert (usage("alice"), usage("bob")) == before and recount() == []


def test_attachment_accounting_for_the_integrator(quota_on, admin):
    from chalicelib.errors import QuotaExceeded
    from chalicelib.quota import service as quota
    from chalicelib.store import unit_of_work
    from chalicelib.accounts import store as accounts

    api = quota_on
    api.create_user("alice")
    alice_id = int(accounts.get_by_name("alice").id)
    with unit_of_work.writing():
        quota.stage_attachment_usage(alice_id, "releases", 700)
        quota.stage_attachment_usage(alice_id, "releases", 300)    # summed in one update
        quota.stage_attachment_usage(alice_id, "issues", 50)
    assert usage("alice")["attachments_releases"] == 1000
    assert usage("alice")["attachments_issues"] == 50
    rule(api, admin, "assets", 1100, ["size:assets:attachments:all"])
    api.post("/admin/quota/groups", token=admin, json={"name": "a", "rules": [{"name": "assets"}]})
    api.put("/admin/quota/groups/a/users/alice", token=admin)
    quota.ensure_within(alice_id, "size:assets:attachments:releases", adding=50)
    with pytest.raises(QuotaExceeded) as refused:
        quota.ensure_within(alice_id, "size:assets:attachments:releases", adding=51)
    assert refused.value.username == "alice" and refused.value.user_id == alice_id
    with pytest.raises(ValueError):
        quota.stage_attachment_usage(alice_id, "wiki", 1)
    # Registered totals let the recount repair the attachment counters too.
    quota.register_attachments(lambda owner: [quota.UsedAttachment(
        "a.bin", 900, "http://x/api/a", "http://x/api/r", "http://x/r")] if owner == alice_id
        else [], lambda: {alice_id: (50, 900)})
    try:
        token = api.create_token("alice")
        listed = api.get("/user/quota/attachments", token=token).json
        assert listed == [{"name": "a.bin", "size": 900, "api_url": "http://x/api/a",
                           "contained_in": {"api_url": "http://x/api/r",
                                            "html_url": "http://x/r"}}]
        assert [(c.field, c.was, c.now) for c in recount()] == [
            ("attachments_releases", 1000, 900)]
        assert usage("alice")["attachments_releases"] == 900
    finally:
        quota.register_attachments(None, None)


def test_a_push_racing_a_visibility_change_is_charged_to_the_new_visibility(quota_on):
    from chalicelib.contents import pushes

    api = quota_on
    api.create_user("alice")
    alice = api.create_token("alice")
    api.post("/user/repos", token=alice, json={"name": "p"})
    change = prepared_push("alice", "p", os.urandom(9_000))     # planned while public
    assert api.patch("/repos/alice/p", token=alice, json={"private": True}).status == 200
    pushes.commit(change)
    assert usage("alice") == dict(usage("alice"), repos_public=0,
                                  repos_private=repo_size("alice", "p"))
    assert repo_size("alice", "p") > 9_000 and recount() == []


@pytest.mark.usefixtures("immediate_deletion")   # what deleting removes at once
def test_a_deletion_racing_a_push_releases_exactly_what_it_read(quota_on):
    from chalicelib.errors import ConflictError
    from chalicelib.repo_admin import lifecycle as repo_lifecycle
    from chalicelib.repos import store as repos

    api = quota_on
    api.create_user("alice")
    alice = api.create_token("alice")
    api.post("/user/repos", token=alice, json={"name": "p"})
    read = repos.get("alice", "p")                      # the deletion reads ...
    push_commit("alice", "p", os.urandom(5_000))        # ... a push lands ...
    with pytest.raises(ConflictError):                  # ... the deletion must not win
        repo_lifecycle.remove(read, actor=None)
    assert usage("alice")["repos_public"] == repo_size("alice", "p") > 5_000
    assert api.delete("/repos/alice/p", token=alice).status == 204
    assert usage("alice")["repos_public"] == 0 and recount() == []
