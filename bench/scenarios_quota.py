"""Quota scenarios for bench/aws_calls.py (imported there).

Quota routes exist only with ``[quota] ENABLED``: every measured request and every
set-up call runs with it on (``QUOTA_ON``).  Rules here are unlimited, so no other
scenario is refused for quota.
"""
from __future__ import annotations

from scene import Req, Scene, settings_in_force

QUOTA_ON = {"NIMBUS__QUOTA__ENABLED": "true"}
ORG = "quota-org"
UNLIMITED = {"limit": -1, "subjects": ["size:all"]}


def quota_req(method: str, path: str, auth: str = "token", body: dict | None = None,
              expect: int = 200) -> Req:
    return Req(method, path, auth, body, expect, settings=QUOTA_ON)


def setup(s: Scene, method: str, path: str, body: dict | None = None, expect: int = 201):
    with settings_in_force(QUOTA_ON):
        return s.must(method, path, "admin", body, expect)


def org(s: Scene) -> str:
    """An organization alice owns (made once)."""
    def make() -> str:
        s.must("POST", "/orgs", "token", {"username": ORG})
        return ORG
    return s.once("quota_org", make)


def new_rule(s: Scene) -> str:
    name = s.unique("rule-")
    setup(s, "POST", "/admin/quota/rules", {"name": name, **UNLIMITED})
    return name


def new_group(s: Scene, *rules: str) -> str:
    name = s.unique("group-")
    setup(s, "POST", "/admin/quota/groups", {"name": name,
                                             "rules": [{"name": r} for r in rules]})
    return name


def group_with_member(s: Scene) -> tuple[str, str]:
    group, user = new_group(s, new_rule(s)), s.new_user()
    setup(s, "PUT", f"/admin/quota/groups/{group}/users/{user}", expect=204)
    return group, user


def group_with_rule(s: Scene) -> tuple[str, str]:
    rule = new_rule(s)
    return new_group(s, rule), rule


def shared_group(s: Scene) -> str:
    """A group with a rule and a member, for the reads (made once)."""
    return s.once("quota_group", lambda: group_with_member(s)[0])


def list_scenarios() -> dict:
    """The user's and the organization's attachment, package and artifact lists."""
    found = {}
    for kind in ("attachments", "packages", "artifacts"):
        found[f"userListQuota{kind.capitalize()}"] = \
            lambda s, k=kind: [quota_req("GET", f"/user/quota/{k}")]
        found[f"orgListQuota{kind.capitalize()}"] = \
            lambda s, k=kind: [quota_req("GET", f"/orgs/{org(s)}/quota/{k}")]
    return found


def scenarios() -> dict:
    """operationId -> scenario, as in aws_calls.SCENARIOS."""
    return {
        **list_scenarios(),
        "userGetQuota": lambda s: [quota_req("GET", "/user/quota")],
        "userCheckQuota": lambda s: [quota_req("GET", "/user/quota/check?subject=size:all")],
        "orgGetQuota": lambda s: [quota_req("GET", f"/orgs/{org(s)}/quota")],
        "orgCheckQuota": lambda s: [
            quota_req("GET", f"/orgs/{org(s)}/quota/check?subject=size:repos:all")],
        "adminListQuotaRules": lambda s: [quota_req("GET", "/admin/quota/rules", "admin")],
        "adminCreateQuotaRule": lambda s: [quota_req(
            "POST", "/admin/quota/rules", "admin", {"name": s.unique("made-"), **UNLIMITED},
            201)],
        "adminGetQuotaRule": lambda s: [
            quota_req("GET", f"/admin/quota/rules/{new_rule(s)}", "admin")],
        "adminEditQuotaRule": lambda s: [quota_req(
            "PATCH", f"/admin/quota/rules/{new_rule(s)}", "admin", {"limit": 1 << 30})],
        "adminDeleteQuotaRule": lambda s: [
            quota_req("DELETE", f"/admin/quota/rules/{new_rule(s)}", "admin", expect=204)],
        "adminListQuotaGroups": lambda s: [quota_req("GET", "/admin/quota/groups", "admin")],
        "adminCreateQuotaGroup": lambda s: [quota_req(
            "POST", "/admin/quota/groups", "admin",
            {"name": s.unique("made-"), "rules": [{"name": s.unique("inline-"), **UNLIMITED}]},
            201)],
        "adminGetQuotaGroup": lambda s: [
            quota_req("GET", f"/admin/quota/groups/{shared_group(s)}", "admin")],
        "adminDeleteQuotaGroup": lambda s: [quota_req(
            "DELETE", f"/admin/quota/groups/{group_with_member(s)[0]}", "admin", expect=204)],
        "adminAddRuleToQuotaGroup": lambda s: [quota_req(
            "PUT", f"/admin/quota/groups/{new_group(s)}/rules/{new_rule(s)}", "admin",
            expect=204)],
        "adminRemoveRuleFromQuotaGroup": lambda s: [quota_req(
            "DELETE", "/admin/quota/groups/{}/rules/{}".format(*group_with_rule(s)), "admin",
            expect=204)],
        "adminListUsersInQuotaGroup": lambda s: [
            quota_req("GET", f"/admin/quota/groups/{shared_group(s)}/users", "admin")],
        "adminAddUserToQuotaGroup": lambda s: [quota_req(
            "PUT", f"/admin/quota/groups/{new_group(s)}/users/{s.new_user()}", "admin",
            expect=204)],
        "adminRemoveUserFromQuotaGroup": lambda s: [quota_req(
            "DELETE", "/admin/quota/groups/{}/users/{}".format(*group_with_member(s)), "admin",
            expect=204)],
        "adminGetUserQuota": lambda s: [
            quota_req("GET", f"/admin/users/{group_with_member(s)[1]}/quota", "admin")],
        "adminSetUserQuotaGroups": lambda s: [quota_req(
            "POST", f"/admin/users/{s.new_user()}/quota/groups", "admin",
            {"groups": [shared_group(s)]}, 204)],
    }
