"""The request bodies of the protection domain, declared once: the edge checks them
(``ApiRequest.option``) and ``/swagger.v1.json`` publishes them (``http.options``).

Forgejo reads these into Go values: on a create, a field left out or null takes its
zero value; on an edit (pointers and slices), left out and null both mean "keep"."""
from __future__ import annotations

from chalicelib.http.options import UNSET, Int64, Option, UnsetType

Names = list[str]


class BranchProtectionFields(Option):
    """What creating and editing a branch protection share."""
    published = False

    enable_push: bool | None | UnsetType = UNSET
    enable_push_whitelist: bool | None | UnsetType = UNSET
    push_whitelist_usernames: Names | None | UnsetType = UNSET
    push_whitelist_teams: Names | None | UnsetType = UNSET
    push_whitelist_deploy_keys: bool | None | UnsetType = UNSET
    enable_merge_whitelist: bool | None | UnsetType = UNSET
    merge_whitelist_usernames: Names | None | UnsetType = UNSET
    merge_whitelist_teams: Names | None | UnsetType = UNSET
    enable_status_check: bool | None | UnsetType = UNSET
    status_check_contexts: Names | None | UnsetType = UNSET
    required_approvals: Int64 | None | UnsetType = UNSET
    enable_approvals_whitelist: bool | None | UnsetType = UNSET
    approvals_whitelist_username: Names | None | UnsetType = UNSET
    approvals_whitelist_teams: Names | None | UnsetType = UNSET
    block_on_rejected_reviews: bool | None | UnsetType = UNSET
    block_on_official_review_requests: bool | None | UnsetType = UNSET
    block_on_outdated_branch: bool | None | UnsetType = UNSET
    dismiss_stale_approvals: bool | None | UnsetType = UNSET
    ignore_stale_approvals: bool | None | UnsetType = UNSET
    require_signed_commits: bool | None | UnsetType = UNSET
    protected_file_patterns: str | None | UnsetType = UNSET
    unprotected_file_patterns: str | None | UnsetType = UNSET
    apply_to_admins: bool | None | UnsetType = UNSET


class CreateBranchProtectionOption(BranchProtectionFields):
    """repoCreateBranchProtection: ``rule_name``, else the deprecated ``branch_name``."""

    branch_name: str | None | UnsetType = UNSET
    rule_name: str | None | UnsetType = UNSET


class EditBranchProtectionOption(BranchProtectionFields):
    """repoEditBranchProtection: only the fields given change."""


class CreateTagProtectionOption(Option):
    """repoCreateTagProtection."""

    name_pattern: str | None | UnsetType = UNSET
    whitelist_usernames: Names | None | UnsetType = UNSET
    whitelist_teams: Names | None | UnsetType = UNSET


class EditTagProtectionOption(Option):
    """repoEditTagProtection: only the fields given change."""

    name_pattern: str | None | UnsetType = UNSET
    whitelist_usernames: Names | None | UnsetType = UNSET
    whitelist_teams: Names | None | UnsetType = UNSET
