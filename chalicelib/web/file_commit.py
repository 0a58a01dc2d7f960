"""What the file editing forms share (``actions_files``): the branch a ``/_new/…``,
``/_upload/…``, ``/_edit/…`` or ``/_delete/…`` address names, the commit fields at the
foot of each form (summary, description, to the branch or to a new branch), the API's
text limits on what the form sends, and a refusal placed beside the field it is about.

This module registers no routes.
"""
from __future__ import annotations

import re

from chalicelib import contents, errors
from chalicelib.http import input_rules
from chalicelib.web import present
from chalicelib.web.actions_forms import fixable_status

DIRECT, NEW_BRANCH = "direct", "commit-to-new-branch"      # Forgejo's commit_choice values
# The API's field names in a refusal ("[Content]: MaxSize"), lower-cased -> the form's.
FIELDS = {"filepath": "tree_path", "treepath": "tree_path", "content": "content",
          "contentbase64": "content", "sha": "content", "message": "commit_summary",
          "newbranch": "new_branch_name", "newbranchname": "new_branch_name",
          "branch": "commit_choice", "files": "files", "files.path": "files",
          "files.content": "files", "files.contentbase64": "files"}
_FIELD = re.compile(r"^\[([\w.]+)\]")


def _is_branch(git, name: str) -> bool:
    return bool(name) and f"refs/heads/{name}".encode() in git.refs


def branch_and_path(view, git, rest: str) -> tuple[str, str]:
    """(branch, path) of ``{branch}/{path}``: the shortest prefix naming a branch, as
    ``/src/`` reads it.  An empty repository has its default branch only (its first
    file makes it)."""
    parts = [p for p in rest.split("/") if p]
    for n in range(1, len(parts) + 1):
        name = "/".join(parts[:n])
        if _is_branch(git, name) or (view.repo.empty and name == view.repo.default_branch):
            return name, "/".join(parts[n:])
    raise errors.NotFoundError(f"branch does not exist: {rest}")


def file_in_branch(view, git, rest: str):
    """(branch, path, entry) of an existing file at a branch, resolved as ``/src/``
    resolves ``/src/branch/{rest}`` (a branch whose tree holds the path wins)."""
    _, found, branch, path = present.resolve_src(view, "branch", rest, git)
    if isinstance(found, list) or found.kind != "file":
        raise errors.NotFoundError(f"not a file: {path}")
    return branch, path, found


def require_writer(view) -> None:
    """The API's refusal for whoever may not write (a private repository was a 404
    before this); the form pages show it as the same 403 page."""
    if not view.can_write:
        raise errors.PermissionDenied("user should have a permission to write to a repo")
    if view.repo.archived:
        raise errors.ArchivedRepository("repository is archived")


def unused_branch(git, login: str) -> str:
    """Forgejo's proposal for a new branch: ``<user>-patch-<n>``, the first free n."""
    n = 1
    while _is_branch(git, f"{login}-patch-{n}"):
        n += 1
    return f"{login}-patch-{n}"


def commit_values(form: dict[str, str] | None, *, proposed_branch: str) -> dict:
    """The commit fields as the form shows them (as posted, else the defaults)."""
    form = form or {}
    choice = form.get("commit_choice") if form.get("commit_choice") in (DIRECT, NEW_BRANCH) \
        else DIRECT
    return {"commit_summary": form.get("commit_summary", ""),
            "commit_message": form.get("commit_message", ""), "commit_choice": choice,
            "new_branch_name": form.get("new_branch_name", proposed_branch)}


def commit_target(git, values: dict, default_message: str) -> dict:
    """The option's ``branch``-side fields from the commit values: ``message`` (the
    summary, else Forgejo's default, then the description) and ``new_branch``,
    refused beside its field before anything is written."""
    message = values["commit_summary"].strip() or default_message
    if values["commit_message"].strip():
        message += "\n\n" + values["commit_message"].replace("\r\n", "\n").strip()
    fields = {"message": message}
    if values["commit_choice"] == NEW_BRANCH:
        name = values["new_branch_name"].strip()
        if not name:
            raise errors.InvalidInput("[NewBranchName]: Required")
        try:
            contents.validate_branch_name(name)
        except errors.InvalidInput:
            raise errors.InvalidInput(f"[NewBranchName]: invalid branch name {name!r}") from None
        if _is_branch(git, name):
            raise errors.InvalidInput(f"[NewBranchName]: branch {name!r} already exists")
        fields["new_branch"] = name
    return fields


def check_limits(values: dict, definition: str) -> None:
    """The edge's limits of the API body ``definition`` on what the form sends (its
    fields never pass that edge): ``[Content]: MaxSize`` and the like, 422."""
    input_rules.check_body(values, definition)


def refusal(err: errors.ServiceError, *, path_field: str = "tree_path") -> tuple[int, dict]:
    """(status, template values) for a refusal the form can fix: ``field_errors`` with
    the message beside its field, or ``error`` above the form.  Anything else (a
    permission, a repository that is gone) is raised again for its error page.

    The gitops refusals carry the ``path`` they are about (a malformed path, a file
    already there, a file where a directory goes); a changed or deleted file is a 409
    beside the content, whose text the form keeps."""
    message = getattr(err, "message", "") or str(err)
    if isinstance(err, errors.RefProtected):
        return 403, {"field_errors": {
            "commit_choice": f"{message}: commit to a new branch instead."}}
    if isinstance(err, errors.NotFoundError) and hasattr(err, "path"):
        return 409, {"field_errors": {"content": (
            f"{err.path} was deleted on this branch after this form was opened: nothing "
            "was committed.")}}
    status = fixable_status(err)
    if status is None:
        raise err
    if isinstance(err, errors.ConflictError) and hasattr(err, "expected"):
        return 409, {"field_errors": {"content": (
            "Someone changed this file on the branch after this form was opened: nothing "
            "was committed. Your text is kept here; open the file again to see their "
            "change before you save yours.")}}
    found = _FIELD.match(message)
    field = FIELDS.get(found.group(1).lower()) if found else None
    if field is None and hasattr(err, "path"):
        field = path_field
    if field is None and message.startswith("branch already exists"):
        field = "new_branch_name"
    if field is None:
        return status, {"error": message}
    return status, {"field_errors": {field: message}}
