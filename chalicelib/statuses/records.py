"""Commit statuses -> Forgejo's CommitStatus and CombinedStatus records, field for field
(``schemas.RECORDS``; Forgejo's ``services/convert/status.go``)."""
from __future__ import annotations

from urllib.parse import quote

from chalicelib import accounts, repos
from chalicelib.http import formats, schemas
from chalicelib.http.schema_types import I, S, T, nullable, ref

# The records' Swagger definitions: Forgejo's names, fields and types, published by
# /swagger.v1.json (``http.schemas``) and checked against what this module builds.
_STATUS_STATE = {"type": "string",
                 "enum": ["pending", "success", "error", "failure", "warning", "skipped"]}
SCHEMAS = schemas.declare({
    "CommitStatus": {"id": I, "status": _STATUS_STATE, "target_url": S, "description": S,
                     "url": S, "context": S, "creator": ref("User"), "created_at": T,
                     "updated_at": T},
    "CombinedStatus": {"state": {"type": "string", "enum": ["", *_STATUS_STATE["enum"]]},
                       "sha": S, "total_count": I,
                       "statuses": nullable({"type": "array", "items": ref("CommitStatus")}),
                       "repository": nullable(ref("Repository")), "commit_url": S, "url": S},
}, lists=("CommitStatus",))


def commit_status(shown, view) -> dict:
    """A CommitStatus; ``shown`` is a ``services.statuses.Shown``.  As in Forgejo, ``id``
    is the status's index among its commit's statuses, ``updated_at`` is its creation
    time, and the creator is shown as to an anonymous viewer (no doer is passed)."""
    status = shown.status
    return {
        "id": int(status.index),
        "status": status.state,
        "target_url": status.target_url,
        "description": status.description,
        "url": (f"{repos.repo_api_url(view.owner.login, view.repo.name)}/statuses/"
                f"{quote(status.sha, safe='')}"),
        "context": status.context,
        "creator": accounts.user_record(shown.creator, None),
        "created_at": formats.rfc3339(status.created),
        "updated_at": formats.rfc3339(status.created),
    }


# What Forgejo answers for a commit without statuses (or past the last page): its zero
# CombinedStatus, every field empty.
EMPTY_COMBINED = {"state": "", "sha": "", "total_count": 0, "statuses": None,
                  "repository": None, "commit_url": "", "url": ""}


def combined_status(combined, view, repository: dict) -> dict:
    """A CombinedStatus; ``combined`` is a ``services.statuses.Combined`` with at least
    one status shown.  ``total_count`` counts the statuses shown (the page), as in
    Forgejo; ``commit_url`` and ``url`` are empty there too."""
    return {
        "state": combined.state,
        "sha": combined.sha,
        "total_count": len(combined.shown),
        "statuses": [commit_status(s, view) for s in combined.shown],
        "repository": repository,
        "commit_url": "",
        "url": "",
    }
