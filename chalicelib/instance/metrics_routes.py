"""``GET /metrics``: the telemetry lines' metrics in Prometheus's text format, on the
local runtime only (``make run``), for site administrators.

Forgejo serves ``/metrics`` behind ``[metrics] ENABLED`` and a bearer token of its own;
here it is served where the process keeps metrics (``telemetry.keep_metrics``: the
local runtime does), and answers 404 elsewhere, as a route that does not exist: in
AWS a function's process sees one request at a time and CloudWatch holds the metrics
(the lines' Embedded Metric Format, docs/operations.md).  A site admin's token (with
``read:admin``) or password: 401 without credentials, 403 for anyone else.
"""
from __future__ import annotations

from chalicelib import telemetry
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import TOKEN, route


@route("GET", "/metrics", "getMetrics", tag="admin", raw=True, in_swagger=False,
       credentials=TOKEN, scope="admin", signed_in=True, site_admin=True,
       produces=("text/plain",), available=telemetry.metrics_kept,
       summary="The process's metrics in Prometheus's text format (local runtime only)")
def get_metrics(req: ApiRequest) -> ApiResponse:
    from chalicelib.telemetry import prometheus

    return ApiResponse.text(telemetry.prometheus_text(), content_type=prometheus.CONTENT_TYPE)
