"""The AWS-call budgets (bench/aws_calls.py) as part of the suite.

The benchmark runs once, in its own process (it sets up moto and the environment the
way a Lambda sees them, which this process's conftest has already fixed otherwise), and
each test below reports one kind of problem with the benchmark's own lines: the
operation, its count, its budget and the calls it made.
"""
from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench" / "aws_calls.py"


def _run_bench() -> dict:
    done = subprocess.run([sys.executable, str(BENCH), "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    return {"returncode": done.returncode, "stdout": done.stdout, "stderr": done.stderr[-4000:]}


def _bench_once(tmp_path_factory) -> dict:
    """The bench's output, run once per test session.  Under xdist the tests below may be
    spread over several workers, each with this module's fixture: the first to get the
    lock runs the bench (about 30 seconds) and leaves its output for the others in the
    session's directory, shared by the workers."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return _run_bench()
    shared = tmp_path_factory.getbasetemp().parent / "aws_calls_bench.json"
    with open(f"{shared}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not shared.exists():
            shared.write_text(json.dumps(_run_bench()))
        return json.loads(shared.read_text())


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> dict:
    done = _bench_once(tmp_path_factory)
    try:
        result = json.loads(done["stdout"])
    except json.JSONDecodeError:
        pytest.fail(f"bench/aws_calls.py crashed (exit {done['returncode']}) before "
                    f"reporting:\n{done['stderr']}", pytrace=False)
    assert done["returncode"] == result["exit_status"], (done["returncode"],
                                                         result["exit_status"])
    return result


def problems(result: dict, kind: str) -> list[str]:
    return [p["text"] for p in result["problems"] if p["kind"] == kind]


def fail_with(found: list[str], headline: str) -> None:
    if found:
        pytest.fail(f"{headline} ({len(found)}):\n  " + "\n  ".join(found), pytrace=False)


def test_every_route_has_a_scenario(bench):
    fail_with(problems(bench, "no_scenario"),
              "routes without a scenario in bench/scenarios_*.py (or a reason in EXEMPT)")


def test_every_scenario_takes_the_success_path(bench):
    fail_with(problems(bench, "scenario"),
              "scenarios that did not succeed: their counts would describe an error path")


def test_call_budgets(bench):
    fail_with(problems(bench, "budget"),
              "operations over their AWS-call budget (BUDGETS in bench/aws_calls.py)")


def test_exemptions_give_a_reason(bench):
    assert all(why.strip() for why in bench["exempt"].values()), bench["exempt"]


def bench_script(name: str) -> dict:
    """What ``bench/<name> --json`` reports (the test fails when it crashed)."""
    done = subprocess.run([sys.executable, str(ROOT / "bench" / name), "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"bench/{name} crashed (exit {done.returncode}):\n{done.stderr[-4000:]}",
                    pytrace=False)


def test_protection_adds_at_most_one_read_to_a_push_or_a_merge():
    """bench/protection_calls.py: a push to a protected main and a protected merge cost
    at most one call more than the same requests without rules (issue 27)."""
    result = bench_script("protection_calls.py")
    failed = [r for r in result["rows"] if not r["ok"]]
    assert not failed, failed
    assert all(n <= result["most_added"] for n in result["added"].values()), result


def test_lfs_pointers_add_two_calls_per_25_to_a_push():
    """bench/lfs_push_calls.py: a push's Git LFS pointers cost one read and one write per
    25 objects, a push without pointers nothing (issue 28)."""
    result = bench_script("lfs_push_calls.py")
    failed = [r for r in result["rows"] if not r["ok"]]
    assert not failed, failed
    assert all(n <= result["most_added"][count] for count, n in result["added"].items()), result
