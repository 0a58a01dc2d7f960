"""Records of stopwatches, deadlines and pins: StopWatch, IssueDeadline and
NewIssuePinsAllowed, field for field as ``schemas.RECORDS`` declares them."""
from __future__ import annotations

from chalicelib.http import schemas
from chalicelib.http.formats import rfc3339
from chalicelib.http.schema_types import B, I, S, T

SCHEMAS = schemas.declare({
    "StopWatch": {"created": T, "seconds": I, "duration": S, "issue_index": I,
                  "issue_title": S, "repo_owner_name": S, "repo_name": S},
    "IssueDeadline": {"due_date": T},
    "NewIssuePinsAllowed": {"issues": B, "pull_requests": B},
}, lists=("StopWatch",))

# What Forgejo answers for a removed deadline: Go's zero time.
NO_DEADLINE = "0001-01-01T00:00:00Z"


def stopwatch(item, *, now: int, duration: str, title: str, owner_name: str,
              repo_name: str) -> dict:
    return {
        "created": rfc3339(item.created),
        "seconds": max(now - int(item.created), 0),
        "duration": duration,
        "issue_index": int(item.issue_number),
        "issue_title": title,
        "repo_owner_name": owner_name,
        "repo_name": repo_name,
    }


def deadline(due: int) -> dict:
    return {"due_date": rfc3339(due) if due else NO_DEADLINE}


def pins_allowed(issues: bool, pull_requests: bool) -> dict:
    return {"issues": bool(issues), "pull_requests": bool(pull_requests)}
