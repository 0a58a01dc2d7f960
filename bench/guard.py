"""The guards: what is fast stays fast.  ``make bench-guard`` runs them (``.ci/run``
too) and fails when a ratio measured in this run passes its limit.

    .venv/bin/python bench/guard.py [--only cold-start git lists events] [--json]

Every guard is a ratio of two things measured side by side in the same run, never a
time against a number fixed in advance, so a slower or busier machine moves both
sides.  Each repeats, its sides taking turns, until its ratio is stable:

- ``cold-start``: the whole cold start (import + first request through the Lambda
  handler) against a bare Chalice app replaying the same DynamoDB calls
  (``cold_start.py``), fastest of the samples so far, CPU and wall: at most
  ``COLD_START_LIMIT`` each;
- ``git``: a generated history with a real project's shape (``history_gen.py``:
  3,000 commits, merges, renames, 180 tags, 12 MB packed) pushed (100 refs) and
  fetched (one new commit, into a clone and into a mirror clone) through ``make run``
  against C git's ``http-backend`` (``git_history.py``): at most ``GIT_LIMIT`` each,
  the fastest Nimbus run over the fastest C git run; the clone's refs and ``git fsck``
  equal C git's;
- ``lists``: an owner's repository list, an owner's repository search, a search of
  every repository and the explore page on two ``make run`` instances at once, one
  holding ten times the other's repositories (``list_sizes.py``): the larger's median
  at most ``list_sizes.LIMIT`` times the smaller's;
- ``events``: on ``make run``, after 300 tags pushed to one repository in three
  pushes, a "Closes #N" pushed to another closes its issue within ``EVENTS_LIMIT``
  seconds (``events_queue.py``): a latency, measured twice when over (the better
  kept), since its other side is the time itself.

The AWS calls each operation makes have their budgets in ``make test``
(``tests/test_call_budgets.py``).
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

COLD_START_LIMIT = 1.25
GIT_LIMIT = 1.5
GIT_GUARDED = ("push", "fetch 1 new commit", "fetch 1 new commit (mirror)")
EVENTS_LIMIT = 5.0
# A guard's rounds stop when its ratios moved at most this much in the last round
# (relative), or after its most rounds.
STABLE = 0.03


def _stable(previous: dict[str, float] | None, now: dict[str, float]) -> bool:
    return previous is not None and all(
        abs(now[key] - previous[key]) <= STABLE * previous[key] for key in now)


def guard_cold_start() -> dict:
    from cold_start import WholeColdStart

    with tempfile.TemporaryDirectory() as tmp:
        whole = WholeColdStart(Path(tmp))
        try:
            previous = None
            for number in range(1, 9):
                whole.sample(3, apps=("nimbus", "bare"))
                found = whole.result()
                ratios = {"CPU": found["ratio"]["cpu_ms"]["min"],
                          "wall": found["ratio"]["total_ms"]["min"]}
                if number >= 3 and _stable(previous, ratios):
                    break
                previous = ratios
        finally:
            whole.close()
    figures = {app: {"cpu_ms": found[app]["cpu_ms"]["min"],
                     "wall_ms": found[app]["total_ms"]["min"]} for app in ("nimbus", "bare")}
    return {"ratios": ratios, "limits": {key: COLD_START_LIMIT for key in ratios},
            "figures": figures, "samples": len(whole.samples["nimbus"])}


def guard_git() -> dict:
    import git_history
    from history_gen import generate

    work = Path(tempfile.mkdtemp(prefix="nimbus-guard-git-"))
    try:
        source = generate(work / "generated.git")
        with git_history.both_servers("make-run", work) as servers:
            hist = work / "history"
            hist.mkdir()
            history = git_history.HistoryBench(source, hist, 99, **servers)
            try:
                previous = None
                for number in range(1, 7):
                    table = history.run()["table"]
                    ratios = {op: table[op]["ratio"] for op in GIT_GUARDED}
                    if number >= 3 and _stable(previous, ratios):
                        break
                    if number >= 2 and any(r > 2 * GIT_LIMIT for r in ratios.values()):
                        break       # twice the limit in two runs: no need to refine
                    previous = ratios
            finally:
                history.close()
        result = history.result
    finally:
        shutil.rmtree(work, ignore_errors=True)
    git_history.print_history(result)
    check = result["check"]
    return {"ratios": ratios, "limits": {op: GIT_LIMIT for op in ratios},
            "figures": {op: {"c_git_s": row["c_git_s"], "nimbus_s": row["nimbus_s"],
                             "ratio": row["ratio"]} for op, row in result["table"].items()},
            "runs": len(result["runs"]["c_git"]),
            "failures": [] if check["refs_identical"] and check["fsck_identical"]
            else [f"the clones differ: {check}"]}


def guard_lists() -> dict:
    import list_sizes

    results = list_sizes.run([60, 600], repeat=7)
    _, found = list_sizes.report(results)
    ratios = {name: found[name] for name in list_sizes.FLAT}
    return {"ratios": ratios, "limits": {name: list_sizes.LIMIT for name in ratios},
            "figures": {r["size"]: r["median_s"] for r in results},
            "rounds": results[0]["asked"]}


def guard_events() -> dict:
    import events_queue
    from make_run import ADMIN, make_run

    latencies = []
    for _ in range(2):
        work = Path(tempfile.mkdtemp(prefix="nimbus-guard-events-"))
        try:
            with make_run(work, {"NIMBUS_CACHE_DIR": str(work / "cache"),
                                 "NIMBUS_LOG_LEVEL": "ERROR"}) as base:
                found = events_queue.run(300, 3, (base, ADMIN), work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        latencies.append(found["burst_s"])
        print(f"'Closes #N' after {found['tags']} tags: closed after {found['burst_s']:.2f} s "
              f"(idle: {found['idle_s']:.2f} s)")
        if found["burst_s"] <= EVENTS_LIMIT:
            break
    return {"ratios": {"seconds": min(latencies)}, "limits": {"seconds": EVENTS_LIMIT},
            "figures": {"burst_s": latencies, "idle_s": found["idle_s"]}}


GUARDS = {"cold-start": guard_cold_start, "git": guard_git, "lists": guard_lists,
          "events": guard_events}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=tuple(GUARDS), default=list(GUARDS))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from _harness import use_repo

    use_repo({"NIMBUS_LOG_LEVEL": "ERROR"})
    verdicts, failed = {}, []
    for name in args.only:
        print(f"== {name}", flush=True)
        started = time.monotonic()
        verdict = GUARDS[name]()
        verdict["seconds"] = round(time.monotonic() - started, 1)
        over = [f"{key} {value:.2f} > {verdict['limits'][key]}"
                for key, value in verdict["ratios"].items() if value > verdict["limits"][key]]
        verdict["failures"] = verdict.get("failures", []) + over
        verdict["ok"] = not verdict["failures"]
        verdicts[name] = verdict
        figures = ", ".join(f"{key} {value:.2f} (limit {verdict['limits'][key]})"
                            for key, value in verdict["ratios"].items())
        print(f"{name}: {figures} in {verdict['seconds']:.0f} s: "
              f"{'ok' if verdict['ok'] else 'FAILED: ' + '; '.join(verdict['failures'])}",
              flush=True)
        if not verdict["ok"]:
            failed.append(name)
    if args.json:
        print(json.dumps(verdicts, indent=2, default=str))
    print(f"\nguards: {len(verdicts) - len(failed)} of {len(verdicts)} ok"
          + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
