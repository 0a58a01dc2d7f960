"""Cold import time of app.py against a bare Chalice + boto3 app, in the same run.

Each sample is a fresh ``python -c "import app"`` process with a Lambda's environment
(fake credentials and region, no Nimbus settings), so nothing is cached in-process.
Runs of the two apps alternate, so machine noise hits both alike.  Then
``python -X importtime`` shows the heaviest top-level packages under ``import app``.

    .venv/bin/python bench/cold_start.py [--runs 7] [--top 10] [--json]

Exit status 1 if a module that must stay off the import path is imported.
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _harness

# Heavy libraries that only some requests need: they must be imported lazily, inside
# the functions that use them, never on the cold-start path of every Lambda.
FORBIDDEN = ("dulwich", "pgpy", "mistune", "nh3")

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
TREE_PROBE = "import app; from chalicelib.api.routes import load_routes; load_routes()"
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
    routes = [n for n in nodes if n["depth"] == 0 and n["name"] == "chalicelib.api.areas"]
    result["routes_first_request_ms"] = round(sum(n["cum_us"] for n in routes) / 1e3, 1)
    imported = {n["name"].split(".")[0] for n in nodes}
    result["forbidden_imported"] = [m for m in FORBIDDEN if m in imported]
    result["ok"] = not result["forbidden_imported"]

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
        print("\nheaviest top-level packages under `import app` (-X importtime, one run; "
              "cumulative includes what they import):")
        print(f"  {'package':24} {'cumulative':>10} {'self':>8}  first imported by")
        for p in result["heaviest"]:
            print(f"  {p['package']:24} {p['cum_ms']:>7.1f} ms {p['self_ms']:>5.1f} ms  {p['via']}")
        print(f"  + route modules, imported by the first request: "
              f"{result['routes_first_request_ms']} ms (chalicelib.api.areas)")
        if result["forbidden_imported"]:
            print(f"\nFAIL: {', '.join(result['forbidden_imported'])} imported at cold start; "
                  "import them inside the functions that need them.")
        else:
            print(f"\nok: none of {', '.join(FORBIDDEN)} is imported by app.py or the route "
                  "modules (they must stay lazy).")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
