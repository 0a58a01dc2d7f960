"""The audit log in the browser (a Nimbus extension; docs/extensions.md "Audit log"):
the instance's log for site admins at ``/admin/audit`` and an organization's for its
owners at ``/org/{org}/settings/audit``, newest first, with the API's filters in a GET
form.

Each page reads what its API list reads (``audit.instance_page``: adminListAuditLog,
``audit.org_page``: orgListAuditLog) with the same filters (``audit.query_of``), so who
sees which entries, and what an entry keeps of a secret (nothing), are the API's.  The
admin page is the 404 page to everyone but site admins, as the other ``/admin`` page
is; the organization's answers as the API does: a member or anyone else who can see
the organization gets 403, whoever cannot see it the 404 page.

A filter the service refuses (an unreadable time, ``since`` after ``until``) is shown
beside its field with the typed values kept, 422.  Paging is by offset, as the API's:
the service reads one entry past the page, which says whether an older page follows;
the log is never counted through, so the pager says "Newer" and "Older" rather than
"page N of M".
"""
from __future__ import annotations

import json
from collections.abc import Mapping

from chalicelib import audit, errors, repos
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.web import code_view
from chalicelib.web.org_pages import org_values, org_view
from chalicelib.web.view import Web, page, render

ADMIN_TEMPLATE = "admin/audit.html"
ORG_TEMPLATE = "org/audit.html"
FILTERS = ("actor", "repo", "action", "since", "until")
# A value longer than this is cut in the table (its whole text, as the entry keeps it,
# stays in the cell's title).
SHOWN_CHARS = 80


def _text(value) -> str:
    """A before or after value as one short line: texts as they are, the rest as JSON."""
    if value is None:
        return "(none)"
    if value == "":
        return "(empty)"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)


def _shown(value) -> dict:
    full = _text(value)
    cut = len(full) > SHOWN_CHARS
    return {"text": full[:SHOWN_CHARS - 1] + "…" if cut else full,
            "full": full if cut else ""}


def _change(name: str, value) -> dict:
    """One line of the changes column: ``name: before → after``; a change the log kept
    the name of only (the entry's changes were too large) says so."""
    if isinstance(value, Mapping) and value.get("omitted"):
        return {"name": name, "omitted": True}
    if isinstance(value, Mapping) and ("before" in value or "after" in value):
        return {"name": name, "before": _shown(value.get("before")),
                "after": _shown(value.get("after"))}
    return {"name": name, "value": _shown(value)}


def _row(entry) -> dict:
    record = audit.audit_entry(entry)
    return {"entry": record, "when": code_view.stamp(entry.time),
            "changes": [_change(str(k), v) for k, v in record["changes"].items()],
            "details": [{"name": str(k), "value": _shown(v)}
                        for k, v in record["details"].items()]}


def _typed(req: ApiRequest) -> dict[str, str]:
    return {name: req.arg(name) or "" for name in FILTERS}


def _log(req: ApiRequest, read) -> dict:
    """The page's values: the typed filters, the rows of one page (``read(query,
    offset=, limit=)`` is the service's list), the pager, or the refused filter."""
    typed = _typed(req)
    window = paging.page_of(req)
    values = {"values": typed, "filtered": any(v.strip() for v in typed.values()),
              "rows": [], "page": window.page, "older": False, "field_errors": None,
              "error": "", "status": 200}
    try:
        query = audit.query_of(**typed)
        shown, total = read(query, offset=window.offset, limit=window.limit)
    except errors.InvalidInput as err:
        message = getattr(err, "message", "") or str(err)
        field = message.partition(":")[0].strip()
        if field in FILTERS:
            values["field_errors"] = {field: message}
        else:
            values["error"] = message
        values["status"] = 422
        return values
    values["rows"] = [_row(entry) for entry in shown]
    values["older"] = total > window.offset + window.limit
    return values


@page("GET", "/admin/audit", "webAdminAudit", signed_in=True)
def admin_audit(req: ApiRequest, web: Web) -> ApiResponse:
    """The instance's log (adminListAuditLog), to site admins; the 404 page to anyone
    else, as the admin's other page answers."""
    if web.user is None or not web.user.is_admin:
        raise errors.NotFoundError("page does not exist")
    values = _log(req, audit.instance_page)
    return render(web, ADMIN_TEMPLATE, status=values.pop("status"), title="Audit log",
                  action="/admin/audit", repo_hint="owner/name", **values)


@page("GET", "/org/{org}/settings/audit", "webOrgAudit", signed_in=True)
def org_audit(req: ApiRequest, web: Web) -> ApiResponse:
    """The organization's log (orgListAuditLog), to its owners and site admins."""
    view = org_view(req)
    if not view.is_owner and not repos.is_org_owner(view.org, req.actor):
        raise errors.PermissionDenied("Must be an organization owner")
    values = _log(req, lambda query, **window: audit.org_page(view.org, query, **window))
    return render(web, ORG_TEMPLATE, status=values.pop("status"),
                  title=f"{view.org.login}: audit log", action=view.url("settings", "audit"),
                  repo_hint="name, or owner/name", **values,
                  **org_values(view, "settings"))
