"""Search at three instance sizes, on ``make run`` as a user starts it: does a search
page cost more when the instance holds more repositories and issues?

    .venv/bin/python bench/search_sizes.py [--sizes 100 2000 10000] [--repeat 9] [--json]

For each size a ``make run`` (with ``NIMBUS_LOCAL_AWS_CALLS=1``: every answer says how
many AWS calls it made) gets that many repositories, spread over ``OWNERS`` users, one
in ``PRIVATE_EVERY`` private, each named ``<word>-<n>`` with a description, and as many
issues (one per repository, titled with two words of ``WORDS`` and its number).  After
the set-up's events are handled (the index kept current by the event pipeline), each
page below is asked ``--repeat`` times on each server in turn and the median latency
and the AWS calls it made are kept:

- ``repo search``: ``/api/v1/repos/search?q=-1&limit=10`` (anonymous);
- ``repo search desc``: the same sorted newest first;
- ``explore``: ``/explore/repos`` (the web page, anonymous);
- ``issue search``: ``/api/v1/repos/issues/search?q=<word>&limit=10`` (anonymous);
- ``issue search, token``: the same with the token of ``viewer``, who owns ``VIEWER_OWN``
  private repositories (a caller's own private ones are read from their own lists, so
  the size of what they reach is kept the same across sizes);
- ``issue list``: ``/api/v1/repos/issues/search`` without a keyword (anonymous).

Flat means the largest size's median at most ``LIMIT`` times the smallest's, for
latency and for AWS calls.  Then, on every size, each query of ``checks`` is compared
with what a full filter of what was created gives (every page read): names by
substring in any case, sorts, the private filter, issue words; and no private
repository or issue is ever shown to an anonymous caller.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import use_repo  # noqa: E402

OWNERS = 10
VIEWER_OWN = 3
PRIVATE_EVERY = 10
LIMIT = 1.5
WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
         "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo",
         "sierra", "tango", "uniform", "victor", "whiskey", "xray", "yankee", "zulu")
# Each page is full (10 items) at every size: a page showing 3 items costs less than one
# showing 10 whatever the instance holds, which would measure the page, not the size.
# (At 100 repositories "tango" names 3 public ones: 11.5 ms, against 21 ms for a full
# page at 2,000 and at 10,000.)  "-1" names 10 public repositories among 100.
PAGES = {
    "repo search": ("/api/v1/repos/search?q=-1&limit=10", False),
    "repo search desc": ("/api/v1/repos/search?q=-1&limit=10&sort=created&order=desc",
                         False),
    "explore": ("/explore/repos", False),
    "issue search": ("/api/v1/repos/issues/search?q=quebec&limit=10", False),
    "issue search, token": ("/api/v1/repos/issues/search?q=quebec&limit=10", True),
    "issue list": ("/api/v1/repos/issues/search?limit=10", False),
}


@dataclass
class Made:
    """What the set-up created: the truth a full filter is taken over."""
    repos: list[dict] = field(default_factory=list)     # full_name, name, private, n
    issues: list[dict] = field(default_factory=list)    # full_name, title, private


def repo_word(n: int) -> str:
    return WORDS[(n * 7) % len(WORDS)]


def issue_words(n: int) -> tuple[str, str]:
    return WORDS[(n * 3) % len(WORDS)], WORDS[(n * 11 + 5) % len(WORDS)]


def populate(base: str, headers: dict, size: int) -> Made:
    import httpx

    admin = httpx.Client(base_url=base, timeout=120, headers=headers)
    for k in range(OWNERS):
        admin.post("/api/v1/admin/users", json={
            "username": f"owner{k}", "email": f"owner{k}@example.com",
            "password": "owner-password-1", "must_change_password": False}).raise_for_status()
    made = Made()
    for n in range(size):
        owner, name = f"owner{n % OWNERS}", f"{repo_word(n)}-{n}"
        private = n % PRIVATE_EVERY == 0
        made.repos.append({"full_name": f"{owner}/{name}", "name": name, "private": private,
                           "n": n})
        first, second = issue_words(n)
        made.issues.append({"full_name": f"{owner}/{name}", "private": private,
                            "title": f"{first.title()} {second} problem {n}"})

    def create(n: int) -> None:
        with httpx.Client(base_url=base, timeout=120, headers=headers) as http:
            repo, issue = made.repos[n], made.issues[n]
            owner = repo["full_name"].split("/")[0]
            http.post(f"/api/v1/admin/users/{owner}/repos", json={
                "name": repo["name"], "private": repo["private"],
                "description": f"bench repository number {n}"}).raise_for_status()
            http.post(f"/api/v1/repos/{repo['full_name']}/issues", json={
                "title": issue["title"], "body": f"found while testing {n}"}).raise_for_status()

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        list(pool.map(create, range(size)))
    admin.post("/api/v1/admin/users", json={
        "username": "viewer", "email": "viewer@example.com", "password": "viewer-password-1",
        "must_change_password": False}).raise_for_status()
    for k in range(VIEWER_OWN):
        name = f"viewer-{k}"
        admin.post("/api/v1/admin/users/viewer/repos",
                   json={"name": name, "private": True}).raise_for_status()
        title = f"Quebec viewer problem {k}"
        admin.post(f"/api/v1/repos/viewer/{name}/issues",
                   json={"title": title}).raise_for_status()
        made.repos.append({"full_name": f"viewer/{name}", "name": name, "private": True,
                           "n": size + k})
        made.issues.append({"full_name": f"viewer/{name}", "private": True, "title": title})
    admin.close()
    return made


class Instance:
    """One ``make run`` holding ``size`` repositories and issues, and its measures."""

    def __init__(self, base: str, admin: tuple[str, str], size: int):
        import httpx
        from make_run import wait_until_quiet

        self.size, self.base = size, base
        boot = httpx.Client(base_url=base, timeout=120)
        token = boot.post(f"/api/v1/users/{admin[0]}/tokens", auth=admin,
                          json={"name": "search", "scopes": ["all"]}).json()["sha1"]
        boot.close()
        started = time.monotonic()
        self.made = populate(base, {"Authorization": f"token {token}"}, size)
        self.populate_s = time.monotonic() - started
        self.settle_s = wait_until_quiet(base, timeout=3600)
        self.anonymous = httpx.Client(base_url=base, timeout=120)
        self.owner = self.client_of("owner0", "owner-password-1")
        self.viewer = self.client_of("viewer", "viewer-password-1")
        self.times: dict[str, list[float]] = {name: [] for name in PAGES}
        self.calls: dict[str, list[int]] = {name: [] for name in PAGES}
        self.shown: dict[str, int | None] = {}
        for name in PAGES:           # warms the process up, untimed
            self.ask(name, keep=False)

    def client_of(self, user: str, password: str):
        import httpx

        token = self.anonymous.post(f"/api/v1/users/{user}/tokens", auth=(user, password),
                                    json={"name": "search", "scopes": ["all"]}).json()["sha1"]
        return httpx.Client(base_url=self.base, timeout=120,
                            headers={"Authorization": f"token {token}"})

    def ask(self, name: str, *, keep: bool = True) -> None:
        path, signed_in = PAGES[name]
        http = self.viewer if signed_in else self.anonymous
        start = time.perf_counter()
        resp = http.get(path)
        elapsed = time.perf_counter() - start
        resp.raise_for_status()
        if keep:
            self.times[name].append(elapsed)
            self.calls[name].append(int(resp.headers.get("x-nimbus-aws-calls", "-1")))
            body = resp.json() if path.startswith("/api/") else None
            items = body["data"] if isinstance(body, dict) else body
            self.shown[name] = len(items) if isinstance(items, list) else None

    def summary(self) -> dict:
        return {"size": self.size, "populate_s": round(self.populate_s, 1),
                "settle_s": round(self.settle_s, 1),
                "median_ms": {n: round(statistics.median(t) * 1000, 1)
                              for n, t in self.times.items()},
                "aws_calls": {n: max(c) for n, c in self.calls.items()},
                "items_shown": self.shown}

    def close(self) -> None:
        for http in (self.anonymous, self.owner, self.viewer):
            http.close()


# Results equal to a full filter's -----------------------------------------------------------

def every_page(http, path: str, key) -> list:
    found, page = [], 1
    while True:
        resp = http.get(f"{path}&limit=50&page={page}")
        resp.raise_for_status()
        body = resp.json()
        items = body["data"] if isinstance(body, dict) else body
        found += [key(item) for item in items]
        if len(items) < 50:
            return found
        page += 1


def checks(instance: Instance) -> list[str]:
    """The queries whose results differ from a full filter's (empty: all equal)."""
    made, anonymous, owner = instance.made, instance.anonymous, instance.owner
    public = [r for r in made.repos if not r["private"]]
    failures = []

    def expect(what: str, got: list, wanted: list) -> None:
        if got != wanted:
            failures.append(f"size {instance.size}: {what}: {len(got)} found, "
                            f"{len(wanted)} expected; first differing "
                            f"{next((g, w) for g, w in zip(got + [None], wanted + [None]) if g != w)}")

    name_of = lambda r: r["full_name"]  # noqa: E731
    for keyword in ("tango", "TAN", "o-1", "ra-2"):
        wanted = sorted((r for r in public if keyword.lower() in r["name"].lower()),
                        key=lambda r: r["name"].lower())
        expect(f"repo search q={keyword} alpha",
               every_page(anonymous, f"/api/v1/repos/search?q={keyword}&sort=alpha",
                          lambda r: r["full_name"]), [name_of(r) for r in wanted])
    wanted = sorted((r for r in public if "echo" in r["name"]), key=lambda r: -r["n"])
    expect("repo search q=echo newest first",
           every_page(anonymous, "/api/v1/repos/search?q=echo&sort=created&order=desc",
                      lambda r: r["full_name"]), [name_of(r) for r in wanted])
    mine = [r for r in made.repos if r["full_name"].startswith("owner0/")]
    wanted = sorted((r for r in mine if r["private"] and "kilo" in r["name"]),
                    key=lambda r: r["name"].lower())
    expect("repo search q=kilo is_private (owner)",
           every_page(owner, "/api/v1/repos/search?q=kilo&is_private=true&sort=alpha",
                      lambda r: r["full_name"]), [name_of(r) for r in wanted])
    for word in ("quebec", "sierra"):
        wanted = sorted(f"{i['full_name']}#{i['title']}" for i in made.issues
                        if not i["private"] and word in i["title"].lower().split())
        got = sorted(every_page(anonymous, f"/api/v1/repos/issues/search?q={word}",
                                lambda i: f"{i['repository']['full_name']}#{i['title']}"))
        expect(f"issue search q={word}", got, wanted)
        wanted = sorted(f"{i['full_name']}#{i['title']}" for i in made.issues
                        if word in i["title"].lower().split() and (
                            not i["private"] or i["full_name"].startswith("owner0/")))
        got = sorted(every_page(owner, f"/api/v1/repos/issues/search?q={word}",
                                lambda i: f"{i['repository']['full_name']}#{i['title']}"))
        expect(f"issue search q={word} (owner0)", got, wanted)
    private = {r["full_name"] for r in made.repos if r["private"]}
    seen = set(every_page(anonymous, "/api/v1/repos/search?q=ta", lambda r: r["full_name"]))
    seen |= {i.split("#")[0] for i in every_page(
        anonymous, "/api/v1/repos/issues/search?q=problem",
        lambda i: f"{i['repository']['full_name']}#")}
    page = anonymous.get("/explore/repos?q=o").text
    seen |= set(re.findall(r"owner\d/[a-z]+-\d+", page))
    if seen & private:
        failures.append(f"size {instance.size}: private shown anonymously: "
                        f"{sorted(seen & private)[:5]}")
    return failures


def measure(instances: list[Instance], repeat: int) -> list[dict]:
    for _ in range(repeat):
        for name in PAGES:
            for instance in instances:
                instance.ask(name)
    return [instance.summary() for instance in instances]


def run(sizes: list[int], repeat: int) -> tuple[list[dict], list[str]]:
    from make_run import ADMIN, make_run

    with contextlib.ExitStack() as stack:
        bases = []
        for _ in sizes:
            work = Path(tempfile.mkdtemp(prefix="nimbus-search-"))
            stack.callback(shutil.rmtree, work, ignore_errors=True)
            bases.append(stack.enter_context(make_run(work, {
                "NIMBUS_LOG_LEVEL": "ERROR", "NIMBUS_LOCAL_AWS_CALLS": "1"})))
        # Populated at once (each its own make run), measured in turn.
        with concurrent.futures.ThreadPoolExecutor(len(sizes)) as pool:
            instances = list(pool.map(lambda pair: Instance(pair[0], ADMIN, pair[1]),
                                      zip(bases, sizes)))
        for instance in instances:
            stack.callback(instance.close)
        results = measure(instances, repeat)
        failures = [f for instance in instances for f in checks(instance)]
        return results, failures


def report(results: list[dict], failures: list[str]) -> bool:
    small, large = results[0], results[-1]
    print(f"{'':22}" + "".join(f"{r['size']:>14}" for r in results) + "   ratio")
    ok = True
    for name in PAGES:
        row = "".join(f"{r['median_ms'][name]:>8.1f} ms {r['aws_calls'][name]:>2}c"
                      for r in results)
        ratio = large["median_ms"][name] / small["median_ms"][name]
        calls_flat = large["aws_calls"][name] <= small["aws_calls"][name] * LIMIT
        flat = ratio <= LIMIT and calls_flat
        ok &= flat
        shown = "/".join(str(r["items_shown"].get(name, "-")) for r in results)
        print(f"{name:22}{row}   {ratio:5.2f}x{'' if flat else '  OVER'}   items {shown}")
    print("set-up: " + ", ".join(f"{r['size']}: {r['populate_s']} s + {r['settle_s']} s events"
                                 for r in results))
    for failure in failures:
        print("DIFFERS:", failure)
    print("results equal to a full filter's, private never shown" if not failures
          else f"{len(failures)} checks failed")
    return ok and not failures


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 2000, 10000])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    use_repo({"NIMBUS_LOG_LEVEL": "ERROR"})
    results, failures = run(sorted(args.sizes), args.repeat)
    ok = report(results, failures)
    if args.json:
        print(json.dumps({"results": results, "failures": failures, "ok": ok}, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
