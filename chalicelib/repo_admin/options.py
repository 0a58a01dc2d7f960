"""The request bodies of the repository lifecycle, declared once: the edge checks them
(``ApiRequest.option``) and ``/swagger.v1.json`` publishes them (``http.options``).

Names, templates, object formats, merge styles and intervals stay texts (Forgejo's
description has no enum for them): the rules check them with their own messages."""
from __future__ import annotations

from chalicelib.http.options import UNSET, Int64, Option, UnsetType


class CreateRepoOption(Option):
    """createCurrentUserRepo, adminCreateRepo, createOrgRepo (and the browser's
    ``/repo/create``).  A null or empty name reaches the name rule ("[Name]: Required")."""

    name: str | None
    description: str | None | UnsetType = UNSET
    private: bool | None | UnsetType = UNSET
    auto_init: bool | None | UnsetType = UNSET
    gitignores: str | None | UnsetType = UNSET
    license: str | None | UnsetType = UNSET
    readme: str | None | UnsetType = UNSET
    issue_labels: str | None | UnsetType = UNSET
    default_branch: str | None | UnsetType = UNSET
    template: bool | None | UnsetType = UNSET
    trust_model: str | None | UnsetType = UNSET
    object_format_name: str | None | UnsetType = UNSET


class CreateForkOption(Option):
    """createFork: the fork keeps its parent's name unless ``name`` is given, and goes
    to the caller unless ``organization`` names one."""

    name: str | None | UnsetType = UNSET
    organization: str | None | UnsetType = UNSET


class EditRepoOption(Option):
    """repoEdit: what is left out or null stays as it is."""

    name: str | None | UnsetType = UNSET
    description: str | None | UnsetType = UNSET
    website: str | None | UnsetType = UNSET
    private: bool | None | UnsetType = UNSET
    template: bool | None | UnsetType = UNSET
    archived: bool | None | UnsetType = UNSET
    default_branch: str | None | UnsetType = UNSET
    mirror_interval: str | None | UnsetType = UNSET
    ignore_whitespace_conflicts: bool | None | UnsetType = UNSET
    allow_merge_commits: bool | None | UnsetType = UNSET
    allow_rebase: bool | None | UnsetType = UNSET
    allow_rebase_explicit: bool | None | UnsetType = UNSET
    allow_squash_merge: bool | None | UnsetType = UNSET
    allow_fast_forward_only_merge: bool | None | UnsetType = UNSET
    allow_manual_merge: bool | None | UnsetType = UNSET
    autodetect_manual_merge: bool | None | UnsetType = UNSET
    allow_rebase_update: bool | None | UnsetType = UNSET
    default_delete_branch_after_merge: bool | None | UnsetType = UNSET
    default_merge_style: str | None | UnsetType = UNSET
    default_update_style: str | None | UnsetType = UNSET
    default_allow_maintainer_edit: bool | None | UnsetType = UNSET


class MigrateRepoOptions(Option):
    """repoMigrate.  A null or empty address reaches the rule ("[CloneAddr]: Required");
    the new repository's name is checked by the name rule, which answers a missing one
    with Forgejo's "[Name]: Required", so the edge does not require it."""
    swagger_required = ("clone_addr", "repo_name")

    clone_addr: str | None
    auth_username: str | None | UnsetType = UNSET
    auth_password: str | None | UnsetType = UNSET
    auth_token: str | None | UnsetType = UNSET
    uid: Int64 | None | UnsetType = UNSET
    repo_owner: str | None | UnsetType = UNSET
    repo_name: str | None | UnsetType = UNSET
    service: str | None | UnsetType = UNSET
    mirror: bool | None | UnsetType = UNSET
    mirror_interval: str | None | UnsetType = UNSET
    private: bool | None | UnsetType = UNSET
    description: str | None | UnsetType = UNSET
    wiki: bool | None | UnsetType = UNSET
    milestones: bool | None | UnsetType = UNSET
    labels: bool | None | UnsetType = UNSET
    issues: bool | None | UnsetType = UNSET
    pull_requests: bool | None | UnsetType = UNSET
    releases: bool | None | UnsetType = UNSET
    lfs: bool | None | UnsetType = UNSET
    lfs_endpoint: str | None | UnsetType = UNSET
