"""Branch and tag protection scenarios for bench/aws_calls.py (imported there), on a
repository of their own (a rule on alice/demo's main would refuse other scenarios'
writes).

Reads: the preload (token and repository, then the access items with the rules item),
then the names of the users the rules list (one batched read).  Writes: the same,
the names given looked up (an index query each), one conditional put."""
from __future__ import annotations

from scene import Req

BUDGETS = {
    ("repoListBranchProtection", "token"): 2,
    ("repoGetBranchProtection", "token"): 2,
    ("repoCreateBranchProtection", "token"): 4,
    ("repoEditBranchProtection", "token"): 4,
    ("repoDeleteBranchProtection", "token"): 3,
    ("repoListTagProtection", "token"): 2,
    ("repoGetTagProtection", "token"): 2,
    ("repoCreateTagProtection", "token"): 4,
    ("repoEditTagProtection", "token"): 4,
    ("repoDeleteTagProtection", "token"): 3,
}


def guarded(s) -> str:
    """alice's repository with one branch rule (``main``) and one tag rule (id 1), each
    listing alice."""
    def make() -> str:
        name = s.new_repo(auto_init=True)
        base = f"/repos/alice/{name}"
        s.must("POST", f"{base}/branch_protections", "token",
               {"rule_name": "main", "enable_push": True, "enable_push_whitelist": True,
                "push_whitelist_usernames": ["alice"]})
        s.must("POST", f"{base}/tag_protections", "token",
               {"name_pattern": "v*", "whitelist_usernames": ["alice"]})
        return base
    return s.once("protected_repo", make)


def _new_branch_rule(s) -> str:
    name = s.unique("rule")
    s.must("POST", f"{guarded(s)}/branch_protections", "token", {"rule_name": name})
    return name


def _new_tag_rule(s) -> int:
    return s.must("POST", f"{guarded(s)}/tag_protections", "token",
                  {"name_pattern": s.unique("t") + "*", "whitelist_usernames": ["alice"]})["id"]


def scenarios() -> dict:
    bp = lambda s: f"{guarded(s)}/branch_protections"   # noqa: E731
    tp = lambda s: f"{guarded(s)}/tag_protections"      # noqa: E731
    return {
        "repoListBranchProtection": lambda s: [Req("GET", bp(s), "token")],
        "repoGetBranchProtection": lambda s: [Req("GET", f"{bp(s)}/main", "token")],
        "repoCreateBranchProtection": lambda s: [Req(
            "POST", bp(s), "token", {"rule_name": s.unique("rel") + "/*",
                                     "merge_whitelist_usernames": ["alice"]}, 201)],
        "repoEditBranchProtection": lambda s: [Req(
            "PATCH", f"{bp(s)}/main", "token", {"required_approvals": 1,
                                                "push_whitelist_usernames": ["alice"]})],
        "repoDeleteBranchProtection": lambda s: [Req(
            "DELETE", f"{bp(s)}/{_new_branch_rule(s)}", "token", expect=204)],
        "repoListTagProtection": lambda s: [Req("GET", tp(s), "token")],
        "repoGetTagProtection": lambda s: [Req("GET", f"{tp(s)}/1", "token")],
        "repoCreateTagProtection": lambda s: [Req(
            "POST", tp(s), "token", {"name_pattern": s.unique("r") + "*",
                                     "whitelist_usernames": ["alice"]}, 201)],
        "repoEditTagProtection": lambda s: [Req(
            "PATCH", f"{tp(s)}/1", "token", {"whitelist_usernames": ["alice"]})],
        "repoDeleteTagProtection": lambda s: [Req(
            "DELETE", f"{tp(s)}/{_new_tag_rule(s)}", "token", expect=204)],
    }
