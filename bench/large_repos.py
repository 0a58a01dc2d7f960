"""Acceptance run for git at scale (docs/git-at-scale.md); slow, not part of `make test`.

    .venv/bin/python bench/large_repos.py [--clone-mb 150] [--push-mb 300]

Starts the local runtime as its own process (``python -m chalicelib.local``) enforcing
AWS's limits at their deployed values (6 MB requests and buffered answers, 200 MB
streamed), then:

1. pushes a ``--clone-mb`` repository with ``python -m chalicelib.cli push-bundle`` (a
   plain push is refused: over 6 MB) and clones it in one streamed fetch, ``git fsck``;
2. pushes a ``--push-mb`` repository the same way and clones it back.  More than a
   stream's 200 MB cannot come in one fetch, so the clone starts shallow and deepens
   (each fetch under the limit), then compares every ref and runs ``git fsck``.

Prints the time of each step and the server process's peak RSS during it (VmHWM, reset
before each step; the process also holds embedded moto, which receives every S3 upload
and stores every object, so its share is in these numbers too).
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from _harness import REPO_ROOT, lambda_env

MB = 1_000_000
USER, PASSWORD = "bench", "bench-password-1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def reset_peak(pid: int) -> None:
    """Start VmHWM over from the current RSS (Linux: clear_refs 5), so each step's peak
    is its own."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        pass  # not permitted: the peaks are then cumulative


def run(*args, cwd=None, env=None) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, args))} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def call(url: str, doc: dict, auth: str) -> dict:
    request = urllib.request.Request(url, data=json.dumps(doc).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              "Authorization": auth})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


SERVER_PID = 0


def timed(label: str, fn, *args, **kw):
    if SERVER_PID:
        reset_peak(SERVER_PID)
    started = time.monotonic()
    result = fn(*args, **kw)
    peak = f"  server peak RSS {peak_rss_mb(SERVER_PID):6.0f} MB" if SERVER_PID else ""
    print(f"{label:<52} {time.monotonic() - started:7.1f} s{peak}", flush=True)
    return result


def make_repo(work: Path, env: dict, total_mb: int, commits: int) -> None:
    """``commits`` commits of incompressible data, each replacing the last one's file:
    the history holds ``total_mb``, any one tree ``total_mb / commits``."""
    run("git", "init", "-q", str(work), env=env)
    each = total_mb * MB // commits
    for i in range(commits):
        (work / "data.bin").write_bytes(os.urandom(each))
        (work / "step.txt").write_text(f"{i}\n")
        run("git", "add", ".", cwd=work, env=env)
        run("git", "commit", "-q", "-m", f"step {i}", cwd=work, env=env)
    run("git", "tag", "-a", "-m", "done", "v1", cwd=work, env=env)


def refs(work: Path, env: dict) -> str:
    return run("git", "for-each-ref", "--format=%(objectname) %(refname)", "refs/heads",
               "refs/tags", cwd=work, env=env)


def main() -> int:
    global SERVER_PID
    parser = argparse.ArgumentParser()
    parser.add_argument("--clone-mb", type=int, default=150)
    parser.add_argument("--push-mb", type=int, default=300)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="nimbus-large-"))
    home = tmp / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = bench@example.com\n"
                                     "[init]\n\tdefaultBranch = main\n")
    git_env = {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
               "HOME": str(home), "GIT_TERMINAL_PROMPT": "0"}
    port = free_port()
    server_env = lambda_env({
        "PORT": str(port), "NIMBUS_DATA_DIR": str(tmp / "data"),
        "NIMBUS_ADMIN_USER": USER, "NIMBUS_ADMIN_PASSWORD": PASSWORD,
        "NIMBUS_ADMIN_EMAIL": "bench@example.com",
        "NIMBUS__SERVER__ENFORCE_AWS_LIMITS": "true",
        "NIMBUS__SECURITY__PASSWORD_HASH_COST": "1024"})
    server = subprocess.Popen([sys.executable, "-m", "chalicelib.local"], cwd=REPO_ROOT,
                              env=server_env, stdout=subprocess.DEVNULL,
                              stderr=open(tmp / "server.log", "w"))
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(base + "/api/v1/version", timeout=2).read()
                break
            except OSError:
                time.sleep(0.1)
        import base64
        basic = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        token = call(f"{base}/api/v1/users/{USER}/tokens", {"name": "bench", "scopes": ["all"]},
                     basic)["sha1"]
        auth = f"token {token}"
        cli = [sys.executable, "-m", "chalicelib.cli", "push-bundle"]
        cli_env = {**git_env, "PYTHONPATH": str(REPO_ROOT), "NIMBUS_TOKEN": token}
        print(f"server pid {server.pid}, limits: 6 MB buffered/request, 200 MB streamed; "
              f"idle server RSS {peak_rss_mb(server.pid):.0f} MB")

        for name, size, commits in (("clone-me", args.clone_mb, 3), ("push-me", args.push_mb, 6)):
            call(f"{base}/api/v1/user/repos", {"name": name, "private": True}, auth)
            work = tmp / name
            timed(f"[{name}] make a {size} MB repository ({commits} commits)",
                  make_repo, work, git_env, size, commits)
            remote = f"http://{USER}:{token}@127.0.0.1:{port}/{USER}/{name}.git"
            SERVER_PID = server.pid
            plain = timed(f"[{name}] plain git push (refused)", subprocess.run,
                          ["git", "push", remote, "main"], cwd=work, env=git_env,
                          capture_output=True, text=True)
            print(f"[{name}] plain git push refused: {plain.returncode != 0} "
                  f"({plain.stderr.strip().splitlines()[0] if plain.stderr else ''})")
            said = timed(f"[{name}] push-bundle main + v1 ({size} MB)", run, *cli, remote,
                         "main", "refs/tags/v1", "--repo-dir", str(work), cwd=REPO_ROOT,
                         env=cli_env)
            print("".join(f"    {line}\n" for line in said.splitlines()), end="")
            clone = tmp / f"{name}-clone"
            if size <= 190:
                timed(f"[{name}] git clone (one streamed fetch)", run, "git", "clone", "-q",
                      remote, str(clone), env=git_env)
            else:
                per_fetch = 2
                timed(f"[{name}] git clone --depth {per_fetch} (streamed)", run, "git",
                      "clone", "-q", f"--depth={per_fetch}", remote, str(clone), env=git_env)
                for step in range(per_fetch, commits, per_fetch):
                    timed(f"[{name}] git fetch --deepen {per_fetch}", run, "git", "fetch",
                          "-q", f"--deepen={per_fetch}", cwd=clone, env=git_env)
                if run("git", "rev-parse", "--is-shallow-repository", cwd=clone,
                       env=git_env).strip() == "true":
                    timed(f"[{name}] git fetch --unshallow", run, "git", "fetch", "-q",
                          "--unshallow", cwd=clone, env=git_env)
            timed(f"[{name}] git fsck --strict", run, "git", "fsck", "--strict", cwd=clone,
                  env=git_env)
            run("git", "fetch", "-q", "--tags", cwd=clone, env=git_env)
            run("git", "update-ref", "refs/heads/main", "origin/main", cwd=clone, env=git_env)
            same = refs(clone, git_env) == refs(work, git_env)
            print(f"[{name}] refs identical: {same}", flush=True)
            if not same:
                return 1
        return 0
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    sys.exit(main())
