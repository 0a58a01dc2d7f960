"""Acceptance run for git at scale (docs/git-at-scale.md); slow, not part of `make test`.

    .venv/bin/python bench/large_repos.py [--clone-mb 150] [--push-mb 300] [--keep]

Two processes, so that the memory of the one serving git is its own:

* **moto**: the AWS services (this script with ``--serve-moto``; moto keeps every S3
  object in memory and copies a whole object on each GET, so its memory grows with
  what is stored and is reported apart);
* **server**: the local runtime (``python -m chalicelib.local``) with
  ``NIMBUS_AWS_ENDPOINT`` pointing at that moto: the HTTP server and the Lambda
  handlers, nothing else, enforcing AWS's limits at their deployed values (6 MB
  requests and buffered answers, 200 MB streamed).

Then:

1. pushes a ``--clone-mb`` repository with ``python -m chalicelib.cli push-bundle`` (a
   plain push is refused: over 6 MB) and clones it in one streamed fetch while the pack
   is built object by object, ``git fsck``; compacts its object pool (in a third
   process, as the scheduled job would) and clones it again, now copying the main pack
   (``gitstore/pack_reuse.py``), ``git fsck``;
2. pushes a ``--push-mb`` repository the same way (0: skipped) and clones it back.
   More than a stream's 200 MB cannot come in one fetch, so the clone starts shallow and
   deepens (each fetch under the limit), then compares every ref and runs ``git fsck``.

For each step: its time; the server's RSS before it, its peak (VmHWM, reset before the
step: mapped pack files count as they are read) and its peak anonymous RSS (sampled
every 20 ms: the memory nothing but the process itself can give back); moto's peak.
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from _harness import REPO_ROOT, lambda_env

MB = 1_000_000
USER, PASSWORD = "bench", "bench-password-1"
REGION = "us-east-1"
# Lambda response streaming's limit ([server] STREAMED_RESPONSE_LIMIT); a repository
# this much smaller comes in one fetch (its pack adds headers, trees and commits).
STREAM_LIMIT = 209_715_200
ONE_FETCH_MARGIN = 0.97
SAMPLE_SECONDS = 0.02


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status_kb(pid: int) -> dict[str, int]:
    """The memory lines of /proc/<pid>/status, in kB ({} once the process is gone)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    out = {}
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name.startswith(("Vm", "Rss")):
            out[name] = int(value.split()[0])
    return out


def reset_peak(pid: int) -> None:
    """Start VmHWM over from the current RSS (Linux: clear_refs 5), so each step's peak
    is its own."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        pass  # not permitted: the peaks are then cumulative


class Watch:
    """One step's memory: the server's RSS before, its VmHWM and sampled RssAnon peak,
    moto's VmHWM."""

    def __init__(self, server: int, moto: int):
        self.server, self.moto = server, moto
        self.before = self.peak_anon = 0
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "Watch":
        reset_peak(self.server)
        reset_peak(self.moto)
        self.before = status_kb(self.server).get("VmRSS", 0)
        self.peak_anon = status_kb(self.server).get("RssAnon", 0)
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._done.wait(SAMPLE_SECONDS):
            self.peak_anon = max(self.peak_anon, status_kb(self.server).get("RssAnon", 0))

    def __exit__(self, *exc) -> None:
        self._done.set()
        self._thread.join()
        self.peak = status_kb(self.server).get("VmHWM", 0)
        self.moto_peak = status_kb(self.moto).get("VmHWM", 0)

    def line(self) -> str:
        return (f"server RSS {self.before / 1024:5.0f} -> peak {self.peak / 1024:5.0f} MB "
                f"(anon {self.peak_anon / 1024:4.0f});  moto peak {self.moto_peak / 1024:5.0f} MB")


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


# (server, moto) pids once both run; the server's changes when it restarts.
PIDS: list[int] = []


def timed(label: str, fn, *args, **kw):
    if not PIDS:
        started = time.monotonic()
        result = fn(*args, **kw)
        print(f"{label:<56} {time.monotonic() - started:7.1f} s", flush=True)
        return result
    with Watch(*PIDS) as watch:
        started = time.monotonic()
        result = fn(*args, **kw)
        elapsed = time.monotonic() - started
    print(f"{label:<56} {elapsed:7.1f} s  {watch.line()}", flush=True)
    return result


def make_repo(work: Path, env: dict, total_mb: int, commits: int, side: bool) -> None:
    """``commits`` commits of incompressible data, each replacing the last one's file:
    the history holds ``total_mb``, any one tree ``total_mb / commits``.  ``side``: a
    branch ``side`` with one small commit of its own."""
    run("git", "init", "-q", str(work), env=env)
    each = total_mb * MB // commits
    for i in range(commits):
        (work / "data.bin").write_bytes(os.urandom(each))
        (work / "step.txt").write_text(f"{i}\n")
        run("git", "add", ".", cwd=work, env=env)
        run("git", "commit", "-q", "-m", f"step {i}", cwd=work, env=env)
    run("git", "tag", "-a", "-m", "done", "v1", cwd=work, env=env)
    if side:
        run("git", "checkout", "-q", "-b", "side", cwd=work, env=env)
        (work / "step.txt").write_text("side\n")
        run("git", "commit", "-q", "-am", "side", cwd=work, env=env)
        run("git", "checkout", "-q", "main", cwd=work, env=env)


def refs(work: Path, env: dict) -> str:
    return run("git", "for-each-ref", "--format=%(objectname) %(refname)", "refs/heads",
               "refs/tags", cwd=work, env=env)


# -- the other processes ------------------------------------------------------------------

def serve_moto() -> int:
    """``--serve-moto``: moto behind the local runtime's request locks, no journal (the
    state lives as long as the run); prints its endpoint, serves until SIGTERM."""
    sys.path.insert(0, str(REPO_ROOT))
    from chalicelib.local.moto_backend import MotoServer

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    moto = MotoServer(REGION)
    moto.start()
    print(moto.endpoint, flush=True)
    stop.wait()
    moto.stop()
    return 0


def compact_all() -> int:
    """``--compact``: compact every object pool now (the scheduled job's work, without
    its minimum pack age), in this process: NIMBUS__AWS__ENDPOINT_URL names moto."""
    sys.path.insert(0, str(REPO_ROOT))
    from chalicelib.gitstore.compaction import compact_pool
    from chalicelib.repos import store as repos

    for pool in repos.pools():
        result = compact_pool(int(pool.pk.split("#", 1)[1]), sorted(pool.repo_ids or ()),
                              min_age_seconds=0)
        print(f"pool {pool.pk}: {len(result.retired)} packs -> {result.new_pack} "
              f"({result.objects} objects, {result.pack_bytes / MB:.1f} MB, "
              f"{result.seconds:.1f} s)", flush=True)
    return 0


def start_moto(env: dict, log: Path) -> tuple[subprocess.Popen, str]:
    moto = subprocess.Popen([sys.executable, __file__, "--serve-moto"], cwd=REPO_ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=open(log, "w"), text=True)
    endpoint = moto.stdout.readline().strip()
    if not endpoint.startswith("http://"):
        moto.kill()
        raise SystemExit(f"moto did not start (see {log})")
    return moto, endpoint


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# -- the run ------------------------------------------------------------------------------

def clone(remote: str, target: Path, env: dict, size_mb: int, commits: int, label: str) -> None:
    if size_mb * MB <= STREAM_LIMIT * ONE_FETCH_MARGIN:
        timed(f"[{label}] git clone (one streamed fetch)", run, "git", "clone", "-q",
              remote, str(target), env=env)
        return
    per_fetch = 2
    timed(f"[{label}] git clone --depth {per_fetch} (streamed)", run, "git", "clone", "-q",
          f"--depth={per_fetch}", remote, str(target), env=env)
    for _ in range(per_fetch, commits, per_fetch):
        timed(f"[{label}] git fetch --deepen {per_fetch}", run, "git", "fetch", "-q",
              f"--deepen={per_fetch}", cwd=target, env=env)
    if run("git", "rev-parse", "--is-shallow-repository", cwd=target,
           env=env).strip() == "true":
        timed(f"[{label}] git fetch --unshallow", run, "git", "fetch", "-q", "--unshallow",
              cwd=target, env=env)


def check_clone(target: Path, work: Path, env: dict, label: str) -> bool:
    timed(f"[{label}] git fsck --strict", run, "git", "fsck", "--strict", cwd=target, env=env)
    run("git", "fetch", "-q", "--tags", cwd=target, env=env)
    run("git", "update-ref", "refs/heads/main", "origin/main", cwd=target, env=env)
    same = refs(target, env) == refs(work, env)
    print(f"[{label}] refs identical: {same}", flush=True)
    return same


class Server:
    """The serving process (``python -m chalicelib.local``), restartable: its state is
    moto's, so a new process serves the same repositories, as a new Lambda container
    would (the pack cache dir stays, as /tmp does in a warm one)."""

    def __init__(self, env: dict, log: Path):
        self.env, self.log = env, log
        self.base = f"http://127.0.0.1:{env['PORT']}"
        self.process: subprocess.Popen | None = None

    @property
    def pid(self) -> int:
        return self.process.pid

    def start(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "chalicelib.local"],
                                        cwd=REPO_ROOT, env=self.env, stdout=subprocess.DEVNULL,
                                        stderr=open(self.log, "a"))
        for _ in range(600):
            try:
                urllib.request.urlopen(self.base + "/api/v1/version", timeout=2).read()
                return
            except OSError:
                if self.process.poll() is not None:
                    raise SystemExit(f"the server did not start (see {self.log})") from None
                time.sleep(0.1)
        raise SystemExit(f"the server did not answer in a minute (see {self.log})")

    def restart(self) -> None:
        stop(self.process)
        self.start()
        PIDS[0] = self.pid
        print(f"    (server restarted, pid {self.pid}: idle RSS "
              f"{status_kb(self.pid).get('VmRSS', 0) / 1024:.0f} MB)", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clone-mb", type=int, default=150)
    parser.add_argument("--push-mb", type=int, default=300, help="0: skip this repository")
    parser.add_argument("--keep", action="store_true", help="keep the work dir")
    parser.add_argument("--serve-moto", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--compact", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_moto:
        return serve_moto()
    if args.compact:
        return compact_all()
    tmp = Path(tempfile.mkdtemp(prefix="nimbus-large-"))
    home = tmp / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = bench@example.com\n"
                                     "[init]\n\tdefaultBranch = main\n")
    git_env = {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
               "HOME": str(home), "GIT_TERMINAL_PROMPT": "0"}
    port = free_port()
    settings = {"NIMBUS__SERVER__ENFORCE_AWS_LIMITS": "true",
                "NIMBUS__SECURITY__PASSWORD_HASH_COST": "1024"}
    moto, endpoint = start_moto(lambda_env({"PYTHONPATH": str(REPO_ROOT)}), tmp / "moto.log")
    # Each process has its own pack cache, as separate Lambda containers do.
    server = Server(lambda_env({
        **settings, "PORT": str(port), "NIMBUS_DATA_DIR": str(tmp / "data"),
        "NIMBUS_AWS_ENDPOINT": endpoint, "NIMBUS_CACHE_DIR": str(tmp / "cache-server"),
        "NIMBUS_ADMIN_USER": USER, "NIMBUS_ADMIN_PASSWORD": PASSWORD,
        "NIMBUS_ADMIN_EMAIL": "bench@example.com"}), tmp / "server.log")
    jobs_env = lambda_env({**settings, "PYTHONPATH": str(REPO_ROOT),
                           "NIMBUS__AWS__ENDPOINT_URL": endpoint,
                           "NIMBUS_CACHE_DIR": str(tmp / "cache-jobs")})
    base = server.base
    try:
        server.start()
        basic = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        token = call(f"{base}/api/v1/users/{USER}/tokens", {"name": "bench", "scopes": ["all"]},
                     basic)["sha1"]
        auth = f"token {token}"
        cli = [sys.executable, "-m", "chalicelib.cli", "push-bundle"]
        cli_env = {**git_env, "PYTHONPATH": str(REPO_ROOT), "NIMBUS_TOKEN": token}
        print(f"server pid {server.pid} (no moto in it), moto pid {moto.pid} at {endpoint}; "
              f"limits: 6 MB buffered/request, 200 MB streamed; idle server RSS "
              f"{status_kb(server.pid).get('VmRSS', 0) / 1024:.0f} MB; the server restarts "
              "before each clone, so a clone's numbers are its own", flush=True)

        repos = [("clone-me", args.clone_mb, 3)]
        if args.push_mb:
            repos.append(("push-me", args.push_mb, 6))
        for name, size, commits in repos:
            call(f"{base}/api/v1/user/repos", {"name": name, "private": True}, auth)
            work = tmp / name
            # clone-me also gets a branch, deleted after the push: the push's pack then
            # holds a commit no ref reaches, so a clone cannot copy it (pack_reuse.py)
            # and builds its pack object by object, until compaction rewrites it.
            side = name == "clone-me"
            timed(f"[{name}] make a {size} MB repository ({commits} commits)",
                  make_repo, work, git_env, size, commits, side)
            remote = f"http://{USER}:{token}@127.0.0.1:{port}/{USER}/{name}.git"
            PIDS[:] = [server.pid, moto.pid]
            plain = timed(f"[{name}] plain git push (refused)", subprocess.run,
                          ["git", "push", remote, "main"], cwd=work, env=git_env,
                          capture_output=True, text=True)
            print(f"[{name}] plain git push refused: {plain.returncode != 0} "
                  f"({plain.stderr.strip().splitlines()[0] if plain.stderr else ''})")
            pushed = ["main", "refs/tags/v1"] + (["side"] if side else [])
            said = timed(f"[{name}] push-bundle {' + '.join(pushed)} ({size} MB)", run, *cli,
                         remote, *pushed, "--repo-dir", str(work), cwd=REPO_ROOT, env=cli_env)
            print("".join(f"    {line}\n" for line in said.splitlines()), end="")
            if side:
                request = urllib.request.Request(
                    f"{base}/api/v1/repos/{USER}/{name}/branches/side", method="DELETE",
                    headers={"Authorization": auth})
                urllib.request.urlopen(request, timeout=60).close()
                run("git", "branch", "-q", "-D", "side", cwd=work, env=git_env)
            server.restart()
            target = tmp / f"{name}-clone"
            clone(remote, target, git_env, size, commits,
                  f"{name}, pack built" if side else name)
            if not check_clone(target, work, git_env, name):
                return 1
            if name != "clone-me":
                continue
            said = timed(f"[{name}] compact the pool (another process)", run,
                         sys.executable, __file__, "--compact", cwd=REPO_ROOT, env=jobs_env)
            print("".join(f"    {line}\n" for line in said.splitlines()), end="")
            server.restart()
            target = tmp / f"{name}-clone-compacted"
            clone(remote, target, git_env, size, commits, f"{name}, main pack reused")
            if not check_clone(target, work, git_env, name):
                return 1
        return 0
    finally:
        if server.process is not None:
            stop(server.process)
        stop(moto)
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
