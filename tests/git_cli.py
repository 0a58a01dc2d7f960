"""The ``git`` CLI as the tests run it: a home of its own (no user or system
configuration leaks in, no prompt for credentials) and a runner that fails with git's
own output."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path


def git_home_env(tmp_path: Path, *, extra_config: str = "") -> dict:
    """The environment of a git whose home is under ``tmp_path``: Alice commits, new
    repositories start on ``main``; ``extra_config`` is appended to its .gitconfig."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Alice\n\temail = alice@example.com\n"
        "[init]\n\tdefaultBranch = main\n" + extra_config)
    return {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
            "HOME": str(home), "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "/bin/false"}


def run_git(env: dict, *args, cwd=None, check: bool = True, timeout: float = 120):
    """``git args…``; with ``check``, a failure raises with git's output."""
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done
