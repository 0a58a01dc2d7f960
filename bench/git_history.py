"""Git transfer on real histories: Nimbus (local runtime, moto S3/DynamoDB) against C
git's `git http-backend`, side by side in the same run.

    .venv/bin/python bench/git_history.py PATH [PATH ...] [--runs 3] [--tags 99] [--json]
                                          [--server in-process|make-run]

``--server in-process`` (the default) serves Nimbus from this process's local runtime,
without the journal; ``--server make-run`` benches what a user runs: ``make run`` in a
subprocess, started exactly as the README says (journaled state, the event pipeline,
the webhook worker and the schedules running beside it).

Each PATH is a local clone or mirror of a repository with real history (bench against
local mirrors of public projects: none is shipped here).  For each one and each run,
both servers get a new empty repository and, alternately (C git first, then Nimbus, so
that other load on the machine weighs on both), the same git commands:

1. push of the default branch and its newest ``--tags`` tags (99: one push moves at most
   100 refs);
2. first clone (Nimbus with a cold pack cache, as a new Lambda container);
3. partial clone, ``--filter=blob:none --no-checkout``;
4. fetch of one new commit into the first clone (pushed untimed beforehand);
5. fetch of the same commit into a mirror clone (``--mirror``, made untimed before the
   commit was pushed): every ref of the repository is a "have" the server reads.

With ``--server make-run`` each timed Nimbus command starts once the server's background
work is done (a push's events: in AWS they run in other Lambdas; ``bench/events_queue.py``
times them).  Git's default protocol (v2) throughout.  The table gives each server's minimum over the
runs and the ratio of those minimums, with the per-run (paired) ratios beside it.  Then
both first clones are compared: refs, and ``git fsck`` findings.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import use_repo  # noqa: E402
from git_transfer import drop_cached_packs, git, git_env, timed_git  # noqa: E402

OPERATIONS = ("push", "first clone", "partial clone (blob:none)", "fetch 1 new commit",
              "fetch 1 new commit (mirror)")


def prepare(path: Path, work: Path, tags: int, env: dict) -> dict:
    """A local clone of ``path`` to push from, the refs to push, and one new commit on
    top of the default branch (kept aside under refs/bench/new)."""
    src = work / "src"
    git("clone", "-q", "--no-local", str(path), str(src), env=env)
    branch = git("symbolic-ref", "--short", "HEAD", cwd=src).strip()
    names = git("for-each-ref", "--sort=-creatordate", f"--count={tags}", "--format=%(refname)",
                "refs/tags", cwd=src).split()
    head = git("rev-parse", "HEAD", cwd=src).strip()
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=src, check=True,
                          input=b"one more line\n", capture_output=True).stdout.decode().strip()
    tree = subprocess.run(["git", "mktree"], cwd=src, check=True, capture_output=True, input=(
        git("ls-tree", "HEAD", cwd=src) + f"100644 blob {blob}\tbench-new.txt\n").encode()
    ).stdout.decode().strip()
    new = git("commit-tree", tree, "-p", head, "-m", "one more", cwd=src, env=env).strip()
    git("update-ref", "refs/bench/new", new, cwd=src)
    commits = int(git("rev-list", "--count", head, cwd=src))
    return {"src": src, "branch": branch, "refspecs": [f"refs/heads/{branch}", *names],
            "commits": commits, "tags": len(names)}


def one_run(kind: str, remote: str, repo: dict, out: Path, env: dict,
            cold: callable, settle: callable = lambda: None) -> dict[str, float]:
    """``cold()`` empties Nimbus's pack cache before a clone; ``settle()`` waits until the
    background work of what came before (a push's events) is done, before each timed
    command."""
    src = repo["src"]
    settle()
    times = {"push": timed_git("push", "-q", remote, *repo["refspecs"], cwd=src, env=env)}
    settle()
    cold()
    clone = out / f"{kind}-clone"
    times["first clone"] = timed_git("clone", "-q", "--no-checkout", remote, str(clone), env=env)
    settle()
    cold()
    times["partial clone (blob:none)"] = timed_git(
        "clone", "-q", "--filter=blob:none", "--no-checkout", remote, str(out / f"{kind}-partial"),
        env=env)
    mirror = out / f"{kind}-mirror"
    git("clone", "-q", "--mirror", remote, str(mirror), env=env)
    git("push", "-q", remote, f"refs/bench/new:refs/heads/{repo['branch']}", cwd=src, env=env)
    settle()
    times["fetch 1 new commit"] = timed_git("fetch", "-q", "origin", cwd=clone, env=env)
    times["fetch 1 new commit (mirror)"] = timed_git("fetch", "-q", "origin", cwd=mirror,
                                                     env=env)
    return times


def fsck(clone: Path) -> list[str]:
    done = subprocess.run(["git", "fsck", "--no-dangling", "--no-progress"], cwd=clone,
                          capture_output=True, text=True)
    return sorted(line for line in (done.stdout + done.stderr).splitlines() if line.strip()) + (
        [f"exit {done.returncode}"] if done.returncode else [])


def compare(out: Path) -> dict:
    refs = {k: git("for-each-ref", "--format=%(objectname) %(refname)", cwd=out / f"{k}-clone")
            for k in ("c_git", "nimbus")}
    findings = {k: fsck(out / f"{k}-clone") for k in ("c_git", "nimbus")}
    lines = {k: set(v.splitlines()) for k, v in refs.items()}
    return {"refs_identical": refs["c_git"] == refs["nimbus"],
            "refs_only_c_git": sorted(lines["c_git"] - lines["nimbus"])[:5],
            "refs_only_nimbus": sorted(lines["nimbus"] - lines["c_git"])[:5],
            "fsck_identical": findings["c_git"] == findings["nimbus"],
            "fsck_c_git": findings["c_git"][:5], "fsck_nimbus": findings["nimbus"][:5]}


class HistoryBench:
    """One history on both servers: ``run`` adds one run of each, C git first (each run
    on new repositories); ``result`` gives the table over every run so far."""

    def __init__(self, path: Path, work: Path, tags: int, env: dict, backend_url: str,
                 backend_root: Path, nimbus: dict):
        self.work, self.env, self.nimbus = work, env, nimbus
        self.backend_url, self.backend_root = backend_url, backend_root
        self.repo = prepare(path, work, tags, env)
        self.result = {"path": str(path), "commits": self.repo["commits"],
                       "tags": self.repo["tags"], "runs": {"c_git": [], "nimbus": []}}

    def run(self) -> dict:
        result, repo, env = self.result, self.repo, self.env
        number = len(result["runs"]["c_git"])
        out = self.work / f"run{number}"
        out.mkdir()
        name = f"{self.work.name}-h{number}"
        bare = self.backend_root / f"{name}.git"
        # HEAD names the pushed branch, as Nimbus's does (else C git's clones have none).
        git("init", "-q", "--bare", f"--initial-branch={repo['branch']}", str(bare))
        for key, value in (("http.receivepack", "true"), ("uploadpack.allowFilter", "true"),
                           ("uploadpack.allowAnySHA1InWant", "true")):
            git("-C", str(bare), "config", key, value)
        result["runs"]["c_git"].append(one_run(
            "c_git", f"{self.backend_url}/{name}.git", repo, out, env, cold=lambda: None))
        result["runs"]["nimbus"].append(one_run(
            "nimbus", self.nimbus["new_repo"](name), repo, out, env, cold=self.nimbus["cold"],
            settle=self.nimbus["settle"]))
        if number == 0:
            result["check"] = compare(out)
            result["pack_bytes"] = sum(p.stat().st_size for p in (bare / "objects").rglob("*")
                                       if p.is_file())
        shutil.rmtree(out, ignore_errors=True)
        for op in OPERATIONS:
            c = [r[op] for r in result["runs"]["c_git"]]
            n = [r[op] for r in result["runs"]["nimbus"]]
            result.setdefault("table", {})[op] = {
                "c_git_s": min(c), "nimbus_s": min(n), "ratio": min(n) / min(c),
                "paired": [b / a for a, b in zip(c, n)]}
        return result

    def close(self) -> None:
        shutil.rmtree(self.repo["src"], ignore_errors=True)


def bench_history(path: Path, work: Path, runs: int, tags: int, env: dict, backend_url: str,
                  backend_root: Path, nimbus: dict) -> dict:
    history = HistoryBench(path, work, tags, env, backend_url, backend_root, nimbus)
    try:
        for _ in range(runs):
            history.run()
        return history.result
    finally:
        history.close()


@contextlib.contextmanager
def nimbus_server(mode: str, work: Path, cache: Path) -> Iterator[tuple[str, tuple[str, str]]]:
    """Nimbus's base URL and an admin (user, password): this process's local runtime
    (``in-process``) or ``make run`` in a subprocess (``make-run``)."""
    if mode == "make-run":
        from make_run import ADMIN, make_run

        with make_run(work, {"NIMBUS_CACHE_DIR": str(cache), "NIMBUS_LOG_LEVEL": "ERROR"}) as base:
            yield base, ADMIN
        return
    from chalicelib.accounts import ensure_admin
    from chalicelib.local.runtime import LocalRuntime

    with LocalRuntime(port=0, data_dir=work / "data", access_log=False,
                      snapshot_interval=3600) as rt:
        ensure_admin("bench", "bench-password", "bench@example.com")
        yield rt.url, ("bench", "bench-password")


@contextlib.contextmanager
def both_servers(mode: str, work: Path) -> Iterator[dict]:
    """C git's ``http-backend`` and Nimbus (``mode``, see :func:`nimbus_server`), with
    what :class:`HistoryBench` takes besides a history: the git environment, the
    backend's URL and folder, and Nimbus's ``new_repo`` and ``cold``."""
    cache = work / "pack-cache"
    use_repo({"NIMBUS_CACHE_DIR": str(cache), "NIMBUS_LOG_LEVEL": "ERROR"})
    import httpx

    from tests.git_backend import serve_http_backend

    env = git_env(work / "home")
    backend_root = work / "backend"
    backend_root.mkdir()
    backend, backend_url = serve_http_backend(backend_root)
    try:
        with nimbus_server(mode, work, cache) as (base, admin):
            api = f"{base}/api/v1"
            token = httpx.post(f"{api}/users/{admin[0]}/tokens", auth=admin,
                               json={"name": "b", "scopes": ["all"]}).json()["sha1"]
            host = base.split("://")[1]

            def new_repo(name: str) -> str:
                httpx.post(f"{api}/user/repos", headers={"Authorization": f"token {token}"},
                           json={"name": name}).raise_for_status()
                return f"http://{admin[0]}:{token}@{host}/{admin[0]}/{name}.git"

            def settle() -> None:
                # A push's events (language statistics, pull request sync, webhooks) run
                # in other Lambdas in AWS; on make run they share the machine, so each
                # timed command waits for them (bench/events_queue.py times them).
                if mode == "make-run":
                    from make_run import wait_until_quiet

                    wait_until_quiet(base, quiet_for=0.5)

            yield {"env": env, "backend_url": backend_url, "backend_root": backend_root,
                   "nimbus": {"new_repo": new_repo, "cold": lambda: drop_cached_packs(cache),
                              "settle": settle}}
    finally:
        backend.shutdown()


def print_history(r: dict) -> None:
    print(f"\n{r['path']}: {r['commits']} commits, {r['tags']} tags, "
          f"{r['pack_bytes'] / 1e6:.1f} MB pushed; minimum of {len(r['runs']['c_git'])} runs")
    print(f"{'':28}{'C git':>9}{'Nimbus':>9}{'ratio':>7}   paired ratios")
    for op, row in r["table"].items():
        paired = " ".join(f"{x:.2f}" for x in row["paired"])
        print(f"{op:28}{row['c_git_s']:>8.2f}s{row['nimbus_s']:>8.2f}s{row['ratio']:>6.2f}x"
              f"   {paired}")
    check = r["check"]
    print(f"refs identical: {check['refs_identical']}; git fsck findings identical: "
          f"{check['fsck_identical']}")
    for key in ("refs_only_c_git", "refs_only_nimbus", "fsck_c_git", "fsck_nimbus"):
        if check[key] and not (check["refs_identical" if key.startswith("refs")
                                     else "fsck_identical"]):
            print(f"  {key}: {check[key]}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tags", type=int, default=99)
    parser.add_argument("--server", choices=("in-process", "make-run"), default="in-process")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="nimbus-history-"))
    results = []
    try:
        with both_servers(args.server, work) as servers:
            for i, path in enumerate(args.paths):
                hist = work / f"p{i}"
                hist.mkdir()
                results.append(bench_history(path.resolve(), hist, args.runs, args.tags,
                                             **servers))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    if args.json:
        print(json.dumps(results, indent=2))
    for r in results:
        print_history(r)
    ok = all(r["check"]["refs_identical"] and r["check"]["fsck_identical"] for r in results)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
