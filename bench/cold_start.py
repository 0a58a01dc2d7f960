"""Cold start of app.py against a bare Chalice + boto3 app, in the same run: the import
alone, and the whole cold start (import + the first request through the Lambda handler).

Each sample is a fresh interpreter with a Lambda's environment (fake credentials and
region, no Nimbus settings), so nothing is cached in-process.  Runs of the two apps
alternate, so machine noise hits both alike.

Whole cold start: a moto server (a thread of this process, standing in for DynamoDB
and S3) holds a user, a token and a repository; each sample imports the app and sends
``GET /api/v1/repos/root/demo`` with the token as an API Gateway proxy event to the
Lambda handler.  The bare app's first request makes the DynamoDB calls Nimbus's
first request makes (recorded from an untimed fresh Nimbus process, replayed as
bench/local_throughput.py replays them) against the same server.  Then
``python -X importtime`` shows the heaviest top-level packages under ``import app``.

    .venv/bin/python bench/cold_start.py [--runs 7] [--top 10] [--json]

The whole cold start is judged on CPU time (user + system of the fresh process, from
the start of the import to the answer): it is what a Lambda with its own vCPU share
spends, while wall time on a shared machine mostly measures the neighbours.  Wall
times are printed beside it, and a third variant shows what the first request cost
when it imported every API area (the gateway before chalicelib/http/route_index.py).

Exit status 1 if a module that must stay off the import path is imported, if the
first request fails, or if the whole cold start's CPU time (fastest run of each app)
exceeds 1.25 times the bare app's.
"""
from __future__ import annotations

import argparse
import base64
import json
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _harness

# Heavy libraries that only some requests need: they must be imported lazily, inside
# the functions that use them, never on the cold-start path of every Lambda.
FORBIDDEN = ("dulwich", "pgpy", "mistune", "nh3", "jinja2", "pygments", "PIL")

BARE_APP = """\
import boto3
from chalice import Chalice

app = Chalice(app_name="bare")


@app.route("/")
def index():
    return {"hello": "world"}
"""

# The import alone, timed inside the child: interpreter start-up is the same for both
# apps and would only dilute the ratio.  Process wall time is reported beside it.
PROBE = "import time; t = time.perf_counter(); import app; print((time.perf_counter() - t) * 1e3)"
# The gateway imports the route modules on the first request, not with app.py: that is
# still cold start, so the import tree and the FORBIDDEN check include them.
TREE_PROBE = "import app; from chalicelib.http.routes import load_routes; load_routes()"
# The whole cold start: import, then one request, timed apart inside the child.  With a
# second argument the (untimed) run records the AWS calls its request makes.
WHOLE_PROBE = """\
import json, sys, time
event = json.loads(open(sys.argv[1]).read())
calls = []
if len(sys.argv) > 2 and sys.argv[2] != "--all-areas":
    from chalicelib import aws
    aws.add_call_hook(lambda model=None, params=None, **_: calls.append(
        [model.service_model.service_name, model.name, params.get("body")]))
start, cpu_start = time.perf_counter(), time.process_time()
import app
imported, cpu_imported = time.perf_counter(), time.process_time()
if "--all-areas" in sys.argv:   # as the gateway did before the route index
    from chalicelib.http.routes import load_routes
    load_routes()
result = app.app(event, None)
done, cpu_done = time.perf_counter(), time.process_time()
areas = sorted(m for m in sys.modules if m.startswith("chalicelib.") and m.endswith("routes"))
print(json.dumps({"import_ms": (imported - start) * 1e3, "request_ms": (done - imported) * 1e3,
                  "cpu_ms": (cpu_done - cpu_start) * 1e3,
                  "status": result["statusCode"], "body": str(result.get("body"))[:300],
                  "api_modules": areas}))
if calls:
    open(sys.argv[2], "w").write(json.dumps(
        [[s, n, b.decode() if isinstance(b, bytes) else b] for s, n, b in calls]))
"""
# Replays the recorded DynamoDB calls (calls.json beside it) with one boto3 client.
BARE_REPLAY_APP = """\
import json
from pathlib import Path

import boto3
from chalice import Chalice

app = Chalice(app_name="bare")
CALLS = json.loads((Path(__file__).parent / "calls.json").read_text())


@app.route("/{proxy+}", methods=["GET"])
def replay():
    dynamodb = boto3.client("dynamodb")
    for method, params in CALLS:
        getattr(dynamodb, method)(**params)
    return {"calls": len(CALLS)}
"""
WHOLE_TARGET = "/api/v1/repos/root/demo"
REQUIRED_WHOLE_RATIO = 1.25
_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S+)")


def sample(cwd: Path, env: dict) -> tuple[float, float]:
    """(import ms, process wall ms) of one fresh interpreter importing ``app``."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=cwd, env=env,
                          capture_output=True, text=True)
    wall = (time.perf_counter() - start) * 1e3
    if done.returncode != 0:
        raise SystemExit(f"import app failed in {cwd}:\n{done.stderr}")
    return float(done.stdout.strip().splitlines()[-1]), wall


def whole_sample(cwd: Path, env: dict, event_file: Path, record: Path | str | None = None) -> dict:
    """One fresh interpreter: import ``app``, hand the event to its Lambda handler."""
    argv = [sys.executable, "-c", WHOLE_PROBE, str(event_file)] + ([str(record)] if record else [])
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the first request failed in {cwd}:\n{done.stderr[-2000:]}")
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    answer["total_ms"] = answer["import_ms"] + answer["request_ms"]
    return answer


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def whole_scene(tmp: Path) -> tuple[dict, Path, object]:
    """Start the moto server, make the user, token and repository through Nimbus in
    this process; (child environment, event file, server)."""
    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)   # one access line per call
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    url = f"http://127.0.0.1:{port}"
    extra = {"NIMBUS__AWS__ENDPOINT_URL": url, "AWS_ENDPOINT_URL": url,
             "NIMBUS__SECURITY__PASSWORD_HASH_COST": "1024"}
    _harness.use_repo(extra)
    from chalicelib.store import table
    from infra.bootstrap import ensure_resources

    table.configure()
    ensure_resources()
    from app import app
    from chalicelib.local.events import build_event, read_result
    from chalicelib.accounts import ensure_admin

    def call(method, target, headers, body=None):
        status, _, out = read_result(app(build_event(
            method, target, [*headers, ("Content-Type", "application/json")],
            json.dumps(body).encode() if body is not None else None), None))
        if status not in (200, 201):
            raise SystemExit(f"set-up {method} {target} answered {status}: {out[:300]!r}")
        return json.loads(out)

    ensure_admin("root", "root-password-1", "root@example.test")
    basic = "Basic " + base64.b64encode(b"root:root-password-1").decode()
    token = call("POST", "/api/v1/users/root/tokens", [("Authorization", basic)],
                 {"name": "cold-start", "scopes": ["all"]})["sha1"]
    auth = [("Authorization", "token " + token)]
    call("POST", "/api/v1/user/repos", auth, {"name": "demo"})
    event_file = tmp / "event.json"
    event_file.write_text(json.dumps(build_event("GET", WHOLE_TARGET, auth)))
    return _harness.lambda_env(extra), event_file, server


class WholeColdStart:
    """The whole cold start's apps, sampled round after round (``sample``) against one
    scene; ``result`` summarizes every sample so far."""

    def __init__(self, tmp: Path):
        self.env, self.event_file, self.server = whole_scene(tmp)
        try:
            self._record(tmp)
        except BaseException:
            self.server.stop()
            raise

    def _record(self, tmp: Path) -> None:
        recorded = tmp / "calls.json"
        first = whole_sample(_harness.REPO_ROOT, self.env, self.event_file, recorded)
        if first["status"] != 200:
            raise SystemExit(f"GET {WHOLE_TARGET} answered {first['status']}: {first['body']}")
        self.calls = json.loads(recorded.read_text())
        others = [f"{service}:{name}" for service, name, _ in self.calls if service != "dynamodb"]
        if others:
            raise SystemExit(f"the first request also calls {others}: the bare app replays "
                             "DynamoDB calls only")
        self.api_modules = first["api_modules"]
        bare = tmp / "bare-replay"
        bare.mkdir()
        (bare / "app.py").write_text(BARE_REPLAY_APP)
        # DynamoDB's JSON protocol sends the API parameters as the body.
        replay = [[_harness.snake_case(name), json.loads(body)] for _, name, body in self.calls]
        (bare / "calls.json").write_text(json.dumps(replay))
        # "all areas": what the first request cost before the route index.
        self.apps = {"nimbus": (_harness.REPO_ROOT, None), "bare": (bare, None),
                     "all areas": (_harness.REPO_ROOT, "--all-areas")}
        whole_sample(bare, self.env, self.event_file)   # untimed, as the recording run was
        self.samples: dict[str, list[dict]] = {name: [] for name in self.apps}

    def sample(self, runs: int, apps: tuple[str, ...] | None = None) -> None:
        """``runs`` fresh processes of each app (of ``apps``), the apps taking turns."""
        for _ in range(runs):
            for name in apps or tuple(self.apps):
                cwd, flag = self.apps[name]
                answer = whole_sample(cwd, self.env, self.event_file, flag)
                if answer["status"] != 200:
                    raise SystemExit(f"{name}: the first request answered {answer['status']}: "
                                     f"{answer['body']}")
                self.samples[name].append(answer)

    def result(self) -> dict:
        result = {"target": f"GET {WHOLE_TARGET} (token)",
                  "apps": [name for name in self.apps if self.samples[name]],
                  "calls": [f"dynamodb:{name}" for _, name, _ in self.calls],
                  "api_modules": self.api_modules}
        for name in result["apps"]:
            values = self.samples[name]
            result[name] = {kind: stats([v[kind] for v in values])
                            for kind in ("import_ms", "request_ms", "total_ms", "cpu_ms")}
        result["ratio"] = {
            kind: {stat: round(result["nimbus"][kind][stat] / result["bare"][kind][stat], 2)
                   for stat in ("min", "median")} for kind in ("total_ms", "cpu_ms")}
        if "all areas" in result:
            result["ratio_all_areas"] = {
                kind: round(result["all areas"][kind]["min"] / result["bare"][kind]["min"], 2)
                for kind in ("total_ms", "cpu_ms")}
        result["ok"] = result["ratio"]["cpu_ms"]["min"] <= REQUIRED_WHOLE_RATIO
        return result

    def close(self) -> None:
        self.server.stop()


def whole_cold_start(tmp: Path, runs: int) -> dict:
    whole = WholeColdStart(tmp)
    try:
        whole.sample(runs)
        return whole.result()
    finally:
        whole.close()


def stats(values: list[float]) -> dict:
    return {"min": round(min(values), 1), "median": round(statistics.median(values), 1)}


def import_tree(cwd: Path, env: dict) -> list[dict]:
    """``-X importtime`` lines as nodes with their parent (lines come children first)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", TREE_PROBE],
                          cwd=cwd, env=env, capture_output=True, text=True)
    nodes, pending = [], {}   # pending: depth -> nodes still waiting for their parent
    for line in done.stderr.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        node = {"name": m.group(4), "self_us": int(m.group(1)), "cum_us": int(m.group(2)),
                "depth": len(m.group(3)) // 2, "parent": None}
        for child in pending.pop(node["depth"] + 1, []):
            child["parent"] = node
        pending.setdefault(node["depth"], []).append(node)
        nodes.append(node)
    return nodes


def heaviest_packages(nodes: list[dict], top: int) -> list[dict]:
    """Top-level packages imported under ``app``, by cumulative time.

    A package's cumulative time is that of the imports where it was entered from
    another package, so it includes what it pulled in (pynamodb includes botocore);
    its self time is the sum over its own modules.
    """
    def root(node):
        while node["parent"] is not None:
            node = node["parent"]
        return node

    packages: dict[str, dict] = {}
    for node in nodes:
        if node["depth"] == 0 or root(node)["name"] != "app":
            continue
        package = node["name"].split(".")[0]
        entry = packages.setdefault(package, {"package": package, "cum_ms": 0.0,
                                              "self_ms": 0.0, "via": None})
        entry["self_ms"] += node["self_us"] / 1e3
        parent = node["parent"]
        if parent["depth"] == 0 or parent["name"].split(".")[0] != package:
            entry["cum_ms"] += node["cum_us"] / 1e3
            entry["via"] = entry["via"] or parent["name"]
    ranked = sorted(packages.values(), key=lambda p: -p["cum_ms"])[:top]
    for p in ranked:
        p["cum_ms"], p["self_ms"] = round(p["cum_ms"], 1), round(p["self_ms"], 1)
    return ranked


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per app")
    parser.add_argument("--top", type=int, default=10, help="packages to list")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args()

    env = _harness.lambda_env()
    with tempfile.TemporaryDirectory() as tmp:
        bare = Path(tmp)
        (bare / "app.py").write_text(BARE_APP)
        apps = {"nimbus": _harness.REPO_ROOT, "bare": bare}
        for cwd in apps.values():   # untimed: writes .pyc files and warms the page cache
            sample(cwd, env)
        runs = {name: [] for name in apps}
        for _ in range(args.runs):
            for name, cwd in apps.items():
                runs[name].append(sample(cwd, env))
        whole = whole_cold_start(Path(tmp), args.runs)
    nodes = import_tree(_harness.REPO_ROOT, env)

    result = {"runs": args.runs}
    for name, values in runs.items():
        result[name] = {"import_ms": stats([v[0] for v in values]),
                        "process_ms": stats([v[1] for v in values])}
    result["ratio"] = {
        kind: {stat: round(result["nimbus"][kind][stat] / result["bare"][kind][stat], 2)
               for stat in ("min", "median")}
        for kind in ("import_ms", "process_ms")}
    result["heaviest"] = heaviest_packages(nodes, args.top)
    routes = [n for n in nodes if n["depth"] == 0 and n["name"] == "chalicelib.areas"]
    result["routes_first_request_ms"] = round(sum(n["cum_us"] for n in routes) / 1e3, 1)
    imported = {n["name"].split(".")[0] for n in nodes}
    result["forbidden_imported"] = [m for m in FORBIDDEN if m in imported]
    result["whole"] = whole
    result["ok"] = not result["forbidden_imported"] and whole["ok"]

    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"cold import, {args.runs} fresh processes each (Python {sys.version.split()[0]})")
        print(f"{'app':8} {'import min':>11} {'median':>8} {'process min':>12} {'median':>8}")
        for name in apps:
            i, p = result[name]["import_ms"], result[name]["process_ms"]
            print(f"{name:8} {i['min']:>8.1f} ms {i['median']:>5.1f} ms "
                  f"{p['min']:>9.1f} ms {p['median']:>5.1f} ms")
        r = result["ratio"]
        print(f"nimbus / bare: import x{r['import_ms']['min']} (min) x{r['import_ms']['median']} "
              f"(median), process x{r['process_ms']['min']} (min) x{r['process_ms']['median']} "
              "(median)")
        w = whole
        print(f"\nwhole cold start: import + first request ({w['target']}; "
              f"{len(w['calls'])} DynamoDB calls: {', '.join(w['calls'])}), "
              f"{args.runs} fresh processes each, against one moto server")
        print(f"{'app':10} {'import min':>10} {'request min':>11} {'total min':>9} "
              f"{'median':>8} {'CPU min':>8} {'median':>8}")
        for name in w["apps"]:
            row = w[name]
            print(f"{name:10} {row['import_ms']['min']:>7.1f} ms {row['request_ms']['min']:>8.1f} ms "
                  f"{row['total_ms']['min']:>6.1f} ms {row['total_ms']['median']:>5.1f} ms "
                  f"{row['cpu_ms']['min']:>5.1f} ms {row['cpu_ms']['median']:>5.1f} ms")
        areas = w["api_modules"]
        print(f"the first request imported {len(areas)} routes modules: "
              + ", ".join(m.removeprefix("chalicelib.") for m in areas))
        verdict = "ok" if w["ok"] else "OVER"
        r = w["ratio"]
        print(f"nimbus / bare, whole cold start: wall x{r['total_ms']['min']} (min) "
              f"x{r['total_ms']['median']} (median), CPU x{r['cpu_ms']['min']} (min) "
              f"x{r['cpu_ms']['median']} (median): {verdict} (CPU min at most "
              f"x{REQUIRED_WHOLE_RATIO}); every area on the first request (before the route "
              f"index): wall x{w['ratio_all_areas']['total_ms']}, "
              f"CPU x{w['ratio_all_areas']['cpu_ms']} (min)")
        print("\nheaviest top-level packages under `import app` (-X importtime, one run; "
              "cumulative includes what they import):")
        print(f"  {'package':24} {'cumulative':>10} {'self':>8}  first imported by")
        for p in result["heaviest"]:
            print(f"  {p['package']:24} {p['cum_ms']:>7.1f} ms {p['self_ms']:>5.1f} ms  {p['via']}")
        print(f"  + route modules, imported by the first request: "
              f"{result['routes_first_request_ms']} ms (chalicelib.areas)")
        if result["forbidden_imported"]:
            print(f"\nFAIL: {', '.join(result['forbidden_imported'])} imported at cold start; "
                  "import them inside the functions that need them.")
        else:
            print(f"\nlazy modules ok: none of {', '.join(FORBIDDEN)} is imported by app.py or the route "
                  "modules (they must stay lazy).")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
