"""Errors of git operations.

Each also derives from a domain error kind (``chalicelib/errors.py``), so the API maps
it to a status code without knowing about git; the messages are Forgejo's own where
Forgejo has one (``models/error.go``: ErrFilenameInvalid, ErrFilePathInvalid,
ErrRepoFileAlreadyExists, ErrRepoFileDoesNotExist, ErrSHADoesNotMatch).  A service
that answers differently for an operation catches the kind and says so.
"""
from __future__ import annotations

from chalicelib.errors import ConflictError, InvalidInput, NotFoundError


class GitOpsError(Exception):
    """Base class of every error raised by chalicelib.gitops."""


class ObjectMissing(GitOpsError, NotFoundError):
    """An object id names nothing in the store."""


class WrongObjectType(GitOpsError, InvalidInput):
    """An object id names an object of another type (a blob where a commit was wanted)."""


class InvalidPath(GitOpsError, InvalidInput):
    """A path cannot be stored in a tree (empty, ``..``, ``.git``, a NUL, ...)."""

    def __init__(self, path: str):
        super().__init__(f"path contains a malformed path component [path: {path}]")
        self.path = path


class PathConflict(GitOpsError, InvalidInput):
    """A file is where a directory must go, or the other way round."""

    def __init__(self, path: str, *, file_in_the_way: bool):
        what = ("a file exists where you're trying to create a subdirectory"
                if file_in_the_way else "a directory exists where you're trying to create a file")
        super().__init__(f"{what} [path: {path}]")
        self.path = path


class FileAlreadyExists(GitOpsError, InvalidInput):
    def __init__(self, path: str):
        super().__init__(f"repository file already exists [path: {path}]")
        self.path = path


class FileMissing(GitOpsError, NotFoundError):
    def __init__(self, path: str):
        super().__init__(f"repository file does not exist [path: {path}]")
        self.path = path


class ShaMismatch(GitOpsError, ConflictError):
    """The caller's idea of a file's blob id is not the file's (it changed meanwhile)."""

    def __init__(self, path: str, given: str, expected: str):
        super().__init__(f"sha does not match [given: {given}, expected: {expected}]")
        self.path = path
        self.given = given
        self.expected = expected


# --- merging a pull request (``pull_merge``) -------------------------------------------
# Forgejo answers each of these 409 from the merge API (merge, rebase and unrelated-
# history errors) or refuses earlier (an ancestor PR is not mergeable); the service
# picks the status, so they only carry what it needs to say.

class UnknownMergeStyle(GitOpsError, InvalidInput):
    def __init__(self, style: str):
        super().__init__(f"unknown merge style [style: {style}]")
        self.style = style


class MergeConflict(GitOpsError, ConflictError):
    """The merge, squash or one rebase step has conflicts; ``commit`` is the commit
    being replayed when a rebase stopped (as Forgejo's ErrRebaseConflicts names it)."""

    def __init__(self, paths, *, style: str, commit: str | None = None):
        self.paths = tuple(paths)
        self.style = style
        self.commit = commit
        where = f" whilst rebasing {commit}" if commit else ""
        super().__init__(f"merge conflict{where} [style: {style}, paths: {', '.join(self.paths)}]")


class UnrelatedHistories(GitOpsError, ConflictError):
    def __init__(self, style: str):
        super().__init__(f"refusing to merge unrelated histories [style: {style}]")
        self.style = style


class NotFastForward(GitOpsError, ConflictError):
    """fast-forward-only asked for, but the base branch has commits the head lacks."""

    def __init__(self):
        super().__init__("not possible to fast-forward: the base branch has diverged from the head")


class NothingToMerge(GitOpsError, ConflictError):
    """The head is already contained in the base branch."""

    def __init__(self):
        super().__init__("the head is already contained in the base branch: nothing to merge")
