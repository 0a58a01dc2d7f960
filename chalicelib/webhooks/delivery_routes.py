"""A hook's deliveries (GitHub's delivery API, which Forgejo lacks: documented in
docs/compatibility.md) and ``repoTestHook``.

    GET  /repos/{owner}/{repo}/hooks/{id}/deliveries                 newest first
    GET  /repos/{owner}/{repo}/hooks/{id}/deliveries/{delivery}      with request,
                                                                     response, attempts
    POST /repos/{owner}/{repo}/hooks/{id}/deliveries/{delivery}/attempts   redeliver (202)
    the same under /orgs/{org}/hooks/{id}/ and /admin/hooks/{id}/
    POST /repos/{owner}/{repo}/hooks/{id}/tests                      test push (204)

Pages go by ``per_page`` (or ``limit``) and ``cursor`` (the ``Link`` header's
``rel="next"`` carries it), as GitHub's do.
"""
from __future__ import annotations

import json
from urllib.parse import urlencode

from chalicelib.http import formats
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.repos import current_repo
from chalicelib.settings import get_settings
from chalicelib.webhooks import history as webhook_history
from chalicelib.webhooks import hook_test
from chalicelib.webhooks import service as hooks
from chalicelib.webhooks.routes import ORG_HOOKS, REPO_HOOKS, org_scope, repo_scope

ONE = {403: "forbidden", 404: "notFound"}
ADMIN_HOOKS = dict(tag="admin", scope="admin", site_admin=True)
PAGING = (Param("per_page", "integer", "deliveries per page (at most 100)"),
          Param("limit", "integer", "the same as per_page"),
          Param("cursor", "string", "the id of the last delivery of the previous page"))


def _time(unix) -> str | None:
    return formats.rfc3339(unix) if unix else None


def delivery(d) -> dict:
    """A HookDelivery: GitHub's fields, then Nimbus's state of the delivery."""
    return {
        "id": int(d.id), "guid": d.guid, "delivered_at": _time(d.delivered_at),
        "redelivery": bool(d.redelivery), "duration": float(d.duration or 0),
        "status": d.status or "pending", "status_code": int(d.status_code or 0),
        "event": d.event, "action": d.action or None, "installation_id": None,
        "repository_id": int(d.repo_id) or None, "throttled_at": None,
        "hook_id": int(d.hook_id), "event_type": d.event_type, "state": d.state,
        "attempts": int(d.attempt_count or 0),
        "next_attempt_at": _time(d.next_attempt_at) if d.state == "pending" else None,
    }


def _payload(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return text


def delivery_detail(d) -> dict:
    attempts = json.loads(d.attempts or "[]")
    last = attempts[-1] if attempts else {}
    return {
        **delivery(d),
        "url": last.get("url", ""),
        "request": {"headers": last.get("request_headers", {}),
                    "payload": _payload(d.payload_text)},
        "response": {"headers": last.get("response_headers", {}),
                     "payload": last.get("response_body") or last.get("error") or None},
        "attempt_history": [{
            "at": _time(a.get("at")), "url": a.get("url", ""), "method": a.get("method", ""),
            "request_headers": a.get("request_headers", {}),
            "status_code": int(a.get("status_code") or 0),
            "response_headers": a.get("response_headers", {}),
            "response_body": a.get("response_body", ""), "error": a.get("error", ""),
            "duration": float(a.get("duration") or 0)} for a in attempts],
    }


def _int_arg(req: ApiRequest, *names: str) -> int | None:
    for name in names:
        raw = req.arg(name)
        if raw is not None and raw.strip().isdigit():
            return int(raw)
    return None


def _list(req: ApiRequest, scope: hooks.Scope) -> ApiResponse:
    limit = _int_arg(req, "per_page", "limit") or 30
    page = webhook_history.list_deliveries(scope, req.int_param("id"), limit=limit,
                                           cursor=_int_arg(req, "cursor"))
    headers = {}
    if page.next_cursor is not None:
        query = urlencode({"per_page": limit, "cursor": page.next_cursor})
        headers["Link"] = f'<{get_settings().app_url}{req.raw_path.lstrip("/")}?{query}>; rel="next"'
    return ApiResponse.json([delivery(d) for d in page.deliveries], headers=headers)


def _get(req: ApiRequest, scope: hooks.Scope) -> ApiResponse:
    found = webhook_history.get_delivery(scope, req.int_param("id"), req.int_param("delivery"))
    return ApiResponse.json(delivery_detail(found))


def _redeliver(req: ApiRequest, scope: hooks.Scope) -> ApiResponse:
    made = webhook_history.redeliver(scope, req.int_param("id"), req.int_param("delivery"))
    return ApiResponse.json(delivery(made), status=202)


def _routes(prefix: str, area: str, scope_of, extra: dict) -> None:
    base = f"{prefix}/hooks/{{id}}/deliveries"
    route("GET", base, f"{area}ListHookDeliveries", summary="List a hook's deliveries",
          query=PAGING, responses={200: "HookDeliveryList", **ONE}, **extra)(
        lambda req: _list(req, scope_of(req)))
    route("GET", base + "/{delivery}", f"{area}GetHookDelivery",
          summary="Get a delivery of a hook", responses={200: "HookDeliveryDetail", **ONE},
          **extra)(lambda req: _get(req, scope_of(req)))
    route("POST", base + "/{delivery}/attempts", f"{area}RedeliverHookDelivery",
          summary="Redeliver a delivery of a hook", responses={202: "HookDelivery", **ONE},
          **extra)(lambda req: _redeliver(req, scope_of(req)))


_routes("/repos/{owner}/{repo}", "repo", repo_scope, REPO_HOOKS)
_routes("/orgs/{org}", "org", org_scope, ORG_HOOKS)
_routes("/admin", "admin", lambda req: hooks.system_scope(req.actor), ADMIN_HOOKS)


@route("POST", "/repos/{owner}/{repo}/hooks/{id}/tests", "repoTestHook",
       summary="Test a push webhook",
       query=(Param("ref", "string", "The name of the commit/branch/tag, indicates which "
                                     "commit will be loaded to the webhook payload."),),
       responses={204: "empty", **ONE}, **REPO_HOOKS)
def repo_test_hook(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    hook_test.send_test_push(hooks.repo_scope(view), view, req.actor, req.int_param("id"),
                             req.arg("ref"))
    return ApiResponse.empty()
