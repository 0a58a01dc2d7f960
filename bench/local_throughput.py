"""Throughput of the local runtime (``make run``) beside a bare Chalice app.

    .venv/bin/python bench/local_throughput.py      # [--clients 8] [--seconds 15] [--rounds 2] [--json]

A server process runs what ``make run`` runs (LocalRuntime: the threaded HTTP server,
embedded moto behind the journal with fsync, the event pipeline and the schedules),
and on a second port of the same process a bare Chalice app (one catch-all route, as
ours) that makes the same DynamoDB calls against the same embedded backend and does
nothing else.  The calls are recorded from Nimbus itself: each kind of request is sent
once with a call hook on, and the bare app replays what the request thread sent
(reads verbatim; a transaction with its keys moved to a ``BARE#`` namespace and fresh
sort keys, so that every replay writes new items as Nimbus does).

The clients (threads of this process, one keep-alive connection each) cycle through
the mix: GET a repository, list its issues, GET a raw file, create an issue.  The
phases alternate (Nimbus, bare, Nimbus, bare, ...) so that a busy machine weighs on
both alike.  Exit status 1 when Nimbus reaches less than half the bare app's rate.
"""
from __future__ import annotations

import argparse
import base64
import http.client
import json
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

from _harness import REPO_ROOT, lambda_env, recorded_dynamodb_call, snake_case, use_repo

ADMIN = ("root", "root-password-1")
MIX = (("repo", "GET", "/api/v1/repos/root/demo", None),
       ("issues", "GET", "/api/v1/repos/root/demo/issues?limit=20", None),
       ("raw", "GET", "/api/v1/repos/root/demo/raw/README.md", None),
       ("create", "POST", "/api/v1/repos/root/demo/issues",
        {"title": "a benchmark issue", "body": "measured " * 20}))
HISTORY = 40        # issues made before measuring, so a list page is full
REQUIRED_RATIO = 0.5


# --- the server process ------------------------------------------------------------

def _http(base: str, method: str, path: str, body=None, auth: str | None = None):
    import urllib.request

    headers = {"Content-Type": "application/json"}
    if auth:
        headers["Authorization"] = auth
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request) as answer:
        data = answer.read()
    return json.loads(data) if answer.headers.get_content_type() == "application/json" else data


def _record(base: str, auth: str) -> dict[str, list[tuple[str, dict]]]:
    """Send each request of the mix once; keep the DynamoDB calls its own thread made
    (not the relay's or the worker's, which run beside the request)."""
    from chalicelib import aws

    recording: list[tuple[str, dict]] = []
    active = threading.Event()

    def hook(model=None, params=None, **_):
        call = recorded_dynamodb_call(model, params)
        if (active.is_set() and call is not None
                and not threading.current_thread().name.startswith("nimbus-")):
            recording.append(call)

    aws.add_call_hook(hook)
    recorded = {}
    for kind, method, path, body in MIX:
        recording.clear()
        active.set()
        _http(base, method, path, body, auth)
        active.clear()
        recorded[kind] = list(recording)
    return recorded


def _bare_transaction(params: dict) -> dict:
    """The recorded transaction, writing new items in the BARE# namespace each time."""
    fresh = uuid.uuid4().hex
    items = []
    for entry in json.loads(json.dumps(params["TransactItems"])):
        if "Put" in entry:
            item = entry["Put"]["Item"]
            for name in ("pk", "gsi1pk", "gsi2pk"):
                if name in item and "S" in item[name]:
                    item[name]["S"] = "BARE#" + item[name]["S"]
            item["sk"]["S"] += "#" + fresh
        else:
            action = next(iter(entry.values()))
            action["Key"]["pk"]["S"] = "BARE#" + action["Key"]["pk"]["S"]
            # Its condition held on Nimbus's own counter; here the item is the bench's.
            action.pop("ConditionExpression", None)
            used = set(re.findall(r"[#:]\w+", action.get("UpdateExpression", "")))
            for field in ("ExpressionAttributeNames", "ExpressionAttributeValues"):
                kept = {k: v for k, v in action.get(field, {}).items() if k in used}
                action.pop(field, None)
                if kept:
                    action[field] = kept
            if "ConditionCheck" in entry:
                entry = {"Update": {k: v for k, v in action.items()
                                    if k in ("TableName", "Key")} | {
                    "UpdateExpression": "SET touched = :t",
                    "ExpressionAttributeValues": {":t": {"S": fresh}}}}
        items.append(entry)
    return {**params, "TransactItems": items}


def _copy_updated_items(ddb, recorded: dict[str, list[tuple[str, dict]]]) -> None:
    """Give the bare app its own copy of each item a recorded transaction updates
    (an update expression may need the item's existing attributes)."""
    for calls in recorded.values():
        for operation, params in calls:
            for entry in params.get("TransactItems", []) if operation == "TransactWriteItems" else []:
                action = next(iter(entry.values()))
                if "Put" in entry:
                    continue
                item = ddb.get_item(TableName=action["TableName"], Key=action["Key"]).get("Item")
                if item:
                    item["pk"] = {"S": "BARE#" + item["pk"]["S"]}
                    ddb.put_item(TableName=action["TableName"], Item=item)


def _bare_app(recorded: dict[str, list[tuple[str, dict]]]):
    """A Chalice app with one catch-all route that replays the recorded calls."""
    from chalice import Chalice, Response

    from chalicelib import aws

    ddb = aws.client("dynamodb")
    _copy_updated_items(ddb, recorded)
    by_path = {(method, path.split("?")[0]): kind for kind, method, path, _ in MIX}
    app = Chalice(app_name="bare")

    @app.route("/{proxy+}", methods=["GET", "POST"])
    def replay():
        request = app.current_request
        kind = by_path.get((request.method, "/" + request.uri_params["proxy"]))
        if kind is None:
            return Response({"message": "not found"}, status_code=404)
        answer = None
        for operation, params in recorded[kind]:
            if operation == "TransactWriteItems":
                params = _bare_transaction(params)
            try:
                answer = getattr(ddb, snake_case(operation))(**params)
            except Exception as exc:  # noqa: BLE001 - the bench reports it as a failure
                return Response({"message": f"{operation}: {exc}"}, status_code=500)
        return Response({"calls": len(recorded[kind]), "last": str(answer)[:200]},
                        status_code=201 if request.method == "POST" else 200)

    return app


def serve() -> None:
    """Print both base URLs and the recorded calls as one JSON line; stop at EOF on stdin."""
    use_repo({"NIMBUS__SECURITY__PASSWORD_HASH_COST": "1024"})
    from chalicelib.local.__main__ import SCHEDULES, every
    from chalicelib.local.event_pipeline import EventPipeline
    from chalicelib.local.runtime import LocalRuntime
    from chalicelib.local.server import LocalHTTPServer

    with tempfile.TemporaryDirectory(prefix="nimbus-throughput-") as data_dir:
        runtime = LocalRuntime(port=0, data_dir=data_dir, access_log=False)
        runtime.prepare()
        from chalicelib.accounts import ensure_admin

        ensure_admin(ADMIN[0], ADMIN[1], "root@example.test")
        for schedule in SCHEDULES:
            runtime.add_background(every(schedule))
        for task in EventPipeline().tasks():
            runtime.add_background(task)
        runtime.serve()
        try:
            basic = "Basic " + base64.b64encode(":".join(ADMIN).encode()).decode()
            token = _http(runtime.url, "POST", f"/api/v1/users/{ADMIN[0]}/tokens",
                          {"name": "bench", "scopes": ["all"]}, basic)["sha1"]
            auth = "token " + token
            _http(runtime.url, "POST", "/api/v1/user/repos",
                  {"name": "demo", "auto_init": True}, auth)
            for number in range(HISTORY):
                _http(runtime.url, "POST", "/api/v1/repos/root/demo/issues",
                      {"title": f"history {number}", "body": "earlier " * 20}, auth)
            recorded = _record(runtime.url, auth)

            bare = LocalHTTPServer(("127.0.0.1", 0), access_log=False)
            bare.lambda_handler = _bare_app(recorded)
            threading.Thread(target=bare.serve_forever, daemon=True).start()
            host, port = bare.server_address[:2]
            print(json.dumps({"nimbus": runtime.url, "bare": f"http://{host}:{port}",
                              "auth": auth,
                              "calls": {k: [op for op, _ in v] for k, v in recorded.items()}}),
                  flush=True)
            sys.stdin.read()
            bare.shutdown()
        finally:
            runtime.stop()


# --- the clients ---------------------------------------------------------------------

def _phase(base: str, auth: str, clients: int, seconds: float) -> dict:
    host_port = base.split("//", 1)[1]
    latencies: dict[str, list[float]] = {kind: [] for kind, *_ in MIX}
    failures: list[str] = []
    deadline = time.monotonic() + seconds
    lock = threading.Lock()

    def client(offset: int) -> None:
        connection = http.client.HTTPConnection(host_port, timeout=60)
        step = offset
        while time.monotonic() < deadline:
            kind, method, path, body = MIX[step % len(MIX)]
            step += 1
            data = json.dumps(body).encode() if body is not None else None
            started = time.monotonic()
            try:
                connection.request(method, path, body=data, headers={
                    "Authorization": auth, "Content-Type": "application/json"})
                answer = connection.getresponse()
                text = answer.read()
                status = answer.status
                if status not in (200, 201):
                    status = f"{status} {text[:300]!r}"
            except (OSError, http.client.HTTPException) as exc:
                connection.close()
                connection = http.client.HTTPConnection(host_port, timeout=60)
                status = repr(exc)
            elapsed = time.monotonic() - started
            with lock:
                if status in (200, 201):
                    latencies[kind].append(elapsed)
                else:
                    failures.append(f"{method} {path}: {status}")
        connection.close()

    started = time.monotonic()
    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.monotonic() - started
    return {"wall": wall, "latencies": latencies, "failures": failures}


def _summary(phases: list[dict]) -> dict:
    wall = sum(p["wall"] for p in phases)
    by_kind = {}
    everything = []
    for kind, *_ in MIX:
        values = [v for p in phases for v in p["latencies"][kind]]
        everything += values
        by_kind[kind] = {"requests": len(values),
                         "p50_ms": round(statistics.median(values) * 1000, 1) if values else None}
    return {"requests": len(everything), "rate": round(len(everything) / wall, 1),
            "p50_ms": round(statistics.median(everything) * 1000, 1) if everything else None,
            "p90_ms": round(statistics.quantiles(everything, n=10)[-1] * 1000, 1)
            if len(everything) > 1 else None,
            "by_kind": by_kind, "failures": [f for p in phases for f in p["failures"]][:5]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=15.0, help="per phase")
    parser.add_argument("--rounds", type=int, default=2, help="Nimbus+bare phase pairs")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return 0

    server = subprocess.Popen([sys.executable, __file__, "--serve"], cwd=REPO_ROOT,
                              env=lambda_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        line = server.stdout.readline()
        if not line:
            print("the server process did not start", file=sys.stderr)
            return 2
        setup = json.loads(line)
        phases: dict[str, list[dict]] = {"nimbus": [], "bare": []}
        for _ in range(args.rounds):
            for name in ("nimbus", "bare"):
                phases[name].append(_phase(setup[name], setup["auth"], args.clients,
                                           args.seconds))
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    result = {name: _summary(runs) for name, runs in phases.items()}
    result["ratio"] = round(result["nimbus"]["rate"] / result["bare"]["rate"], 2)
    result["calls"] = setup["calls"]
    result["clients"] = args.clients
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        _print(result)
    failed = result["nimbus"]["failures"] or result["bare"]["failures"]
    return 1 if failed or result["ratio"] < REQUIRED_RATIO else 0


def _print(result: dict) -> None:
    print(f"{result['clients']} concurrent clients; mix: "
          + ", ".join(f"{kind} ({len(calls)} DynamoDB calls)"
                      for kind, calls in result["calls"].items()))
    print(f"{'app':8} {'requests':>8} {'req/s':>7} {'p50 ms':>7} {'p90 ms':>7}   p50 by kind")
    for name in ("nimbus", "bare"):
        row = result[name]
        kinds = "  ".join(f"{k} {v['p50_ms']}" for k, v in row["by_kind"].items())
        print(f"{name:8} {row['requests']:8} {row['rate']:7} {row['p50_ms']:7} "
              f"{row['p90_ms']:7}   {kinds}")
        for failure in row["failures"]:
            print(f"  failed: {failure}")
    verdict = "ok" if result["ratio"] >= REQUIRED_RATIO else "BELOW"
    print(f"nimbus / bare: {result['ratio']} ({verdict}: at least {REQUIRED_RATIO} required)")


if __name__ == "__main__":
    sys.exit(main())
