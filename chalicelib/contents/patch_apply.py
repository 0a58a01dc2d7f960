"""repoApplyDiffPatch: a git-style unified diff applied to a branch as one commit.

The body is Forgejo's ``UpdateFileOptions``; its ``content`` is the patch itself (plain
text, as Forgejo reads it, not base64).  The patch is applied to the branch's tree in
memory (``gitops.patches``), and what it changes is committed as the contents API
commits files (repoChangeFiles' ``service.change_files``: message, author and
committer, dates, signoff, ``new_branch``, the protection rules, the ref moved by
compare-and-swap).  Each
changed file carries the blob id it was read at, so a file changed by someone else
between the read and the commit fails the write (nothing is written).

A patch that does not apply, or is no patch, answers 422 and writes nothing; the
default message is Forgejo's "apply-patch".
"""
from __future__ import annotations

import base64

from chalicelib.contents import files as repo_files
from chalicelib.contents.options import (
    ChangeFileOperation,
    ChangeFilesOptions,
    CommitFields,
    UpdateFileOptions,
)
from chalicelib.contents.service import Written, change_files
from chalicelib.errors import (
    ArchivedRepository,
    InvalidInput,
    NotFoundError,
    PermissionDenied,
)
from chalicelib.repos import RepoView

DEFAULT_MESSAGE = "apply-patch"
REGULAR, EXECUTABLE, SYMLINK = 0o100644, 0o100755, 0o120000


def _head(git, repo, branch: str) -> bytes:
    try:
        return git.refs[f"refs/heads/{branch}".encode()]
    except KeyError:
        raise NotFoundError(f"branch does not exist [name: {branch}]") from None


def _entry(git, tree: bytes, path: str) -> tuple[int, bytes] | None:
    from dulwich.object_store import tree_lookup_path

    try:
        mode, sha = tree_lookup_path(git.object_store.__getitem__, tree, path.encode())
    except (KeyError, NotADirectoryError):
        return None
    return mode, sha


def changed_files(git, tree: bytes, text: bytes) -> list[dict]:
    """The files the patch makes of ``tree`` (parse_files' dicts: create, update with
    the blob id read, delete with it)."""
    from chalicelib.gitops import patches

    wanted: dict[str, bytes | None] = {}     # path -> new content, None: deleted
    read: dict[str, tuple[int, bytes] | None] = {}

    def current(path: str) -> bytes | None:
        if path in wanted:
            return wanted[path]
        if path not in read:
            read[path] = _entry(git, tree, path)
        found = read[path]
        if found is None:
            return None
        if found[0] not in (REGULAR, EXECUTABLE, SYMLINK):
            raise patches.PatchError(f"'{path}' is not a file")
        return git.object_store[found[1]].as_raw_string()

    for patch in patches.parse(text):
        if patch.binary:
            raise patches.PatchError(f"binary patches are not supported: '{patch.path}'")
        old = current(patch.old_path) if patch.old_path else None
        if patch.old_path and old is None:
            raise patches.PatchError(f"'{patch.old_path}' does not exist in the branch")
        kept = _mode_of(read, patch.old_path) if patch.old_path else REGULAR
        if patch.mode and patch.new_path and int(patch.mode, 8) != (kept or REGULAR):
            # A file's mode is kept as it is (the contents API writes no modes).
            raise patches.PatchError(f"mode changes are not supported: '{patch.path}' "
                                     f"({patch.mode})")
        if patch.new_path and patch.new_path != patch.old_path and \
                current(patch.new_path) is not None:
            raise patches.PatchError(f"'{patch.new_path}' already exists in the branch")
        result = patches.apply_hunks(patch, old or b"")
        if patch.new_path is None:
            if result:
                raise patches.PatchError(f"patch does not delete all of '{patch.old_path}'")
            wanted[patch.old_path] = None
            continue
        if patch.old_path and patch.old_path != patch.new_path and not patch.copy:
            wanted[patch.old_path] = None
        wanted[patch.new_path] = result
    return _operations(wanted, read)


def _mode_of(read: dict, path: str) -> int | None:
    found = read.get(path)
    return found[0] if found else None


def _operations(wanted: dict[str, bytes | None], read: dict) -> list[dict]:
    files = []
    for path, content in wanted.items():
        before = read.get(path)
        sha = before[1].decode() if before else None
        if content is None:
            if before is not None:
                files.append({"operation": "delete", "path": path, "sha": sha,
                              "from_path": None, "content": None})
        elif before is None:
            files.append({"operation": "create", "path": path, "sha": None,
                          "from_path": None, "content": content})
        else:
            files.append({"operation": "update", "path": path, "sha": sha,
                          "from_path": None, "content": content})
    if not files:
        raise InvalidInput("the patch changes nothing")
    return files


def apply_diff_patch(view: RepoView, user, option: UpdateFileOptions) -> Written:
    """Apply ``option.content`` to the branch (or a ``new_branch`` from it) as one
    commit; the commit and the files it wrote."""
    if user is None or not view.can_write:
        raise PermissionDenied("user should have a permission to write to a repo")
    if view.repo.archived:
        raise ArchivedRepository("repository is archived")
    if not isinstance(option.content, str) or not option.content.strip():
        raise InvalidInput("[ContentBase64]: Required")
    repo = view.repo
    git = repo_files.open_git(repo)
    branch = str(option.branch or repo.default_branch)
    head = _head(git, repo, branch)
    tree = git.object_store[head].tree
    files = changed_files(git, tree, option.content.encode("utf-8"))
    fields = {name: getattr(option, name) for name in CommitFields.__struct_fields__}
    fields["message"] = option.message or DEFAULT_MESSAGE
    return change_files(view, user, ChangeFilesOptions(**fields, files=[
        ChangeFileOperation(operation=f["operation"], path=f["path"], sha=f["sha"],
                            content=base64.b64encode(f["content"]).decode()
                            if f["content"] is not None else None)
        for f in files]))
