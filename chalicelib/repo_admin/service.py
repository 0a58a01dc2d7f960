"""Repository writes through the API: create, fork, edit, delete.

Apart from the reads (``repos.service``) so that a request that only reads a
repository does not import what writing one needs (push events, quota, the
records' lifecycle, merge settings) on a cold start.  The records' lifecycle (what is
written, with which event) is ``repo_lifecycle``; git data lives in
``chalicelib.gitstore`` (packs in S3, refs in DynamoDB).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib import events
from chalicelib.errors import (ConditionFailed, ConflictError, InvalidInput, NotFoundError,
                               PermissionDenied)
from chalicelib.quota import charges as quota_charges
from chalicelib.quota import service as quota
from chalicelib.accounts import service as accounts
from chalicelib.http import input_rules
from chalicelib.repos import merge_settings
from chalicelib.contents import pushes
from chalicelib.repo_admin import lifecycle as repo_lifecycle
from chalicelib.repos.permissions import Access, can_create_in
from chalicelib.repos.views import Caller, RepoView
from chalicelib.accounts import store as account_store
from chalicelib.contents import branch_store
from chalicelib.repos import store
from chalicelib.store import unit_of_work
from chalicelib.contents.authorship import validate_branch_name

if TYPE_CHECKING:
    from chalicelib.accounts.store import Account
    from chalicelib.repos.store import Repo


def create_repo(caller: Caller, owner: Account, data: dict, *,
                check_quota: bool = True) -> RepoView:
    """createCurrentUserRepo / adminCreateRepo: ``data`` is a CreateRepoOption.  The
    record is written first (one transaction with its event); then its git side, and if
    that fails the repository is deleted again.  ``check_quota``: the owner's
    ``size:repos:all`` first (Forgejo does not check the admin route)."""
    from chalicelib.repo_admin import git_init as repo_init

    if not can_create_in(caller.user, owner):
        raise PermissionDenied("Given user is not allowed to create repositories here.")
    if check_quota:
        quota.ensure_within(int(owner.id), "size:repos:all")
    opt = accounts.optional
    name = repo_lifecycle.validate_name((opt(data, "name", str) or "").strip())
    object_format = opt(data, "object_format_name", str) or "sha1"
    if object_format != "sha1":
        raise InvalidInput(f"[ObjectFormatName]: unsupported object format {object_format!r}")
    description = opt(data, "description", str) or ""
    if len(description) > 2048:
        raise InvalidInput("[Description]: MaxSize")
    default_branch = (opt(data, "default_branch", str) or "").strip()
    if default_branch:
        validate_branch_name(default_branch)
    plan = repo_init.plan(data) if opt(data, "auto_init", bool) else None
    repo = repo_lifecycle.new_record(
        owner, name, description=description, private=bool(opt(data, "private", bool)),
        default_branch=default_branch, template=bool(opt(data, "template", bool)))
    repo_lifecycle.create(repo, actor=caller.user)
    try:
        repo_init.initialize(repo, plan, author=caller.user)
    except BaseException:
        repo_lifecycle.remove(repo, actor=caller.user)  # nothing half-made stays behind
        raise
    return RepoView(repo, owner, Access.OWNER)


def fork_repo(caller: Caller, source: RepoView, data: dict) -> RepoView:
    """createFork: O(1) in data — the fork shares its parent's object pool; only the
    refs and branch records are copied."""
    opt = accounts.optional
    owner = caller.user
    org_name = opt(data, "organization", str)
    if org_name:
        target = account_store.get_by_name(org_name)
        if target is None:
            raise InvalidInput(f"organization does not exist [name: {org_name}]")
        if not can_create_in(caller.user, target):
            raise PermissionDenied("User is no admin of organisation")
        owner = target
    quota.ensure_within(int(owner.id), "size:repos:all")
    name = repo_lifecycle.validate_name(opt(data, "name", str) or source.repo.name)
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
    a site admin) may delete; git data goes with it (repo_lifecycle.remove)."""
    if view.access < Access.OWNER:
        raise PermissionDenied("Given user is not owner of this repository.")
    repo_lifecycle.remove(view.repo, actor=caller.user)


def edit_repo(caller: Caller, view: RepoView, data: dict) -> RepoView:
    """repoEdit: settings a repository admin may change, written with a
    ``RepositoryEdited`` event listing each changed field with its previous value."""
    if not view.is_admin:
        raise PermissionDenied("user should be an owner or a collaborator with admin write "
                               "of a repository")
    opt = accounts.optional
    repo = view.repo
    name = opt(data, "name", str)
    if name is not None and name != repo.name:
        raise InvalidInput("[Name]: renaming repositories is not supported yet")
    # As Forgejo's repository settings form (ValidUrl): a website is an http(s) link.
    input_rules.check_url(opt(data, "website", str) or "", "website")
    before = {field: getattr(repo, field) for field in store.EDITABLE}
    for field in ("description", "website"):
        value = opt(data, field, str)
        if value is not None:
            setattr(repo, field, value)
    for field in ("private", "template"):
        value = opt(data, field, bool)
        if value is not None:
            setattr(repo, field, value)
    archived = opt(data, "archived", bool)
    if archived is not None and archived != repo.archived:
        repo.archived, repo.archived_at = archived, repo_lifecycle.now() if archived else 0
    branch = opt(data, "default_branch", str)
    if branch and branch != repo.default_branch:
        _check_default_branch(repo, branch)
        repo.default_branch = branch
    pull_settings = merge_settings.edited(repo, data)
    if pull_settings is not None:
        repo.merge_settings = pull_settings
    interval = opt(data, "mirror_interval", str)
    if interval is not None and repo.mirror:
        # Imported here: the migration service (and its network guard) is needed only
        # when a mirror's interval changes, not by every edit.
        from chalicelib.repo_admin import migrations

        repo.mirror_interval = migrations.parse_interval(interval)
    repo.updated = repo_lifecycle.now()
    changes = tuple((field, previous) for field, previous in before.items()
                    if field != "updated" and getattr(repo, field) != previous)
    try:
        with unit_of_work.writing() as uow:
            store.stage_save(repo)
            quota_charges.stage_visibility(repo, before["private"])
            if repo.default_branch != before["default_branch"]:
                from chalicelib.gitstore import refdb
                refdb.stage_symref(uow, repo.id, "HEAD", f"refs/heads/{repo.default_branch}")
            uow.raise_event(events.RepositoryEdited(**pushes.event_fields(repo, caller.user),
                                                    changes=changes))
    except ConditionFailed:
        raise ConflictError("the repository changed meanwhile; try again") from None
    return view


def _check_default_branch(repo: Repo, branch: str) -> None:

    validate_branch_name(branch)
    if not repo.empty and branch_store.get(repo.id, branch) is None:
        raise NotFoundError(f"branch does not exist [name: {branch}]")
