"""The request bodies of the repository lifecycle, declared once: the edge checks them
(``ApiRequest.option``) and ``/swagger.v1.json`` publishes them (``http.options``).

Names, templates, object formats, merge styles and intervals stay texts (Forgejo's
description has no enum for them): the rules check them with their own messages.

Fields no rule reads (a migration's ``wiki``, ``issues``…), or reads only in some cases
(the templates with ``auto_init``, a migration's interval with ``mirror``, its
``lfs_endpoint`` with ``lfs``), take any value,
as they did before the edge checked bodies: ``Loose…`` keeps the published type, and the
rule refuses a value that is not a text where it reads one."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar

from chalicelib.http import input_rules
from chalicelib.http.options import UNSET, Int64, Meta, Option, UnsetType, go_field

# Text limits (``http.input_rules``): Forgejo's binding MaxSize where it has one.
_REPO = {"name": 100, "description": 2048, "website": 1024, "default_branch": 255,
         "gitignores": 1024, "license": 255, "readme": 255, "issue_labels": 255,
         "trust_model": 32, "object_format_name": 32}
_ONE_LINE_REPO = frozenset({"name", "default_branch", "website", "gitignores", "license",
                            "readme", "issue_labels", "trust_model", "object_format_name"})


LooseText = Annotated[Any, Meta(extra={"type": "string"})]
LooseFlag = Annotated[Any, Meta(extra={"type": "boolean"})]

# The pull request settings of EditRepoOption: their rule named them by their JSON names
# ("[allow_merge_commits]: expected true or false"), and keeps those texts.
_MERGE_FLAGS = ("ignore_whitespace_conflicts", "allow_merge_commits", "allow_rebase",
                "allow_rebase_explicit", "allow_squash_merge", "allow_fast_forward_only_merge",
                "allow_manual_merge", "autodetect_manual_merge", "allow_rebase_update",
                "default_delete_branch_after_merge", "default_allow_maintainer_edit")
_MERGE_TEXTS = ("default_merge_style", "default_update_style")


class CreateRepoOption(Option):
    """createCurrentUserRepo, adminCreateRepo, createOrgRepo (and the browser's
    ``/repo/create``).  A null or empty name reaches the name rule ("[Name]: Required")."""
    max_lengths: ClassVar[Mapping[str, int]] = _REPO
    single_line: ClassVar[frozenset[str]] = _ONE_LINE_REPO

    name: str | None
    description: str | None | UnsetType = UNSET
    private: bool | None | UnsetType = UNSET
    auto_init: bool | None | UnsetType = UNSET
    gitignores: LooseText | UnsetType = UNSET
    license: LooseText | UnsetType = UNSET
    readme: LooseText | UnsetType = UNSET
    issue_labels: LooseText | UnsetType = UNSET
    default_branch: str | None | UnsetType = UNSET
    template: bool | None | UnsetType = UNSET
    trust_model: LooseText | UnsetType = UNSET
    object_format_name: str | None | UnsetType = UNSET


class CreateForkOption(Option):
    """createFork: the fork keeps its parent's name unless ``name`` is given, and goes
    to the caller unless ``organization`` names one."""
    max_lengths: ClassVar[Mapping[str, int]] = {"name": 100, "organization": input_rules.NAME_MAX}
    single_line: ClassVar[frozenset[str]] = frozenset({"name", "organization"})

    name: str | None | UnsetType = UNSET
    organization: str | None | UnsetType = UNSET


class EditRepoOption(Option):
    """repoEdit: what is left out or null stays as it is."""
    max_lengths: ClassVar[Mapping[str, int]] = _REPO
    single_line: ClassVar[frozenset[str]] = _ONE_LINE_REPO
    texts = {**{(go_field(name), "type"): f"[{name}]: expected true or false"
                for name in _MERGE_FLAGS},
             **{(go_field(name), "type"): f"[{name}]: expected a string"
                for name in _MERGE_TEXTS}}

    name: str | None | UnsetType = UNSET
    description: str | None | UnsetType = UNSET
    website: str | None | UnsetType = UNSET
    private: bool | None | UnsetType = UNSET
    template: bool | None | UnsetType = UNSET
    has_wiki: bool | None | UnsetType = UNSET
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
    max_lengths: ClassVar[Mapping[str, int]] = dict(_REPO, clone_addr=2048, repo_name=100, repo_owner=input_rules.NAME_MAX,
                           auth_username=255, auth_password=255, auth_token=255,
                           service=32, uid=32)
    single_line: ClassVar[frozenset[str]] = _ONE_LINE_REPO | {"repo_name", "repo_owner", "clone_addr", "auth_username",
                                            "service", "uid"}
    swagger_required = ("clone_addr", "repo_name")

    clone_addr: str | None
    auth_username: str | None | UnsetType = UNSET
    auth_password: str | None | UnsetType = UNSET
    auth_token: str | None | UnsetType = UNSET
    uid: Int64 | None | UnsetType = UNSET
    repo_owner: str | None | UnsetType = UNSET
    repo_name: str | None | UnsetType = UNSET
    service: LooseText | UnsetType = UNSET
    mirror: bool | None | UnsetType = UNSET
    mirror_interval: LooseText | UnsetType = UNSET
    private: bool | None | UnsetType = UNSET
    description: str | None | UnsetType = UNSET
    wiki: LooseFlag | UnsetType = UNSET
    milestones: LooseFlag | UnsetType = UNSET
    labels: LooseFlag | UnsetType = UNSET
    issues: LooseFlag | UnsetType = UNSET
    pull_requests: LooseFlag | UnsetType = UNSET
    releases: LooseFlag | UnsetType = UNSET
    lfs: LooseFlag | UnsetType = UNSET
    lfs_endpoint: LooseText | UnsetType = UNSET
