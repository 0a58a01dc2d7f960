"""What a project migration costs the instance it comes into: wall time and AWS calls.

    .venv/bin/python bench/migration_cost.py                 # 1000 issues, 200 pulls
    .venv/bin/python bench/migration_cost.py --issues 200 --pulls 40 [--json]

Instance A (the source) is the real local runtime in a subprocess (``python -m
chalicelib.local``), its project made through its API (``tests/migrations/
instance_project.py``: each issue with ``--comments`` comments and its reactions, pull
requests open, merged and closed with a review each, ``--releases`` releases with
attachments, a wiki page).  Instance B (the target) is the same runtime in this process
(the event pipeline runs the migration's queued steps as ``make run`` does), so every
AWS call its migration makes is counted through ``chalicelib.aws.add_call_hook``
(botocore ``before-call``; a retry of one call is not counted again).  The clock runs
from ``POST /repos/migrate`` to the status ``done``; the calls are those of B's
process meanwhile (the request itself, the steps, the events they raise and the
status polls, whose share is shown apart).

Both instances share this machine: the wall time includes A answering the reads.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from _harness import FAKE_AWS, REPO_ROOT

sys.path.insert(0, str(REPO_ROOT))

POLL_SECONDS = 0.5


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--issues", type=int, default=1000)
    parser.add_argument("--pulls", type=int, default=200)
    parser.add_argument("--releases", type=int, default=2)
    parser.add_argument("--comments", type=int, default=1)
    parser.add_argument("--service", default="gitea")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    # B's settings come from the environment: read when the runtime starts.
    os.environ["NIMBUS__MIGRATIONS__ALLOW_LOCALNETWORKS"] = "true"
    for name, value in FAKE_AWS.items():    # B's embedded moto; never a real account
        os.environ.setdefault(name, value)
    os.environ.setdefault("NIMBUS_LOG_LEVEL", "WARNING")

    from tests.local_server import (
        ADMIN_ENV,
        ADMIN_PASSWORD,
        runtime_with_events,
        served,
    )
    from tests.migrations import instance_project as project

    size = project.Size(issues=args.issues, pulls=args.pulls, releases=args.releases,
                        comments=args.comments, lfs=False)
    with tempfile.TemporaryDirectory(prefix="migration-cost-") as scratch:
        work = Path(scratch)
        with served(work / "a-data", **ADMIN_ENV) as (_, base_a):
            began = time.monotonic()
            made = project.populate(base_a, work, size)
            populated = time.monotonic() - began
            with runtime_with_events(work / "b-data") as runtime:
                from chalicelib.accounts.service import ensure_admin

                ensure_admin("root", ADMIN_PASSWORD, "root@example.test")
                base_b = runtime.url
                project.make_people(base_b, ["alice"])
                result = measure(project, base_a, base_b, args.service)
    result.update(issues=len(made["issues"]), pulls=len(made["pulls"]),
                  releases=len(made["releases"]), comments_per_issue=args.comments,
                  populate_seconds=round(populated, 1))
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(table(result))
    return 0


def measure(project, base_a: str, base_b: str, service: str) -> dict:
    from chalicelib import aws

    calls: Counter = Counter()
    counting = threading.Event()
    lock = threading.Lock()

    def hook(model=None, **_):
        if counting.is_set() and model is not None:
            with lock:
                calls[f"{model.service_model.service_name}.{model.name}"] += 1

    aws.add_call_hook(hook)
    form = {"clone_addr": f"{base_a}/{project.OWNER}/{project.REPO}.git",
            "repo_name": "measured", "repo_owner": "root", "service": service,
            "auth_token": project.token_of(base_a, "root"), "issues": True, "labels": True,
            "milestones": True, "pull_requests": True, "releases": True, "wiki": True}
    project.token_of(base_b, "root")        # made before the clock starts
    polls = 0
    counting.set()
    started = time.monotonic()
    project.ok(base_b, "POST", "/repos/migrate", form, expect=(201,))
    while True:
        status = project.ok(base_b, "GET", "/repos/root/measured/migration")
        polls += 1
        if status["status"] in ("done", "failed"):
            break
        time.sleep(POLL_SECONDS)
    seconds = time.monotonic() - started
    counting.clear()
    kept = Counter(calls)
    counting.set()          # what one status poll costs, to tell the polls apart
    project.ok(base_b, "GET", "/repos/root/measured/migration")
    counting.clear()
    per_poll = sum(calls.values()) - sum(kept.values())
    calls = kept
    if status["status"] != "done":
        raise SystemExit(f"the migration failed: {status['step']}: {status['error']}")
    return {"service": service, "seconds": round(seconds, 1), "counts": status["counts"],
            "status_polls": polls, "calls_per_poll": per_poll,
            "calls": dict(sorted(calls.items()))}


def table(result: dict) -> str:
    calls = result["calls"]
    total = sum(calls.values())
    records = result["issues"] + result["pulls"]
    lines = [
        (f"migration of {result['issues']} issues ({result['comments_per_issue']} comment(s) "
         f"each), {result['pulls']} pull requests, {result['releases']} releases "
         f"(service {result['service']}); the source populated in "
         f"{result['populate_seconds']} s"),
        "",
        f"{'wall time':<34} {result['seconds']:>10.1f} s",
        f"{'AWS calls on the target':<34} {total:>10}",
        f"{'  per issue or pull request':<34} {total / max(1, records):>10.1f}",
        (f"{'  of them the status polls':<34} "
         f"{result['status_polls'] * result['calls_per_poll']:>10}"
         f"  ({result['status_polls']} x {result['calls_per_poll']})"),
        "",
        f"{'call':<44} {'count':>8}",
    ]
    lines += [f"{name:<44} {n:>8}" for name, n in sorted(calls.items(), key=lambda kv: -kv[1])]
    lines += ["", "brought: " + ", ".join(f"{k} {v}" for k, v in sorted(
        result["counts"].items()))]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
