"""Blame: which commit last changed each line of a file, for the blame page.

A bounded walk, as the contents listing's last commits are: the first-parent history
of the ref is read back at most MAX_COMMITS commits, keeping the commits where the
file's blob changed (at most MAX_REVISIONS of them); then the lines are carried
forward from the oldest version to the newest with dulwich's ``update_lines`` (a
difflib match per version), so a line belongs to the version that brought it.  A
merge's lines from its other parents count as the merge's (first parent only, no
rename following).  When a bound is reached before the file's first version, the
lines older than what was read belong to the oldest commit read and ``complete`` is
False: the page says so.  Files larger than MAX_BYTES or MAX_LINES are refused
(``TooLarge``) before any walk: difflib's time grows with the square of the lines.
Everything comes from packs the request has already loaded (no AWS call).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from chalicelib.errors import NotFoundError

MAX_COMMITS = 2000
MAX_REVISIONS = 150
MAX_BYTES = 512 * 1024
MAX_LINES = 8000
LIMITS = {"commits": MAX_COMMITS, "revisions": MAX_REVISIONS, "bytes": MAX_BYTES,
          "lines": MAX_LINES}


class TooLarge(Exception):
    """The file is too large to blame within a page's time."""


@dataclass(frozen=True)
class BlameCommit:
    sha: str
    subject: str
    author: str
    time: int
    tz: int


@dataclass
class Hunk:
    """Consecutive lines last changed by one commit; ``start`` is the first's number."""
    commit: BlameCommit
    start: int
    lines: list[bytes] = field(default_factory=list)


@dataclass(frozen=True)
class Blame:
    hunks: list[Hunk]
    complete: bool          # False: a bound stopped the walk before the file's start
    size: int


def _summary(commit) -> BlameCommit:
    return BlameCommit(sha=commit.id.decode(),
                       subject=commit.message.split(b"\n", 1)[0].decode("utf-8", "replace"),
                       author=commit.author.split(b" <", 1)[0].decode("utf-8", "replace"),
                       time=int(commit.commit_time), tz=int(commit.commit_timezone))


def _blob_at(git, tree_id: bytes, path: str) -> bytes | None:
    from chalicelib.gitops import trees

    found = trees.entry_at(git.object_store, tree_id, path)
    return found[1] if found is not None else None


def blame(git, commit_id: str, path: str) -> Blame:
    """The blame of ``path`` at ``commit_id`` in the opened repository ``git``."""
    from dulwich.annotate import update_lines

    commit = git[commit_id.encode()]
    blob_id = _blob_at(git, commit.tree, path)
    if blob_id is None:
        raise NotFoundError(f"path does not exist: {path}")
    data = git[blob_id].as_raw_string()
    if len(data) > MAX_BYTES or data.count(b"\n") > MAX_LINES:
        raise TooLarge(path)
    # Newest first: (commit, blob) for each commit that brought a new version.
    versions, complete = [], False
    for _ in range(MAX_COMMITS):
        parent = git[commit.parents[0]] if commit.parents else None
        parent_blob = _blob_at(git, parent.tree, path) if parent is not None else None
        if parent_blob != blob_id:
            versions.append((commit, blob_id))
            if parent_blob is None:
                complete = True
                break
            if len(versions) >= MAX_REVISIONS:
                break
        commit, blob_id = parent, parent_blob
    else:
        versions.append((commit, blob_id))     # the oldest commit read holds the rest
    lines: list = []
    for version, blob in reversed(versions):
        lines = update_lines(lines, (version, None), git[blob])
    return Blame(_hunks(lines), complete, len(data))


def _hunks(lines) -> list[Hunk]:
    hunks: list[Hunk] = []
    summaries: dict[bytes, BlameCommit] = {}
    for number, ((commit, _), text) in enumerate(lines, start=1):
        if not hunks or hunks[-1].commit.sha != commit.id.decode():
            shown = summaries.setdefault(commit.id, _summary(commit))
            hunks.append(Hunk(shown, number))
        hunks[-1].lines.append(text)
    return hunks
