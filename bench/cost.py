"""What Nimbus costs to run on AWS: $ per million API requests, $ per GB cloned, and a
month for a team, beside AWS CodeCommit and the smallest VM that runs Forgejo.

    .venv/bin/python bench/cost.py [--json]

Inputs, all printed with the figures:
  * AWS calls per operation: counted as bench/aws_calls.py counts them (its scenes,
    scenarios and call hook), on the success path of each operation of the mix;
  * Lambda duration: each operation timed in this process under moto (the median of
    a few warm repeats).  moto in-process stands in for DynamoDB/S3 latency, so this is
    an estimate of billed time, not a measurement of it; the only figure here that
    varies from run to run;
  * memory: lambda_memory_size in .chalice/config.json (API function) and the
    streaming function's MemorySize in infra/template.py (clones);
  * S3 requests and bytes: counted during a clone of a repository of incompressible
    files pushed for the purpose; bytes stored per byte pushed from the bucket;
  * prices: PRICES below and bench/cost_edge.py's (AWS list prices, us-east-1, as
    published);
  * free allowances: those that decide between the two ways to serve the API
    (cost_edge.py: 100 GB a month of transfer out of AWS regions; CloudFront's 1 TB and
    10 million requests) and CloudWatch's (10 alarm metrics, 10 custom metrics, 3
    dashboards, 5 GB of logs), and CodeCommit's (part of its per-user price).  Not
    applied: Lambda's 1 million requests and 400,000 GB-s, SQS's million requests and
    DynamoDB's 25 GB a month, which would take most of the Lambda, queue and table
    items off this team's bill: the month errs high.

The month is shown for both topologies (cost_edge.py): clients at API Gateway's URL,
and the custom domain's CloudFront distribution in front of it (infra/domain.py).

DynamoDB capacity is derived from the counted calls, with items assumed within one
unit (reads <= 4 KB, writes <= 1 KB): a strongly consistent read or a key of a batch
read is one read unit (half when eventually consistent), a transactional item two.
"""
from __future__ import annotations

import contextlib
import json
import os
import statistics
import sys
import time
from collections import Counter

import _harness
import aws_calls  # noqa: F401 - fixes the environment (as the call-count bench runs)
import cost_edge
import scenarios_git
from _harness import REPO_ROOT
from aws_calls import SCENARIOS
from scene import Scene, moto_scene, settings_in_force

# AWS list prices, us-east-1, as published (checked against the pricing pages as of
# 2026; the spec notes in shared/spec/ carry only CodeCommit's).  x86_64 Lambda: the
# functions declare no architecture.
PRICES = {
    "lambda_request": 0.20 / 1e6,            # per invocation
    "lambda_gb_second": 0.0000166667,        # x86_64, first 6 billion GB-s/month
    "lambda_streamed_gb": 0.008,             # response streaming, bytes past 6 MB/request
    "apigw_rest_request": 3.50 / 1e6,        # REST API, first 333 million/month
    "dynamodb_read_unit": 0.125 / 1e6,       # on-demand read request unit
    "dynamodb_write_unit": 0.625 / 1e6,      # on-demand write request unit
    "dynamodb_gb_month": 0.25,               # Standard table class storage
    "s3_get": 0.0004 / 1e3,                  # GET, SELECT and other reads
    "s3_put": 0.005 / 1e3,                   # PUT, COPY, POST, LIST
    "s3_gb_month": 0.023,                    # S3 Standard, first 50 TB
    "sqs_request": 0.40 / 1e6,               # standard queue, per 64 KB chunk
    # Comparisons.
    "codecommit_user_month": 1.00,           # each active user past the first 5
    "t4g_small_hour": 0.0168,                # EC2 on-demand, Linux, 2 vCPU 2 GiB
    "ebs_gp3_gb_month": 0.08,
    "public_ipv4_hour": 0.005,
}
HOURS_PER_MONTH = 730

# The API mix: (operationId, auth, share of requests).  A tracker-heavy team: reads of
# repositories, issues and pull requests, some writes, CI statuses.
MIX = (
    ("repoGet", "token", 15), ("issueListIssues", "token", 12), ("issueGetIssue", "token", 10),
    ("issueGetComments", "token", 8), ("repoGetRawFile", "anon", 8),
    ("repoGetContents", "anon", 5), ("repoListBranches", "anon", 5),
    ("repoGetAllCommits", "token", 5), ("repoListPullRequests", "token", 7),
    ("repoGetPullRequest", "token", 5), ("repoListStatuses", "token", 3),
    ("userGetCurrent", "token", 5), ("issueCreateComment", "token", 6),
    ("issueCreateIssue", "token", 3), ("repoCreateStatus", "token", 3),
)
# Git requests, measured the same way (not part of the API mix): a push of one small
# commit is refs + receive-pack; a clone is refs + upload-pack (its bytes priced per GB).
GIT = (("gitInfoRefs", "anon", 0), ("gitReceivePack", "token", 0), ("gitUploadPack", "anon", 0))
# What one domain event costs after the request that wrote it (docs/events.md): the
# stream invokes the relay, which sends it to the events queue; the worker receives and
# deletes it.  Stream reads by Lambda are free.  Assumed, not measured: one relay and
# one worker invocation of 100 ms per event (no batching, the worst case at low traffic).
EVENT = {"invocations": 2, "seconds": 0.1, "sqs_requests": 3, "write_units": 1}
# One webhook delivery: the worker's invocation waits on the receiver (assumed 300 ms),
# three queue requests, the delivery record written and read.
WEBHOOK = {"invocations": 1, "seconds": 0.3, "sqs_requests": 3, "write_units": 2,
           "read_units": 1}
# Scheduled functions (app.py): per day, with assumed durations and memory.
SCHEDULES = (("webhook_sweep", 1440, 0.1, 1024), ("outbox_sweep", 288, 0.1, 1024),
             ("mirror_sync", 144, 0.2, 2048), ("pack_compaction", 1, 10.0, 2048),
             ("quota_check", 1, 10.0, 2048), ("lfs_collect", 24, 0.2, 1024),
             ("migration_resume", 288, 0.1, 1024))
# A scheduled run takes its task and releases it: two conditional writes.
CRON_WRITES = 2
# The team: 10 people, 100 repositories, per day.
TEAM = {"users": 10, "repositories": 100, "repository_mb": 50, "pushes": 60,
        "clones": 150, "clone_mb": 20, "api_requests": 5000, "webhooks": 300,
        "table_gb": 1.0}
# A webhook delivery's payload (a push event with its commits), assumed.
WEBHOOK_BYTES = 8_000
CLONE_MB = 8          # the repository cloned to measure per-GB costs
REPEATS = 3


def capacity(calls: list[tuple[str, dict]]) -> tuple[float, float]:
    """(read units, write units) of counted DynamoDB calls, by the rule in the docstring."""
    reads = writes = 0.0
    for name, params in calls:
        strong = 1.0 if params.get("ConsistentRead") else 0.5
        if name == "BatchGetItem":
            for request in params.get("RequestItems", {}).values():
                reads += len(request.get("Keys", [])) * (1.0 if request.get("ConsistentRead")
                                                         else 0.5)
        elif name in ("GetItem", "Query", "Scan"):
            reads += strong
        elif name == "TransactGetItems":
            reads += 2 * len(params.get("TransactItems", []))
        elif name == "TransactWriteItems":
            writes += 2 * len(params.get("TransactItems", []))
        elif name == "BatchWriteItem":
            writes += sum(len(v) for v in params.get("RequestItems", {}).values())
        elif name in ("PutItem", "UpdateItem", "DeleteItem"):
            writes += 1
    return reads, writes


class Meter:
    """Counts AWS calls (with DynamoDB parameters) while open, through the call hook."""

    def __init__(self):
        self.open: list[list] = []

    def hook(self, model=None, params=None, **_):
        if self.open:
            body = params.get("body") if isinstance(params, dict) else None
            service, name = model.service_model.service_name, model.name
            parsed = json.loads(body) if service == "dynamodb" and body else {}
            self.open[-1].append((service, name, parsed))

    @contextlib.contextmanager
    def counting(self):
        calls: list = []
        self.open.append(calls)
        try:
            yield calls
        finally:
            self.open.pop()


def operation_costs(scene: Scene, meter: Meter, mix=MIX) -> list[dict]:
    from chalicelib.http.routes import load_routes

    table = load_routes()
    rows = []
    for op, auth, share in mix:
        requests = SCENARIOS[op](scene)
        req = next((r for r in requests if r.auth == auth), requests[0])
        target = req.path if table.by_operation(op).raw else "/api/v1" + req.path
        seconds, calls = [], []
        for _ in range(REPEATS + 1):   # the first is the warm-up whose calls are kept
            with settings_in_force(req.settings), meter.counting() as counted:
                start = time.perf_counter()
                status, body = scene.call(req.method, target, req.auth, req.body,
                                          data=req.data, content_type=req.content_type)
                seconds.append(time.perf_counter() - start)
            if status != req.expect:
                raise SystemExit(f"{op}: {req.method} {target} answered {status}: {body[:200]!r}")
            calls = calls or counted
        ddb = [(name, params) for service, name, params in calls if service == "dynamodb"]
        reads, writes = capacity(ddb)
        names = Counter(f"{service}:{name}" for service, name, _ in calls)
        sent = len(json.dumps(req.body)) if req.body is not None else len(req.data or b"")
        rows.append({"operation": op, "auth": auth, "share": share,
                     "answer_bytes": len(body), "request_bytes": sent,
                     "seconds": statistics.median(seconds[1:]), "calls": sum(names.values()),
                     "breakdown": dict(names), "read_units": reads, "write_units": writes,
                     "s3_get": names["s3:GetObject"] + names["s3:HeadObject"],
                     "s3_put": sum(n for k, n in names.items() if k.startswith("s3:")
                                   and k not in ("s3:GetObject", "s3:HeadObject")),
                     "events": 1 if writes else 0})
    return rows


def request_dollars(row: dict, memory_gb: float) -> dict:
    """$ of one request, by item."""
    p = PRICES
    billed = max(0.001, round(row["seconds"], 3))
    event = row["events"] * (EVENT["invocations"] * (p["lambda_request"] + EVENT["seconds"]
                                                      * memory_gb * p["lambda_gb_second"])
                             + EVENT["sqs_requests"] * p["sqs_request"]
                             + EVENT["write_units"] * p["dynamodb_write_unit"])
    return {"api_gateway": p["apigw_rest_request"],
            "lambda": p["lambda_request"] + billed * memory_gb * p["lambda_gb_second"],
            "dynamodb": row["read_units"] * p["dynamodb_read_unit"]
            + row["write_units"] * p["dynamodb_write_unit"],
            "s3": row["s3_get"] * p["s3_get"] + row["s3_put"] * p["s3_put"],
            "events": event}


def clone_costs(scene: Scene, meter: Meter, stream_memory_gb: float) -> dict:
    """Push CLONE_MB of random files to a new repository, clone it, count and time."""
    from chalicelib import aws
    from chalicelib.settings import get_settings

    repo = scene.new_repo()
    files = {f"blob{n}.bin": os.urandom(1 << 20) for n in range(CLONE_MB)}
    bucket = get_settings().aws.BUCKET
    s3 = aws.client("s3")

    def stored() -> int:
        pages = s3.get_paginator("list_objects_v2").paginate(Bucket=bucket)
        return sum(obj["Size"] for page in pages for obj in page.get("Contents", []))

    before = stored()
    with meter.counting() as push_calls:
        start = time.perf_counter()
        scenarios_git.push(scene, repo, files, None)
        push_seconds = time.perf_counter() - start
    stored_bytes = stored() - before
    head = scenarios_git.head_of(scene, f"/repos/alice/{repo}")
    body = scenarios_git.upload_pack_body(head)
    seconds, answer, counted = [], b"", []
    for _ in range(REPEATS + 1):   # the first is the warm-up whose calls are kept
        with meter.counting() as calls:
            start = time.perf_counter()
            status, answer = scene.call("POST", f"/alice/{repo}.git/git-upload-pack", "anon",
                                        data=body,
                                        content_type="application/x-git-upload-pack-request")
            seconds.append(time.perf_counter() - start)
        if status != 200 or b"PACK" not in answer:
            raise SystemExit(f"clone answered {status}: {answer[:200]!r}")
        counted.append(calls)
    names = Counter(f"{service}:{name}" for service, name, _ in counted[0])
    gb = len(answer) / 1e9
    duration = statistics.median(seconds[1:])
    p = PRICES
    per_gb = {   # in AWS; what leaving it costs depends on the topology (cost_edge.py)
        "lambda_streamed": p["lambda_streamed_gb"],
        "lambda_duration": duration / gb * stream_memory_gb * p["lambda_gb_second"],
        "s3_get": (names["s3:GetObject"] + names["s3:HeadObject"]) / gb * p["s3_get"],
    }
    return {"pushed_bytes": sum(map(len, files.values())), "stored_bytes": stored_bytes,
            "push_seconds": push_seconds, "push_calls": dict(Counter(
                f"{s}:{n}" for s, n, _ in push_calls)),
            "clone_bytes": len(answer), "clone_request_bytes": len(body),
            "clone_seconds": duration,
            "clone_calls": dict(names), "per_gb": per_gb,
            "per_gb_total": sum(per_gb.values()),
            "seconds_per_gb": duration / gb}


def volumes(rows: list[dict], git: dict[str, dict], clone: dict) -> dict:
    """A month's requests and bytes through the API's front door, and its log lines."""
    t, days = TEAM, 30
    share = sum(r["share"] for r in rows)
    answer = sum(r["answer_bytes"] * r["share"] for r in rows) / share
    sent = sum(r["request_bytes"] * r["share"] for r in rows) / share
    api, pushes, clones = (t["api_requests"] * days, t["pushes"] * days, t["clones"] * days)
    refs = git["gitInfoRefs"]["answer_bytes"]
    events = api * sum(r["events"] * r["share"] for r in rows) / share + pushes
    runs = days * sum(n for _, n, _, _ in SCHEDULES)
    webhooks = t["webhooks"] * days
    return {
        "requests": api + 2 * (pushes + clones),
        "answers_gb": (api * answer + (pushes + clones) * refs
                       + pushes * git["gitReceivePack"]["answer_bytes"]) / 1e9
        + clones * t["clone_mb"] / 1e3,
        "bodies_gb": (api * sent + pushes * git["gitReceivePack"]["request_bytes"]
                      + clones * clone["clone_request_bytes"]) / 1e9,
        "webhooks_gb": webhooks * WEBHOOK_BYTES / 1e9,
        # A request's line; per event the relay's and two consumers'; a lane run per
        # delivery; a line per scheduled run (an idle one too, without metrics).
        "log_lines": api + 2 * (pushes + clones) + 3 * events + webhooks + runs,
        "invocations": api + 2 * (pushes + clones) + 2 * events + webhooks + runs,
    }


def month(rows: list[dict], git: dict[str, dict], per_request: float, clone: dict,
          memory_gb: float) -> dict:
    """A month (30 days) of the TEAM, by item, in both topologies, and the comparisons."""
    from infra import alarms, template

    p, t, days = PRICES, TEAM, 30
    clone_gb = t["clones"] * t["clone_mb"] / 1e3 * days
    refs = sum(request_dollars(git["gitInfoRefs"], memory_gb).values())
    # A push (the measured one: one small commit): refs, then receive-pack.
    pushes = t["pushes"] * days * (refs + sum(request_dollars(git["gitReceivePack"],
                                                              memory_gb).values()))
    # A clone: refs, then upload-pack (its request, then the per-GB costs in AWS).
    upload = git["gitUploadPack"]
    clones = (t["clones"] * days * (refs + p["apigw_rest_request"] + p["lambda_request"]
                                    + upload["read_units"] * p["dynamodb_read_unit"])
              + clone_gb * clone["per_gb_total"])
    webhooks = t["webhooks"] * days * (
        WEBHOOK["invocations"] * (p["lambda_request"] + WEBHOOK["seconds"] * memory_gb
                                  * p["lambda_gb_second"])
        + WEBHOOK["sqs_requests"] * p["sqs_request"]
        + WEBHOOK["write_units"] * p["dynamodb_write_unit"]
        + WEBHOOK["read_units"] * p["dynamodb_read_unit"])
    # Each run also records itself for /admin/cron (chalicelib/jobs/cron.py).
    schedules = days * sum(n * (p["lambda_request"] + s * mb / 1024 * p["lambda_gb_second"]
                                + CRON_WRITES * p["dynamodb_write_unit"])
                           for _, n, s, mb in SCHEDULES)
    stored_gb = t["repositories"] * t["repository_mb"] / 1e3 * (
        clone["stored_bytes"] / clone["pushed_bytes"])
    items = {
        "API requests": t["api_requests"] * days * per_request,
        "pushes": pushes,
        "clones (in AWS)": clones,
        "webhook deliveries": webhooks,
        "scheduled functions": schedules,
        "S3 storage": stored_gb * p["s3_gb_month"],
        "DynamoDB storage": t["table_gb"] * p["dynamodb_gb_month"],
    }
    moved = volumes(rows, git, clone)
    functions = (*template.FUNCTION_NAMES, template.STREAM_FUNCTION)
    watched, how = cost_edge.monitoring(
        alarm_metrics=alarms.alarm_metric_count(functions), operations=len(MIX) + len(GIT),
        log_lines=moved["log_lines"], invocations=moved["invocations"])
    edge = cost_edge.transfer(answers_gb=moved["answers_gb"], bodies_gb=moved["bodies_gb"],
                              webhooks_gb=moved["webhooks_gb"], requests=moved["requests"])
    scaled = cost_edge.scaled(moved, clone_gb)
    common = sum(items.values()) + sum(watched.values())
    git_requests = (t["pushes"] + t["clones"]) * days * 2
    codecommit_users = max(0, t["users"] - 5)
    codecommit = {
        "users": codecommit_users * p["codecommit_user_month"],
        "included": f"{50 + 10 * codecommit_users} GB-month, "
                    f"{10_000 + 2_000 * codecommit_users} git requests "
                    f"(this team: {t['repositories'] * t['repository_mb'] / 1e3:.0f} GB, "
                    f"{git_requests} requests)",
    }
    free_out = cost_edge.FREE["transfer_out_gb"]
    vm = {"t4g.small on-demand": p["t4g_small_hour"] * HOURS_PER_MONTH,
          "EBS gp3 20 GB": 20 * p["ebs_gp3_gb_month"],
          "public IPv4": p["public_ipv4_hour"] * HOURS_PER_MONTH,
          f"transfer out (same bytes, {free_out} GB free)": max(
              0.0, moved["answers_gb"] + moved["webhooks_gb"] - free_out)
          * cost_edge.PRICES["transfer_out_gb"]}
    return {"items": items, "monitoring": watched, "monitoring_how": how, "edge": edge,
            "totals": {top: common + sum(v.values()) for top, v in edge.items()},
            "volumes": moved, "scaled": scaled, "clone_gb": clone_gb, "stored_gb": stored_gb,
            "codecommit": codecommit, "vm": vm, "vm_total": sum(vm.values())}


def run() -> dict:
    from infra import template

    config = json.loads((REPO_ROOT / ".chalice" / "config.json").read_text())
    memory_mb = config["stages"]["prod"]["lambda_memory_size"]
    meter = Meter()
    with moto_scene("nimbus-cost-", meter.hook) as scene:
        from chalicelib.settings import get_settings

        stream_mb = template.streaming_resources({}, get_settings())[
            template.STREAM_FUNCTION]["Properties"]["MemorySize"]
        scene.build()
        rows = operation_costs(scene, meter)
        git = {row["operation"]: row for row in operation_costs(scene, meter, GIT)}
        clone = clone_costs(scene, meter, stream_mb / 1024)
    memory_gb = memory_mb / 1024
    total_share = sum(r["share"] for r in rows)
    per_item: Counter = Counter()
    for row in rows:
        row["dollars"] = request_dollars(row, memory_gb)
        for item, value in row["dollars"].items():
            per_item[item] += value * row["share"] / total_share
    per_request = sum(per_item.values())
    for row in git.values():
        row["dollars"] = request_dollars(row, memory_gb)
    return {"memory_mb": memory_mb, "stream_memory_mb": stream_mb, "operations": rows,
            "per_million": {k: v * 1e6 for k, v in per_item.items()},
            "per_million_total": per_request * 1e6, "clone": clone,
            "git": git, "month": month(rows, git, per_request, clone, memory_gb),
            "prices": {**PRICES, **cost_edge.PRICES}, "free": cost_edge.FREE,
            "team": TEAM}


def print_report(r: dict) -> None:
    print(f"API function {r['memory_mb']} MB (.chalice/config.json), streaming function "
          f"{r['stream_memory_mb']} MB (infra/template.py); durations timed in-process "
          "under moto (a stand-in for billed time)")
    print(f"\n{'operation':24} {'auth':5} {'share':>5} {'ms':>6} {'calls':>5} {'RRU':>5} "
          f"{'WRU':>4} {'S3':>3}  $/million")
    for row in r["operations"]:
        print(f"{row['operation']:24} {row['auth']:5} {row['share']:>4}% "
              f"{row['seconds'] * 1e3:>6.1f} {row['calls']:>5} {row['read_units']:>5.1f} "
              f"{row['write_units']:>4.0f} {row['s3_get'] + row['s3_put']:>3}  "
              f"{sum(row['dollars'].values()) * 1e6:>8.2f}")
    print(f"\n$ per million API requests of this mix: {r['per_million_total']:.2f}  ("
          + ", ".join(f"{k} {v:.2f}" for k, v in r["per_million"].items()) + ")")
    for row in r["git"].values():
        print(f"{row['operation']:24} {row['auth']:5} {'git':>5} {row['seconds'] * 1e3:>6.1f} "
              f"{row['calls']:>5} {row['read_units']:>5.1f} {row['write_units']:>4.0f} "
              f"{row['s3_get'] + row['s3_put']:>3}  {sum(row['dollars'].values()) * 1e6:>8.2f}")
    c = r["clone"]
    print(f"\nclone of {c['clone_bytes'] / 1e6:.1f} MB ({CLONE_MB} MB of random files pushed, "
          f"{c['stored_bytes'] / 1e6:.1f} MB stored in S3): {c['clone_seconds'] * 1e3:.0f} ms, "
          f"calls {', '.join(f'{k} x{n}' for k, n in sorted(c['clone_calls'].items()))}")
    print(f"$ per GB cloned: {c['per_gb_total']:.4f}  ("
          + ", ".join(f"{k} {v:.4f}" for k, v in c["per_gb"].items())
          + f"; {c['seconds_per_gb']:.0f} s of the streaming function per GB)")
    m, t = r["month"], r["team"]
    print(f"\na month for {t['users']} people, {t['repositories']} repositories of "
          f"{t['repository_mb']} MB; per day {t['pushes']} pushes, {t['clones']} clones of "
          f"{t['clone_mb']} MB, {t['api_requests']} API requests, {t['webhooks']} webhook "
          "deliveries:")
    for item, value in {**m["items"], **m["monitoring"]}.items():
        how = m["monitoring_how"].get(item)
        print(f"  {item:38} ${value:8.2f}" + (f"  ({how})" if how else ""))
    v = m["volumes"]
    print(f"  served: {v['requests']:,.0f} requests, {v['answers_gb']:.1f} GB out "
          f"({m['clone_gb']:.0f} GB of clones), {v['bodies_gb'] * 1e3:.0f} MB in, "
          f"{v['webhooks_gb'] * 1e3:.0f} MB of webhooks")
    names = {"direct": "API Gateway's URL", "cloudfront": "custom domain behind CloudFront"}
    for top, edge in m["edge"].items():
        print(f"  {names[top]}:")
        for item, value in edge.items():
            print(f"    {item:36} ${value:8.2f}")
        print(f"    {'Nimbus total':36} ${m['totals'][top]:8.2f}")
    print("  transfer and edge only, the clones scaled (free allowances; at list prices):")
    for row in m["scaled"]:
        print(f"    x{row['factor']:<2} {row['answers_gb']:7.0f} GB out: API Gateway's URL "
              f"${row['direct']:7.2f} (${row['direct at list prices']:7.2f}), CloudFront "
              f"${row['cloudfront']:7.2f} (${row['cloudfront at list prices']:7.2f})")
    print(f"  {'AWS CodeCommit':38} ${m['codecommit']['users']:8.2f}  ($1/active user past 5; "
          f"includes {m['codecommit']['included']}; closed to new customers)")
    for item, value in m["vm"].items():
        print(f"  {'VM: ' + item:38} ${value:8.2f}")
    print(f"  {'VM total (Forgejo, one host)':38} ${m['vm_total']:8.2f}  (no backups, no "
          "redundancy, someone patches it)")
    print("\nlist prices used (AWS, us-east-1, as published): "
          + ", ".join(f"{k} {v:g}" for k, v in r["prices"].items()))
    print("free allowances applied (a month): "
          + ", ".join(f"{k} {v:,}" for k, v in r["free"].items())
          + "; not applied: Lambda's, SQS's, DynamoDB's (the month errs high)")


def main() -> int:
    return _harness.report(__doc__, run, print_report)


if __name__ == "__main__":
    sys.exit(main())
