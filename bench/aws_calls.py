"""AWS calls per API operation, counted under moto (in-process, no network).

Every route in the route table is called through the real Lambda handler
``app(event, None)`` with an API Gateway proxy event, on its success path, and every AWS
API call it makes is counted through ``chalicelib.aws.add_call_hook`` (botocore
``before-call`` events on the app's boto3 clients and PynamoDB's client).  The
scenarios live in bench/scenarios_*.py and bench/issue_calls.py; BUDGETS below.

    .venv/bin/python bench/aws_calls.py [--json]
    BENCH_ONLY=opA,opB .venv/bin/python bench/aws_calls.py   # just those operations

Exit status (bits, added up; 0 = all well):
  1  a budget was exceeded, or a budgeted operation was not measured;
  4  a route has no scenario (and is not in EXEMPT);
  8  a scenario did not succeed: unexpected status or answer, a status that is not the
     route's success status (its count would measure an error path), or its set-up
     failed.
Every problem is printed on its own line under PROBLEMS, naming the operation.
"""
from __future__ import annotations

import importlib
import os
import sys
import time
from collections import Counter

import _harness

# Cheap scrypt (as in the tests): the bench counts calls, not hashing time.
_harness.use_repo({"NIMBUS__SERVER__ROOT_URL": "http://nimbus.test/",
                   "NIMBUS__SECURITY__PASSWORD_HASH_COST": "1024"})


import issue_calls  # noqa: E402
import scenarios_commits  # noqa: E402
import scenarios_contents  # noqa: E402
import scenarios_git  # noqa: E402
import scenarios_orgs  # noqa: E402
import scenarios_protection  # noqa: E402
import scenarios_pulls  # noqa: E402
import scenarios_quota  # noqa: E402
import scenarios_releases  # noqa: E402
import scenarios_repos  # noqa: E402
import scenarios_reviews  # noqa: E402
import scenarios_users  # noqa: E402
import scenarios_webhooks  # noqa: E402
from scene import Req, Scene, moto_scene, settings_in_force  # noqa: E402

# (operationId, auth) -> most AWS calls allowed for that request.
BUDGETS = {
    # Pull requests (issue 11): the issue item and tracker come with the preload.
    ("repoGetPullRequest", "anon"): 3,
    ("repoGetPullRequest", "token"): 3,
    # A page of pull requests: the tips of their branches come in one more batch, so a
    # pull request whose branch moved reads "checking" until examined (issue 27).
    ("repoListPullRequests", "anon"): 4,
    ("repoListPullRequests", "token"): 4,
    # Commits (issue 14): the preload, then the pool's packs; the total is counted in
    # memory with a bound (services/commit_views), at no further call.  Then the page's
    # author and committer users, linked by e-mail as Forgejo does (issue 24): one
    # batched read of the e-mail claims, and one of their accounts when they were not
    # read already (here the owner's were: a page by other users costs 6), at any
    # number of commits.
    ("repoGetAllCommits", "anon"): 5,
    ("repoGetAllCommits", "token"): 5,
    # Writes (issue 9): reads in two batched rounds (gateway preload), one transaction.
    ("issueCreateIssue", "token"): 4,
    ("issueCreateComment", "token"): 4,
    ("createCurrentUserRepo", "token"): 4,    # no auto_init
    ("repoEdit", "token"): 3,
    # A rename: the preload, whether the new name is free, one transaction (the item
    # moved, its id link, the redirect left and the one at the new name removed, the event).
    ("repoEdit", "admin"): 4,
    ("adminCreateUser", "admin"): 4,
    ("issueEditIssue", "token"): 4,
    ("issueAddLabel", "token"): 4,
    # Reads.
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
    # Other common reads, at what they cost when these budgets were set.
    ("orgGet", "anon"): 1,
    ("orgGet", "token"): 3,
    ("repoListBranches", "anon"): 5,
    ("repoGetBranch", "anon"): 4,
    ("repoGetRawFile", "anon"): 4,
    ("repoGetContents", "anon"): 4,   # contents API (issue 14): as the raw file
    ("userCurrentListRepos", "token"): 5,
    ("issueGetComments", "token"): 3,
    ("issueListLabels", "token"): 2,
    ("issueGetMilestonesList", "token"): 2,
    ("gitInfoRefs", "anon"): 4,
    ("gitUploadPack", "anon"): 4,
    ("userGet", "token"): 2,
    ("userListRepos", "anon"): 2,
    # A page of the search index (one Query of the keyword's gram list), then one batch
    # of the page's repositories, their owners and the caller's access to each
    # (chalicelib/search, docs/search.md).  With a token also: the token and its account
    # (2), the ids of the caller's organizations and of the repositories they
    # collaborate on (a Query each, at any number: they widen the index's filter to the
    # private repositories the caller reaches, each checked by the read rule in the
    # same batch).
    ("repoSearch", "anon"): 2,
    ("repoSearch", "token"): 6,
    # User lists (issue 24): one Query of the user index (gsi2 USERS) for the page and
    # its bounded look-ahead, after the caller's token and account.
    ("userSearch", "anon"): 1,
    ("userSearch", "token"): 3,
    ("adminSearchUsers", "admin"): 3,
    # Commit statuses: the preload, then one Query (list) or, for a branch, one GetItem of
    # the commit's summary (combined: at any number of contexts; a full id comes with the
    # preload).
    ("repoListStatuses", "anon"): 3,
    ("repoListStatuses", "token"): 3,
    ("repoGetCombinedStatusByRef", "anon"): 3,
    ("repoGetCombinedStatusByRef", "token"): 3,
    ("repoGetCombinedStatusByRefModern", "anon"): 3,
    ("repoGetCombinedStatusByRefModern", "token"): 3,
    # The preload (with the commit's summary), the pool's pack list to read the commit
    # from git (warm pack cache), one transaction.
    ("repoCreateStatus", "token"): 4,
    # Quota (issue 12): the token with the organization's name claim, then the caller,
    # the organization, the caller's membership and the usage item, then one Query of
    # the rules and groups.
    ("orgGetQuota", "token"): 3,
    ("userGetQuota", "token"): 3,
    # Releases (issue 12): the preload, then one Query for the release with its
    # attachments, or for every release of the repository with theirs (a page).
    ("repoGetRelease", "anon"): 3,
    ("repoGetRelease", "token"): 3,
    ("repoListReleases", "anon"): 3,
    ("repoListReleases", "token"): 3,
}

# operationId -> why its success path cannot be reached in the bench.  Keep it empty
# if at all possible: a route listed here is not measured.
EXEMPT: dict[str, str] = {
    "applyLargePush": "needs a bundle uploaded to S3 through the presigned URL first "
                      "(tests/git_transport/test_large_push.py runs the whole path)",
}

# operationId -> scenario: a function of the scene that may prepare state (not counted)
# and returns the requests to measure; several requests measure one operation under
# several auth modes.
SCENARIOS = {**scenarios_users.scenarios(), **scenarios_repos.scenarios(),
             **scenarios_git.scenarios(), **scenarios_orgs.scenarios(),
             **issue_calls.scenarios(), **scenarios_pulls.scenarios(), **scenarios_quota.scenarios(),
             **scenarios_releases.scenarios(), **scenarios_webhooks.scenarios(),
             **scenarios_commits.scenarios(), **scenarios_contents.scenarios(),
             **scenarios_reviews.scenarios()}

# The git data API (trees, blobs, refs, annotated tags, notes): its scenarios and budgets.
import scenarios_git_data  # noqa: E402

SCENARIOS.update(scenarios_git_data.scenarios())
BUDGETS.update(scenarios_commits.BUDGETS)
BUDGETS.update(scenarios_git.BUDGETS)
BUDGETS.update(scenarios_git_data.BUDGETS)
BUDGETS.update(scenarios_reviews.BUDGETS)

# Branch and tag protection (issue 27).
SCENARIOS.update(scenarios_protection.scenarios())
BUDGETS.update(scenarios_protection.BUDGETS)

# The areas whose scenario modules carry their own budgets, each a module with
# ``scenarios()`` and ``BUDGETS``: Git LFS and its locks (issue 28); blocks, avatars,
# follows and e-mail addresses, organization lists and user settings, notifications and
# issue subscriptions, activity feeds and the heatmap, user webhooks, renames (issue 36).
for _module in ("scenarios_lfs", "scenarios_lfs_locks", "scenarios_blocks",
                "scenarios_avatars", "scenarios_follows", "scenarios_people",
                "scenarios_notifications", "scenarios_activity", "scenarios_user_hooks",
                "scenarios_renames", "scenarios_instance", "scenarios_reactions", "scenarios_timeline",
                "scenarios_issue_times", "scenarios_topics", "scenarios_org_labels", "scenarios_dependencies", "scenarios_issue_templates", "scenarios_issue_search", "scenarios_attachments",
                "scenarios_lifecycle", "scenarios_repo_tools", "scenarios_wiki",
                "scenarios_migrations", "scenarios_oauth2", "scenarios_gpg_verify",
                "scenarios_cron", "scenarios_telemetry", "scenarios_audit", "scenarios_deleted",
                "scenarios_ref_history"):
    _area = importlib.import_module(_module)
    SCENARIOS.update(_area.scenarios())
    BUDGETS.update(_area.BUDGETS)

EXEMPT.update(importlib.import_module("scenarios_lifecycle").EXEMPT)
EXEMPT.update(importlib.import_module("scenarios_oauth2").EXEMPT)

NOTE = "Counts are API calls (botocore before-call); retries of one call are not counted again."
# Kinds of problem and their exit status bits.
EXIT_BITS = {"budget": 1, "no_scenario": 4, "scenario": 8}


def breakdown(calls: dict) -> str:
    return ", ".join(f"{name} x{n}" for name, n in sorted(calls.items())) or "-"


def success_statuses(route) -> set[int]:
    """The statuses a route documents for success (any 2xx/3xx when it documents none)."""
    declared = {code for code in route.responses if 200 <= code < 400}
    return declared or set(range(200, 400))


def failure(body: bytes, unhandled: str) -> str:
    """What a failed request answered, and the unhandled exception behind a 500."""
    answer = body[:200].decode(errors="replace").strip()
    return f"{answer} [{unhandled}]" if unhandled else answer


def measure_routes(scene: Scene, routes, measure) -> tuple[list, list, list]:
    """(rows, routes without scenario, scenarios that could not run)."""
    rows, missing = [], []
    known = {route.operation_id for route in routes}
    broken = [f"STALE: {op}: no such route, yet a scenario or exemption names it"
              for op in sorted((SCENARIOS.keys() | EXEMPT.keys()) - known)]
    for route in routes:
        op = route.operation_id
        make = SCENARIOS.get(op)
        if op in EXEMPT:
            continue
        if make is None:
            missing.append(f"{route.method} {route.pattern} {op}")
            continue
        try:
            requests = make(scene)   # preparation happens here, before counting
        except Exception as exc:  # noqa: BLE001 - report it with the operation, go on
            broken.append(f"SET-UP FAILED: {op}: {type(exc).__name__}: {exc}"[:500])
            continue
        for req in requests:
            target = req.path if route.raw else "/api/v1" + req.path
            with settings_in_force(req.settings):
                status, body, calls = measure(req, target)
            rows.append({
                "operation": op, "auth": req.auth, "method": req.method, "path": target,
                "status": status, "expected": req.expect, "calls": sum(calls.values()),
                "breakdown": dict(sorted(calls.items())),
                "success_path": req.expect in success_statuses(route),
                "answer_ok": req.expect_body is None or req.expect_body in body,
                "answer": "" if status == req.expect else failure(body, scene.errors.last)})
    return rows, missing, broken


def run() -> dict:
    from chalicelib.http.routes import load_routes

    counting: list[Counter] = []   # the open count, if any

    def hook(model, **_):
        if counting:
            counting[-1][f"{model.service_model.service_name}:{model.name}"] += 1

    def measure(req, target):
        counting.append(Counter())
        try:
            status, body = scene.call(req.method, target, req.auth, req.body, data=req.data,
                                      content_type=req.content_type)
        finally:
            calls = counting.pop()
        return status, body, calls

    with moto_scene("nimbus-bench-", hook) as scene:
        rows, missing, broken, warm = [], [], [], Counter()
        try:
            scene.build()
        except Exception as exc:  # noqa: BLE001 - nothing can be measured: say why
            broken.append(f"SET-UP FAILED: the scene (bench/scene.py Scene.build), so nothing "
                          f"was measured: {type(exc).__name__}: {exc}"[:600])
        else:
            # A throwaway request so per-process costs (lazy imports, client set-up, any
            # table description) are not charged to whichever operation happens to go
            # first; its count is shown, so a one-time cost would still be visible there.
            _, _, warm = measure(Req("GET", "/users/root", "token"), "/api/v1/users/root")
            routes = load_routes().routes
            only = {op for op in os.environ.get("BENCH_ONLY", "").split(",") if op}
            if only:
                # A quick look at a few operations while building them: the others,
                # and what is missing or stale among them, are left out.
                rows, _, broken = measure_routes(
                    scene, [r for r in routes if r.operation_id in only], measure)
                missing, broken = [], [b for b in broken if not b.startswith("STALE")]
                for key in [key for key in BUDGETS if key[0] not in only]:
                    del BUDGETS[key]
            else:
                rows, missing, broken = measure_routes(scene, routes, measure)
    return summarize(rows, missing, broken, warm)


def summarize(rows: list, missing: list, broken: list, warm: Counter) -> dict:
    measured = {(r["operation"], r["auth"]): r for r in rows}
    budgets, problems = [], []
    for (op, auth), limit in BUDGETS.items():
        row = measured.get((op, auth))
        entry = {"operation": op, "auth": auth, "max": limit,
                 "calls": row["calls"] if row else None,
                 "breakdown": row["breakdown"] if row else {},
                 "ok": row is not None and row["calls"] <= limit}
        budgets.append(entry)
        if row is None:
            problems.append(("budget", f"BUDGET {op} ({auth}): not measured "
                                       f"(no scenario, or its set-up failed)"))
        elif not entry["ok"]:
            problems.append(("budget", f"BUDGET {op} ({auth}): {row['calls']} calls, "
                                       f"budget <= {limit}: {breakdown(row['breakdown'])}"))
    problems += [("no_scenario", f"NO SCENARIO: {entry} (add one in bench/scenarios_*.py)")
                 for entry in missing]
    problems += [("scenario", entry) for entry in broken]
    for r in rows:
        where = f"{r['operation']} ({r['auth']}) {r['method']} {r['path']}"
        if r["status"] != r["expected"]:
            problems.append(("scenario", f"UNEXPECTED STATUS: {where}: got {r['status']}, "
                                         f"expected {r['expected']}: {r['answer']}"))
        elif not r["answer_ok"]:
            problems.append(("scenario", f"UNEXPECTED ANSWER: {where}: {r['status']} "
                                         f"without the success report"))
        if not r["success_path"]:
            problems.append(("scenario", f"ERROR PATH: {where}: expects {r['expected']}, "
                                         f"not a success status of the route"))
    exit_status = 0
    for kind in {kind for kind, _ in problems}:
        exit_status |= EXIT_BITS[kind]
    return {"warmup": {"calls": sum(warm.values()), "breakdown": dict(warm)},
            "operations": rows, "no_scenario": missing, "exempt": EXEMPT,
            "budgets": budgets,
            "problems": [{"kind": kind, "text": text} for kind, text in problems],
            "exit_status": exit_status, "password_check_ms": password_check_ms(),
            "ok": not problems}


def password_check_ms() -> dict[int, float]:
    """Calls are not the whole cost of a password login: time one check per cost."""
    from chalicelib.accounts.passwords import hash_password, verify_password

    timed = {}
    for cost in (1024, 16384):
        stored = hash_password("secret-pass-1", cost)
        start = time.perf_counter()
        verify_password("secret-pass-1", stored)
        timed[cost] = round((time.perf_counter() - start) * 1e3, 1)
    return timed


def print_table(result: dict) -> None:
    head = ("operationId", "auth", "method", "path", "status", "calls", "breakdown")
    lines = [(r["operation"], r["auth"], r["method"], r["path"],
              str(r["status"]) + ("" if r["status"] == r["expected"] else f"!={r['expected']}"),
              str(r["calls"]), breakdown(r["breakdown"])) for r in result["operations"]]
    widths = [max(len(x[i]) for x in [head, *lines]) for i in range(len(head) - 1)]
    for line in [head, *lines]:
        print("  ".join(c.ljust(w) for c, w in zip(line, widths)) + "  " + line[-1])
    print(f"\nwarm-up request (GET /api/v1/users/root, token): {result['warmup']['calls']} "
          f"calls: {breakdown(result['warmup']['breakdown'])}")
    for op, why in result["exempt"].items():
        print(f"EXEMPT: {op}: {why}")
    print("\nbudgets:")
    for b in result["budgets"]:
        if b["calls"] is None:
            print(f"  MISS {b['operation']} ({b['auth']}): not measured, budget <= {b['max']}")
            continue
        print(f"  {'ok  ' if b['ok'] else 'OVER'} {b['operation']} ({b['auth']}): "
              f"{b['calls']} calls, budget <= {b['max']}"
              + ("" if b["ok"] else f": {breakdown(b['breakdown'])}"))
    by_auth = {r["auth"]: r for r in result["operations"] if r["operation"] == "userGetCurrent"}
    if {"token", "basic"} <= by_auth.keys():
        t, b = by_auth["token"], by_auth["basic"]
        print(f"\nGET /user by token: {t['calls']} calls ({breakdown(t['breakdown'])}); "
              f"by password (Basic): {b['calls']} calls ({breakdown(b['breakdown'])}).")
    cost = result["password_check_ms"]
    print("Every password login also runs scrypt (CPU, not calls): "
          + ", ".join(f"{ms} ms at cost {n}" for n, ms in cost.items())
          + "\n(this run uses cost 1024; production default 16384).")
    print(NOTE)
    routes = len({r["operation"] for r in result["operations"]})
    if result["problems"]:
        print(f"\nPROBLEMS ({len(result['problems'])}; exit status {result['exit_status']}):")
        for problem in result["problems"]:
            print(f"  {problem['text']}")
    else:
        print(f"\nok: {routes} operations measured on their success path, "
              f"{len(result['budgets'])} budgets met.")


def main() -> int:
    return _harness.report(__doc__, run, print_table)


# The web pages (chalicelib/web): their scenarios, exemptions and budgets.
import scenarios_web  # noqa: E402

SCENARIOS.update(scenarios_web.scenarios())
EXEMPT.update(scenarios_web.EXEMPT)
BUDGETS.update(scenarios_web.BUDGETS)


if __name__ == "__main__":
    sys.exit(main())
