"""Repository writes through the API: create, fork, edit, delete.

Apart from the reads (``repos.service``) so that a request that only reads a
repository does not import what writing one needs (push events, quota, the
records' lifecycle, merge settings) on a cold start.  The records' lifecycle (what is
written, with which event) is ``repo_lifecycle``; git data lives in
``chalicelib.gitstore`` (packs in S3, refs in DynamoDB).
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from chalicelib import accounts, clock, contents, events, issues, quota, repos
from chalicelib.contents import validate_branch_name
from chalicelib.errors import (
    ConditionFailed,
    ConflictError,
    InvalidInput,
    NotFoundError,
    PermissionDenied,
)
from chalicelib.http import input_rules
from chalicelib.http.options import given_fields
from chalicelib.repo_admin import deletion, renames
from chalicelib.repo_admin import lifecycle as repo_lifecycle
from chalicelib.repo_admin.options import (
    CreateForkOption,
    CreateRepoOption,
    EditRepoOption,
)
from chalicelib.repos import Access, Caller, RepoView, can_create_in
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.repos import Repo


def create_repo(caller: Caller, owner: Account, option: CreateRepoOption, *,
                check_quota: bool = True) -> RepoView:
    """createCurrentUserRepo / adminCreateRepo / createOrgRepo.  The record is written
    first (one transaction with its event); then its git side, and if that fails the
    repository is deleted again.  ``check_quota``: the owner's ``size:repos:all`` first
    (Forgejo does not check the admin route)."""
    from chalicelib.repo_admin import git_init as repo_init

    if not can_create_in(caller.user, owner):
        raise PermissionDenied("Given user is not allowed to create repositories here.")
    if check_quota:
        quota.ensure_within_quota(int(owner.id), "size:repos:all")
    name = repo_lifecycle.validate_name((option.name or "").strip())
    object_format = option.object_format_name or "sha1"
    if object_format != "sha1":
        raise InvalidInput(f"[ObjectFormatName]: unsupported object format {object_format!r}")
    description = option.description or ""
    if len(description) > 2048:
        raise InvalidInput("[Description]: MaxSize")
    default_branch = (option.default_branch or "").strip()
    if default_branch:
        validate_branch_name(default_branch)
    plan = repo_init.plan(option) if option.auto_init else None
    label_set = _label_set(option)
    repo = repo_lifecycle.new_record(
        owner, name, description=description, private=bool(option.private),
        default_branch=default_branch, template=bool(option.template))
    repo_lifecycle.create(repo, actor=caller.user)
    view = RepoView(repo, owner, Access.OWNER)
    try:
        repo_init.initialize(repo, plan, author=caller.user)
        if label_set:
            issues.create_label_set(issues.issue_context(caller, view), label_set)
    except BaseException:
        repo_lifecycle.remove(repo, actor=caller.user)  # nothing half-made stays behind
        raise
    return view


def _label_set(option: CreateRepoOption) -> str:
    """``issue_labels``: the label template to start with, checked before anything is
    written (Forgejo's names; 422 for one that does not exist)."""
    name = option.issue_labels if isinstance(option.issue_labels, str) else ""
    name = name.strip()
    if name and issues.label_set(name) is None:
        raise InvalidInput(f"label template does not exist [name: {name}]")
    return name


def fork_repo(caller: Caller, source: RepoView, option: CreateForkOption) -> RepoView:
    """createFork: O(1) in data — the fork shares its parent's object pool; only the
    refs and branch records are copied."""
    owner = caller.user
    org_name = option.organization
    if org_name:
        target = accounts.account_by_name(org_name)
        if target is None:
            raise InvalidInput(f"organization does not exist [name: {org_name}]")
        if not can_create_in(caller.user, target):
            raise PermissionDenied("User is no admin of organisation")
        owner = target
    quota.ensure_within_quota(int(owner.id), "size:repos:all")
    name = repo_lifecycle.validate_name(option.name or source.repo.name)
    if owner.id == source.repo.owner_id and name.lower() == source.repo.lower_name:
        raise InvalidInput("the repository cannot be forked onto itself")
    root = source.repo
    repo = repo_lifecycle.new_record(owner, name, description=root.description,
                                     private=root.private, default_branch=root.default_branch)
    repo.fork, repo.parent_id, repo.pool_id = True, root.id, root.pool_id
    repo.empty, repo.size = root.empty, root.size
    repo_lifecycle.fork(repo, root, actor=caller.user)
    return RepoView(repo, owner, Access.OWNER)


def delete_repo(caller: Caller, view: RepoView) -> None:
    """repoDelete: owners (the owning user, an admin team of the owning organization,
    a site admin) may delete; kept restorable for ``[repository]
    DELETED_RETENTION_DAYS`` (0: git data goes with it at once; repo_lifecycle.remove)."""
    if view.access < Access.OWNER:
        raise PermissionDenied("Given user is not owner of this repository.")
    days = deletion.retention_days()
    if days:
        deletion.hide(view.repo, actor=caller.user, days=days)
    else:
        repo_lifecycle.remove(view.repo, actor=caller.user)


def edit_repo(caller: Caller, view: RepoView, option: EditRepoOption) -> RepoView:
    """repoEdit: settings a repository admin may change, written with a
    ``RepositoryEdited`` event listing each changed field with its previous value.  A
    field left out or null stays as it is.  A new ``name`` renames the repository
    (``renames``: its own transaction and event, before the other fields are saved)."""
    if not view.is_admin:
        raise PermissionDenied("user should be an owner or a collaborator with admin write "
                               "of a repository")
    repo = view.repo
    sent = given_fields(option)     # a field sent as null is one left out
    name = sent.get("name")
    renaming = name is not None and name != repo.name
    if renaming:
        renames.check_new_name(view, name)
        # As Forgejo: the rename first, on its own (``renames``), then the other fields,
        # every one checked before anything is written; they go to the renamed item.
        repo = repos.renamed_repo_record(repo, view.owner, name, updated=clock.seconds())
    # As Forgejo's repository settings form (ValidUrl): a website is an http(s) link.
    input_rules.check_url(sent.get("website") or "", "website")
    before = {field: getattr(repo, field) for field in repos.EDITABLE}
    for field in ("description", "website", "private", "template", "has_wiki"):
        if sent.get(field) is not None:
            setattr(repo, field, sent[field])
    archived = sent.get("archived")
    if archived is not None and archived != repo.archived:
        repo.archived, repo.archived_at = archived, clock.seconds() if archived else 0
    branch = sent.get("default_branch")
    if branch and branch != repo.default_branch:
        _check_default_branch(repo, branch)
        repo.default_branch = branch
    pull_settings = repos.edited_merge_settings(repo, option)
    if pull_settings is not None:
        repo.merge_settings = pull_settings
    interval = sent.get("mirror_interval")
    if interval is not None and repo.mirror:
        # Imported here: the migration service (and its network guard) is needed only
        # when a mirror's interval changes, not by every edit.
        from chalicelib.repo_admin import migrations

        repo.mirror_interval = migrations.parse_interval(interval)
    repo.updated = clock.seconds()
    changes = tuple((field, previous) for field, previous in before.items()
                    if field != "updated" and getattr(repo, field) != previous)
    if renaming:
        renamed = renames.rename(caller.user, view, name)
        if not changes:
            return renamed
        view = replace(renamed, repo=repo)
    try:
        with unit_of_work.writing() as uow:
            repos.stage_save_repo(repo)
            quota.stage_charge_visibility(repo, before["private"])
            if repo.default_branch != before["default_branch"]:
                from chalicelib.gitstore import refdb
                refdb.stage_symref(uow, repo.id, "HEAD", f"refs/heads/{repo.default_branch}")
            uow.raise_event(events.RepositoryEdited(**contents.push_event_fields(repo, caller.user),
                                                    changes=changes))
    except ConditionFailed:
        raise ConflictError("the repository changed meanwhile; try again") from None
    return view


def _check_default_branch(repo: Repo, branch: str) -> None:

    validate_branch_name(branch)
    if not repo.empty and contents.branch_info(repo.id, branch) is None:
        raise NotFoundError(f"branch does not exist [name: {branch}]")
