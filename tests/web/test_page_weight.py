"""The web interface's first-visit weight budget (bench/page_weight.py) as part of the
suite: a repository home page with its stylesheet and script, as sent gzipped."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_repository_home_first_visit_is_within_budget():
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "page_weight.py"), "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    result = json.loads(done.stdout)
    assert [r["status"] for r in result["rows"]] == [200] * len(result["rows"]), result
    assert len(result["rows"]) >= 3, result          # the page, its CSS and its script
    assert all(r["encoding"] == "gzip" for r in result["rows"]), result
    assert result["total_bytes"] <= result["budget_bytes"], result
    assert done.returncode == 0, done.stderr[-2000:]
