"""Quota records: what an owner uses, its groups and rules, and the attachments,
packages and artifacts counted (Forgejo's definitions)."""
from __future__ import annotations

from chalicelib.quota import service as quota
from chalicelib.quota.rules import Group, Rule, Used
from chalicelib.http import schemas
from chalicelib.http.schema_types import STRINGS, I, S, ref

# The records' Swagger definitions: Forgejo's names, fields and types, published by
# /swagger.v1.json (``http.schemas``) and checked against what this module builds.
SCHEMAS = schemas.declare({
    "QuotaRuleInfo": {"name": S, "limit": I, "subjects": STRINGS},
    "QuotaGroup": {"name": S, "rules": {"type": "array", "items": ref("QuotaRuleInfo")}},
    "QuotaUsedSizeRepos": {"public": I, "private": I},
    "QuotaUsedSizeGit": {"LFS": I},
    "QuotaUsedSizeAssetsAttachments": {"issues": I, "releases": I},
    "QuotaUsedSizeAssetsPackages": {"all": I},
    "QuotaUsedSizeAssets": {"attachments": ref("QuotaUsedSizeAssetsAttachments"),
                            "artifacts": I, "packages": ref("QuotaUsedSizeAssetsPackages")},
    "QuotaUsedSize": {"repos": ref("QuotaUsedSizeRepos"), "git": ref("QuotaUsedSizeGit"),
                      "assets": ref("QuotaUsedSizeAssets")},
    "QuotaUsed": {"size": ref("QuotaUsedSize")},
    "QuotaInfo": {"used": ref("QuotaUsed"),
                  "groups": {"type": "array", "items": ref("QuotaGroup")}},
    "QuotaUsedAttachment": {"name": S, "size": I, "api_url": S,
                            "contained_in": {"type": "object",
                                             "properties": {"api_url": S, "html_url": S}}},
    "QuotaUsedPackage": {"name": S, "type": S, "version": S, "size": I, "html_url": S},
    "QuotaUsedArtifact": {"name": S, "size": I, "html_url": S},
}, lists=("QuotaGroup", "QuotaRuleInfo", "QuotaUsedAttachment", "QuotaUsedPackage", "QuotaUsedArtifact"))


def rule_record(rule: Rule, *, names: bool) -> dict:
    """QuotaRuleInfo: ``name`` only for admins, ``subjects`` left out when empty
    (Go's omitempty)."""
    found: dict = {"name": rule.name} if names and rule.name else {}
    found["limit"] = int(rule.limit)
    if rule.subjects:
        found["subjects"] = list(rule.subjects)
    return found


def group_record(group: Group, *, names: bool) -> dict:
    found: dict = {"name": group.name} if names and group.name else {}
    found["rules"] = [rule_record(rule, names=names) for rule in group.rules]
    return found


def used_record(used: Used) -> dict:
    return {"size": {
        "repos": {"public": used.repos_public, "private": used.repos_private},
        "git": {"LFS": used.git_lfs},
        "assets": {"attachments": {"issues": used.attachments_issues,
                                   "releases": used.attachments_releases},
                   "artifacts": used.artifacts, "packages": {"all": used.packages}}}}


def info_record(found: quota.QuotaInfo, *, names: bool) -> dict:
    return {"used": used_record(found.used),
            "groups": [group_record(g, names=names) for g in found.groups]}


def attachment_record(attachment: quota.UsedAttachment) -> dict:
    return {"name": attachment.name, "size": int(attachment.size),
            "api_url": attachment.api_url,
            "contained_in": {"api_url": attachment.contained_in_api_url,
                             "html_url": attachment.contained_in_html_url}}
