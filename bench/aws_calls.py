"""AWS calls per API operation, counted under moto (in-process, no network).

Every route in the route table is called once through the real Lambda handler
``app(event, None)`` with an API Gateway proxy event, and every AWS API call it makes
is counted through ``chalicelib.aws.add_call_hook`` (botocore ``before-call`` events on
the app's boto3 clients and PynamoDB's client).  Budgets in BUDGETS fail the run.

    .venv/bin/python bench/aws_calls.py [--json]

Exit status: 0 all within budget; 1 a budget was exceeded, a budgeted scenario is
missing, or a scenario got an unexpected status (its count would measure an error path).
"""
from __future__ import annotations

import argparse
import base64
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass

import _harness

# Cheap scrypt (as in the tests): the bench counts calls, not hashing time.
_harness.use_repo({"NIMBUS__SERVER__ROOT_URL": "http://nimbus.test/",
                   "NIMBUS__SECURITY__PASSWORD_HASH_COST": "1024"})

from moto import mock_aws  # noqa: E402

import issue_calls  # noqa: E402

# (operationId, auth) -> most AWS calls allowed for that request.
BUDGETS = {
    ("repoGet", "token"): 2,
    ("repoGet", "anon"): 2,
    ("userGetCurrent", "token"): 2,   # token GetItem + account GetItem
    ("userGet", "anon"): 1,           # one gsi1 Query by name
    ("getVersion", "anon"): 0,
    ("getGeneralAPISettings", "anon"): 0,
    # Issue tracker: token+repository, then caller/owner/access + tracker (+ the issue),
    # then one Query for the page, at any page of a long history.
    ("issueListIssues", "token"): 3,
    ("issueListIssues", "anon"): 3,
    ("issueGetIssue", "token"): 2,
    ("issueGetIssue", "anon"): 2,
}

ADMIN = ("root", "root-password-1")
USER = ("alice", "alice-password-1")
LOGINS = {"basic": USER, "root-basic": ADMIN}   # password auth modes (root-basic: set-up only)
NOTE = "Counts are API calls (botocore before-call); retries of one call are not counted again."


@dataclass
class Req:
    method: str
    path: str                 # below /api/v1 unless the route is raw
    auth: str = "anon"        # anon | token (alice) | basic (alice's password) | admin (token)
    body: dict | None = None
    expect: int = 200


class Scene:
    """The app under moto with an admin, a user with a password, tokens and a key."""

    def __init__(self, app):
        self.app = app
        self.tokens: dict[str, str] = {}   # auth mode -> token secret
        self.serial = 0
        self.key_id = 0

    def call(self, method, target, auth="anon", body=None) -> tuple[int, bytes]:
        from chalicelib.local.events import build_event, read_result

        headers = []
        if auth in LOGINS:
            headers.append(("Authorization", "Basic " + base64.b64encode(
                ":".join(LOGINS[auth]).encode()).decode()))
        elif auth in self.tokens:
            headers.append(("Authorization", "token " + self.tokens[auth]))
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers.append(("Content-Type", "application/json"))
        status, _, out = read_result(self.app(build_event(method, target, headers, data), None))
        return status, out

    def must(self, method, path, auth, body=None, expect=201) -> dict:
        status, out = self.call(method, "/api/v1" + path, auth, body)
        assert status == expect, (method, path, status, out[:300])
        return json.loads(out) if out else {}

    def unique(self, prefix: str) -> str:
        self.serial += 1
        return f"{prefix}{self.serial}"

    # Scene helpers: each makes something a scenario can then read or delete.
    def user_option(self) -> dict:
        name = self.unique("user")
        return {"username": name, "password": "secret-pass-1", "email": f"{name}@x.test"}

    def new_user(self) -> str:
        return self.must("POST", "/admin/users", "admin", self.user_option())["login"]

    def new_token(self, name: str) -> str:
        return self.must("POST", f"/users/{USER[0]}/tokens", "basic",
                         {"name": name, "scopes": ["all"]})["sha1"]

    def spare_token(self) -> str:
        name = self.unique("tok")
        self.new_token(name)
        return name

    def new_key(self) -> int:
        return self.must("POST", "/user/keys", "token",
                         {"title": self.unique("key"), "key": ssh_key()})["id"]

    def build(self) -> None:
        from chalicelib.services.accounts import ensure_admin

        ensure_admin(ADMIN[0], ADMIN[1], "root@example.com")
        self.tokens["admin"] = self.must("POST", f"/users/{ADMIN[0]}/tokens", "root-basic",
                                         {"name": "bench", "scopes": ["all"]})["sha1"]
        self.must("POST", "/admin/users", "admin", {
            "username": USER[0], "password": USER[1], "email": "alice@example.com"})
        self.tokens["token"] = self.new_token("bench")
        self.key_id = self.new_key()
        self.must("POST", "/user/repos", "token", {"name": "demo", "auto_init": True})

    def new_repo(self, auto_init: bool = False) -> str:
        name = self.unique("repo")
        self.must("POST", "/user/repos", "token", {"name": name, "auto_init": auto_init})
        return name


def ssh_key() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    return ed25519.Ed25519PrivateKey.generate().public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH).decode()


# operationId -> scenarios.  Each gets the scene and may prepare state first (those
# calls are not counted); a list gives the same operation under several auth modes.
SCENARIOS = {
    "getVersion": lambda s: [Req("GET", "/version")],
    "getGeneralAPISettings": lambda s: [Req("GET", "/settings/api")],
    "getSwaggerDocument": lambda s: [Req("GET", "/swagger.v1.json")],
    "redirectToSwaggerPage": lambda s: [Req("GET", "/swagger", expect=301)],
    "getSwaggerPage": lambda s: [Req("GET", "/api/swagger")],
    "userGetCurrent": lambda s: [Req("GET", "/user", "token"), Req("GET", "/user", "basic")],
    "userGet": lambda s: [Req("GET", "/users/alice"), Req("GET", "/users/alice", "token")],
    "userGetTokens": lambda s: [Req("GET", "/users/alice/tokens", "token")],
    "userCreateToken": lambda s: [Req("POST", "/users/alice/tokens", "basic",
                                      {"name": s.unique("tok"), "scopes": ["all"]}, 201)],
    "userDeleteAccessToken": lambda s: [Req("DELETE", f"/users/alice/tokens/{s.spare_token()}",
                                            "basic", expect=204)],
    "userCurrentListKeys": lambda s: [Req("GET", "/user/keys", "token")],
    "userListKeys": lambda s: [Req("GET", "/users/alice/keys")],
    "userCurrentPostKey": lambda s: [Req("POST", "/user/keys", "token",
                                         {"title": s.unique("key"), "key": ssh_key()}, 201)],
    "userCurrentGetKey": lambda s: [Req("GET", f"/user/keys/{s.key_id}", "token")],
    "userCurrentDeleteKey": lambda s: [Req("DELETE", f"/user/keys/{s.new_key()}", "token",
                                           expect=204)],
    "adminCreateUser": lambda s: [Req("POST", "/admin/users", "admin", s.user_option(), 201)],
    "adminEditUser": lambda s: [Req("PATCH", "/admin/users/alice", "admin",
                                    {"full_name": s.unique("Alice ")})],
    "adminDeleteUser": lambda s: [Req("DELETE", f"/admin/users/{s.new_user()}", "admin",
                                      expect=204)],
    "adminCreatePublicKey": lambda s: [Req("POST", "/admin/users/alice/keys", "admin",
                                           {"title": s.unique("key"), "key": ssh_key()}, 201)],
    "adminDeleteUserPublicKey": lambda s: [Req("DELETE", f"/admin/users/alice/keys/{s.new_key()}",
                                               "admin", expect=204)],
    "createCurrentUserRepo": lambda s: [Req("POST", "/user/repos", "token",
                                            {"name": s.unique("repo")}, 201)],
    "adminCreateRepo": lambda s: [Req("POST", "/admin/users/alice/repos", "admin",
                                      {"name": s.unique("repo")}, 201)],
    "repoGet": lambda s: [Req("GET", "/repos/alice/demo"), Req("GET", "/repos/alice/demo", "token")],
    "repoDelete": lambda s: [Req("DELETE", f"/repos/alice/{s.new_repo()}", "token", expect=204)],
    "repoSearch": lambda s: [Req("GET", "/repos/search?q=demo")],
    "userCurrentListRepos": lambda s: [Req("GET", "/user/repos", "token")],
    "userListRepos": lambda s: [Req("GET", "/users/alice/repos")],
    "listForks": lambda s: [Req("GET", "/repos/alice/demo/forks")],
    "createFork": lambda s: [Req("POST", "/repos/alice/demo/forks", "admin",
                                 {"name": s.unique("fork")}, 202)],
    "repoListBranches": lambda s: [Req("GET", "/repos/alice/demo/branches")],
    "repoGetBranch": lambda s: [Req("GET", "/repos/alice/demo/branches/main")],
    "repoGetRawFile": lambda s: [Req("GET", "/repos/alice/demo/raw/README.md")],
    "repoGetEditorConfig": lambda s: [Req("GET", "/repos/alice/demo/editorconfig/a.py",
                                          expect=404)],
    "repoGetArchive": lambda s: [Req("GET", "/repos/alice/demo/archive/main.zip")],
    "gitInfoRefs": lambda s: [Req("GET", "/alice/demo.git/info/refs?service=git-upload-pack")],
    # Issue tracker (bench/issue_calls.py builds a 150-issue history first).
    "issueListIssues": lambda s: (issue_calls.history(s), [
        Req("GET", "/repos/alice/demo/issues?page=4&limit=20", "token"),
        Req("GET", "/repos/alice/demo/issues?state=all&page=7&limit=10")])[1],
    "issueGetIssue": lambda s: (issue_calls.history(s), [
        Req("GET", "/repos/alice/demo/issues/140", "token"),
        Req("GET", "/repos/alice/demo/issues/140")])[1],
}
SCENARIOS.update({op: make for op, make in issue_calls.scenarios(Req).items()
                  if op not in SCENARIOS})


def breakdown(calls: Counter) -> str:
    return ", ".join(f"{name} x{n}" for name, n in sorted(calls.items())) or "-"


def run() -> dict:
    from chalicelib import aws
    from chalicelib.api.gateway import _load_routes
    from chalicelib.api.router import TABLE
    from chalicelib.store import table
    from infra.bootstrap import ensure_resources

    counting: list[Counter] = []   # the open count, if any

    def hook(model, **_):
        if counting:
            counting[-1][f"{model.service_model.service_name}:{model.name}"] += 1

    def measure(scene, method, target, auth, body):
        counting.append(Counter())
        try:
            status, _ = scene.call(method, target, auth, body)
        finally:
            calls = counting.pop()
        return status, calls

    with mock_aws():
        aws.reset_clients()
        table.configure()
        ensure_resources()
        aws.add_call_hook(hook)
        from app import app

        scene = Scene(app)
        scene.build()
        # A throwaway request so per-process costs (lazy imports, client set-up, any
        # table description) are not charged to whichever operation happens to go first;
        # its count is shown, so a one-time cost would still be visible there.
        _, warm = measure(scene, "GET", "/api/v1/users/root", "token", None)

        _load_routes()
        rows, missing = [], []
        for route in TABLE.routes:
            make = SCENARIOS.get(route.operation_id)
            if make is None:
                missing.append(f"{route.method} {route.pattern} {route.operation_id}")
                continue
            for req in make(scene):   # preparation happens here, before counting
                target = req.path if route.raw else "/api/v1" + req.path
                status, calls = measure(scene, req.method, target, req.auth, req.body)
                rows.append({"operation": route.operation_id, "auth": req.auth,
                             "method": req.method, "path": target, "status": status,
                             "expected": req.expect, "calls": sum(calls.values()),
                             "breakdown": dict(sorted(calls.items()))})

    measured = {(r["operation"], r["auth"]): r for r in rows}
    budgets = []
    for (op, auth), limit in BUDGETS.items():
        row = measured.get((op, auth))
        budgets.append({"operation": op, "auth": auth, "max": limit,
                        "calls": row["calls"] if row else None,
                        "ok": row is not None and row["calls"] <= limit})
    unexpected = [r for r in rows if r["status"] != r["expected"]]
    # Calls are not the whole cost of a password login: time one check per cost.
    from chalicelib.services.passwords import hash_password, verify_password
    password_ms = {}
    for cost in (1024, 16384):
        stored = hash_password("secret-pass-1", cost)
        start = time.perf_counter()
        verify_password("secret-pass-1", stored)
        password_ms[cost] = round((time.perf_counter() - start) * 1e3, 1)
    return {"warmup": {"calls": sum(warm.values()), "breakdown": dict(warm)},
            "operations": rows, "no_scenario": missing, "budgets": budgets,
            "password_check_ms": password_ms,
            "ok": all(b["ok"] for b in budgets) and not unexpected}


def print_table(result: dict) -> None:
    head = ("operationId", "auth", "method", "path", "status", "calls", "breakdown")
    lines = [(r["operation"], r["auth"], r["method"], r["path"],
              str(r["status"]) + ("" if r["status"] == r["expected"] else f"!={r['expected']}"),
              str(r["calls"]), breakdown(Counter(r["breakdown"]))) for r in result["operations"]]
    widths = [max(len(x[i]) for x in [head, *lines]) for i in range(len(head) - 1)]
    for line in [head, *lines]:
        print("  ".join(c.ljust(w) for c, w in zip(line, widths)) + "  " + line[-1])
    print(f"\nwarm-up request (GET /api/v1/users/root, token): {result['warmup']['calls']} "
          f"calls: {breakdown(Counter(result['warmup']['breakdown']))}")
    for entry in result["no_scenario"]:
        print(f"NO SCENARIO: {entry} (add one to SCENARIOS in bench/aws_calls.py)")
    for r in result["operations"]:
        if r["status"] != r["expected"]:
            print(f"UNEXPECTED STATUS: {r['operation']} ({r['auth']}) got {r['status']}, "
                  f"expected {r['expected']}")
    print("\nbudgets:")
    for b in result["budgets"]:
        got = "no scenario" if b["calls"] is None else f"{b['calls']} calls"
        print(f"  {'ok  ' if b['ok'] else 'OVER'} {b['operation']} ({b['auth']}): {got}, "
              f"budget <= {b['max']}")
    by_auth = {r["auth"]: r for r in result["operations"] if r["operation"] == "userGetCurrent"}
    if {"token", "basic"} <= by_auth.keys():
        t, b = by_auth["token"], by_auth["basic"]
        print(f"\nGET /user by token: {t['calls']} calls ({breakdown(Counter(t['breakdown']))}); "
              f"by password (Basic): {b['calls']} calls ({breakdown(Counter(b['breakdown']))}).")
    cost = result["password_check_ms"]
    print("Every password login also runs scrypt (CPU, not calls): "
          + ", ".join(f"{ms} ms at cost {n}" for n, ms in cost.items())
          + "\n(this run uses cost 1024; production default 16384).")
    print(NOTE)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args()
    result = run()
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
    else:
        print_table(result)
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
