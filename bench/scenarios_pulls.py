"""Pull request scenarios for bench/aws_calls.py (imported there).

Each pull request gets a branch of its own on alice/demo, made in-process with the
git-operations layer and moved like an API ref change (set-up: not counted).
"""
from __future__ import annotations

from scene import Req, after

DEMO = "/repos/alice/demo"


def new_branch(s, name: str | None = None, start: str = "main", repo_name: str = "demo") -> str:
    """A branch off ``start`` of alice/``repo_name`` with one new file; returns its name."""
    from chalicelib.gitops import commits, objects, trees
    from chalicelib.contents import pushes
    from chalicelib.contents import files as repo_files
    from chalicelib.repos import store as repo_store
    from chalicelib.store import unit_of_work

    name = name or s.unique("topic-")
    with unit_of_work.start():
        repo = repo_store.get("alice", repo_name)
        git = repo_files.open_git(repo)
        parent = git.refs[f"refs/heads/{start}".encode()]
        with objects.staged(git.object_store) as staged:
            made = commits.commit_edits(
                staged, parent=parent, edits=[trees.write(f"{name}.txt", name.encode())],
                author=commits.Identity("Alice", "alice@example.com"), message=name)
        pushes.apply_ref_updates(repo, git, [(f"refs/heads/{name}", None, made.id.decode())])
    return name


def new_pull(s, head: str | None = None, base: str = "main") -> int:
    head = head or new_branch(s)
    return s.must("POST", f"{DEMO}/pulls", "token",
                  {"head": head, "base": base, "title": s.unique("pull ")})["number"]


def some_pulls(s) -> int:
    """A page's worth of open pull requests (made once); returns one number."""
    return s.once("pulls", lambda: [new_pull(s) for _ in range(12)][-1])


def merged_pull(s) -> int:
    def make() -> int:
        number = new_pull(s)
        s.must("POST", f"{DEMO}/pulls/{number}/merge", "token", {"Do": "merge"}, expect=200)
        return number
    return s.once("merged_pull", make)


def scheduled_pull(s) -> int:
    number = new_pull(s)
    s.must("POST", f"{DEMO}/pulls/{number}/merge", "token",
           {"Do": "merge", "merge_when_checks_succeed": True}, expect=201)
    return number


def behind_pull(s) -> int:
    """A pull request whose base moved on after its head branched off."""
    base = new_branch(s, s.unique("base-"))
    head = new_branch(s, s.unique("head-"), start=base)
    from chalicelib.gitops import commits, objects, trees
    from chalicelib.contents import pushes
    from chalicelib.contents import files as repo_files
    from chalicelib.repos import store as repo_store
    from chalicelib.store import unit_of_work

    with unit_of_work.start():
        repo = repo_store.get("alice", "demo")
        git = repo_files.open_git(repo)
        tip = git.refs[f"refs/heads/{base}".encode()]
        with objects.staged(git.object_store) as staged:
            made = commits.commit_edits(staged, parent=tip,
                                        edits=[trees.write("moved.txt", b"moved")],
                                        author=commits.Identity("Alice", "alice@example.com"),
                                        message="base moves on")
        pushes.apply_ref_updates(repo, git, [(f"refs/heads/{base}", tip.decode(),
                                              made.id.decode())])
    return new_pull(s, head, base)


def scenarios() -> dict:
    """operationId -> scenario, as in aws_calls.SCENARIOS."""
    return {
        "repoListPullRequests": lambda s: after(some_pulls(s), [
            Req("GET", f"{DEMO}/pulls"), Req("GET", f"{DEMO}/pulls", "token")]),
        "repoCreatePullRequest": lambda s: [Req("POST", f"{DEMO}/pulls", "token", {
            "head": new_branch(s), "base": "main", "title": "measured"}, 201)],
        "repoGetPullRequest": lambda s: [Req("GET", f"{DEMO}/pulls/{some_pulls(s)}"),
                                         Req("GET", f"{DEMO}/pulls/{some_pulls(s)}", "token")],
        "repoEditPullRequest": lambda s: [Req("PATCH", f"{DEMO}/pulls/{some_pulls(s)}", "token",
                                              {"body": s.unique("edited ")}, 201)],
        "repoPullRequestIsMerged": lambda s: [
            Req("GET", f"{DEMO}/pulls/{merged_pull(s)}/merge", expect=204)],
        "repoMergePullRequest": lambda s: [Req("POST", f"{DEMO}/pulls/{new_pull(s)}/merge",
                                               "token", {"Do": "merge"}, 200)],
        "repoCancelScheduledAutoMerge": lambda s: [
            Req("DELETE", f"{DEMO}/pulls/{scheduled_pull(s)}/merge", "token", expect=204)],
        "repoUpdatePullRequest": lambda s: [
            Req("POST", f"{DEMO}/pulls/{behind_pull(s)}/update", "token", expect=200)],
        "repoGetPullRequestByBaseHead": lambda s: [
            Req("GET", f"{DEMO}/pulls/main/{new_branch_with_pull(s)}")],
        "repoDownloadPullDiffOrPatch": lambda s: [
            Req("GET", f"{DEMO}/pulls/{some_pulls(s)}.diff"),
            Req("GET", f"{DEMO}/pulls/{some_pulls(s)}.patch")],
        "repoGetPullRequestCommits": lambda s: [
            Req("GET", f"{DEMO}/pulls/{some_pulls(s)}/commits")],
        "repoGetPullRequestFiles": lambda s: [
            Req("GET", f"{DEMO}/pulls/{some_pulls(s)}/files")],
    }


def new_branch_with_pull(s) -> str:
    head = new_branch(s)
    new_pull(s, head)
    return head
