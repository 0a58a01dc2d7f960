"""The route index: fresh, as precise as the full table, and the reason a cold first
request imports one API area instead of all of them."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from chalicelib.http import route_index
from chalicelib.http.routes import load_routes

ROOT = Path(__file__).resolve().parents[2]
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def test_the_index_matches_the_route_table_and_each_module_serves_its_routes():
    done = subprocess.run([sys.executable, "-m", "chalicelib.http.route_index", "--check"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (
        "the route index is stale or wrong; regenerate it with "
        f"`{route_index.WRITE_COMMAND}`:\n{done.stdout}{done.stderr[-3000:]}")


def concrete(pattern: str, value: str, greedy: str) -> str:
    return re.sub(r"\{(\w+)(:path)?\}", lambda m: greedy if m.group(2) else value, pattern)


def probe_paths(table) -> set[tuple[str, bool]]:
    """Every pattern filled in several ways, plus near misses around each."""
    paths: set[tuple[str, bool]] = set()
    for route in table.routes:
        for value, greedy in (("x", "a"), ("search", "a/b/c.txt"), ("1", "main"),
                              ("x.git", "dir/sub/")):
            path = concrete(route.pattern, value, greedy)
            paths |= {(path, route.raw), (path + "/extra", route.raw),
                      (path.rsplit("/", 1)[0] or "/", route.raw), (path, not route.raw)}
    return paths | {("/", False), ("/", True), ("/nowhere", False), ("/repos", False),
                    ("/repos/o/r/contents/", False), ("/user", False)}


def test_resolution_through_the_index_equals_the_full_table():
    table = load_routes()
    assert [r.key for r in table.routes] == [row[:4] for row in route_index.route_index_data.ROUTES]
    checked = 0
    for path, raw in sorted(probe_paths(table)):
        for method in METHODS:
            expected = table.match(method, path, raw=raw)
            got = route_index.resolve(method, path, raw=raw)
            if expected[0] is None:
                assert got == expected, (method, path, raw)
            else:
                assert got[0] is expected[0] and got[1] == expected[1], (method, path, raw)
                checked += 1
    assert checked > 1000


FRESH_PROCESS = r"""
import json, sys
from moto import mock_aws

with mock_aws():
    from chalicelib import aws
    from chalicelib.store import table
    from infra.bootstrap import ensure_resources
    aws.reset_clients(); table.configure(); ensure_resources()
    from chalicelib.accounts.service import ensure_admin
    ensure_admin("root", "root-password-1", "root@example.test")
    from app import app
    from chalicelib.http import route_index_data
    from chalicelib.http.router import TABLE
    from chalicelib.local.events import build_event, read_result

    def areas():
        return sorted({row[4] for row in route_index_data.ROUTES} & set(sys.modules))

    def call(method, path):
        return read_result(app(build_event(method, path), None))[0]

    report = {"before": areas(), "user": call("GET", "/api/v1/users/root"),
              "after_user": areas(), "version": call("GET", "/api/v1/version"),
              "after_version": areas(), "routes_loaded": len(TABLE.routes),
              "wrong_method": call("PUT", "/api/v1/version"),
              "after_405": areas(),
              "order": [list(r.key) for r in TABLE.routes] == [list(row[:4]) for row in route_index_data.ROUTES],
              "swagger_ops": None}
    from chalicelib.http.swagger import document
    report["swagger_ops"] = sum(len(ops) for ops in document()["paths"].values())
    print(json.dumps(report))
"""


def test_a_cold_first_request_imports_only_the_area_that_serves_it():
    env = {"NIMBUS__SERVER__ROOT_URL": "http://nimbus.test/",
           "NIMBUS__SECURITY__PASSWORD_HASH_COST": "1024"}
    done = subprocess.run([sys.executable, "-c", FRESH_PROCESS], cwd=ROOT, text=True,
                          capture_output=True, timeout=300,
                          env={**{k: v for k, v in os.environ.items()
                                  if not k.startswith("NIMBUS")}, **env})
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["before"] == []
    assert report["user"] == 200 and report["version"] == 200
    # users, then misc: the modules of these two routes (and what they import), not all.
    assert "chalicelib.accounts.routes" in report["after_user"]
    assert "chalicelib.instance.routes" in report["after_version"]
    for heavy in ("chalicelib.issues.routes", "chalicelib.pulls.routes", "chalicelib.releases.routes",
                  "chalicelib.contents.git_data_routes", "chalicelib.quota.admin_routes"):
        assert heavy not in report["after_version"], heavy
    everything = {row[4] for row in route_index.route_index_data.ROUTES}
    assert len(report["after_version"]) < len(everything) / 2
    assert report["routes_loaded"] < len(route_index.route_index_data.ROUTES) / 2
    # A 405 needs every method of the path: answered from the full table, which is
    # then in the order (precedence) one import of every area gives.
    assert report["wrong_method"] == 405
    assert set(report["after_405"]) >= everything - {route_index.route_index_data.EVERY_AREA}
    assert report["order"] is True
    assert report["swagger_ops"] == len({(r.swagger_path, r.method) for r in load_routes().routes
                                         if not r.raw and r.in_swagger})
