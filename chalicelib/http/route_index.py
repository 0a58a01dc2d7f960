"""The route index: which area module serves a request, known before any area is imported.

A cold Lambda would otherwise import every API area (``chalicelib.areas``) on its
first request.  ``route_index_data`` lists the full route table in its order: method,
pattern, raw, operationId and the area module whose import registers the route.  The
gateway matches a request against that list with the router's own rules (same regular
expressions, same order, HEAD served by GET), imports the one module the winning route
needs and dispatches to the route it registered.  A path the index does not match
(404, 405, CORS preflight) is answered from the full table, so those answers cannot
depend on the index at all.

The list is generated from the full table and checked by the tests:

    python -m chalicelib.http.route_index --write    # after adding or changing routes
    python -m chalicelib.http.route_index --check    # exit status 1 when stale

Generation imports the modules listed in ``chalicelib/areas.py`` one at a time, in
its order, in a fresh interpreter, and credits each new route to the module whose
import registered it; then it proves, in a forked child per module, that importing
that module alone registers those routes (with the same handlers).
"""
from __future__ import annotations

import importlib
import re

from chalicelib.http import route_index_data
from chalicelib.http.router import TABLE, Route, pattern_regex
from chalicelib.http.routes import load_routes

DATA_FILE = "chalicelib/http/route_index_data.py"
WRITE_COMMAND = "python -m chalicelib.http.route_index --write"
# Modules whose handlers read the whole route table (the swagger document): their
# routes load every area first.
NEEDS_EVERY_AREA = frozenset({"chalicelib.http.swagger"})


class Entry:
    """One indexed route, with cheap necessary conditions tried before its regex."""
    __slots__ = ("key", "method", "raw", "module", "prefix", "suffix", "slashes", "greedy",
                 "pattern", "regex")

    def __init__(self, method: str, pattern: str, raw: bool, operation_id: str, module: str):
        self.key = (method, pattern, raw, operation_id)
        self.method, self.pattern, self.raw, self.module = method, pattern, raw, module
        self.prefix = pattern.split("{", 1)[0]
        self.suffix = pattern.rsplit("}", 1)[-1] if "}" in pattern else ""
        # Literal text and {x} parameters hold a fixed number of slashes; {x:path} more.
        self.slashes = pattern.count("/")
        self.greedy = ":path}" in pattern
        self.regex: re.Pattern | None = None   # compiled on first use

    def matches(self, path: str) -> bool:
        if not path.startswith(self.prefix) or not path.endswith(self.suffix):
            return False
        slashes = path.count("/")
        if slashes < self.slashes or (slashes != self.slashes and not self.greedy):
            return False
        if self.regex is None:
            self.regex = re.compile(pattern_regex(self.pattern))
        return self.regex.match(path) is not None


ENTRIES = tuple(Entry(*row) for row in route_index_data.ROUTES)


def lookup(method: str, path: str, *, raw: bool = False) -> Entry | None:
    """The indexed route that wins for this request, as ``RouteTable.match`` decides."""
    for entry in ENTRIES:
        if entry.raw != raw:
            continue
        if (entry.method == method or (method == "HEAD" and entry.method == "GET")) \
                and entry.matches(path):
            return entry
    return None


def resolve(method: str, path: str, *, raw: bool = False):
    """``RouteTable.match``'s answer, importing only the area module the route needs.

    Returns (route, params), or (None, allowed methods) from the full table.
    """
    entry = lookup(method, path, raw=raw)
    if entry is None:
        return load_routes().match(method, path, raw=raw)
    route = TABLE.find(entry.key)
    if route is None:
        if entry.module == route_index_data.EVERY_AREA:
            load_routes()
        else:
            importlib.import_module(entry.module)
        route = TABLE.find(entry.key)
    if route is None:   # a stale index (the tests catch it): trust the full table
        return load_routes().match(method, path, raw=raw)
    return route, route.regex.match(path).groupdict()


# --- generation (run as a command; never on the request path) ------------------------

def area_modules() -> list[str]:
    """The modules ``chalicelib/areas.py`` imports, in its order."""
    import ast
    import importlib.util

    origin = importlib.util.find_spec(route_index_data.EVERY_AREA).origin
    with open(origin, encoding="utf-8") as source:
        tree = ast.parse(source.read(), origin)
    modules: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            modules += [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            modules += [alias.name for alias in node.names]
        elif not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            raise SystemExit(f"{origin}:{node.lineno}: areas.py may hold only imports of "
                             "area modules (the route index is built from them)")
    return modules


def describe(route: Route) -> str:
    return f"{route.handler.__module__}.{route.handler.__qualname__}"


def build() -> tuple[list[tuple], dict[tuple, str]]:
    """(route keys in the full table's order, handler of each key); fresh process only."""
    if TABLE.routes:
        raise SystemExit("the route index must be built in a fresh interpreter "
                         f"(run: {WRITE_COMMAND})")
    for module in area_modules():
        importlib.import_module(module)
    before = len(TABLE.routes)
    importlib.import_module(route_index_data.EVERY_AREA)
    if len(TABLE.routes) != before:
        raise SystemExit("importing chalicelib.areas registered routes its imports did not")
    keys = [route.key for route in TABLE.routes]
    if len(set(keys)) != len(keys):
        raise SystemExit("two routes share method, pattern and operationId")
    return keys, {route.key: describe(route) for route in TABLE.routes}


def credit(keys: list[tuple], handlers: dict[tuple, str], modules: list[str],
           reports: dict[str, dict | str]) -> tuple[list[tuple], list[str]]:
    """Index rows: each key with the lightest area module that registers it, with its
    handler, when imported alone (fewest routes; the earlier in areas.py on a tie).
    A route no module serves alone, or one whose handler reads the whole table, loads
    every area; the notes say which and why."""
    notes = [f"importing {m} alone fails ({report}): its routes load every area"
             for m, report in reports.items() if isinstance(report, str)]
    rows = []
    for key in keys:
        candidates = [(len(report), position, module)
                      for position, module in enumerate(modules)
                      if isinstance(report := reports.get(module), dict)
                      and report.get(key) == handlers[key]]
        module = min(candidates)[2] if candidates else route_index_data.EVERY_AREA
        if any(handlers[key].startswith(m + ".") for m in NEEDS_EVERY_AREA):
            module = route_index_data.EVERY_AREA
        elif not candidates:
            notes.append(f"no area module registers {key} alone: it loads every area")
        rows.append((*key, module))
    return rows, notes


def standalone_reports(modules: list[str]) -> dict[str, dict | str]:
    """Import each module alone, each in a forked child of this fresh interpreter:
    module -> {route key: handler} it registered, or why its import failed."""
    import json
    import os

    if TABLE.routes:
        raise SystemExit("the route index must be checked in a fresh interpreter")
    import chalicelib.http.auth  # noqa: F401 - what every area needs: imported once, shared

    reports: dict[str, dict | str] = {}
    for module in modules:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:   # the child: import one module, report its table, exit at once
            status = 0
            try:
                os.close(read)
                importlib.import_module(module)
                report = [[*route.key, describe(route)] for route in TABLE.routes]
            except BaseException as exc:  # noqa: BLE001 - reported by the parent
                report, status = f"{type(exc).__name__}: {exc}", 1
            with os.fdopen(write, "w") as out:
                json.dump(report, out)
            os._exit(status)
        os.close(write)
        with os.fdopen(read) as answer:
            report = json.loads(answer.read() or '"no answer"')
        os.waitpid(pid, 0)
        reports[module] = report if isinstance(report, str) else {
            tuple(item[:4]): item[4] for item in report}
    return reports


def render(rows: list[tuple]) -> str:
    lines = ['"""The route index: generated from the full route table by',
             f"``{WRITE_COMMAND}``; do not edit (a test fails when it is stale).",
             "",
             "Rows in the full table's order: (method, pattern, raw, operationId, the module",
             "whose import registers the route; EVERY_AREA: load every area first).",
             '"""',
             f"EVERY_AREA = {route_index_data.EVERY_AREA!r}",
             "",
             "ROUTES = ("]
    lines += [f"    {row!r}," for row in rows]
    lines += [")", "",
              "# Matching precedence by route key (method, pattern, raw, operationId).",
              "ORDER = {row[:4]: position for position, row in enumerate(ROUTES)}", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    import argparse
    from pathlib import Path

    parser = argparse.ArgumentParser(description="Generate or check the route index.")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help=f"rewrite {DATA_FILE}")
    action.add_argument("--check", action="store_true", help="exit 1 when it is stale")
    args = parser.parse_args(argv)
    modules = area_modules()
    # Before this process imports any area module: children must start from nothing.
    reports = standalone_reports([m for m in modules if m not in NEEDS_EVERY_AREA])
    keys, handlers = build()
    rows, notes = credit(keys, handlers, modules, reports)
    for note in notes:
        print(f"note: {note}")
    current = [tuple(row) for row in route_index_data.ROUTES]
    path = Path(__file__).resolve().parents[2] / DATA_FILE
    if args.write:
        if rows != current:
            path.write_text(render(rows), encoding="utf-8")
        print(f"{'wrote' if rows != current else 'unchanged:'} {DATA_FILE}: {len(rows)} routes")
    elif rows != current:
        added = [row[:4] for row in rows if row not in current][:5]
        dropped = [row[:4] for row in current if row not in rows][:5]
        print(f"{DATA_FILE} is stale (added {added}, dropped {dropped}, or order or module "
              f"changed); run: {WRITE_COMMAND}")
        return 1
    if args.check:
        print(f"ok: {DATA_FILE} matches the route table ({len(rows)} routes, "
              f"{len({row[4] for row in rows})} modules to import from)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
