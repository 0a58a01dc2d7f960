"""Lists and searches at two instance sizes, on ``make run`` as a user starts it: does a
page cost more when the instance holds more repositories?

    .venv/bin/python bench/list_sizes.py [--sizes 100 1000] [--repeat 11] [--json]

For each size a ``make run`` gets ``alice`` with ``OWN`` repositories (two of them
named ``*-tool``) and, besides, as many repositories of ten other users as make up the
size; both run at once, and the set-up's events are handled before anything is timed.
Then each page below is asked on each server in turn, ``--repeat`` rounds at least and
until no ratio moves more than ``STABLE`` from one round to the next (at most three
times ``--repeat``), and the medians are kept:

- ``owner list``: ``GET /api/v1/users/alice/repos?limit=10``: alice's first page;
- ``owner search``: ``GET /api/v1/repos/search?q=tool&uid=<alice>&limit=10``;
- ``instance search``: ``GET /api/v1/repos/search?q=repo&limit=10`` (every repository);
- ``explore``: ``GET /explore/repos`` (the web page, every repository).

The first two read alice's index only, the last two the search index a page at a time
(docs/search.md): no page's cost may grow with the instance (``flat``: the larger
size's median over the smaller's).  ``bench/guard.py`` fails past ``LIMIT``.
(``bench/search_sizes.py`` measures search at three sizes up to 10,000 repositories.)
"""
from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import use_repo  # noqa: E402

OWN = 20
OTHERS = 10
LIMIT = 1.5
# Rounds go on while a ratio moves more than this between two rounds.
STABLE = 0.03
PAGES = ("owner list", "owner search", "instance search", "explore")
FLAT = PAGES


def populate(http, size: int) -> int:
    """alice's repositories and the others' up to ``size``; alice's user id."""
    alice = http.post("/api/v1/admin/users", json={
        "username": "alice", "email": "alice@example.com", "password": "alice-password-1",
        "must_change_password": False}).json()["id"]
    for n in range(OTHERS):
        http.post("/api/v1/admin/users", json={
            "username": f"user{n}", "email": f"user{n}@example.com",
            "password": "user-password-1", "must_change_password": False}).raise_for_status()
    made = [("alice", f"alice-{'tool' if n < 2 else 'repo'}-{n}") for n in range(OWN)]
    made += [(f"user{n % OTHERS}", f"repo-{n}") for n in range(size - OWN)]

    def create(owner_name: tuple[str, str]) -> None:
        owner, name = owner_name
        http.post(f"/api/v1/admin/users/{owner}/repos",
                  json={"name": name, "description": f"bench {name}"}).raise_for_status()

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        list(pool.map(create, made))
    return alice


class Instance:
    """One ``make run`` holding ``size`` repositories, and its pages' timings."""

    def __init__(self, base: str, admin: tuple[str, str], size: int):
        import httpx
        from make_run import wait_until_quiet

        self.size = size
        self.http = httpx.Client(base_url=base, timeout=120)
        token = self.http.post(f"/api/v1/users/{admin[0]}/tokens", auth=admin,
                               json={"name": "lists", "scopes": ["all"]}).json()["sha1"]
        self.http.headers["Authorization"] = f"token {token}"
        started = time.monotonic()
        alice = populate(self.http, size)
        self.populate_s = time.monotonic() - started
        self.settle_s = wait_until_quiet(base)      # the set-up's events handled
        self.pages = {"owner list": "/api/v1/users/alice/repos?limit=10",
                      "owner search": f"/api/v1/repos/search?q=tool&uid={alice}&limit=10",
                      "instance search": "/api/v1/repos/search?q=repo&limit=10",
                      "explore": "/explore/repos"}
        self.times: dict[str, list[float]] = {name: [] for name in self.pages}
        for path in self.pages.values():        # warms the process up, untimed
            self.http.get(path).raise_for_status()

    def ask(self, name: str) -> None:
        start = time.perf_counter()
        self.http.get(self.pages[name]).raise_for_status()
        self.times[name].append(time.perf_counter() - start)

    def summary(self) -> dict:
        return {"size": self.size, "populate_s": self.populate_s, "settle_s": self.settle_s,
                "asked": len(self.times["owner list"]),
                "median_s": {name: statistics.median(t) for name, t in self.times.items()}}


def measure(instances: list[Instance], repeat: int, max_repeat: int) -> list[dict]:
    """Rounds of every page on every instance in turn (noise weighs on both sizes
    alike), ``repeat`` at least, until the ratios move less than ``STABLE`` between
    rounds or ``max_repeat`` rounds were asked."""
    last: dict[str, float] | None = None
    for round_number in range(1, max_repeat + 1):
        for name in PAGES:
            for instance in instances:
                instance.ask(name)
        if round_number < repeat:
            continue
        found = ratios(instances[0].summary(), instances[-1].summary())
        if last and all(abs(found[n] - last[n]) <= STABLE * last[n] for n in PAGES):
            break
        last = found
    return [instance.summary() for instance in instances]


def ratios(small: dict, large: dict) -> dict[str, float]:
    """``flat`` pages: large / small; the others: per repository."""
    scale = large["size"] / small["size"]
    return {name: large["median_s"][name] / small["median_s"][name] / (1 if name in FLAT
                                                                        else scale)
            for name in PAGES}


def run(sizes: list[int], repeat: int, max_repeat: int | None = None) -> list[dict]:
    """Both sizes served at once, each by its own ``make run``."""
    from make_run import ADMIN, make_run

    with contextlib.ExitStack() as stack:
        instances = []
        for size in sizes:
            work = Path(tempfile.mkdtemp(prefix="nimbus-lists-"))
            stack.callback(shutil.rmtree, work, ignore_errors=True)
            base = stack.enter_context(make_run(work, {"NIMBUS_LOG_LEVEL": "ERROR"}))
            instance = Instance(base, ADMIN, size)
            stack.callback(instance.http.close)
            instances.append(instance)
        return measure(instances, repeat, max_repeat or repeat * 3)


def report(results: list[dict]) -> tuple[bool, dict]:
    found = ratios(results[0], results[-1])
    print(f"{'':18}" + "".join(f"{r['size']:>9} repos" for r in results) + "    ratio")
    for name in PAGES:
        kind = "flat" if name in FLAT else "per item"
        row = "".join(f"{r['median_s'][name] * 1000:>12.1f} ms" for r in results)
        print(f"{name:18}{row}   {found[name]:5.2f}x {kind}"
              f"{'' if found[name] <= LIMIT else '  OVER'}")
    return all(value <= LIMIT for value in found.values()), found


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs=2, default=[100, 1000])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    use_repo({"NIMBUS_LOG_LEVEL": "ERROR"})
    results = run(args.sizes, args.repeat)
    ok, found = report(results)
    if args.json:
        print(json.dumps({"results": results, "ratios": found, "ok": ok}, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
