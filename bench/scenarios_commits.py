"""Commit scenarios for bench/aws_calls.py (imported there): the commit list of alice/demo's
default branch, one commit, one commit's diff and patch, a comparison with a new branch,
and the pull request of a pull request's head commit; creating, deleting and renaming a
branch; listing, reading, creating and deleting tags; the language statistics."""
from __future__ import annotations

import scenarios_pulls
from scene import Req

DEMO = "/repos/alice/demo"

# Tags: the preload, then the repository's refs and pack list; a list reads every tag
# object (to sort them, as for-each-ref) and the releases holding them (two batches); a
# write adds the new object's pack (two PUTs), its publication and the refs' transaction.
# Languages: the preload and the cached figures (one item).
BUDGETS = {
    ("repoListTags", "anon"): 6,
    ("repoListTags", "token"): 6,
    ("repoGetTag", "anon"): 4,
    ("repoCreateTag", "token"): 10,
    ("repoDeleteTag", "token"): 5,
    ("repoGetLanguages", "anon"): 3,
}


def head_of(s, branch: str = "main") -> str:
    """The commit id ``branch`` points at (set-up: not counted)."""
    def read() -> str:
        from chalicelib.contents import files as repo_files
        from chalicelib.repos import store as repo_store
        from chalicelib.store import unit_of_work

        with unit_of_work.start():
            repo = repo_store.get("alice", "demo")
            return repo_files.open_git(repo).refs[f"refs/heads/{branch}".encode()].decode()
    return s.once(f"head:{branch}", read)


def pull_head(s) -> str:
    """The head commit of one of the pull requests scenarios_pulls makes."""
    number = scenarios_pulls.some_pulls(s)
    return s.must("GET", f"{DEMO}/pulls/{number}", "token", expect=200)["head"]["sha"]


def compared(s) -> str:
    """A branch one commit ahead of main."""
    return s.once("compared", lambda: scenarios_pulls.new_branch(s))


def tag(s) -> str:
    """A new lightweight tag on main (set-up: not counted)."""
    name = s.unique("tag-")
    s.must("POST", f"{DEMO}/tags", "token", {"tag_name": name}, expect=201)
    return name


def scenarios() -> dict:
    """operationId -> scenario, as in aws_calls.SCENARIOS."""
    return {
        "repoGetAllCommits": lambda s: [Req("GET", f"{DEMO}/commits"),
                                        Req("GET", f"{DEMO}/commits", "token")],
        "repoGetSingleCommit": lambda s: [Req("GET", f"{DEMO}/git/commits/{head_of(s)}"),
                                          Req("GET", f"{DEMO}/git/commits/{head_of(s)}",
                                              "token")],
        "repoDownloadCommitDiffOrPatch": lambda s: [
            Req("GET", f"{DEMO}/git/commits/{head_of(s)}.diff"),
            Req("GET", f"{DEMO}/git/commits/{head_of(s)}.patch")],
        "repoCompareDiff": lambda s: [Req("GET", f"{DEMO}/compare/main...{compared(s)}")],
        "repoGetCommitPullRequest": lambda s: [
            Req("GET", f"{DEMO}/commits/{pull_head(s)}/pull")],
        "repoCreateBranch": lambda s: [Req("POST", f"{DEMO}/branches", "token",
                                           {"new_branch_name": s.unique("made-")}, 201)],
        "repoDeleteBranch": lambda s: [
            Req("DELETE", f"{DEMO}/branches/{scenarios_pulls.new_branch(s)}", "token",
                expect=204)],
        "repoUpdateBranch": lambda s: [
            Req("PATCH", f"{DEMO}/branches/{scenarios_pulls.new_branch(s)}", "token",
                {"name": s.unique("renamed-")}, 204)],
        "repoListTags": lambda s: [Req("GET", f"{DEMO}/tags"),
                                   Req("GET", f"{DEMO}/tags", "token")],
        "repoGetTag": lambda s: [Req("GET", f"{DEMO}/tags/{tag(s)}")],
        "repoCreateTag": lambda s: [Req("POST", f"{DEMO}/tags", "token",
                                        {"tag_name": s.unique("made-tag-"),
                                         "message": "annotated"}, 201)],
        "repoDeleteTag": lambda s: [Req("DELETE", f"{DEMO}/tags/{tag(s)}", "token",
                                        expect=204)],
        "repoGetLanguages": lambda s: [Req("GET", f"{DEMO}/languages")],
    }
