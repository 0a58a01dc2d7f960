"""The web interface's page budgets (bench/page_weight.py) as part of the suite: every
page of the web scenarios, as a first visit sends it gzipped, within 100 KB of HTML,
CSS and JS, and within six AWS calls unless the bench names the reason it needs more."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_page_is_within_its_budgets():
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "page_weight.py"), "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    result = json.loads(done.stdout)
    rows = result["rows"]
    assert len(rows) >= 40, [r["op"] for r in rows]        # every page, not a sample
    assert [r for r in rows if r["status"] != 200] == []
    # gzip as sent: every page is smaller on the wire than in the browser.
    assert all(r["sent_bytes"] < r["bytes"] for r in rows), rows
    assert result["problems"] == [], "\n".join(result["problems"])
    assert done.returncode == 0, done.stderr[-2000:]
