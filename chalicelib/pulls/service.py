"""Pull requests: open, list, get, edit (merging is ``pull_merging``).

A pull request is an issue (the same number sequence, comments, labels, milestones)
whose item carries the pull request's fields (``pulls/store.py``).  Opening one checks
the head and base as Forgejo does (fj:routers/api/v1/repo/pull.go parseCompareInfo),
examines mergeability (``pull_checks``) and writes, in one transaction, the issue with
its counters, ``refs/pull/<number>/head`` in the base repository and the "opened" event.

Permissions: whoever can read the repository's pull requests and code may open one
(the head repository must be readable too); the poster or a writer may edit it; only
the poster sets ``allow_maintainer_edit``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator, Protocol

from chalicelib import accounts, contents, issues, repos
from chalicelib.errors import ConflictError, InvalidInput, NotFoundError, PermissionDenied
from chalicelib.issues import (MAX_TITLE, PULLS_UNIT, CreateIssueOption, Ctx, issue_context,
                               value_of, with_labels)
from chalicelib.pulls import checks as pull_checks
from chalicelib.pulls import store
from chalicelib.pulls.options import CreatePullRequestOption, EditPullRequestOption
from chalicelib.pulls.store import PullFields
from chalicelib.repos import Caller, RepoView

if TYPE_CHECKING:
    from chalicelib.issues import Issue, Tracker
    from chalicelib.repos import Repo

ZERO = "0" * 40
HEADS = "refs/heads/"
SORTS = ("oldest", "recentupdate", "recentclose", "leastupdate", "mostcomment",
         "leastcomment", "priority")


def pull_ref(number: int) -> str:
    return f"refs/pull/{int(number)}/head"


def fields_of(issue: Issue) -> PullFields:
    return store.fields_of(issue)


def pull_context(caller: Caller, view: RepoView) -> Ctx:
    """The repository's pull requests as ``caller`` sees them (404 when they may not)."""
    return issue_context(caller, view, PULLS_UNIT)


def get_pull(ctx: Ctx, number: int, *, consistent: bool = False) -> Issue:
    issue = issues.get_issue(ctx, number, consistent=consistent)
    if not issue.is_pull:
        raise NotFoundError(f"pull request does not exist [repo_id: {ctx.repo_id}, "
                            f"index: {number}]")
    return issue


def branch_tip(view: RepoView, branch: str) -> str | None:
    git = contents.open_git(view.repo)
    try:
        return git.refs[(HEADS + branch).encode()].decode()
    except KeyError:
        return None


def stage_head_ref(git, number: int, head_sha: str, uow) -> None:
    """Stage ``refs/pull/<number>/head`` moving to ``head_sha``, compare-and-swap from
    the value this request read; call ``git.refs.refresh()`` after the commit."""
    ref = pull_ref(number)
    current = git.refs.read_loose_ref(ref.encode())
    old = current.decode() if current else ZERO
    git.refs.stage_updates(uow, git.refs.checked_updates([(ref, old, head_sha)]), {})


# Head and base -------------------------------------------------------------------------------

def head_view(ctx: Ctx, head: str) -> tuple[RepoView, str]:
    """The head repository and branch named by ``branch``, ``owner:branch`` or
    ``owner/repo:branch`` (``fork_network.locate``)."""
    return repos.locate_branch(ctx.caller, ctx.view, head)


def head_repo_label(ctx: Ctx, pull: PullFields) -> str:
    """``owner/repo`` of the head repository, as merge messages name a fork."""
    head = repos.repo_by_id(pull.head_repo_id)
    return f"{head.owner_login}/{head.name}" if head else "<deleted>"


def _tip_or_404(view: RepoView, branch: str, which: str) -> str:
    sha = branch_tip(view, branch)
    if sha is None:
        raise NotFoundError(f"could not find '{branch}' to be a commit, branch or tag in the "
                            f"{which} repository {view.owner.login}/{view.repo.name}")
    return sha


def _open_duplicate(ctx: Ctx, head_repo_id: int, head_branch: str, base_branch: str,
                    *, other_than: int = 0) -> Issue | None:
    return next((item for item in _open_between(ctx.repo_id, head_repo_id, head_branch,
                                                base_branch)
                 if int(item.number) != other_than), None)


def open_pull_number(repo_id: int, head_branch: str, base_branch: str) -> int | None:
    """The number of the open pull request from this repository's ``head_branch`` into
    its ``base_branch`` (a push's "Visit the existing pull request"), or None."""
    found = next(_open_between(repo_id, repo_id, head_branch, base_branch), None)
    return int(found.number) if found is not None else None


def _open_between(repo_id: int, head_repo_id: int, head_branch: str,
                  base_branch: str) -> Iterator[Issue]:
    for item in store.open_pulls(repo_id):
        pull = store.fields_of(item)
        if (pull.head_repo_id == head_repo_id and pull.head_branch == head_branch
                and pull.base_branch == base_branch):
            yield item


def examined(ctx: Ctx, pull: PullFields, base_sha: str, head_sha: str) -> PullFields:
    """``pull`` with the mergeability of ``head_sha`` into ``base_sha``."""
    git = contents.open_git(ctx.repo)
    found = pull_checks.examine(git.object_store, base_sha, head_sha)
    pull.base_sha, pull.head_sha, pull.merge_base = found.base_sha, found.head_sha, \
        found.merge_base
    pull.status, pull.conflicted = found.status, list(found.conflicted)
    pull.additions, pull.deletions = found.additions, found.deletions
    pull.changed_files, pull.commits = found.changed_files, found.commits
    return pull


# Open ---------------------------------------------------------------------------------------------

class OpeningExtras(Protocol):
    """What a domain above this one writes with a pull request being opened, in the same
    transaction (the reviews domain: the reviews its ``reviewers`` ask for), checked
    before it is handed here."""

    def apply(self, fields: PullFields) -> None:
        """Set the pull request's fields before they are stored."""

    def stage(self, issue: Issue, uow) -> None:
        """Stage its own items and events once the pull request has its number."""


def create_pull(ctx: Ctx, option: CreatePullRequestOption,
                extras: OpeningExtras | None = None) -> Issue:
    """repoCreatePullRequest (the reviews domain's ``open_pull`` adds the reviewers)."""
    head = (option.head or "").strip()
    base = (option.base or "").strip()
    title = (option.title or "").strip()
    if not head or not base:
        raise InvalidInput("[Head]: Required" if not head else "[Base]: Required")
    if not title:
        raise InvalidInput("[Title]: Required")
    if len(title) > MAX_TITLE:
        raise InvalidInput("[Title]: MaxSize")
    if head == base:
        raise InvalidInput("Invalid PullRequest: There are no changes between the head and "
                           "the base")
    if ctx.user is None:
        raise PermissionDenied("sign in to open a pull request")
    # Before any git work (create_issue asks again, from the same preloaded item).
    accounts.check_not_blocked([ctx.repo.owner_id], ctx.user.id)
    source, head_branch = head_view(ctx, head)
    if source.repo.id == ctx.repo.id and head_branch == base:
        raise InvalidInput("Invalid PullRequest: There are no changes between the head and "
                           "the base")
    base_sha = _tip_or_404(ctx.view, base, "base")
    head_sha = _tip_or_404(source, head_branch, "head")
    duplicate = _open_duplicate(ctx, int(source.repo.id), head_branch, base)
    if duplicate is not None:
        raise ConflictError(f"pull request already exists for these targets [id: "
                            f"{int(duplicate.id)}, issue_id: {int(duplicate.id)}, head_repo_id: "
                            f"{int(source.repo.id)}, base_repo_id: {ctx.repo_id}, head_branch: "
                            f"{head_branch}, base_branch: {base}]")
    pull = examined(ctx, PullFields(head_repo_id=int(source.repo.id), head_branch=head_branch,
                                    base_branch=base), base_sha, head_sha)
    if extras is not None:
        extras.apply(pull)
    from chalicelib import repos
    pull.allow_maintainer_edit = bool(
        repos.merge_settings_of(ctx.repo)["default_allow_maintainer_edit"])
    git = contents.open_git(ctx.repo)

    # The issue half of the pull request: what a CreateIssueOption shares with it.
    shared = CreateIssueOption(title=option.title, body=option.body, assignee=option.assignee,
                               assignees=option.assignees, milestone=option.milestone,
                               labels=option.labels, due_date=option.due_date)

    def also(issue: Issue, uow) -> None:
        stage_head_ref(git, int(issue.number), pull.head_sha, uow)
        if extras is not None:
            extras.stage(issue, uow)

    issue = issues.create_issue(ctx, shared, pull=pull.dumps(), also=also)
    git.refs.refresh()
    return issue


# List -----------------------------------------------------------------------------------------------

@dataclass
class PullQuery:
    state: str = "open"                  # open | closed | all
    sort: str = ""
    milestone: int = 0
    labels: list[int] = field(default_factory=list)
    poster: str = ""

    @property
    def simple(self) -> bool:
        return not (self.sort or self.milestone or self.labels or self.poster)


def list_pulls(ctx: Ctx, query: PullQuery, offset: int, limit: int) -> tuple[list[Issue], int]:
    """Newest first by default (one Query for the page); other sorts and filters read
    the state's list of pull requests whole and order it here."""
    if query.state not in ("open", "closed", "all"):
        raise InvalidInput("[State]: must be one of open, closed, all")
    if query.sort and query.sort not in SORTS:
        raise InvalidInput(f"[Sort]: must be one of {', '.join(SORTS)}")
    if query.simple:
        return issues.list_issues(ctx, issues.IssueQuery(state=query.state, kind="pulls"),
                                  offset, limit)
    states = {"open": "o", "closed": "c"}.get(query.state, "oc")
    poster_id = None
    if query.poster:
        try:
            poster_id = int(accounts.get_user(query.poster, ctx.user).id)
        except NotFoundError:
            return [], 0
    found = [i for i in store.pulls(ctx.repo_id, states)
             if (poster_id is None or int(i.poster_id) == poster_id)
             and (not query.milestone or int(i.milestone_id or 0) == query.milestone)
             and all(label in [int(x) for x in i.label_ids] for label in query.labels)]
    found.sort(key=_sort_key(query.sort))
    return found[offset:offset + limit], len(found)


def _sort_key(sort: str):
    return {
        "oldest": lambda i: (int(i.created), int(i.number)),
        "recentupdate": lambda i: (-int(i.updated), -int(i.number)),
        "priority": lambda i: (-int(i.updated), -int(i.number)),
        "recentclose": lambda i: (-int(i.closed_at or 0), -int(i.number)),
        "leastupdate": lambda i: (int(i.updated), int(i.number)),
        "mostcomment": lambda i: (-int(i.num_comments), -int(i.number)),
        "leastcomment": lambda i: (int(i.num_comments), -int(i.number)),
    }.get(sort, lambda i: -int(i.number))


def find_by_branches(ctx: Ctx, base: str, head: str) -> Issue:
    """repoGetPullRequestByBaseHead: the newest pull request of ``head`` into ``base``."""
    source, head_branch = head_view(ctx, head)
    for item in store.pulls(ctx.repo_id, "oc"):
        pull = store.fields_of(item)
        if (pull.base_branch == base and pull.head_branch == head_branch
                and pull.head_repo_id == int(source.repo.id)):
            return item
    raise NotFoundError(f"pull request does not exist [base: {base}, head: {head}]")


# Edit -------------------------------------------------------------------------------------------------

def edit_pull(ctx: Ctx, number: int, option: EditPullRequestOption) -> Issue:
    """repoEditPullRequest."""
    current = get_pull(ctx, number)
    can_write = ctx.can_write_for(current)
    is_poster = ctx.user is not None and int(current.poster_id) == int(ctx.user.id)
    if ctx.user is None or not (is_poster or can_write):
        raise PermissionDenied("user should have a permission to write to a repo")
    edit = issues.IssueEdit.parse(ctx, option, can_write=can_write, is_pull=True)
    if edit.state is not None and edit.state not in ("open", "closed"):
        raise InvalidInput("[State]: must be open or closed")
    maintainer_edit = value_of(option.allow_maintainer_edit)
    if maintainer_edit is not None and not is_poster:
        raise PermissionDenied("only the poster may allow maintainer edits")
    # An empty list removes every label; left out or null keeps them.
    labels = value_of(option.labels) if can_write else None
    pull_now = store.fields_of(current)
    if pull_now.merged and edit.state == "open":
        raise ConflictError("cannot change state of this pull request, it was already merged")
    if pull_now.merged:
        edit.state = None
    rechecked = _new_base(ctx, number, pull_now, value_of(option.base), can_write)

    def change(old: Issue, new: Issue, tracker: Tracker) -> None:
        pull = store.fields_of(new)
        edit.apply(old, new, tracker)
        if labels is not None:
            new.label_ids = with_labels([], labels, tracker)
        if maintainer_edit is not None:
            pull.allow_maintainer_edit = maintainer_edit
        if rechecked is not None:
            pull.base_branch = rechecked[0]
            examined(ctx, pull, rechecked[1], pull.head_sha)
        store.set_fields(new, pull)

    _, new = issues.mutate_issue(ctx, number, change, lambda old, new: issues.issue_edit_events(ctx, old, new))
    return new


def _new_base(ctx: Ctx, number: int, pull: PullFields, base: str | None,
              can_write: bool) -> tuple[str, str] | None:
    """(branch, tip) of a changed base, checked; None when the base stays."""
    if base is None or base == pull.base_branch:
        return None
    if not can_write:
        raise PermissionDenied("user should have a permission to write to a repo")
    if pull.merged:
        raise ConflictError("cannot change the base of a merged pull request")
    base_sha = _tip_or_404(ctx.view, base, "base")
    if _open_duplicate(ctx, pull.head_repo_id, pull.head_branch, base,
                       other_than=number) is not None:
        raise ConflictError("pull request already exists for these targets")
    if pull.head_repo_id == ctx.repo_id and pull.head_branch == base:
        raise InvalidInput("Invalid PullRequest: There are no changes between the head and the "
                           "base")
    return base, base_sha


def is_merged(ctx: Ctx, number: int) -> bool:
    return store.fields_of(get_pull(ctx, number)).merged


def pull_of_commit(repo: Repo, sha: str) -> Issue:
    """The newest pull request of the repository whose merge commit, or else whose head,
    is ``sha`` (a full commit id)."""
    sha = sha.strip().lower()
    items = store.pulls(int(repo.id), "oc")
    for sha_field in ("merge_commit_sha", "head_sha"):
        for item in items:
            if sha and getattr(store.fields_of(item), sha_field) == sha:
                return item
    raise NotFoundError(f"no pull request of commit {sha}")
