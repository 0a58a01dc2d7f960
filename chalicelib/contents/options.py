"""The request bodies of the contents domain, declared once: the edge checks them
(``ApiRequest.option``) and ``/swagger.v1.json`` publishes them (``http.options``).

The contents API's bodies share the commit's fields (``CommitFields``: branch, new
branch, message, identities, dates, sign-off).  Where the rules name a field in
their "Required" text the way Forgejo's handlers do (``[ContentBase64]``, ``[SHA]``,
``[Files.Path]``), the field is published as required but checked by the rule.

The rules read some fields more loosely than their published types, as they did
before the edge checked bodies: the commit's texts (branch, new branch, message, an
identity's name and e-mail) are read through ``str()``, its flags by their truth, an
author, committer or dates that is not an object is ignored, a sha is the rule's
("[SHA]: Required" when empty), a ``from_path`` that is not a text is ignored, and a
date that is not one is the rule's "invalid date".  Those fields are declared as any
value (``Text``, ``Flag``, ``… | NotAnObject``) with the published type kept."""
from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, Mapping

import msgspec

from chalicelib.http import input_rules
from chalicelib.http.options import UNSET, Meta, Option, UnsetType

# Text limits (``http.input_rules``): file content is base64, up to the request limit
# itself; git identities are single lines (a newline would forge a commit header).
_CONTENTS = {"content": input_rules.MAX_REQUEST_BODY, "message": input_rules.BODY_MAX,
             "branch": 255, "new_branch": 255, "sha": 64, "from_path": 4096,
             "author.name": input_rules.FULL_NAME_MAX, "author.email": input_rules.EMAIL_MAX,
             "committer.name": input_rules.FULL_NAME_MAX,
             "committer.email": input_rules.EMAIL_MAX, "dates.author": 64, "dates.committer": 64}
_ONE_LINE_CONTENTS = frozenset({"branch", "new_branch", "sha", "author.name", "author.email",
                                "committer.name", "committer.email", "dates.author",
                                "dates.committer"})


# What a ChangeFileOperation does, in Forgejo's order.
Operation = Literal["create", "update", "delete"]

# Published as a string (a boolean); any value reaches the rule.
Text = Annotated[Any, Meta(extra={"type": "string"})]
Flag = Annotated[Any, Meta(extra={"type": "boolean"})]
EmailText = Annotated[Any, Meta(extra={"type": "string", "format": "email"})]
DateText = Annotated[Any, Meta(extra={"type": "string", "format": "date-time"})]
# Any JSON value but an object: the rule ignores it where it reads an object.  It comes
# after the object's type in a union, which is what the description publishes.
NotAnObject = list[Any] | str | int | float | bool
# Any JSON value but a list: the rule answers it ("[Files]: Required").
NotAList = dict[str, Any] | str | int | float | bool

_BASE64 = "must be a base64 string"


class Identity(Option):
    """The author or committer of the commit a contents write makes."""

    name: Text | UnsetType = UNSET
    email: EmailText | UnsetType = UNSET


class CommitDateOptions(Option):
    """The author and committer dates of that commit (RFC 3339)."""

    author: DateText | UnsetType = UNSET
    committer: DateText | UnsetType = UNSET


class CommitFields(msgspec.Struct, kw_only=True):
    """The fields of every contents write: where the commit goes and who makes it.  Not
    a definition of its own (Forgejo repeats the fields in each option)."""

    author: Identity | NotAnObject | None | UnsetType = UNSET
    committer: Identity | NotAnObject | None | UnsetType = UNSET
    branch: Text | UnsetType = UNSET
    dates: CommitDateOptions | NotAnObject | None | UnsetType = UNSET
    force_overwrite_new_branch: Flag | UnsetType = UNSET
    message: Text | UnsetType = UNSET
    new_branch: Text | UnsetType = UNSET
    signoff: Flag | UnsetType = UNSET


class CreateFileOptions(Option, CommitFields):
    """repoCreateFile.  A missing content is the rule's "[ContentBase64]: Required"."""
    max_lengths: ClassVar[Mapping[str, int]] = _CONTENTS
    single_line: ClassVar[frozenset[str]] = _ONE_LINE_CONTENTS
    swagger_required = ("content",)
    texts = {("Content", "type"): f"[ContentBase64]: {_BASE64}"}

    content: str | None | UnsetType = UNSET


class UpdateFileOptions(Option, CommitFields):
    """repoUpdateFile (``from_path``: a rename).  The content, then the sha, are checked
    by the rule ("[ContentBase64]: Required", "[SHA]: Required")."""
    max_lengths: ClassVar[Mapping[str, int]] = _CONTENTS
    single_line: ClassVar[frozenset[str]] = _ONE_LINE_CONTENTS
    swagger_required = ("sha", "content")
    texts = {("Content", "type"): f"[ContentBase64]: {_BASE64}"}

    content: str | None | UnsetType = UNSET
    sha: Text | UnsetType = UNSET
    from_path: Text | UnsetType = UNSET


class DeleteFileOptions(Option, CommitFields):
    """repoDeleteFile.  A missing sha is the rule's "[SHA]: Required"."""
    max_lengths: ClassVar[Mapping[str, int]] = _CONTENTS
    single_line: ClassVar[frozenset[str]] = _ONE_LINE_CONTENTS
    swagger_required = ("sha",)

    sha: Text | UnsetType = UNSET


class ChangeFileOperation(Option):
    """One file of repoChangeFiles.  The operation is published as Forgejo's enum but
    also takes any text, so that the rule answers with the item's field named
    ("[Files.Operation]: must be one of create, update, delete"); the edge would name
    only ``files``.  The operation and path are required by the rule for that reason."""
    swagger_required = ("operation", "path")

    operation: Operation | str | None | UnsetType = UNSET
    path: str | None | UnsetType = UNSET
    content: str | None | UnsetType = UNSET
    from_path: Text | UnsetType = UNSET
    sha: Text | UnsetType = UNSET


class ChangeFilesOptions(Option, CommitFields):
    """repoChangeFiles.  Null, an empty list or anything but a list reaches the rule
    ("[Files]: Required"); an operation or path that is not a text keeps the rule's
    texts."""
    max_lengths: ClassVar[Mapping[str, int]] = {**_CONTENTS, "files.content": input_rules.MAX_REQUEST_BODY,
                       "files.path": 4096, "files.from_path": 4096, "files.sha": 64,
                       "files.operation": 16}
    single_line: ClassVar[frozenset[str]] = _ONE_LINE_CONTENTS | {"files.sha", "files.operation"}
    texts = {("Files", "type"): "[Files]: each item must be an object",
             ("Files.Operation", "type"): "[Files.Operation]: must be one of create, update, "
                                          "delete",
             ("Files.Path", "type"): "[Files.Path]: Required",
             ("Files.Content", "type"): f"[Files.ContentBase64]: {_BASE64}"}

    files: list[ChangeFileOperation] | NotAList | None


class CreateBranchRepoOption(Option):
    """repoCreateBranch: from ``old_ref_name`` (a branch, tag or commit), else the
    deprecated ``old_branch_name``, else the default branch.  A null or blank name
    reaches the rule ("[NewBranchName]: Required"), as does one that is not a text.
    The old names take any value: an empty one is left out, the rule refuses any other
    that is not a text ("[OldRefName]: must be a string")."""
    max_lengths: ClassVar[Mapping[str, int]] = {}
    single_line: ClassVar[frozenset[str]] = frozenset({"new_branch_name", "old_branch_name", "old_ref_name"})
    texts = {("NewBranchName", "type"): "[NewBranchName]: Required"}

    new_branch_name: str | None
    old_branch_name: Text | UnsetType = UNSET
    old_ref_name: Text | UnsetType = UNSET


class UpdateBranchRepoOption(Option):
    """repoUpdateBranch: the branch's new name.  A null or blank one reaches the rule
    ("[Name]: Required"), as does one that is not a text."""
    max_lengths: ClassVar[Mapping[str, int]] = {}
    single_line: ClassVar[frozenset[str]] = frozenset({"name"})
    texts = {("Name", "type"): "[Name]: Required"}

    name: str | None


class CreateTagOption(Option):
    """repoCreateTag: annotated when ``message`` is given, at ``target`` (default: the
    default branch).  A null or blank name reaches the rule ("[TagName]: Required")."""
    max_lengths: ClassVar[Mapping[str, int]] = {}
    single_line: ClassVar[frozenset[str]] = frozenset({"tag_name", "target"})
    texts = {(label, "type"): f"[{label}]: must be a string"
             for label in ("TagName", "Message", "Target")}

    tag_name: str | None
    message: str | None | UnsetType = UNSET
    target: str | None | UnsetType = UNSET
