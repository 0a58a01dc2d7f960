"""Page weight, AWS calls and server time of every page, as a first visit sees it.

Every GET page of bench/scenarios_web.py (the bench scene's ``alice/demo`` with a file,
a branch with a pull request, a tag, a release and an issue; anonymous and signed in as
its scenarios ask) is requested through the same Lambda handler as in AWS, under moto,
by a browser that takes gzip.  For each page:

- weight: the HTML and every stylesheet and script it links, uncompressed (what the
  browser parses) and as sent;
- AWS calls of the page's first request (the process already warm: the sign-in form and
  one page read first, as a Lambda container that served a request before);
- server time: the median of three more requests, in-process (no network).

    .venv/bin/python bench/page_weight.py [--json] [--only webRepoHome,webRepoPull]

Exit status 1 when a page fails, weighs more than BUDGET_BYTES (100 KB of HTML + CSS +
JS before images, uncompressed), or makes more than MAX_CALLS AWS calls (unless
OVER_CALLS names it with the reason).
"""
from __future__ import annotations

import argparse
import gzip
import re
import statistics
import sys
import time
from collections import Counter

import _harness

_harness.use_repo()

import scenarios_web  # noqa: E402
from scene import moto_scene, settings_in_force  # noqa: E402

BUDGET_BYTES = 100 * 1024
MAX_CALLS = 6
# Pages above MAX_CALLS, each with what its calls read (their counts are budgeted one by
# one in bench/scenarios_web.py BUDGETS, which `make test` enforces).
OVER_CALLS = {
    "webRepoPull": "7: the repository, the access batch (with the issue and the "
                   "tracker), the branch tips with the head's status summary (one "
                   "batch), then one Query each of the pull request's reviews, its "
                   "comments and events, the references to it and the reactions: four "
                   "key prefixes in the repository's partition (REVIEW#, COMMENT#, "
                   "XREF#, REACTION# under the number), which no one Query or batch "
                   "reads without a key layout grouping an issue's items",
}
ASSET = re.compile(r'<(?:link[^>]+href|script[^>]+src)="(/assets/[^"]+)"')
TIMED = 3


def fetch(scene, path: str, auth: str) -> tuple[int, bytes, dict]:
    from chalicelib.local.events import build_event, read_result

    headers = [("Accept-Encoding", "gzip, deflate, br")]
    if auth == "session":
        headers.append(("Cookie", scene.session_cookie()))
    status, pairs, body = read_result(scene.app(build_event("GET", path, headers, None), None))
    return status, body, {name.lower(): value for name, value in pairs}


def pages(scene, only: set[str]) -> list[tuple[str, str, str, dict | None]]:
    """(operationId, auth, path, settings in force) of every HTML page the web
    scenarios read."""
    found = []
    for op, make in scenarios_web.scenarios().items():
        if only and op not in only:
            continue
        for req in make(scene):
            if req.method == "GET" and req.expect == 200 and req.auth in ("anon", "session"):
                found.append((op, req.auth, req.path, req.settings))
    return found


def measure(scene, calls: Counter, counting: list, op: str, auth: str, path: str,
            assets: dict) -> dict:
    counting[0] = True
    calls.clear()
    status, body, headers = fetch(scene, path, auth)
    counting[0] = False
    made = dict(calls)
    if not headers.get("content-type", "").startswith("text/html"):
        return {}
    times = []
    for _ in range(TIMED):
        started = time.perf_counter()
        fetch(scene, path, auth)
        times.append((time.perf_counter() - started) * 1000)
    html = gzip.decompress(body) if headers.get("content-encoding") == "gzip" else body
    raw, sent = len(html), len(body)
    for asset in dict.fromkeys(ASSET.findall(html.decode("utf-8", "replace"))):
        if asset not in assets:
            _, data, asset_headers = fetch(scene, asset, "anon")
            plain = gzip.decompress(data) if asset_headers.get("content-encoding") == "gzip" \
                else data
            assets[asset] = (len(plain), len(data))
        raw += assets[asset][0]
        sent += assets[asset][1]
    return {"op": op, "auth": auth, "path": path, "status": status, "html_bytes": len(html),
            "bytes": raw, "sent_bytes": sent, "aws_calls": sum(made.values()),
            "breakdown": made, "server_ms": round(statistics.median(times), 1)}


def run(only: set[str] | None = None) -> dict:
    calls: Counter = Counter()
    counting = [False]

    def hook(model, **_):
        if counting[0]:
            calls[f"{model.service_model.service_name}:{model.name}"] += 1

    rows, assets = [], {}
    with moto_scene("nimbus-weight-", hook) as scene:
        scene.build()
        targets = pages(scene, only or set())
        scene.session_cookie()
        fetch(scene, "/explore/repos", "session")       # per-process costs off the pages
        for op, auth, path, settings in targets:
            with settings_in_force(settings):   # a page switched on for its scenario
                row = measure(scene, calls, counting, op, auth, path, assets)
            if row:
                rows.append(row)
    problems = []
    for row in rows:
        where = f"{row['op']} ({row['auth']}) {row['path']}"
        if row["status"] != 200:
            problems.append(f"{where}: status {row['status']}")
        if row["bytes"] > BUDGET_BYTES:
            problems.append(f"{where}: {row['bytes']} bytes of HTML, CSS and JS "
                            f"(budget {BUDGET_BYTES})")
        if row["aws_calls"] > MAX_CALLS and row["op"] not in OVER_CALLS:
            problems.append(f"{where}: {row['aws_calls']} AWS calls (at most {MAX_CALLS}): "
                            f"{row['breakdown']}")
    return {"rows": rows, "budget_bytes": BUDGET_BYTES, "max_calls": MAX_CALLS,
            "over_calls": OVER_CALLS, "problems": problems,
            "exit_status": 1 if problems or not rows else 0}


def show(result: dict) -> None:
    print(f"{'page':58} {'who':7} {'st':>3} {'html':>7} {'+css+js':>8} {'sent':>7} "
          f"{'calls':>5} {'ms':>7}")
    for row in result["rows"]:
        print(f"{row['path'][:58]:58} {row['auth']:7} {row['status']:>3} {row['html_bytes']:>7} "
              f"{row['bytes']:>8} {row['sent_bytes']:>7} {row['aws_calls']:>5} "
              f"{row['server_ms']:>7}")
    for text in result["problems"]:
        print("OVER:", text)
    print(f"{len(result['rows'])} pages; budgets: {result['budget_bytes']} bytes of HTML+CSS+JS, "
          f"{result['max_calls']} AWS calls ({len(result['over_calls'])} pages excepted); "
          + ("ok" if result["exit_status"] == 0 else "OVER or failed"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="operationIds, comma-separated")
    args, rest = parser.parse_known_args()
    only = {op for op in args.only.split(",") if op}
    sys.argv[1:] = rest
    return _harness.report(__doc__, lambda: run(only), show)


if __name__ == "__main__":
    sys.exit(main())
