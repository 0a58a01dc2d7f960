"""The request bodies of the contents domain, declared once: the edge checks them
(``ApiRequest.option``) and ``/swagger.v1.json`` publishes them (``http.options``).

The contents API's bodies share the commit's fields (``CommitFields``: branch, new
branch, message, identities, dates, sign-off).  Where the rules name a field in
their "Required" text the way Forgejo's handlers do (``[ContentBase64]``, ``[SHA]``,
``[Files.Path]``), the field is published as required but checked by the rule."""
from __future__ import annotations

from typing import Literal

import msgspec

from chalicelib.http.options import UNSET, DateTime, Email, Option, UnsetType

# What a ChangeFileOperation does, in Forgejo's order.
Operation = Literal["create", "update", "delete"]


class Identity(Option):
    """The author or committer of the commit a contents write makes."""

    name: str | None | UnsetType = UNSET
    email: Email | None | UnsetType = UNSET


class CommitDateOptions(Option):
    """The author and committer dates of that commit (RFC 3339)."""

    author: DateTime | None | UnsetType = UNSET
    committer: DateTime | None | UnsetType = UNSET


class CommitFields(msgspec.Struct, kw_only=True):
    """The fields of every contents write: where the commit goes and who makes it.  Not
    a definition of its own (Forgejo repeats the fields in each option)."""

    author: Identity | None | UnsetType = UNSET
    committer: Identity | None | UnsetType = UNSET
    branch: str | None | UnsetType = UNSET
    dates: CommitDateOptions | None | UnsetType = UNSET
    force_overwrite_new_branch: bool | None | UnsetType = UNSET
    message: str | None | UnsetType = UNSET
    new_branch: str | None | UnsetType = UNSET
    signoff: bool | None | UnsetType = UNSET


class CreateFileOptions(Option, CommitFields):
    """repoCreateFile.  A missing content is the rule's "[ContentBase64]: Required"."""
    swagger_required = ("content",)

    content: str | None | UnsetType = UNSET


class UpdateFileOptions(Option, CommitFields):
    """repoUpdateFile (``from_path``: a rename).  The content, then the sha, are checked
    by the rule ("[ContentBase64]: Required", "[SHA]: Required")."""
    swagger_required = ("sha", "content")

    content: str | None | UnsetType = UNSET
    sha: str | None | UnsetType = UNSET
    from_path: str | None | UnsetType = UNSET


class DeleteFileOptions(Option, CommitFields):
    """repoDeleteFile.  A missing sha is the rule's "[SHA]: Required"."""
    swagger_required = ("sha",)

    sha: str | None | UnsetType = UNSET


class ChangeFileOperation(Option):
    """One file of repoChangeFiles.  The operation is published as Forgejo's enum but
    also takes any text, so that the rule answers with the item's field named
    ("[Files.Operation]: must be one of create, update, delete"); the edge would name
    only ``files``.  The operation and path are required by the rule for that reason."""
    swagger_required = ("operation", "path")

    operation: Operation | str | None | UnsetType = UNSET
    path: str | None | UnsetType = UNSET
    content: str | None | UnsetType = UNSET
    from_path: str | None | UnsetType = UNSET
    sha: str | None | UnsetType = UNSET


class ChangeFilesOptions(Option, CommitFields):
    """repoChangeFiles.  Null or an empty list reaches the rule ("[Files]: Required")."""

    files: list[ChangeFileOperation] | None


class CreateBranchRepoOption(Option):
    """repoCreateBranch: from ``old_ref_name`` (a branch, tag or commit), else the
    deprecated ``old_branch_name``, else the default branch.  A null or blank name
    reaches the rule ("[NewBranchName]: Required")."""

    new_branch_name: str | None
    old_branch_name: str | None | UnsetType = UNSET
    old_ref_name: str | None | UnsetType = UNSET


class UpdateBranchRepoOption(Option):
    """repoUpdateBranch: the branch's new name.  A null or blank one reaches the rule
    ("[Name]: Required")."""

    name: str | None


class CreateTagOption(Option):
    """repoCreateTag: annotated when ``message`` is given, at ``target`` (default: the
    default branch).  A null or blank name reaches the rule ("[TagName]: Required")."""

    tag_name: str | None
    message: str | None | UnsetType = UNSET
    target: str | None | UnsetType = UNSET
