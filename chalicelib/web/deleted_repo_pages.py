"""Deleted repositories that can still be restored, in the browser (a Nimbus extension,
docs/extensions.md "Restorable deletion"): the signed-in user's own at
``/user/settings/repos/deleted`` and an organization's, for its owners, at
``/org/{org}/settings/repos/deleted``; each row's Restore form posts to
``…/repos/deleted/{id}/restore`` with an optional new name.

Both call the services ``repoListDeleted`` and ``repoRestoreDeleted`` call
(``repo_admin.list_deleted_repos``, ``repo_admin.restore_deleted_repo``), so who may
list and restore is the API's rule: the user themself, an organization's owners and
site admins; anyone else gets the API's 403 for the list (404 when the owner is not
visible to them) and 404 for a restore.  A restore that succeeds lands (303) on the
repository's page, which says it was restored; a name taken meanwhile (409) or not a
valid name (422) shows the list again with the message beside that row's name field,
nothing written.  The list is read a page at a time, as the API reads it.
"""
from __future__ import annotations

import time
from datetime import UTC, datetime

from chalicelib import errors, repo_admin
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.repos import caller
from chalicelib.web.actions_forms import fixable_status, posted
from chalicelib.web.org_pages import org_values, org_view
from chalicelib.web.view import Web, page, pager, path_url, redirect, render

TEMPLATE = "deleted_repos.html"
USER_PATH = "/user/settings/repos/deleted"
UNITS = ((365 * 86400, "year"), (30 * 86400, "month"), (7 * 86400, "week"),
         (86400, "day"), (3600, "hour"), (60, "minute"))


def moment(seconds: float, now: float | None = None) -> dict:
    """A stored time as the page shows it: ``rel`` in words ("3 days ago", "in 29
    days"), ``iso`` for ``<time datetime>``, ``exact`` for the reader who wants it."""
    now = time.time() if now is None else now
    delta = float(seconds) - now
    words = "just now"
    for size, unit in UNITS:
        if abs(delta) >= size:
            count = int(abs(delta) // size)
            amount = f"{count} {unit}{'s' if count != 1 else ''}"
            words = f"in {amount}" if delta > 0 else f"{amount} ago"
            break
    stamp = datetime.fromtimestamp(float(seconds), UTC)
    return {"rel": words, "iso": stamp.isoformat(timespec="seconds"),
            "exact": stamp.strftime("%Y-%m-%d %H:%M UTC")}


def _rows(listings) -> list[dict]:
    now = time.time()
    return [{"id": int(item.record.repo_id), "name": item.record.name,
             "private": bool(item.record.private), "size": int(item.size),
             "deleted_at": moment(item.record.deleted_at, now),
             "purge_at": moment(item.record.purge_at, now),
             "deleted_by": item.record.deleted_by or ""} for item in listings]


def _show(req: ApiRequest, web: Web, owner_name: str, *, org=None, status: int = 200,
          field_errors: dict | None = None, typed: dict | None = None) -> ApiResponse:
    """The owner's list (the service decides who may see it: 403/404 pages otherwise),
    with a refused restore's message beside its row's name field."""
    page_ = paging.page_of(req)
    listings, seen = repo_admin.list_deleted_repos(caller(req), owner_name,
                                                   offset=page_.offset, limit=page_.limit)
    action = (org.url("settings", "repos", "deleted") if org is not None else USER_PATH)
    header = org_values(org, "settings") if org is not None else {"settings_section": "deleted_repos"}
    return render(web, TEMPLATE, status=status, title=f"{owner_name}: deleted repositories",
                  owner_name=owner_name, rows=_rows(listings), pager=pager(req, seen),
                  action=action, retention_days=repo_admin.deleted_retention_days(),
                  field_errors=field_errors or {}, typed=typed or {}, form_csrf=web.csrf,
                  **header)


def _repo_id(req: ApiRequest) -> int:
    raw = req.params["id"]
    if not raw.isdigit():
        raise errors.NotFoundError(f"deleted repository does not exist [id: {raw}]")
    return int(raw)


def _restore(req: ApiRequest, web: Web, owner_name: str, org=None) -> ApiResponse:
    """repoRestoreDeleted with the form's name (empty: the name it had)."""
    repo_id = _repo_id(req)
    name = posted(req).get("name", "").strip()
    try:
        view = repo_admin.restore_deleted_repo(caller(req), repo_id, name or None)
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise           # not the caller's, restored already, purged: the 404 page
        message = getattr(err, "message", "") or str(err)
        return _show(req, web, owner_name, org=org, status=fixable_status(err),
                     field_errors={f"name-{repo_id}": message}, typed={repo_id: name})
    return redirect(path_url(view.owner.login, view.repo.name) + "?restored=1")


@page("GET", USER_PATH, "webUserDeletedRepos", signed_in=True)
def user_deleted(req: ApiRequest, web: Web) -> ApiResponse:
    return _show(req, web, web.user.login)


@page("POST", USER_PATH + "/{id}/restore", "webUserDeletedRepoRestore", signed_in=True)
def user_restore(req: ApiRequest, web: Web) -> ApiResponse:
    return _restore(req, web, web.user.login)


@page("GET", "/org/{org}/settings/repos/deleted", "webOrgDeletedRepos", signed_in=True)
def org_deleted(req: ApiRequest, web: Web) -> ApiResponse:
    # The organization as the caller sees it (404 to who may not), for the header;
    # whether they may list its deleted repositories is the service's test (403).
    org = org_view(req)
    return _show(req, web, org.org.login, org=org)


@page("POST", "/org/{org}/settings/repos/deleted/{id}/restore", "webOrgDeletedRepoRestore",
      signed_in=True)
def org_restore(req: ApiRequest, web: Web) -> ApiResponse:
    org = org_view(req)
    return _restore(req, web, org.org.login, org=org)
