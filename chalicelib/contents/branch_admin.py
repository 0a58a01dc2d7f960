"""Creating, deleting and renaming branches through the API (Forgejo's repoCreateBranch,
repoDeleteBranch, repoUpdateBranch).

Every change goes through ``pushes``: the refs move by compare-and-swap together with
the branch records, the repository's metadata and the push/create/delete events, in one
transaction.  Of two writers racing to create one name, the second meets the first's
ref (the create expects it absent) and gets 409; a rename is one change of two refs
(the new one created, the old one deleted) and, for the default branch, the
repository's ``default_branch`` and the ``HEAD`` symref move with it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.contents import branch_store, pushes
from chalicelib.contents import files as repo_files
from chalicelib.contents.authorship import validate_branch_name
from chalicelib.contents.options import CreateBranchRepoOption, UpdateBranchRepoOption
from chalicelib.errors import (ConditionFailed, ConflictError, InvalidInput, NotFoundError,
                               PermissionDenied, RefProtected)
from chalicelib.gitstore import refdb
from chalicelib.gitstore.errors import RefsBusy, StaleRefs

if TYPE_CHECKING:
    from chalicelib.contents.branch_store import BranchInfo
    from chalicelib.repos import Caller, RepoView

HEADS, TAGS = pushes.HEADS, pushes.TAGS


def _name(raw: str | None, field: str) -> str:
    if not raw or not raw.strip():
        raise InvalidInput(f"[{field}]: Required")
    try:
        return validate_branch_name(raw.strip())
    except InvalidInput:
        raise InvalidInput(f"[{field}]: invalid branch name {raw!r}") from None


def _tip(git, name: str) -> str | None:
    try:
        return git.refs[(HEADS + name).encode()].decode()
    except KeyError:
        return None


def _start(git, view: RepoView, option: CreateBranchRepoOption) -> str:
    """The commit a new branch starts at: ``old_ref_name`` (a branch, tag or commit,
    short or full ref name), else the deprecated ``old_branch_name``, else the default
    branch."""
    ref = option.old_ref_name or ""
    old_branch = option.old_branch_name or ""
    if not isinstance(ref, str) or not isinstance(old_branch, str):
        raise InvalidInput("[OldRefName]: must be a string")
    if ref:
        for prefix in (HEADS, TAGS):
            if ref.startswith(prefix):
                ref = ref[len(prefix):]
        try:
            return repo_files.resolve(git, view.repo, ref).decode()
        except NotFoundError:
            raise NotFoundError(f"the old ref does not exist [name: {ref}]") from None
    name = old_branch or view.repo.default_branch
    tip = _tip(git, name)
    if tip is None:
        raise NotFoundError(f"the old branch does not exist [name: {name}]")
    return tip


def _commit(change, name: str) -> None:
    try:
        pushes.commit(change)
    except StaleRefs:
        raise ConflictError(f"branch {name!r} was changed meanwhile") from None
    except RefsBusy:
        raise ConflictError("the branches are being changed concurrently; try again") from None
    except ConditionFailed:
        raise ConflictError("the repository changed meanwhile; try again") from None


def _stored(view: RepoView, name: str) -> BranchInfo:
    info = branch_store.get(int(view.repo.id), name)
    if info is None:        # only if a writer deleted it right after us
        raise NotFoundError(f"branch does not exist [name: {name}]")
    return info


def create_branch(caller: Caller, view: RepoView, option: CreateBranchRepoOption) -> BranchInfo:
    """repoCreateBranch."""
    pushes.require_ref_writer(caller, view, "branches")
    name = _name(option.new_branch_name, "NewBranchName")
    git = repo_files.open_git(view.repo)
    sha = _start(git, view, option)
    if _tip(git, name) is not None:
        raise ConflictError(f"branch already exists [name: {name}]")
    if (TAGS + name).encode() in git.refs:
        raise ConflictError(f"there is a tag with the same name [name: {name}]")
    change = pushes.prepare(view.repo, git, [(HEADS + name, pushes.ZERO, sha)],
                            actor=caller.user)
    try:
        _commit(change, name)
    except ConflictError:
        raise ConflictError(f"branch already exists [name: {name}]") from None
    return _stored(view, name)


def delete_branch(caller: Caller, view: RepoView, name: str) -> None:
    """repoDeleteBranch: the default branch cannot be deleted (403, as Forgejo)."""
    pushes.require_ref_writer(caller, view, "branches")
    if name == view.repo.default_branch:
        raise PermissionDenied("can not delete default branch")
    git = repo_files.open_git(view.repo)
    tip = _tip(git, name)
    if tip is None:
        raise NotFoundError(f"branch does not exist [name: {name}]")
    try:
        change = pushes.prepare(view.repo, git, [(HEADS + name, tip, pushes.ZERO)],
                                actor=caller.user)
    except RefProtected:
        raise PermissionDenied("branch protected") from None     # Forgejo's words
    _commit(change, name)


def rename_branch(caller: Caller, view: RepoView, name: str,
                  option: UpdateBranchRepoOption) -> None:
    """repoUpdateBranch: ``option.name`` is the new name."""
    pushes.require_ref_writer(caller, view, "branches")
    new = _name(option.name, "Name")
    git = repo_files.open_git(view.repo)
    tip = _tip(git, name)
    if tip is None:
        raise NotFoundError(f"branch does not exist [name: {name}]")
    if new == name:
        return
    if _tip(git, new) is not None:
        raise InvalidInput(f"branch already exists [name: {new}]")
    change = pushes.prepare(view.repo, git, [(HEADS + new, pushes.ZERO, tip),
                                             (HEADS + name, tip, pushes.ZERO)],
                            actor=caller.user)
    if name == view.repo.default_branch:
        repo_id = view.repo.id
        change.set_repo_fields(default_branch=new)
        change.also(1, lambda uow: refdb.stage_symref(uow, repo_id, "HEAD", HEADS + new))
    _commit(change, name)
