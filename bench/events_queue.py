"""Events under a burst, on ``make run`` as a user starts it: does one repository's burst
delay another repository's events?

    .venv/bin/python bench/events_queue.py [--tags 300] [--pushes 3] [--limit 5] [--json]

1. Idle: a commit saying "Closes #1" is pushed to the default branch of ``quiet``; the
   time until issue #1 reads closed (polled through the API) is the idle latency.
2. Burst: ``busy`` receives ``--tags`` tags in ``--pushes`` pushes (one ref event and one
   push event per tag), and right after the last push a commit saying "Closes #2" goes
   to ``quiet``; the time until issue #2 reads closed is the latency under the burst.

The run fails when the latency under the burst passes ``--limit`` seconds.
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
from _harness import use_repo  # noqa: E402
from git_transfer import git, git_env  # noqa: E402

POLL_SECONDS = 0.05
GIVE_UP_SECONDS = 300.0


class Forge:
    """The few API calls the bench makes, as the admin of a ``make run`` server."""

    def __init__(self, base: str, admin: tuple[str, str]):
        import httpx

        self.base, self.user = base, admin[0]
        self.http = httpx.Client(base_url=f"{base}/api/v1", timeout=60)
        token = self.http.post(f"/users/{admin[0]}/tokens", auth=admin,
                               json={"name": "events-bench", "scopes": ["all"]}).json()["sha1"]
        self.http.headers["Authorization"] = f"token {token}"
        self.token = token

    def new_repo(self, name: str) -> str:
        self.http.post("/user/repos", json={"name": name, "auto_init": True,
                                            "default_branch": "main"}).raise_for_status()
        host = self.base.split("://")[1]
        return f"http://{self.user}:{self.token}@{host}/{self.user}/{name}.git"

    def new_issue(self, repo: str, title: str) -> int:
        answer = self.http.post(f"/repos/{self.user}/{repo}/issues", json={"title": title})
        answer.raise_for_status()
        return answer.json()["number"]

    def state(self, repo: str, number: int) -> str:
        return self.http.get(f"/repos/{self.user}/{repo}/issues/{number}").json()["state"]

    def wait_closed(self, repo: str, number: int, since: float) -> float:
        while time.monotonic() - since < GIVE_UP_SECONDS:
            if self.state(repo, number) == "closed":
                return time.monotonic() - since
            time.sleep(POLL_SECONDS)
        return float("inf")


def push_closing(clone: Path, number: int, env: dict) -> float:
    """Commit "Closes #number" in ``clone`` and push it; returns when the push returned."""
    (clone / f"fix-{number}.txt").write_text(f"fix {number}\n")
    git("add", ".", cwd=clone)
    git("commit", "-q", "-m", f"Fix the thing\n\nCloses #{number}", cwd=clone, env=env)
    git("push", "-q", "origin", "HEAD:main", cwd=clone, env=env)
    return time.monotonic()


def tagged_clone(remote: str, work: Path, tags: int, env: dict) -> Path:
    """A clone of ``remote`` with ``tags`` new commits, each with a lightweight tag."""
    clone = work / "busy"
    git("clone", "-q", remote, str(clone), env=env)
    for n in range(tags):
        git("commit", "-q", "--allow-empty", "-m", f"release {n}", cwd=clone, env=env)
        git("tag", f"v0.{n}.0", cwd=clone)
    return clone


def run(tags: int, pushes: int, server: tuple[str, tuple[str, str]], work: Path) -> dict:
    env = git_env(work / "home")
    forge = Forge(*server)
    quiet_remote = forge.new_repo("quiet")
    busy_remote = forge.new_repo("busy")
    first, second = forge.new_issue("quiet", "first"), forge.new_issue("quiet", "second")
    quiet = work / "quiet"
    git("clone", "-q", quiet_remote, str(quiet), env=env)
    busy = tagged_clone(busy_remote, work, tags, env)

    idle = forge.wait_closed("quiet", first, push_closing(quiet, first, env))

    names = git("tag", "--list", cwd=busy).split()
    per_push = -(-len(names) // pushes)
    started = time.monotonic()
    git("push", "-q", "origin", "HEAD:main", cwd=busy, env=env)
    for start in range(0, len(names), per_push):
        git("push", "-q", "origin", *[f"refs/tags/{t}" for t in names[start:start + per_push]],
            cwd=busy, env=env)
    pushed = time.monotonic() - started
    burst = forge.wait_closed("quiet", second, push_closing(quiet, second, env))
    return {"tags": len(names), "pushes": pushes, "idle_s": idle, "burst_s": burst,
            "burst_push_s": pushed}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tags", type=int, default=300)
    parser.add_argument("--pushes", type=int, default=3)
    parser.add_argument("--limit", type=float, default=5.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="nimbus-events-"))
    use_repo({"NIMBUS_LOG_LEVEL": "ERROR"})
    from make_run import ADMIN, make_run

    try:
        with make_run(work, {"NIMBUS_CACHE_DIR": str(work / "cache"),
                             "NIMBUS_LOG_LEVEL": "ERROR"}) as base:
            result = run(args.tags, args.pushes, (base, ADMIN), work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result["limit_s"] = args.limit
    result["ok"] = result["burst_s"] <= args.limit
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"'Closes #N' on an idle instance: closed after {result['idle_s']:.2f} s")
        print(f"after {result['tags']} tags in {result['pushes']} pushes to another repository "
              f"({result['burst_push_s']:.1f} s of pushing): closed after "
              f"{result['burst_s']:.2f} s (limit {args.limit:.1f} s) "
              f"{'ok' if result['ok'] else 'OVER'}")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
