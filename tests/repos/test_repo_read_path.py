"""A cold ``GET /repos/{owner}/{repo}`` imports the read side of repositories only: the
write path (push events, quota, the records' lifecycle, migrations) stays out of it."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from chalicelib.http import route_index_data

ROOT = Path(__file__).resolve().parents[2]
WRITE_PATH = ("chalicelib.repo_admin.service", "chalicelib.contents.pushes",
              "chalicelib.quota.service", "chalicelib.quota.charges",
              "chalicelib.repo_admin.lifecycle", "chalicelib.repo_admin.migrations",
              "chalicelib.repo_admin.routes")
PROBE = ("import json, sys; import chalicelib.repos.routes; "
         f"print(json.dumps([m for m in {list(WRITE_PATH)!r} if m in sys.modules]))")


def test_the_repository_read_area_imports_no_write_path():
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, text=True,
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_reads_and_writes_of_a_repository_are_served_by_separate_areas():
    module = {row[3]: row[4] for row in route_index_data.ROUTES}
    for read in ("repoGet", "userCurrentListRepos", "userListRepos", "listForks"):
        assert module[read] == "chalicelib.repos.routes", read
    assert module["repoSearch"] == "chalicelib.search.routes"     # through the index
    for write in ("createCurrentUserRepo", "adminCreateRepo", "repoDelete", "createFork",
                  "repoMirrorSync", "repoEdit"):
        assert module[write] == "chalicelib.repo_admin.routes", write
    # A migration may bring a whole project: the migrations domain's route.
    assert module["repoMigrate"] == "chalicelib.migrations.routes"
