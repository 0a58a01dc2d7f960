"""Scenario and budget for ``/metrics`` (the local runtime's Prometheus text).

The site admin's token and account (the preload's two reads), then nothing: the
metrics are the process's own, kept from the telemetry lines, which make no AWS call.
The route exists only where a process keeps metrics, so the scenario keeps them first
(as the local runtime does when it starts; not counted).
"""
from __future__ import annotations

from scene import Req, after

BUDGETS = {("getMetrics", "admin"): 2}


def _keep_metrics() -> None:
    from chalicelib import telemetry

    telemetry.keep_metrics()


def scenarios() -> dict:
    return {"getMetrics": lambda s: after(_keep_metrics(), [Req("GET", "/metrics", "admin")])}
