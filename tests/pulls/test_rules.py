"""The pull requests domain's rules, on the in-memory twin (the fast layer): opening a pull
request from a branch with changes (its mergeability examined, ``refs/pull/<n>/head``
written), what opening refuses, who may merge, the merge styles the repository's settings
allow, conflicts, and a merged pull request's state with its base branch moved."""
from __future__ import annotations

import base64

import pytest

from chalicelib import accounts, contents, pulls, repos
from chalicelib.contents import service as contents_service
from chalicelib.contents.options import CreateFileOptions, UpdateFileOptions
from chalicelib.errors import (ConflictError, InvalidInput, NotAllowed, NotFoundError,
                               PermissionDenied)
from chalicelib.pulls import merging, service
from chalicelib.pulls.options import EditPullRequestOption
from chalicelib.pulls.store import CONFLICT, MANUALLY_MERGED, MERGEABLE
from chalicelib.repo_admin import EditRepoOption
from chalicelib.repo_admin import service as repo_admin
from chalicelib.repos import access
from chalicelib.repos.options import AddCollaboratorOption
from tests import memory_scene as scene


class Project(dict):
    """alice's public ``proj`` (README on ``main``) and its ``feature`` branch (adds a.txt);
    bob may write, carol only reads.  ``project["bob"]`` is the pull requests as bob sees
    them now (a request's context: take a new one per operation, as each request does)."""

    def __missing__(self, name):
        caller = scene.caller(accounts.account_by_name(name))
        repo = repos.repo_by_id(int(self.view.repo.id))
        return pulls.pull_context(caller, repos.view_of(repo, caller))

    def view_as(self, name: str):
        caller = scene.caller(accounts.account_by_name(name))
        return repos.view_of(repos.repo_by_id(int(self.view.repo.id)), caller)


@pytest.fixture
def project(memory):
    return make_project()


def make_project() -> Project:
    """The scene ``Project`` describes, on the twin already installed."""
    found = Project()
    alice, _, _ = (scene.user(name) for name in ("alice", "bob", "carol"))
    found.view = scene.repo(alice, "proj", auto_init=True)
    access.add_collaborator(alice, found.view, "bob", AddCollaboratorOption(permission="write"))
    commit_file(found, "a.txt", "a\n", new_branch="feature")
    return found


def commit_file(project, path: str, text: str, *, branch: str = "main", new_branch=None,
                update: bool = False) -> str:
    """One commit by alice through the contents API; its id."""
    view = project.view_as("alice")
    content = base64.b64encode(text.encode()).decode()
    if update:
        _, entry = contents_service.get_contents(view, path, branch)
        option = UpdateFileOptions(content=content, sha=entry.sha, branch=branch)
    else:
        option = CreateFileOptions(content=content, branch=branch, new_branch=new_branch)
    made = contents_service.change_one(view, accounts.account_by_name("alice"), option, path)
    return made.commit.id.decode()


def tip(project, branch: str) -> str | None:
    info = contents.branch_info(int(project.view.repo.id), branch)
    return info.commit_id if info else None


def open_pull(ctx, head="feature", base="main", title="Add a"):
    return service.create_pull(ctx, pulls.CreatePullRequestOption(head=head, base=base,
                                                                   title=title))


def merge(ctx, number=1, style="merge", **fields) -> int:
    return merging.merge_pull(ctx, number, pulls.MergePullRequestOption(Do=style, **fields))


def fields(project, number=1):
    return pulls.pull_fields_of(service.get_pull(project["alice"], number, consistent=True))


def test_opening_a_pull_request_examines_its_branches(project):
    issue = open_pull(project["carol"])
    assert (issue.number, issue.is_pull, issue.state) == (1, True, "open")
    pull = pulls.pull_fields_of(issue)
    assert (pull.head_branch, pull.base_branch, pull.status) == ("feature", "main", MERGEABLE)
    assert (pull.head_sha, pull.base_sha) == (tip(project, "feature"), tip(project, "main"))
    assert (pull.commits, pull.changed_files, pull.additions, pull.deletions) == (1, 1, 1, 0)
    # The base repository keeps the head commit under refs/pull/1/head.
    git = contents.open_git(project.view.repo)
    assert git.refs[b"refs/pull/1/head"].decode() == pull.head_sha
    assert repos.repo_by_id(int(project.view.repo.id)).num_open_pulls == 1


def test_what_opening_a_pull_request_refuses(project):
    refusals = [(dict(head="main"), InvalidInput, "There are no changes between"),
                (dict(head="nope"), NotFoundError, "could not find 'nope'"),
                (dict(base="nope"), NotFoundError, "could not find 'nope' .* base repository"),
                (dict(title="  "), InvalidInput, r"\[Title\]: Required")]
    for given, kind, text in refusals:
        with pytest.raises(kind, match=text):
            open_pull(project["carol"], **given)
    anonymous = pulls.pull_context(repos.Caller(None), project.view_as("alice"))
    with pytest.raises(PermissionDenied, match="sign in"):
        open_pull(anonymous)
    open_pull(project["carol"])
    with pytest.raises(ConflictError, match="pull request already exists for these targets"):
        open_pull(project["bob"], title="again")
    found, total = service.list_pulls(project["alice"], service.PullQuery(state="all"), 0, 10)
    assert ([p.number for p in found], total) == ([1], 1)


def test_a_writer_merges_and_the_base_branch_moves(project):
    open_pull(project["carol"])
    main, feature = tip(project, "main"), tip(project, "feature")
    with pytest.raises(PermissionDenied, match="User not allowed to merge PR"):
        merge(project["carol"])                       # the poster only reads
    assert tip(project, "main") == main and not service.is_merged(project["alice"], 1)
    assert merge(project["bob"]) == 200
    pull = fields(project)
    assert pull.merged and pull.merged_by["login"] == "bob"
    assert service.get_pull(project["alice"], 1).state == "closed"
    merged = contents.open_git(project.view.repo)[pull.merge_commit_sha.encode()]
    assert tip(project, "main") == pull.merge_commit_sha
    assert merged.parents == [main.encode(), feature.encode()]           # a merge commit
    assert contents_service.get_contents(project.view_as("alice"), "a.txt", "main")[1] \
        .content == b"a\n"
    assert repos.repo_by_id(int(project.view.repo.id)).num_open_pulls == 0
    # Merged is final: no second merge, no reopening.
    with pytest.raises(NotAllowed):
        merge(project["alice"])
    with pytest.raises(ConflictError, match="already merged"):
        service.edit_pull(project["alice"], 1, EditPullRequestOption(state="open"))


def test_merge_styles_are_those_the_repository_allows(project):
    open_pull(project["alice"])
    repo_admin.edit_repo(scene.caller(accounts.account_by_name("alice")),
                         project.view_as("alice"), EditRepoOption(allow_merge_commits=False))
    with pytest.raises(NotAllowed, match="merge is not an allowed merge style"):
        merge(project["alice"], style="merge")
    with pytest.raises(NotAllowed, match="manually-merged is not an allowed merge style"):
        merge(project["alice"], style="manually-merged", MergeCommitID="0" * 40)
    assert not fields(project).merged
    main = tip(project, "main")
    assert merge(project["alice"], style="squash", MergeTitleField="Squashed a") == 200
    squashed = contents.open_git(project.view.repo)[tip(project, "main").encode()]
    assert squashed.parents == [main.encode()]                    # one commit, no merge
    assert squashed.message.startswith(b"Squashed a")
    assert fields(project).merge_commit_sha == squashed.id.decode()


def test_conflicting_branches_are_not_merged(project):
    commit_file(project, "README.md", "main says\n", update=True)
    commit_file(project, "README.md", "feature says\n", branch="feature", update=True)
    open_pull(project["alice"])
    pull = fields(project)
    assert (pull.status, pull.conflicted) == (CONFLICT, ["README.md"])
    main = tip(project, "main")
    with pytest.raises(NotAllowed, match="Please try again later"):
        merge(project["alice"])
    assert tip(project, "main") == main and not fields(project).merged


def test_fast_forward_only_needs_the_head_on_the_base_tip(project):
    open_pull(project["alice"])
    moved_on = commit_file(project, "b.txt", "b\n")            # main moves on
    with pytest.raises(NotAllowed, match="fast-forward-only is not possible"):
        merge(project["alice"], style="fast-forward-only")
    with pytest.raises(ConflictError, match="head out of date"):
        merge(project["alice"], head_commit_id=tip(project, "main"))
    feature = tip(project, "feature")
    assert merge(project["alice"], style="rebase", head_commit_id=feature,
                 delete_branch_after_merge=True) == 200
    rebased = contents.open_git(project.view.repo)[tip(project, "main").encode()]
    assert rebased.message == b"Add 'a.txt'\n" and rebased.parents == [moved_on.encode()]
    assert tip(project, "feature") is None                      # deleted after the merge


def test_work_in_progress_waits_and_a_manual_merge_names_a_commit_on_the_base(project):
    open_pull(project["alice"], title="WIP: Add a")
    with pytest.raises(NotAllowed, match="Work in progress PRs cannot be merged"):
        merge(project["alice"])
    repo_admin.edit_repo(scene.caller(accounts.account_by_name("alice")),
                         project.view_as("alice"), EditRepoOption(allow_manual_merge=True))
    feature = tip(project, "feature")
    with pytest.raises(ConflictError, match="must be the full id of a commit on the base"):
        merge(project["alice"], style="manually-merged", MergeCommitID=feature)
    # The branch reaches main some other way (here: main is moved to it by hand).
    contents.apply_ref_updates(project.view.repo, contents.open_git(project.view.repo),
                               [("refs/heads/main", tip(project, "main"), feature)],
                               actor=accounts.account_by_name("alice"))
    assert merge(project["alice"], style="manually-merged", MergeCommitID=feature) == 200
    pull = fields(project)
    assert (pull.merged, pull.merge_commit_sha, pull.status) == (True, feature,
                                                                 MANUALLY_MERGED)


def test_the_poster_or_a_writer_edits_and_closing_is_not_merging(project):
    open_pull(project["carol"])
    retitled = service.edit_pull(project["carol"], 1, EditPullRequestOption(title="Add a.txt"))
    assert retitled.title == "Add a.txt"
    with pytest.raises(PermissionDenied):               # the base is a writer's to change
        service.edit_pull(project["carol"], 1, EditPullRequestOption(base="feature"))
    with pytest.raises(PermissionDenied, match="only the poster may allow maintainer edits"):
        service.edit_pull(project["bob"], 1, EditPullRequestOption(allow_maintainer_edit=True))
    scene.user("dave")
    with pytest.raises(PermissionDenied):
        service.edit_pull(project["dave"], 1, EditPullRequestOption(title="mine"))
    closed = service.edit_pull(project["bob"], 1, EditPullRequestOption(state="closed"))
    assert closed.state == "closed" and not pulls.pull_fields_of(closed).merged
    with pytest.raises(NotFoundError, match="pull request is closed"):
        merge(project["bob"])
    assert repos.repo_by_id(int(project.view.repo.id)).num_open_pulls == 0


def test_a_pushed_branch_is_told_its_pull_request_link(project):
    """The lines a push prints (git_transport.pull_request_hints): a branch other than
    the default gets the compare link until a pull request from it into the default
    branch is open, then that pull request's link; the default branch, tags and
    deletions get nothing."""
    from chalicelib.git_transport.service import pull_request_hints

    view = project.view_as("alice")
    zero, sha = "0" * 40, "1" * 40
    url = repos.repo_html_url(view)
    assert pull_request_hints(view, [("refs/heads/feature", zero, sha)]) == (
        f"\nCreate a new pull request for 'feature':\n  {url}/compare/main...feature\n\n")
    number = open_pull(project["alice"]).number
    assert pulls.open_pull_number(int(view.repo.id), "feature", "main") == number
    assert pulls.open_pull_number(int(view.repo.id), "feature", "other") is None
    assert pull_request_hints(view, [("refs/heads/feature", sha, sha)]) == (
        f"\nVisit the existing pull request:\n  {url}/pulls/{number}\n\n")
    for quiet in (("refs/heads/main", zero, sha), ("refs/tags/v1", zero, sha),
                  ("refs/heads/feature", sha, zero)):
        assert pull_request_hints(view, [quiet]) is None
