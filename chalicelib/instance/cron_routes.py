"""The instance's cron tasks for site admins: list them with their runs, start one now."""
from __future__ import annotations

from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.instance import cron, cron_records

ADMIN = {"tag": "admin", "scope": "admin", "site_admin": True}


@route("GET", "/admin/cron", "adminCronList", summary="List cron tasks",
       query=(Param("page", "integer", "page number of results to return (1-based)"),
              Param("limit", "integer", "page size of results")),
       responses={200: "CronList", 403: "forbidden"}, **ADMIN)
def list_cron_tasks(req: ApiRequest) -> ApiResponse:
    return paging.paged_json(req, cron.list_tasks(), lambda row: cron_records.cron(*row))


@route("POST", "/admin/cron/{task}", "adminCronRun", summary="Run cron task",
       responses={204: "empty", 404: "notFound"}, **ADMIN)
def run_cron_task(req: ApiRequest) -> ApiResponse:
    cron.request_run(req.params["task"], req.actor.login)
    return ApiResponse.empty()
