"""What branch protection adds to a push and to a merge, in AWS calls (issue 27: "the
protection check adds at most one batched read to a push or a merge").

The same request is measured twice under moto, on a repository without rules and on
one whose ``main`` is protected (an allow list, a required status context, one required
approval that is there): a fast-forward push of one commit to ``main`` by its owner,
and the merge of a pull request into ``main``.  The difference is what the rules cost.

    .venv/bin/python bench/protection_calls.py [--json]

Exit status 1 when a difference is over ``MOST_ADDED`` (or a request did not succeed).
"""
from __future__ import annotations

import sys
import _harness

_harness.use_repo({"NIMBUS__SERVER__ROOT_URL": "http://nimbus.test/",
                   "NIMBUS__SECURITY__PASSWORD_HASH_COST": "1024"})

from scenarios_git import MAIN, head_of, receive_pack_body  # noqa: E402
from scenarios_pulls import new_branch  # noqa: E402
from scene import Req, moto_scene  # noqa: E402

MOST_ADDED = 1
RULE = {"rule_name": "main", "enable_push": True, "enable_push_whitelist": True,
        "push_whitelist_usernames": ["alice"], "enable_status_check": True,
        "status_check_contexts": ["ci/test"], "required_approvals": 1,
        "dismiss_stale_approvals": True}


def _repo(s, protected: bool) -> str:
    name = s.new_repo(auto_init=True)
    if protected:
        s.must("POST", f"/repos/alice/{name}/branch_protections", "token", RULE)
    return name


def push(s, protected: bool) -> Req:
    repo = _repo(s, protected)
    body = receive_pack_body({"bench.txt": s.unique("pushed ").encode()},
                             head_of(s, f"/repos/alice/{repo}"))
    return Req("POST", f"/alice/{repo}.git/git-receive-pack", "token", data=body,
               content_type="application/x-git-receive-pack-request",
               expect_body=f"ok {MAIN}".encode())


def merge(s, protected: bool) -> Req:
    """A pull request into main with its check green and root's approval (the poster,
    alice, may not approve her own)."""
    repo = _repo(s, protected)
    head = new_branch(s, repo_name=repo)
    number = s.must("POST", f"/repos/alice/{repo}/pulls", "token",
                    {"head": head, "base": "main", "title": "measured"})["number"]
    sha = s.must("GET", f"/repos/alice/{repo}/pulls/{number}", "token", expect=200)[
        "head"]["sha"]
    s.must("POST", f"/repos/alice/{repo}/statuses/{sha}", "token",
           {"state": "success", "context": "ci/test"}, expect=200)
    s.must("PUT", f"/repos/alice/{repo}/collaborators/root", "token",
           {"permission": "write"}, expect=204)
    s.must("POST", f"/repos/alice/{repo}/pulls/{number}/reviews", "admin",
           {"event": "APPROVED"}, expect=200)
    return Req("POST", f"/repos/alice/{repo}/pulls/{number}/merge", "token", {"Do": "merge"})


def run() -> dict:
    counter = _harness.CallCounter()
    rows = []
    with moto_scene("nimbus-protection-bench-", counter.hook) as s:
        s.build()
        s.call("GET", "/api/v1/users/root", "token")        # per-process costs, not counted
        for what, make in (("push", push), ("merge", merge)):
            for protected in (False, True):
                req = make(s, protected)
                target = req.path if what == "push" else "/api/v1" + req.path
                with counter.counting() as calls:
                    status, body = s.call(req.method, target, req.auth, req.body,
                                          data=req.data, content_type=req.content_type)
                ok = status == req.expect and (req.expect_body is None or req.expect_body in body)
                rows.append({"what": what, "protected": protected, "calls": sum(calls.values()),
                             "breakdown": dict(sorted(calls.items())), "ok": ok,
                             "answer": "" if ok else body[:300].decode("utf-8", "replace")})
    added = {}
    for what in ("push", "merge"):
        plain, guarded = (next(r for r in rows if r["what"] == what and r["protected"] is p)
                          for p in (False, True))
        added[what] = guarded["calls"] - plain["calls"]
    failed = any(n > MOST_ADDED for n in added.values()) or not all(r["ok"] for r in rows)
    return {"rows": rows, "added": added, "most_added": MOST_ADDED,
            "exit_status": 1 if failed else 0}


def show(result: dict) -> None:
    for row in result["rows"]:
        state = "protected" if row["protected"] else "no rules "
        print(f"{row['what']:6} {state} {row['calls']:3} calls  {row['breakdown']}"
              + ("" if row["ok"] else f"  FAILED: {row['answer']}"))
    for what, n in result["added"].items():
        print(f"{what}: the rules add {n} call(s) (at most {result['most_added']})")


def main() -> int:
    return _harness.report(__doc__, run, show)


if __name__ == "__main__":
    sys.exit(main())
