"""The ref history and its undo (Nimbus extensions under the ``repository`` tag):
every move of a branch or tag, who made it, old and new tip, whether it was forced;
and putting a ref back to an entry's old tip.

``repoListRefActivity`` reads the repository (``current_repo``: 404 to who cannot see
it), then one Query of the history and one batch of the movers.  ``repoRestoreRef``
needs a signed-in writer (403 to a reader) and moves the ref by compare-and-swap with
the protection rules applied (``service.restore``).
"""
from __future__ import annotations

from chalicelib.errors import InvalidInput
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.ref_history import records, service
from chalicelib.repos import IN_REPO, PAGE, caller, current_repo

WRITE = dict(IN_REPO, signed_in=True)
FILTERS = (Param("ref", "string", "only moves of this ref: a full ref name, or a short "
                 "branch or tag name"),
           Param("forced", "boolean", "only forced moves (true) or only the others (false)"))


def _forced(raw: str | None) -> bool | None:
    value = (raw or "").strip().lower()
    if not value:
        return None
    if value in ("true", "1", "t"):
        return True
    if value in ("false", "0", "f"):
        return False
    raise InvalidInput("[forced]: must be true or false")


@route("GET", "/repos/{owner}/{repo}/activity/refs", "repoListRefActivity",
       summary="List the moves of a repository's branches and tags, newest first",
       query=(*FILTERS, *PAGE), responses={200: "RefActivityList", 404: "notFound",
                                          422: "validationError"}, **IN_REPO)
def list_ref_activity(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    query = service.RefFilter(ref=(req.arg("ref") or "").strip() or None,
                              forced=_forced(req.arg("forced")))
    page = paging.page_of(req)
    shown, movers, total = service.list_activity(view, query, offset=page.offset,
                                                 limit=page.limit)
    body = [records.ref_activity(entry, movers.get(int(entry.actor_id)), req.actor)
            for entry in shown]
    return paging.set_headers(ApiResponse.json(body), req, page, total)


@route("POST", "/repos/{owner}/{repo}/activity/refs/{id}/restore", "repoRestoreRef",
       summary="Put a branch or tag back to the old tip of a move in its history",
       responses={200: "RefRestored", 403: "forbidden", 404: "notFound", 409: "conflict",
                  422: "validationError", 423: "error"}, **WRITE)
def restore_ref(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    raw = req.params["id"]
    entry_id = int(raw) if raw.isdigit() else 0
    restored = service.restore(caller(req), view, entry_id)
    return ApiResponse.json(records.ref_restored(restored))
