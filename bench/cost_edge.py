"""The parts of a month that depend on how Nimbus is served, and its monitoring, for
bench/cost.py: bytes and requests at the edge in the two topologies the template
offers, and the alarms, dashboard, metrics and logs of infra/alarms.py and
chalicelib/telemetry.

- ``direct``: clients talk to API Gateway's URL; what leaves AWS is data transfer out of
  the region, priced per GB past the free 100 GB a month every account has (all
  services and regions together).
- ``cloudfront``: the custom domain (infra/domain.py) in front of the same API.  API
  Gateway to CloudFront is free (an AWS origin); CloudFront bills its own data transfer
  out and its HTTPS requests past its free allowance (1 TB and 10 million a month), and
  the bytes it forwards to the origin (request bodies: pushes, API writes).  Webhook
  deliveries leave from the worker function either way.

Prices and allowances are AWS's published ones, us-east-1 (CloudFront: North America and
Europe, the distribution's price class), as of 2026.
"""
from __future__ import annotations

PRICES = {
    "transfer_out_gb": 0.09,                 # region to internet, first 10 TB/month
    "cloudfront_gb": 0.085,                  # CloudFront to internet, NA/EU, first 10 TB
    "cloudfront_https_request": 0.0100 / 1e4,  # NA/EU, per HTTPS request
    "cloudfront_to_origin_gb": 0.020,        # CloudFront to the origin, NA/EU
    "alarm_metric_month": 0.10,              # standard resolution, per metric an alarm reads
    "dashboard_month": 3.00,
    "custom_metric_month": 0.30,             # first 10,000 metrics, prorated by the hour
    "logs_ingested_gb": 0.50,
    "logs_stored_gb_month": 0.03,
}
FREE = {
    "transfer_out_gb": 100,                  # a month, every account, all regions
    "cloudfront_gb": 1000,                   # 1 TB a month
    "cloudfront_requests": 10_000_000,
    "alarm_metrics": 10,
    "dashboards": 3,                         # of up to 50 metrics each
    "custom_metrics": 10,
    "logs_gb": 5,                            # ingested, stored and scanned together
}
HOURS_PER_MONTH = 730
# When a team of the model's size is at work: custom metrics are billed for the hours
# they get a value, and the request, event and webhook metrics get values only then
# (the schedules' idle runs publish none: chalicelib/telemetry ``quiet``).
ACTIVE_HOURS = 10 * 22
# Metrics published by function, from docs/operations.md ("Metrics"): the API's and
# the streaming function's request metrics (4 each, and git's bytes in and out), the
# worker's consumer metrics (4), the relay's (5) and the webhook worker's (6).
FUNCTION_METRICS = 4 + 4 + 2 + 4 + 5 + 6
# One telemetry line (~700 bytes, docs/operations.md) and Lambda's START/END/REPORT
# lines around each invocation.
LINE_BYTES, INVOCATION_LOG_BYTES = 700, 350


def _past(free: float, used: float) -> float:
    return max(0.0, used - free)


def transfer(*, answers_gb: float, bodies_gb: float, webhooks_gb: float,
             requests: float, free: dict | None = None) -> dict[str, dict[str, float]]:
    """{topology: {item: $}} for a month: ``answers_gb`` sent to clients (clones, API
    answers), ``bodies_gb`` received (pushes, API writes), ``webhooks_gb`` sent by the
    worker, ``requests`` HTTP requests from clients; ``free``: the allowances (FREE)."""
    p, f = PRICES, FREE if free is None else free
    return {
        "direct": {
            "transfer out (clones, answers, webhooks)": _past(
                f["transfer_out_gb"], answers_gb + webhooks_gb) * p["transfer_out_gb"]},
        "cloudfront": {
            "CloudFront transfer out": _past(f["cloudfront_gb"], answers_gb) * p["cloudfront_gb"],
            "CloudFront requests": _past(f["cloudfront_requests"], requests)
            * p["cloudfront_https_request"],
            "CloudFront to origin (request bodies)": bodies_gb * p["cloudfront_to_origin_gb"],
            "transfer out (webhooks)": _past(f["transfer_out_gb"], webhooks_gb)
            * p["transfer_out_gb"]},
    }


def monitoring(*, alarm_metrics: int, operations: int, log_lines: float,
               invocations: float) -> tuple[dict[str, float], dict[str, str]]:
    """({item: $}, {item: how it was counted}) for a month of the alarms and dashboard
    (infra/alarms.py) and the telemetry's metrics and logs."""
    p, f = PRICES, FREE
    metric_months = (FUNCTION_METRICS + operations) * ACTIVE_HOURS / HOURS_PER_MONTH
    logs_gb = (log_lines * LINE_BYTES + invocations * INVOCATION_LOG_BYTES) / 1e9
    items = {
        "alarms": _past(f["alarm_metrics"], alarm_metrics) * p["alarm_metric_month"],
        "dashboard": _past(f["dashboards"], 1) * p["dashboard_month"],
        "custom metrics (EMF)": _past(f["custom_metrics"], metric_months)
        * p["custom_metric_month"],
        "logs": _past(f["logs_gb"], logs_gb) * p["logs_ingested_gb"]
        + logs_gb * p["logs_stored_gb_month"],
    }
    how = {
        "alarms": f"{alarm_metrics} alarm metrics (infra/alarms.py), {f['alarm_metrics']} free",
        "dashboard": f"1 dashboard, {f['dashboards']} free",
        "custom metrics (EMF)": f"{FUNCTION_METRICS} by function + {operations} operations' "
                                f"Requests, {ACTIVE_HOURS} of {HOURS_PER_MONTH} hours: "
                                f"{metric_months:.1f} metric-months, {f['custom_metrics']} free",
        "logs": f"{logs_gb:.2f} GB a month ({log_lines:,.0f} lines), {f['logs_gb']} GB free; "
                "stored a month",
    }
    return items, how


def scaled(moved: dict, clone_gb: float, factors=(1, 5, 12)) -> list[dict]:
    """The two topologies' transfer and edge items for the month with ``factor`` times
    the clones (``moved``: bench/cost.py ``volumes``), with and without the free
    allowances: where the CDN's allowance and price start to matter."""
    rows = []
    for factor in factors:
        volume = dict(moved, answers_gb=moved["answers_gb"] + (factor - 1) * clone_gb)
        with_free = transfer(**_transfer_args(volume))
        listed = transfer(**_transfer_args(volume), free=dict.fromkeys(FREE, 0))
        rows.append({"factor": factor, "answers_gb": volume["answers_gb"],
                     **{top: sum(items.values()) for top, items in with_free.items()},
                     **{f"{top} at list prices": sum(items.values())
                        for top, items in listed.items()}})
    return rows


def _transfer_args(moved: dict) -> dict:
    return {k: moved[k] for k in ("answers_gb", "bodies_gb", "webhooks_gb", "requests")}
