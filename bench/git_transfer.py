"""Git transfer speed: Nimbus (local runtime, moto S3/DynamoDB) against C git's own
smart HTTP server (`git http-backend`) on a bare copy, in the same run.

    .venv/bin/python bench/git_transfer.py [--megabytes 20] [--runs 3] [--json]

Prints push and clone times of a generated repository for both servers and their
ratio, the S3 GETs a clone makes (cold cache and warm), and the DynamoDB calls of
``repoGet`` (anonymous and with a token).  Then, side by side again (git's default
protocol v2 unless the row says v0): a partial clone (``--filter=blob:none``) of that
repository; ``git ls-remote`` of a repository with 5,000 ``refs/pull/*`` refs (all refs,
``--heads`` only, and ``--heads`` over v0, which advertises every ref); and on a
10,000-commit history, the push into an empty repository, the clone and then the fetch
of one new commit.  Those rows are each server's minimum over ``--runs`` runs, with the
per-run ratios beside them.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import use_repo  # noqa: E402


def git(*args, cwd=None, env=None):
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, timeout=600)
    if done.returncode:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.decode()}")
    return done.stdout.decode()


def make_source(root: Path, megabytes: int) -> Path:
    """A repository of about ``megabytes`` of pack data in 10 commits."""
    src = root / "source"
    src.mkdir()
    git("init", "-q", "-b", "main", cwd=src)
    rng = random.Random(42)
    words = [bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9)))
             for _ in range(5000)]
    per_commit = megabytes * 1_000_000 // 10
    for c in range(10):
        written = 0
        n = 0
        while written < per_commit:
            # Random words compress about 2:1, like source text; random bytes keep the
            # pack near the requested size.
            body = b" ".join(rng.choice(words) for _ in range(4000)) + rng.randbytes(30000)
            (src / f"dir{c}").mkdir(exist_ok=True)
            (src / f"dir{c}" / f"file{n}.txt").write_bytes(body)
            written += len(body) // 2 + 30000
            n += 1
        git("add", ".", cwd=src)
        git("commit", "-q", "-m", f"commit {c}", cwd=src)
    return src


def drop_cached_packs(cache: Path) -> None:
    """A cold start for reads: what a new Lambda container's empty /tmp would have."""
    for path in cache.rglob("*"):
        if path.is_file() and "tmp" not in path.relative_to(cache).parts:
            path.unlink()


def timed_git(*args, cwd=None, env=None) -> float:
    start = time.perf_counter()
    git(*args, cwd=cwd, env=env)
    return time.perf_counter() - start


def git_env(home: Path) -> dict:
    home.mkdir(exist_ok=True)
    (home / ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = b@example.com\n")
    return {**os.environ, "HOME": str(home), "GIT_TERMINAL_PROMPT": "0"}


def long_history(root: Path, commits: int) -> Path:
    """A repository of ``commits`` small commits over 100 files in 10 folders."""
    src = root / "long"
    git("init", "-q", "-b", "main", str(src))
    stream = []
    for n in range(commits):
        message = f"commit {n}\n".encode()
        content = f"line {n}\n".encode() * 4
        stream.append(b"commit refs/heads/main\ncommitter Bench <b@example.com> %d +0000\n"
                      b"data %d\n%s" % (1_600_000_000 + n, len(message), message))
        stream.append(b"M 100644 inline dir%d/file%d.txt\ndata %d\n%s\n"
                      % (n % 10, n % 100, len(content), content))
    done = subprocess.run(["git", "fast-import", "--quiet"], cwd=src, input=b"".join(stream),
                          capture_output=True, timeout=600)
    if done.returncode:
        raise RuntimeError(done.stderr.decode())
    git("checkout", "-q", "-f", "main", cwd=src)
    return src


def put_refs(repo_id: int, names: list[str], sha: str) -> None:
    """Many refs at once through the ref store (a push moves at most 100)."""
    from chalicelib.gitstore.models import GitRef, gitkeys

    with GitRef.batch_write() as batch:
        for name in names:
            batch.save(GitRef(gitkeys.refs_pk(repo_id), name, sha=sha, peeled=sha))


def protocol_scenarios(work: Path, env: dict, src: Path, nimbus: Callable[[str], str],
                       new_repo: Callable[[str], int], runs: int = 1) -> dict:
    """Partial clone, ls-remote over 5,000 refs, push, clone and one-commit fetch of a
    long history: seconds for C git and Nimbus, each row's minimum over ``runs`` (C git
    then Nimbus in each run, so that other load on the machine weighs on both), and
    the per-run ratios under ``paired``."""
    from tests.git_backend import serve_http_backend

    root = work / "backend-v2"
    root.mkdir()
    backend, url = serve_http_backend(root)
    servers = {"c_git": lambda name: f"{url}/{name}.git", "nimbus": nimbus}
    longs = [f"long{run}" for run in range(runs)]
    for name in ("big", "refs", *longs):
        bare = root / f"{name}.git"
        git("init", "-q", "--bare", str(bare))
        for key, value in (("http.receivepack", "true"), ("uploadpack.allowFilter", "true"),
                           ("uploadpack.allowAnySHA1InWant", "true")):
            git("-C", str(bare), "config", key, value)
    times: dict[str, dict[str, list[float]]] = {k: {} for k in servers}
    repo_ids = {name: new_repo(name) for name in ("big", "refs", *longs)}
    refs = [f"refs/pull/{n}/head" for n in range(5000)]
    head = git("rev-parse", "main", cwd=src).strip()
    long_src = long_history(work, 10_000)
    # The new commit of the fetch rows, kept off the branch: every run pushes the same
    # 10,000 commits.
    new = git("commit-tree", "main^{tree}", "-p", "main", "-m", "one more", cwd=long_src,
              env=env).strip()
    for kind, remote in servers.items():
        git("push", "-q", remote("big"), "main", cwd=src, env=env)
        git("push", "-q", remote("refs"), "main", cwd=src, env=env)
        if kind == "c_git":
            subprocess.run(["git", "update-ref", "--stdin"], cwd=root / "refs.git", check=True,
                           input="".join(f"create {r} {head}\n" for r in refs).encode())
        else:
            put_refs(repo_ids["refs"], refs, head)

    def timed(kind: str, row: str, *args, cwd=None) -> None:
        times[kind].setdefault(row, []).append(timed_git(*args, cwd=cwd, env=env))

    for run, long in enumerate(longs):
        for kind, remote in servers.items():
            timed(kind, "partial clone (blob:none)", "clone", "-q", "--filter=blob:none",
                  "--no-checkout", remote("big"), str(work / f"{kind}-partial{run}"))
            timed(kind, "ls-remote, 5,000 refs", "ls-remote", remote("refs"))
            timed(kind, "ls-remote --heads, 5,000 refs", "ls-remote", "--heads", remote("refs"))
            timed(kind, "ls-remote --heads, 5,000 refs, v0", "-c", "protocol.version=0",
                  "ls-remote", "--heads", remote("refs"))
            timed(kind, "push 10,000 commits", "push", "-q", remote(long), "main", cwd=long_src)
            timed(kind, "clone 10,000 commits", "clone", "-q", remote(long),
                  str(work / f"{kind}-{long}"))
        for kind, remote in servers.items():
            git("push", "-q", remote(long), f"{new}:refs/heads/main", cwd=long_src, env=env)
            timed(kind, "fetch 1 new commit of 10,001", "fetch", "-q",
                  cwd=work / f"{kind}-{long}")
    backend.shutdown()
    out: dict = {kind: {row: min(values) for row, values in rows.items()}
                 for kind, rows in times.items()}
    out["paired"] = {row: [n / c for c, n in zip(values, times["nimbus"][row])]
                     for row, values in times["c_git"].items()}
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--megabytes", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="nimbus-bench-"))
    cache = work / "pack-cache"
    use_repo({"NIMBUS_CACHE_DIR": str(cache), "NIMBUS_LOG_LEVEL": "ERROR"})
    import httpx

    from chalicelib import aws
    from chalicelib.local.runtime import LocalRuntime
    from tests.git_backend import serve_http_backend

    try:
        src = make_source(work, args.megabytes)
        pack_bytes = sum(p.stat().st_size for p in (src / ".git" / "objects").rglob("*")
                         if p.is_file())
        env = git_env(work / "home")
        result = {"megabytes_requested": args.megabytes, "source_objects_bytes": pack_bytes,
                  "runs": args.runs}

        # C git: git http-backend over a bare repository.
        backend_root = work / "backend"
        backend_root.mkdir()
        backend, backend_url = serve_http_backend(backend_root)
        c_push, c_clone = [], []
        for run in range(args.runs):
            git("init", "-q", "--bare", str(backend_root / f"r{run}.git"))
            git("-C", str(backend_root / f"r{run}.git"), "config", "http.receivepack", "true")
            c_push.append(timed_git("push", "-q", f"{backend_url}/r{run}.git", "main",
                                    cwd=src, env=env))
            c_clone.append(timed_git("clone", "-q", f"{backend_url}/r{run}.git",
                                     str(work / f"c-clone{run}"), env=env))
        backend.shutdown()

        # Nimbus: the local runtime (same handler code as Lambda) on moto.
        with LocalRuntime(port=0, data_dir=work / "data", access_log=False,
                          snapshot_interval=3600) as rt:
            from chalicelib.accounts import ensure_admin

            ensure_admin("bench", "bench-password", "bench@example.com")
            api = f"{rt.url}/api/v1"
            token = httpx.post(f"{api}/users/bench/tokens", auth=("bench", "bench-password"),
                               json={"name": "b", "scopes": ["all"]}).json()["sha1"]
            headers = {"Authorization": f"token {token}"}
            host = rt.url.split("://")[1]
            calls = Counter()

            def hook(model, **_):
                calls[f"{model.service_model.service_name}:{model.name}"] += 1

            aws.add_call_hook(hook)
            n_push, n_clone, s3_cold, s3_warm, repo_ids = [], [], [], [], []
            for run in range(args.runs):
                made = httpx.post(f"{api}/user/repos", headers=headers, json={"name": f"r{run}"})
                repo_ids.append(int(made.json()["id"]))
                remote = f"http://bench:{token}@{host}/bench/r{run}.git"
                n_push.append(timed_git("push", "-q", remote, "main", cwd=src, env=env))
                drop_cached_packs(cache)
                calls.clear()
                n_clone.append(timed_git("clone", "-q", remote, str(work / f"n-clone{run}"),
                                         env=env))
                s3_cold.append(calls["s3:GetObject"])
                calls.clear()
                git("clone", "-q", remote, str(work / f"n-warm{run}"), env=env)
                s3_warm.append(calls["s3:GetObject"])
            # The same clone once the scheduled compaction has made the main pack: its
            # bytes are streamed as stored (gitstore/pack_reuse.py).
            from chalicelib.gitstore import compaction

            compaction.compact_pool(repo_ids[0], [repo_ids[0]], min_age_seconds=0,
                                    grace_seconds=0)
            remote = f"http://bench:{token}@{host}/bench/r0.git"
            n_reused, s3_reused = [], []
            for run in range(args.runs):
                drop_cached_packs(cache)
                calls.clear()
                n_reused.append(timed_git("clone", "-q", remote,
                                          str(work / f"n-reused{run}"), env=env))
                s3_reused.append(calls["s3:GetObject"])
            # repoGet, counted the way bench/aws_calls.py counts (one fresh request each).
            calls.clear()
            httpx.get(f"{api}/repos/bench/r0")
            repo_get_anon = sum(v for k, v in calls.items() if k.startswith("dynamodb"))
            calls.clear()
            httpx.get(f"{api}/repos/bench/r0", headers=headers)
            repo_get_token = sum(v for k, v in calls.items() if k.startswith("dynamodb"))

            def new_repo(name: str) -> int:
                made = httpx.post(f"{api}/user/repos", headers=headers, json={"name": name})
                return int(made.json()["id"])

            result["protocol"] = protocol_scenarios(
                work, env, src, lambda name: f"http://bench:{token}@{host}/bench/{name}.git",
                new_repo, runs=args.runs)

        med = statistics.median
        result.update({
            "c_git": {"push_s": med(c_push), "clone_s": med(c_clone)},
            "nimbus": {"push_s": med(n_push), "clone_s": med(n_clone)},
            "ratio": {"push": med(n_push) / med(c_push), "clone": med(n_clone) / med(c_clone),
                      "clone_compacted": med(n_reused) / med(c_clone)},
            "clone_compacted_s": med(n_reused),
            "s3_gets_per_clone": {"cold_cache": med(s3_cold), "warm_cache": med(s3_warm),
                                  "compacted_cold_cache": med(s3_reused)},
            "dynamodb_calls_repoGet": {"anonymous": repo_get_anon, "token": repo_get_token},
        })
    finally:
        shutil.rmtree(work, ignore_errors=True)

    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"repository: ~{args.megabytes} MB requested, {result['source_objects_bytes'] / 1e6:.1f} MB "
          f"of objects; median of {args.runs} runs")
    print(f"{'':8}{'C git http-backend':>20}{'Nimbus':>12}{'ratio':>8}")
    for op in ("push", "clone"):
        c, n = result["c_git"][f"{op}_s"], result["nimbus"][f"{op}_s"]
        print(f"{op:8}{c:>19.2f}s{n:>11.2f}s{n / c:>7.1f}x")
    c, n = result["c_git"]["clone_s"], result["clone_compacted_s"]
    print(f"{'clone, after compaction (main pack reused)':44}{c:.2f}s vs {n:.2f}s: {n / c:.1f}x")
    s3 = result["s3_gets_per_clone"]
    print(f"S3 GETs per clone: {s3['cold_cache']} with a cold /tmp cache, {s3['warm_cache']} warm, "
          f"{s3['compacted_cold_cache']} after compaction (cold cache)")
    ddb = result["dynamodb_calls_repoGet"]
    print(f"DynamoDB calls per repoGet: {ddb['anonymous']} anonymous, {ddb['token']} with a token")
    print(f"minimum of {args.runs} runs:")
    print(f"{'':36}{'C git http-backend':>20}{'Nimbus':>12}{'ratio':>8}   paired ratios")
    for op, c in result["protocol"]["c_git"].items():
        n = result["protocol"]["nimbus"][op]
        paired = " ".join(f"{x:.2f}" for x in result["protocol"]["paired"][op])
        print(f"{op:36}{c:>19.2f}s{n:>11.2f}s{n / c:>7.1f}x   {paired}")
    return 0 if ddb["token"] <= 2 else 1


if __name__ == "__main__":
    sys.exit(main())
