"""Issue dependencies, as Forgejo has them (``routers/api/v1/repo/issue_dependency.go``):
an issue (or pull request) *depends on* another, which *blocks* it; the two may live in
different repositories unless ``[service] ALLOW_CROSS_REPOSITORY_DEPENDENCIES`` is off
(then 400).  The other issue is named by an IssueMeta body (owner, repo, index).

Rules, for a change of "``blocked`` depends on ``blocker``" from either side:

- the caller must write the issues (or pull requests) of ``blocked``'s repository and read
  those of ``blocker``'s; otherwise 404, as Forgejo hides both;
- ``blocked``'s repository must not be archived (404, Forgejo's answer there; the
  ``/dependencies`` path of an archived repository answers 423 first, as Forgejo's
  middleware does);
- an issue never depends on itself (422); an edge that exists is refused (409), and so is
  the reverse of one (409: Forgejo refuses two issues blocking each other); removing an
  edge that is not there is a 404.  (Forgejo answers these three with a 500.)

Each change writes ``add_dependency``/``remove_dependency`` on both issues' timelines in
the edge's transaction (``dependency_store``).  An issue with an open dependency may not
close (``service.IssueEdit``; 412).  Lists hold only the issues the caller may read, a
page at a time, in the order of the other issue's id; an issue deleted since is left
out.
"""
from __future__ import annotations

from dataclasses import dataclass

from chalicelib.errors import (ArchivedRepository, BadInput, ConditionFailed, ConflictError,
                               InvalidInput, NotFoundError)
from chalicelib.issues import dependency_store, timeline_store
from chalicelib.issues import context as ictx
from chalicelib.issues.context import Ctx, snapshot
from chalicelib.issues.options import IssueMeta
from chalicelib.issues.service import get_issue
from chalicelib.issues.store import Issue
from chalicelib.repos import Access, find_repo, find_repo_by_id, repo_access
from chalicelib.settings import get_settings
from chalicelib.store import unit_of_work

CROSS_OFF = "CrossRepositoryDependencies not enabled"
SELF = "an issue cannot depend on itself"


@dataclass
class Side:
    """One issue of an edge with the tracker it lives in, as the caller sees it."""
    ctx: Ctx
    issue: Issue


def can_read(ctx: Ctx, issue: Issue) -> bool:
    """Whether the caller reads the issue's unit (pull requests have their own)."""
    if not issue.is_pull:
        return ctx.can_read
    return repo_access(ctx.user, ctx.repo, ctx.view.owner, public_only=ctx.caller.public_only,
                       unit=ictx.PULLS_UNIT) >= Access.READ


def _path_side(ctx: Ctx, number: int) -> Side:
    issue = get_issue(ctx, number)
    if not can_read(ctx, issue):
        raise NotFoundError(f"issue does not exist [repo_id: {ctx.repo_id}, index: {number}]")
    return Side(ctx, issue)


def _named_side(ctx: Ctx, meta: IssueMeta) -> Side:
    """The issue an IssueMeta names: in the path's repository when owner and repo name it
    (case aside), else in the repository they name."""
    owner, name = meta.owner or "", meta.repo or ""
    index = meta.index if isinstance(meta.index, int) else 0
    here = owner.lower() == ctx.view.owner.login.lower() and name.lower() == ctx.repo.name.lower()
    if here:
        other = ctx
    else:
        if not get_settings().service.ALLOW_CROSS_REPOSITORY_DEPENDENCIES:
            raise BadInput(CROSS_OFF)
        if not owner or not name:
            raise NotFoundError(f"repository does not exist [owner: {owner}, name: {name}]")
        other = ictx.context(ctx.caller, find_repo(ctx.caller, owner, name))
    if index <= 0:
        raise NotFoundError(f"issue does not exist [repo_id: {other.repo_id}, index: {index}]")
    return Side(other, get_issue(other, index))


def _check_change(blocked: Side, blocker: Side) -> None:
    """Forgejo's checks of both sides, in its order; every refusal is a 404."""
    if blocked.ctx.repo.archived or not blocked.ctx.can_write_for(blocked.issue):
        raise NotFoundError("The target couldn't be found.")
    if not can_read(blocker.ctx, blocker.issue):
        raise NotFoundError("The target couldn't be found.")


def _sides(ctx: Ctx, number: int, meta: IssueMeta, *, path_blocked: bool) -> tuple[Side, Side]:
    """(blocked, blocker): the path's issue is the blocked one on ``/dependencies``, the
    blocker on ``/blocks``."""
    if path_blocked and ctx.repo.archived:
        raise ArchivedRepository(f"repo is archived: {ctx.view.owner.login}/{ctx.repo.name}")
    path = Side(ctx, get_issue(ctx, number))
    named = _named_side(ctx, meta)
    blocked, blocker = (path, named) if path_blocked else (named, path)
    _check_change(blocked, blocker)
    return blocked, blocker


def _ids(blocked: Side, blocker: Side) -> str:
    return f"[issue id: {int(blocked.issue.id)}, dependency id: {int(blocker.issue.id)}]"


def _stage_events(blocked: Side, blocker: Side, event_type: str) -> None:
    """The timeline event on both issues, each naming the other."""
    actor = snapshot(blocked.ctx.user)
    for here, there in ((blocked.issue, blocker.issue), (blocker.issue, blocked.issue)):
        timeline_store.stage_event(here, event_type, actor,
                                   dependent_repo_id=int(there.repo_id),
                                   dependent_number=int(there.number),
                                   dependent_issue_id=int(there.id))


def add(ctx: Ctx, number: int, meta: IssueMeta, *, path_blocked: bool) -> Issue:
    """issueCreateIssueDependencies (``path_blocked``) and issueCreateIssueBlocking;
    returns the path's issue."""
    blocked, blocker = _sides(ctx, number, meta, path_blocked=path_blocked)
    if int(blocked.issue.id) == int(blocker.issue.id):
        raise InvalidInput(SELF)
    exists = f"issue dependency does already exist {_ids(blocked, blocker)}"
    circular = f"circular dependencies exists (two issues blocking each other) " \
               f"{_ids(blocked, blocker)}"
    # Read first: a refusal costs a read, not a cancelled transaction.
    dependency_store.read_both_ways(blocked.issue, blocker.issue)
    if dependency_store.exists(blocked.issue, blocker.issue):
        raise ConflictError(exists)
    if dependency_store.exists(blocker.issue, blocked.issue):
        raise ConflictError(circular)
    try:
        with unit_of_work.writing():
            dependency_store.stage_add(blocked.issue, blocker.issue, int(ctx.user.id))
            _stage_events(blocked, blocker, timeline_store.ADD_DEPENDENCY)
    except ConditionFailed as failed:
        raise _lost(failed, exists, circular) from None
    return (blocked if path_blocked else blocker).issue


def remove(ctx: Ctx, number: int, meta: IssueMeta, *, path_blocked: bool) -> Issue:
    """issueRemoveIssueDependencies (``path_blocked``) and issueRemoveIssueBlocking;
    returns the path's issue."""
    blocked, blocker = _sides(ctx, number, meta, path_blocked=path_blocked)
    missing = f"issue dependency does not exist {_ids(blocked, blocker)}"
    if not dependency_store.exists(blocked.issue, blocker.issue):
        raise NotFoundError(missing)
    try:
        with unit_of_work.writing():
            dependency_store.stage_remove(blocked.issue, blocker.issue)
            _stage_events(blocked, blocker, timeline_store.REMOVE_DEPENDENCY)
    except ConditionFailed as failed:
        if failed.label in (dependency_store.LABEL, dependency_store.ISSUE_GONE):
            raise NotFoundError(missing) from None
        raise
    return (blocked if path_blocked else blocker).issue


def _lost(failed: ConditionFailed, exists: str, circular: str) -> Exception:
    """A race lost at commit, in the words of the refusal it amounts to."""
    if failed.label == dependency_store.LABEL:
        return ConflictError(exists)
    if failed.label == dependency_store.CIRCULAR:
        return ConflictError(circular)
    if failed.label == dependency_store.ISSUE_GONE:
        return NotFoundError("The target couldn't be found.")
    return failed


# Lists -------------------------------------------------------------------------------------------

class Readable:
    """The caller's view of the repositories a list's issues live in, each looked up
    once (the path's tracker serves its own repository)."""

    def __init__(self, ctx: Ctx):
        self.ctx = ctx
        self.known: dict[int, Ctx | None] = {ctx.repo_id: ctx}

    def tracker_of(self, repo_id: int) -> Ctx | None:
        if repo_id not in self.known:
            view = find_repo_by_id(self.ctx.caller, repo_id)
            try:
                self.known[repo_id] = ictx.context(self.ctx.caller, view) if view else None
            except NotFoundError:
                self.known[repo_id] = None
        return self.known[repo_id]


def listed(ctx: Ctx, number: int, *, dependencies: bool, offset: int,
           limit: int) -> list[Side]:
    """issueListIssueDependencies (``dependencies``) and issueListBlocks: one page of the
    issue's other ends that the caller may read."""
    _path_side(ctx, number)
    side = dependency_store.DEPENDS_ON if dependencies else dependency_store.BLOCKS
    found = dependency_store.edges(side, ctx.repo_id, number, limit=offset + limit)
    readable = Readable(ctx)
    page = []
    for _, other in dependency_store.other_issues(found[offset:offset + limit]):
        other_ctx = readable.tracker_of(int(other.repo_id))
        if other_ctx is not None and can_read(other_ctx, other):
            page.append(Side(other_ctx, other))
    return page
