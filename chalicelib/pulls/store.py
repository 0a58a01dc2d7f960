"""Pull requests in the table: an issue item (``is_pull``) whose ``pull`` attribute holds
the pull request's own fields as JSON (``PullFields``).

One item per pull request, not two: every change of a pull request (its title, its
mergeability, the merge itself) is then one conditional write on the issue's
``version``, with the counters of the issue tracker, and a page of pull requests is
one Query, like a page of issues.  Pull requests share the issue number sequence
(``issues/store.py``).

The head is found by branch name in the head repository (the base repository itself,
or a fork of it: forks share the base's object pool, so the head's commits are always
in the base's object store); ``refs/pull/<number>/head`` in the base repository follows
the head commit.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields

from chalicelib.issues import Issue, query_all_issues

# Forgejo's stored PR status values, by name (fj:models/issues/pull.go).
CHECKING, MERGEABLE, CONFLICT, EMPTY, ANCESTOR, ERROR, MANUALLY_MERGED = (
    "checking", "mergeable", "conflict", "empty", "ancestor", "error", "manually_merged")


@dataclass
class PullFields:
    head_repo_id: int = 0
    head_branch: str = ""
    head_sha: str = ""
    base_branch: str = ""
    base_sha: str = ""            # the base branch's tip when mergeability was last checked
    merge_base: str = ""
    status: str = CHECKING
    conflicted: list[str] = field(default_factory=list)
    additions: int = 0
    deletions: int = 0
    changed_files: int = 0
    commits: int = 0              # commits on the head not on the base
    merged: bool = False
    merged_at: int = 0
    merged_by: dict | None = None  # account snapshot
    merge_commit_sha: str = ""
    allow_maintainer_edit: bool = False
    # The head branch was deleted (or its repository is gone): the record then names
    # refs/pull/<n>/head as the head's ref, as Forgejo does, without reading refs.
    head_gone: bool = False
    # A merge scheduled for when the required checks pass: style, title, message,
    # delete_branch, doer (snapshot).
    auto_merge: dict | None = None
    # Who is asked to review (reviews/service.py keeps these copies of the open
    # REQUEST_REVIEW reviews, in the same transaction): account snapshots, and teams as
    # {"id", "name", "org_id"}; a page of pull requests renders them with no extra read.
    requested_reviewers: list[dict] = field(default_factory=list)
    requested_teams: list[dict] = field(default_factory=list)
    # Each reviewer's standing verdict (``pulls.gate.standing``: approval, requested
    # changes or open request, its commit and flags), kept by the reviews domain in the
    # same transaction as the reviews: the merge gate reads it with the pull request,
    # no Query of the reviews.
    verdicts: list[dict] = field(default_factory=list)

    def dumps(self) -> str:
        return json.dumps(asdict(self), sort_keys=True, separators=(",", ":"))

    @classmethod
    def loads(cls, text: str) -> "PullFields":
        """Tolerant of records from other versions: unknown keys are dropped, odd
        values fall back to the defaults (a stored record never breaks a read)."""
        try:
            raw = json.loads(text) if text else {}
        except ValueError:
            raw = {}
        known = {f.name: f for f in fields(cls)}
        kept = {}
        default = cls()
        for name, value in (raw if isinstance(raw, dict) else {}).items():
            if name in known and (value is None or isinstance(value, type(getattr(default, name)))
                                  or getattr(default, name) is None):
                kept[name] = value
        for name in ("requested_reviewers", "requested_teams", "verdicts"):
            if name in kept:
                kept[name] = [v for v in kept[name] if isinstance(v, dict)]
        return cls(**kept)


def fields_of(issue: Issue) -> PullFields:
    return PullFields.loads(issue.pull)


def set_fields(issue: Issue, pull: PullFields) -> None:
    issue.pull = pull.dumps()


def open_pulls(repo_id: int) -> list[Issue]:
    """Every open pull request of a repository, newest first."""
    return query_all_issues(repo_id, "o", "p")


def open_pulls_at(repo_id: int, sha: str) -> list[Issue]:
    """The open pull requests whose head is commit ``sha`` (a status posted for it)."""
    return [issue for issue in open_pulls(repo_id) if fields_of(issue).head_sha == sha]


def pulls(repo_id: int, states: str) -> list[Issue]:
    """Pull requests in ``states`` ("o", "c" or "oc"), newest first."""
    return query_all_issues(repo_id, states, "p")
