"""The AWS-call budgets (bench/aws_calls.py) as part of the suite.

The benchmark runs once, in its own process (it sets up moto and the environment the
way a Lambda sees them, which this process's conftest has already fixed otherwise), and
each test below reports one kind of problem with the benchmark's own lines: the
operation, its count, its budget and the calls it made.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench" / "aws_calls.py"


@pytest.fixture(scope="module")
def bench() -> dict:
    done = subprocess.run([sys.executable, str(BENCH), "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    try:
        result = json.loads(done.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"bench/aws_calls.py crashed (exit {done.returncode}) before reporting:\n"
                    f"{done.stderr[-4000:]}", pytrace=False)
    assert done.returncode == result["exit_status"], (done.returncode, result["exit_status"])
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
