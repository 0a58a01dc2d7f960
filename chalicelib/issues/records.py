"""Issue tracker records: Label, Milestone, Issue (with PullRequestMeta), Comment and
TrackedTime, field for field as ``schemas.RECORDS`` declares them."""
from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote

from chalicelib.accounts import user_record
from chalicelib.http import schemas, uploads
from chalicelib.http.formats import app_url, rfc3339
from chalicelib.http.schema_types import B, I, S, T, nullable, ref
from chalicelib.issues.attachment_store import attachments_of
from chalicelib.issues.store import IN_ORG
from chalicelib.repos import repo_api_url, repo_html_url

if TYPE_CHECKING:
    from chalicelib.accounts import Account

# The records' Swagger definitions: Forgejo's names, fields and types, published by
# /swagger.v1.json (``http.schemas``) and checked against what this module builds.
SCHEMAS = schemas.declare({
    "Label": {"id": I, "name": S, "exclusive": B, "is_archived": B, "color": S,
              "description": S, "url": S},
    "Milestone": {"id": I, "title": S, "description": S, "state": S,
                  "open_issues": I, "closed_issues": I, "created_at": T, "updated_at": T,
                  "closed_at": nullable(T), "due_on": nullable(T)},
    "RepositoryMeta": {"id": I, "name": S, "owner": S, "full_name": S},
    "PullRequestMeta": {"merged": B, "merged_at": nullable(T), "draft": B, "html_url": S},
    "Attachment": {"id": I, "name": S, "size": I, "download_count": I, "created_at": T,
                   "uuid": S, "browser_download_url": S,
                   "type": {"type": "string", "enum": ["attachment", "external"]}},
    "Issue": {
        "id": I, "url": S, "html_url": S, "number": I, "user": ref("User"),
        "original_author": S, "original_author_id": I, "title": S, "body": S, "ref": S,
        "assets": {"type": "array", "items": ref("Attachment")},
        "labels": {"type": "array", "items": ref("Label")},
        "milestone": nullable(ref("Milestone")), "assignee": nullable(ref("User")),
        "assignees": nullable({"type": "array", "items": ref("User")}),
        "state": S, "is_locked": B, "comments": I, "created_at": T,
        "updated_at": T, "closed_at": nullable(T), "due_date": nullable(T), "pin_order": I,
        "pull_request": nullable(ref("PullRequestMeta")), "repository": ref("RepositoryMeta"),
    },
    "Comment": {
        "id": I, "html_url": S, "pull_request_url": S, "issue_url": S, "user": ref("User"),
        "original_author": S, "original_author_id": I, "body": S,
        "assets": {"type": "array", "items": ref("Attachment")}, "created_at": T,
        "updated_at": T,
    },
    "TrackedTime": {"id": I, "created": T, "time": I, "user_id": I, "user_name": S,
                    "issue_id": I, "issue": nullable(ref("Issue"))},
}, lists=("Issue", "Comment", "Label", "Milestone", "TrackedTime", "Attachment"))


def label(label_id: int, item: dict, view) -> dict:
    """A Label; Forgejo stores the colour with '#' and sends it without.  The owning
    organization's label (``IN_ORG``) names the organization's path."""
    if item.get(IN_ORG):
        return org_label(label_id, item, view.owner.login)
    return _label(label_id, item,
                  f"{repo_api_url(view.owner.login, view.repo.name)}/labels/{int(label_id)}")


def org_label(label_id: int, item: dict, org_login: str) -> dict:
    """An organization's Label, its ``url`` under ``/orgs/{org}/labels``."""
    return _label(label_id, item, f"{app_url()}api/v1/orgs/{quote(org_login)}/labels/"
                                  f"{int(label_id)}")


def _label(label_id: int, item: dict, url: str) -> dict:
    return {
        "id": int(label_id),
        "name": item.get("name", ""),
        "exclusive": bool(item.get("exclusive")),
        "is_archived": bool(item.get("archived")),
        "color": str(item.get("color", "")).lstrip("#"),
        "description": item.get("description", ""),
        "url": url,
    }


def milestone(milestone_id: int, item: dict) -> dict:
    closed = item.get("state") == "closed"
    return {
        "id": int(milestone_id),
        "title": item.get("title", ""),
        "description": item.get("description", ""),
        "state": "closed" if closed else "open",
        "open_issues": int(item.get("o", 0)),
        "closed_issues": int(item.get("c", 0)),
        "created_at": rfc3339(item.get("created", 0)),
        "updated_at": rfc3339(item.get("updated", 0)),
        "closed_at": rfc3339(item.get("closed_at", 0)) if closed else None,
        "due_on": rfc3339(item["due"]) if item.get("due") else None,
    }


def attachment(found) -> dict:
    """An Attachment of an issue or comment (``attachment_store.Attachment``)."""
    return uploads.attachment_record(found.id, name=found.name, size=found.size,
                                     download_count=found.download_count,
                                     created=found.created, uuid=found.uuid)


def assets(item) -> list[dict]:
    """The ``assets`` of an Issue or Comment: its attachments, read with the item."""
    return [attachment(a) for a in attachments_of(item)]


def issue_html_url(view, number: int, is_pull: bool = False) -> str:
    return f"{repo_html_url(view)}/{'pulls' if is_pull else 'issues'}/{int(number)}"


def issue(item, view, viewer: Account | None, *, poster: Account, assignees: list,
          labels: list[tuple[int, dict]], milestone_entry: tuple[int, dict] | None,
          pin_order: int = 0) -> dict:
    """An Issue; ``item`` is a issues.store.Issue, users come in as accounts."""
    closed = item.state == "closed"
    return {
        "id": int(item.id),
        "url": f"{repo_api_url(view.owner.login, view.repo.name)}/issues/{int(item.number)}",
        "html_url": issue_html_url(view, item.number, bool(item.is_pull)),
        "number": int(item.number),
        "user": user_record(poster, viewer),
        "original_author": getattr(item, "original_author", None) or "",
        "original_author_id": int(getattr(item, "original_author_id", None) or 0),
        "title": item.title,
        "body": item.body,
        "ref": item.ref,
        "assets": assets(item),
        "labels": [label(i, entry, view) for i, entry in labels],
        "milestone": milestone(*milestone_entry) if milestone_entry else None,
        "assignee": user_record(assignees[0], viewer) if assignees else None,
        "assignees": [user_record(a, viewer) for a in assignees] if assignees else None,
        "state": "closed" if closed else "open",
        "is_locked": bool(item.is_locked),
        "comments": int(item.num_comments),
        "created_at": rfc3339(item.created),
        "updated_at": rfc3339(item.updated),
        "closed_at": rfc3339(item.closed_at) if closed else None,
        "due_date": rfc3339(item.due) if item.due else None,
        "pin_order": int(pin_order),
        "pull_request": _pull_meta(item, view) if item.is_pull else None,
        "repository": {"id": int(view.repo.id), "name": view.repo.name,
                       "owner": view.owner.login,
                       "full_name": f"{view.owner.login}/{view.repo.name}"},
    }


def _pull_meta(item, view) -> dict:
    """PullRequestMeta of a pull request's Issue record."""
    from chalicelib import pulls

    pull = pulls.pull_fields_of(item)
    return {"merged": pull.merged,
            "merged_at": rfc3339(pull.merged_at) if pull.merged else None,
            "draft": pulls.is_work_in_progress(item.title),
            "html_url": issue_html_url(view, item.number, True)}


def comment(item, view, viewer: Account | None, *, poster: Account, is_pull: bool = False) -> dict:
    issue_url = issue_html_url(view, item.issue_number, is_pull)
    return {
        "id": int(item.id),
        "html_url": f"{issue_url}#issuecomment-{int(item.id)}",
        "pull_request_url": issue_url if is_pull else "",
        "issue_url": "" if is_pull else issue_url,
        "user": user_record(poster, viewer),
        "original_author": getattr(item, "original_author", None) or "",
        "original_author_id": int(getattr(item, "original_author_id", None) or 0),
        "body": item.body,
        "assets": assets(item),
        "created_at": rfc3339(item.created),
        "updated_at": rfc3339(item.updated),
    }


def tracked_time(item, issue_record: dict | None) -> dict:
    return {
        "id": int(item.id),
        "created": rfc3339(item.created),
        "time": int(item.time),
        "user_id": int(item.user_id),
        "user_name": item.user_name,
        "issue_id": int(item.issue_id),
        "issue": issue_record,
    }
