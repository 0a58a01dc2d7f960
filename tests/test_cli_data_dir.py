"""The CLI takes ``--data-dir`` before or after any admin command, and with two local
runtimes running it says which there are and how to choose one; chosen, the command
acts on that runtime only."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from chalicelib import cli
from tests.local_server import ADMIN_ENV, REPO, call, served

CREATE = ["admin", "user", "create", "--username", "ops", "--password", "ops-password-1",
          "--email", "ops@example.com"]


@pytest.mark.parametrize("argv, chosen", [
    (["admin", "repair"], None),
    (["--data-dir", "/a", "admin", "repair"], "/a"),
    (["admin", "--data-dir", "/b", "repair"], "/b"),
    (["admin", "repair", "--data-dir", "/c", "--dry-run"], "/c"),
    (["admin", "quota", "recount", "--data-dir", "/d"], "/d"),
    (["admin", "deadletters", "list", "--data-dir", "/e"], "/e"),
    (["--data-dir", "/a", "admin", "health", "--data-dir", "/f"], "/f"),   # the last counts
])
def test_data_dir_is_taken_anywhere(monkeypatch, argv, chosen):
    seen = {}
    monkeypatch.setattr(cli, "_connect", lambda args, stack: seen.update(dir=args.data_dir))
    for command in ("_repair", "_quota_recount"):
        monkeypatch.setattr(cli, command, lambda args: 0)
    from chalicelib.upkeep import commands
    for command in ("run_list", "run_health"):
        monkeypatch.setattr(commands, command, lambda args: 0)
    assert cli.main(argv) == 0
    assert seen["dir"] == chosen


def test_two_runtimes_ask_which_and_the_named_one_is_used(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NIMBUS", "AWS_"))}
    env.update(PYTHONPATH=str(REPO), AWS_EC2_METADATA_DISABLED="true",
               AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"),
               AWS_CONFIG_FILE=str(tmp_path / "none"))

    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "chalicelib.cli", *argv], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=120,
                              check=False)

    first, second = tmp_path / "first", tmp_path / "second"
    with served(first, **ADMIN_ENV) as (_, one), served(second, **ADMIN_ENV) as (_, two):
        asked = run(*CREATE)
        assert asked.returncode == 1 and asked.stdout == ""
        line = asked.stderr.strip()
        assert line.startswith("error: several local runtimes are running (data dirs ")
        assert str(first.resolve()) in line and str(second.resolve()) in line
        assert "choose one with --data-dir DIR (before or after the command, e.g. " \
               "--data-dir " in line and line.endswith(") or NIMBUS_DATA_DIR=DIR")

        chosen = run(*CREATE, "--data-dir", str(second))
        assert chosen.returncode == 0, chosen.stderr
        assert chosen.stdout.startswith("created user ops (id ")
        assert call(two, "GET", "/api/v1/users/ops")[0] == 200
        assert call(one, "GET", "/api/v1/users/ops")[0] == 404
