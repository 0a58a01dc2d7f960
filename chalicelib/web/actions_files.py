"""Changing a repository's files in the browser, at Forgejo's URLs, for those who may
write to it:

- ``GET/POST /{owner}/{repo}/_new/{branch}/{dir}``: a new file (its path starts in the
  directory);
- ``GET/POST /{owner}/{repo}/_upload/{branch}/{dir}``: files uploaded into the
  directory (``multipart/form-data``, the field ``files``), all in one commit;
- ``GET/POST /{owner}/{repo}/_edit/{branch}/{path}``: a text file's content (and name);
- ``GET/POST /{owner}/{repo}/_delete/{branch}/{path}``: a file, after a confirmation.

Each commits to the branch or to a new branch (``file_commit``) through the service the
API's route calls (repoCreateFile, repoChangeFiles, repoUpdateFile, repoDeleteFile)
with the API's option object: one set of permission, path, protection and lock rules.
Editing and deleting send the blob sha the form was shown with, as the API's
``sha``: if the file changed meanwhile the service refuses (409) and the form comes
back with the text kept, so no one's change is overwritten unseen.
"""
from __future__ import annotations

import base64
import posixpath

from chalicelib import contents, errors
from chalicelib.contents import (ChangeFileOperation, ChangeFilesOptions, CreateFileOptions,
                                 DeleteFileOptions, UpdateFileOptions)
from chalicelib.http import input_rules
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.repos import current_repo
from chalicelib.web import file_commit, present
from chalicelib.web.actions_forms import posted, repo_values
from chalicelib.web.view import Web, page, path_url, redirect, render

EDIT, UPLOAD, DELETE = "forms/file_edit.html", "forms/file_upload.html", "forms/file_delete.html"
BASE = "/{owner}/{repo}/"
# The largest file the API's content takes: its base64 text within the request limit.
MAX_FILE = input_rules.MAX_REQUEST_BODY // 4 * 3


def _open(req: ApiRequest):
    """The repository (its 404 for whoever may not see it), the writer check, and one
    open of its git data (refs and pack list) for the branch and the file."""
    view = current_repo(req)
    file_commit.require_writer(view)
    return view, contents.open_git(view.repo)


def _show(req: ApiRequest, web: Web, view, template: str, *, status: int = 200,
          **values) -> ApiResponse:
    return render(web, template, status=status, form_csrf=web.csrf,
                  **repo_values(req, view, "code"), **values)


def _src(view, branch: str, path: str = "") -> str:
    return path_url(view.owner.login, view.repo.name, "src", "branch", branch, path)


def _done(view, branch: str, target: dict, path: str) -> ApiResponse:
    """Forgejo's landing: the path on the branch, or the comparison of a new branch
    with its base, where a pull request is one click away."""
    if "new_branch" in target:
        return redirect(path_url(view.owner.login, view.repo.name, "compare",
                                 f"{branch}...{target['new_branch']}"))
    return redirect(_src(view, branch, path))


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _text(form: dict) -> str:
    """The textarea's text with the line ends a browser sends (CRLF) made LF, as
    Forgejo's editor stores it."""
    return form.get("content", "").replace("\r\n", "\n")


# A new file ----------------------------------------------------------------------------

def _new_page(req, web, view, branch: str, directory: str, values: dict, *,
              status: int = 200, **more) -> ApiResponse:
    return _show(req, web, view, EDIT, status=status, title="New file", mode="new",
                 branch=branch, values=values, cancel=_src(view, branch, directory),
                 action=path_url(view.owner.login, view.repo.name, "_new", branch, directory),
                 default_message=f"Add {values['tree_path'].strip('/') or '<name>'}", **more)


@page("GET", BASE + "_new/{rest:path}", "webRepoFileNewForm", in_repo=True, signed_in=True)
def new_form(req: ApiRequest, web: Web) -> ApiResponse:
    view, git = _open(req)
    branch, directory = file_commit.branch_and_path(view, git, req.params["rest"])
    values = {"tree_path": f"{directory}/" if directory else "", "content": "",
              **file_commit.commit_values(None, proposed_branch=file_commit.unused_branch(
                  git, web.user.login))}
    return _new_page(req, web, view, branch, directory, values)


@page("POST", BASE + "_new/{rest:path}", "webRepoFileNew", in_repo=True, signed_in=True)
def new(req: ApiRequest, web: Web) -> ApiResponse:
    view, git = _open(req)
    branch, directory = file_commit.branch_and_path(view, git, req.params["rest"])
    form = posted(req)
    values = {"tree_path": form.get("tree_path", ""), "content": _text(form),
              **file_commit.commit_values(form, proposed_branch="")}
    path = values["tree_path"].strip().strip("/")
    try:
        if not path:
            raise errors.InvalidInput("[TreePath]: Required")
        target = file_commit.commit_target(git, values, f"Add {path}")
        body = {"content": _b64(values["content"].encode("utf-8")), "branch": branch, **target}
        file_commit.check_limits(body, "CreateFileOptions")
        contents.change_one_file(view, req.actor, CreateFileOptions(**body), path)
    except errors.ServiceError as err:
        status, shown = file_commit.refusal(err)
        return _new_page(req, web, view, branch, directory, values, status=status, **shown)
    return _done(view, branch, target, path)


# Uploads -------------------------------------------------------------------------------

def _upload_page(req, web, view, branch: str, values: dict, *, status: int = 200,
                 **more) -> ApiResponse:
    directory = values["tree_path"].strip("/")
    return _show(req, web, view, UPLOAD, status=status, title="Upload files", branch=branch,
                 values=values, max_file=MAX_FILE, cancel=_src(view, branch, directory),
                 action=path_url(
                     view.owner.login, view.repo.name, "_upload", branch, directory),
                 default_message=_upload_message(directory), **more)


def _upload_message(directory: str) -> str:
    return f"Upload files to {directory}" if directory else "Upload files"


@page("GET", BASE + "_upload/{rest:path}", "webRepoFileUploadForm", in_repo=True,
      signed_in=True)
def upload_form(req: ApiRequest, web: Web) -> ApiResponse:
    view, git = _open(req)
    branch, directory = file_commit.branch_and_path(view, git, req.params["rest"])
    values = {"tree_path": directory, **file_commit.commit_values(
        None, proposed_branch=file_commit.unused_branch(git, web.user.login))}
    return _upload_page(req, web, view, branch, values)


def _uploaded(req: ApiRequest) -> tuple[dict, list]:
    """The form's text fields and its chosen files (name, bytes); a browser sends an
    empty part without a name when none was chosen."""
    if req.content_type != "multipart/form-data":
        raise errors.BadInput("[Files]: send the files as a multipart/form-data upload")
    from chalicelib.http import multipart

    parsed = multipart.parse(req.headers.get("content-type") or "", req.body)
    form = {p.name: p.text for p in parsed.parts if p.filename is None}
    chosen = [(posixpath.basename(p.filename.replace("\\", "/")), p.data)
              for p in parsed.parts if p.name == "files" and p.filename]
    return form, chosen


def _upload_operations(directory: str, chosen: list) -> list[ChangeFileOperation]:
    """One ``create`` per file; a file the API could not take is refused by name."""
    if not chosen:
        raise errors.InvalidInput("[Files]: choose at least one file to upload")
    for name, data in chosen:
        if len(data) > MAX_FILE:
            raise errors.InvalidInput(
                f"[Files]: {name} is larger than the {MAX_FILE // (1024 * 1024)} MiB a file "
                "may have here (the API's limit on a file's content)")
    return [ChangeFileOperation(operation="create", content=_b64(data),
                                path="/".join(p for p in (directory, name) if p))
            for name, data in chosen]


@page("POST", BASE + "_upload/{rest:path}", "webRepoFileUpload", in_repo=True,
      signed_in=True)
def upload(req: ApiRequest, web: Web) -> ApiResponse:
    view, git = _open(req)
    branch, url_directory = file_commit.branch_and_path(view, git, req.params["rest"])
    values = {"tree_path": url_directory, **file_commit.commit_values({}, proposed_branch="")}
    try:
        form, chosen = _uploaded(req)
        values = {"tree_path": form.get("tree_path", url_directory),
                  **file_commit.commit_values(form, proposed_branch="")}
        directory = values["tree_path"].strip().strip("/")
        if any(part in (".", "..") for part in directory.split("/")):
            raise errors.InvalidInput(f"[TreePath]: path contains a malformed path component "
                                      f"[path: {directory}]")
        operations = _upload_operations(directory, chosen)
        target = file_commit.commit_target(git, values, _upload_message(directory))
        file_commit.check_limits({"branch": branch, **target}, "ChangeFilesOptions")
        contents.change_files(view, req.actor, ChangeFilesOptions(
            files=operations, branch=branch, **target))
    except errors.ServiceError as err:
        status, shown = file_commit.refusal(err, path_field="files")
        return _upload_page(req, web, view, branch, values, status=status, **shown)
    return _done(view, branch, target, directory)


# Editing -------------------------------------------------------------------------------

def _editable(entry) -> str:
    """The file's text; a binary, Git LFS or very large file is not edited here."""
    text = present.as_text(entry.content or b"")
    if entry.lfs_pointer or text is None or len(entry.content or b"") > present.MAX_SHOWN:
        raise errors.InvalidInput(f"{entry.path} is not a text file this editor can change: "
                                  "change it with git")
    return text


def _edit_page(req, web, view, branch: str, path: str, values: dict, *, status: int = 200,
               **more) -> ApiResponse:
    return _show(req, web, view, EDIT, status=status, title=f"Edit {path}", mode="edit",
                 branch=branch, path=path, values=values, cancel=_src(view, branch, path),
                 action=path_url(view.owner.login, view.repo.name, "_edit", branch, path),
                 default_message=f"Update {values['tree_path'].strip('/') or path}", **more)


@page("GET", BASE + "_edit/{rest:path}", "webRepoFileEditForm", in_repo=True, signed_in=True)
def edit_form(req: ApiRequest, web: Web) -> ApiResponse:
    view, git = _open(req)
    branch, path, entry = file_commit.file_in_branch(view, git, req.params["rest"])
    values = {"tree_path": path, "content": _editable(entry), "sha": entry.sha,
              **file_commit.commit_values(None, proposed_branch=file_commit.unused_branch(
                  git, web.user.login))}
    return _edit_page(req, web, view, branch, path, values)


def _posted_file(view, git, rest: str) -> tuple[str, str]:
    """(branch, path) of a posted edit or deletion: as the form's page resolved it, or,
    once the file is gone, the shortest branch prefix (the service then says so)."""
    try:
        branch, path, _ = file_commit.file_in_branch(view, git, rest)
    except errors.NotFoundError:
        branch, path = file_commit.branch_and_path(view, git, rest)
    return branch, path


@page("POST", BASE + "_edit/{rest:path}", "webRepoFileEdit", in_repo=True, signed_in=True)
def edit(req: ApiRequest, web: Web) -> ApiResponse:
    view, git = _open(req)
    branch, path = _posted_file(view, git, req.params["rest"])
    form = posted(req)
    values = {"tree_path": form.get("tree_path", path), "content": _text(form),
              "sha": form.get("sha", ""), **file_commit.commit_values(form, proposed_branch="")}
    new_path = values["tree_path"].strip().strip("/")
    try:
        if not new_path:
            raise errors.InvalidInput("[TreePath]: Required")
        target = file_commit.commit_target(git, values, f"Update {new_path}")
        body = {"content": _b64(values["content"].encode("utf-8")), "sha": values["sha"],
                "branch": branch, **target}
        if new_path != path:
            body["from_path"] = path            # a rename, as the API's from_path
        file_commit.check_limits(body, "UpdateFileOptions")
        contents.change_one_file(view, req.actor, UpdateFileOptions(**body), new_path)
    except errors.ServiceError as err:
        status, shown = file_commit.refusal(err)
        return _edit_page(req, web, view, branch, path, values, status=status, **shown)
    return _done(view, branch, target, new_path)


# Deleting ------------------------------------------------------------------------------

def _delete_page(req, web, view, branch: str, path: str, values: dict, *, status: int = 200,
                 **more) -> ApiResponse:
    return _show(req, web, view, DELETE, status=status, title=f"Delete {path}", branch=branch,
                 path=path, values=values, default_message=f"Delete {path}",
                 cancel=_src(view, branch, path),
                 action=path_url(view.owner.login, view.repo.name, "_delete", branch, path),
                 **more)


@page("GET", BASE + "_delete/{rest:path}", "webRepoFileDeleteForm", in_repo=True,
      signed_in=True)
def delete_form(req: ApiRequest, web: Web) -> ApiResponse:
    view, git = _open(req)
    branch, path, entry = file_commit.file_in_branch(view, git, req.params["rest"])
    values = {"sha": entry.sha, **file_commit.commit_values(
        None, proposed_branch=file_commit.unused_branch(git, web.user.login))}
    return _delete_page(req, web, view, branch, path, values)


@page("POST", BASE + "_delete/{rest:path}", "webRepoFileDelete", in_repo=True,
      signed_in=True)
def delete(req: ApiRequest, web: Web) -> ApiResponse:
    view, git = _open(req)
    branch, path = _posted_file(view, git, req.params["rest"])
    form = posted(req)
    values = {"sha": form.get("sha", ""), **file_commit.commit_values(form, proposed_branch="")}
    try:
        target = file_commit.commit_target(git, values, f"Delete {path}")
        body = {"sha": values["sha"], "branch": branch, **target}
        file_commit.check_limits(body, "DeleteFileOptions")
        written = contents.change_one_file(view, req.actor, DeleteFileOptions(**body), path)
    except errors.ServiceError as err:
        status, shown = file_commit.refusal(err)
        if "content" in shown.get("field_errors", {}):      # this form has no content
            shown = {"error": "The file was changed or deleted on this branch after this "
                              "page was opened: nothing was deleted. Open it again to see "
                              "the change."}
        return _delete_page(req, web, view, branch, path, values, status=status, **shown)
    return _done(view, branch, target, _closest_directory(view, written, path))


def _closest_directory(view, written, path: str) -> str:
    """The deepest directory above ``path`` that the new commit still has (deleting a
    directory's last file removes the directory), as Forgejo lands after a deletion."""
    directory = posixpath.dirname(path)
    while directory:
        try:
            contents.get_contents(view, directory, written.at.commit_id)
            return directory
        except errors.NotFoundError:
            directory = posixpath.dirname(directory)
    return ""
