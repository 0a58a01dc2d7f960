"""Branch and tag protection rules -> Forgejo's BranchProtection and TagProtection
records, field for field (fj:services/convert/convert.go ``ToBranchProtection``,
``ToTagProtection``).

As Forgejo: ``branch_name`` is the rule name when it is a plain branch name and empty
for a glob; allowlists show names sorted (Forgejo reads them ordered by name).  Unlike
Forgejo, an empty list is ``[]`` rather than ``null``, and team lists of a repository
owned by a user are ``[]``.
"""
from __future__ import annotations

from chalicelib.http import formats, schemas
from chalicelib.http.schema_types import STRINGS, B, I, S, T
from chalicelib.protection.rules import BranchRule, Protection, Pusher, TagRule

# The records' Swagger definitions: Forgejo's names, fields and types, published by
# /swagger.v1.json (``http.schemas``) and checked against what this module builds.
SCHEMAS = schemas.declare({
    "BranchProtection": {
        "branch_name": S, "rule_name": S, "enable_push": B, "enable_push_whitelist": B,
        "push_whitelist_usernames": STRINGS, "push_whitelist_teams": STRINGS,
        "push_whitelist_deploy_keys": B, "enable_merge_whitelist": B,
        "merge_whitelist_usernames": STRINGS, "merge_whitelist_teams": STRINGS,
        "enable_status_check": B, "status_check_contexts": STRINGS, "required_approvals": I,
        "enable_approvals_whitelist": B, "approvals_whitelist_username": STRINGS,
        "approvals_whitelist_teams": STRINGS, "block_on_rejected_reviews": B,
        "block_on_official_review_requests": B, "block_on_outdated_branch": B,
        "dismiss_stale_approvals": B, "ignore_stale_approvals": B, "require_signed_commits": B,
        "protected_file_patterns": S, "unprotected_file_patterns": S, "apply_to_admins": B,
        "created_at": T, "updated_at": T,
    },
    "TagProtection": {"id": I, "name_pattern": S, "whitelist_usernames": STRINGS,
                      "whitelist_teams": STRINGS, "created_at": T, "updated_at": T},
}, lists=("BranchProtection", "TagProtection"))


def _names(ids, known: dict[int, str]) -> list[str]:
    return sorted((known[i] for i in ids if i in known), key=str.lower)


def branch_protection(rule: BranchRule, names) -> dict:
    """A BranchProtection; ``names`` is a ``service.Names`` covering the rule."""
    users, teams = names.users, names.teams
    return {
        "branch_name": rule.rule_name if rule.is_plain else "",
        "rule_name": rule.rule_name,
        "enable_push": rule.enable_push,
        "enable_push_whitelist": rule.enable_push_whitelist,
        "push_whitelist_usernames": _names(rule.push_whitelist_user_ids, users),
        "push_whitelist_teams": _names(rule.push_whitelist_team_ids, teams),
        "push_whitelist_deploy_keys": rule.push_whitelist_deploy_keys,
        "enable_merge_whitelist": rule.enable_merge_whitelist,
        "merge_whitelist_usernames": _names(rule.merge_whitelist_user_ids, users),
        "merge_whitelist_teams": _names(rule.merge_whitelist_team_ids, teams),
        "enable_status_check": rule.enable_status_check,
        "status_check_contexts": list(rule.status_check_contexts),
        "required_approvals": rule.required_approvals,
        "enable_approvals_whitelist": rule.enable_approvals_whitelist,
        "approvals_whitelist_username": _names(rule.approvals_whitelist_user_ids, users),
        "approvals_whitelist_teams": _names(rule.approvals_whitelist_team_ids, teams),
        "block_on_rejected_reviews": rule.block_on_rejected_reviews,
        "block_on_official_review_requests": rule.block_on_official_review_requests,
        "block_on_outdated_branch": rule.block_on_outdated_branch,
        "dismiss_stale_approvals": rule.dismiss_stale_approvals,
        "ignore_stale_approvals": rule.ignore_stale_approvals,
        "require_signed_commits": rule.require_signed_commits,
        "protected_file_patterns": rule.protected_file_patterns,
        "unprotected_file_patterns": rule.unprotected_file_patterns,
        "apply_to_admins": rule.apply_to_admins,
        "created_at": formats.rfc3339(rule.created),
        "updated_at": formats.rfc3339(rule.updated),
    }


def tag_protection(rule: TagRule, names) -> dict:
    """A TagProtection."""
    return {
        "id": rule.id,
        "name_pattern": rule.name_pattern,
        "whitelist_usernames": _names(rule.whitelist_user_ids, names.users),
        "whitelist_teams": _names(rule.whitelist_team_ids, names.teams),
        "created_at": formats.rfc3339(rule.created),
        "updated_at": formats.rfc3339(rule.updated),
    }


def branch_fields(protection: Protection, branch: str, pusher: Pusher | None,
                  can_write: bool) -> dict:
    """The protection fields of a Branch record for one caller (Forgejo's ``ToBranch``):
    without a rule, writers may push and merge; with one, the rule decides
    (``CanUserPush``, ``IsUserMergeWhitelisted``) and an anonymous caller may do
    neither."""
    rule = protection.rule_for(branch)
    if rule is None:
        return {"protected": False, "required_approvals": 0, "enable_status_check": False,
                "status_check_contexts": [], "user_can_push": can_write,
                "user_can_merge": can_write, "effective_branch_protection_name": ""}
    return {"protected": True, "required_approvals": rule.required_approvals,
            "enable_status_check": rule.enable_status_check,
            "status_check_contexts": list(rule.status_check_contexts),
            "user_can_push": pusher is not None and rule.can_push(pusher),
            "user_can_merge": pusher is not None and rule.can_merge(pusher),
            "effective_branch_protection_name": rule.rule_name}
