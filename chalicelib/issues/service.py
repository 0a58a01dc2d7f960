"""Issues: list, create, get, edit, delete, and the labels of an issue.

Every write is staged in the request's unit of work with every counter it moves and its
events, and committed once (``chalicelib.issues.store`` describes the transaction).
Edits are conditional on the issue's ``version`` as read and, on a lost race, retried
after a consistent re-read; never read-modify-written blindly.  A create takes the
number after the tracker's ``next_number`` as read (the request's preload), conditional
on nobody having taken it meanwhile, and retries the same way: two creates never share
a number, and a refused create burns none.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from chalicelib import accounts, clock, events
from chalicelib.errors import (ConditionFailed, ConflictError, DependenciesLeft, InvalidInput,
                               NotFoundError, PermissionDenied)
from chalicelib.http.options import given
from chalicelib.issues import (comment_store, dependency_store, reaction_store, reference_store,
                               store, timeline_store, tracker_store)
from chalicelib.issues.context import (MAX_TITLE, Ctx, assignees_from, milestone_from, parse_time,
                                       require_writer, resolve_labels, set_assignees, snapshot,
                                       value_of, with_labels)
from chalicelib.issues.options import (CreateIssueOption, EditIssueOption, IssueEditFields,
                                       IssueLabelsOption)
from chalicelib.issues.store import Issue, Tracker
from chalicelib.issues.tracker_store import TrackerChange
from chalicelib.store import unit_of_work
from chalicelib.store.unit_of_work import UnitOfWork

# Parallel writers race for a version: creates in one repository for the next number
# and for the tracker, edits of one issue (labels added, fields changed) for the issue.
# None of them named a precondition, so each must land; each lost race means another
# writer succeeded, so this bounds how many may run at once, not the odds.
RETRIES = 64
RETRIED = ("issue", "tracker")      # ConditionFailed labels that mean "changed since read"
MAX_BACKOFF = 0.5                   # seconds
DEPENDENCIES_LEFT = "cannot close this issue because it still has open dependencies"


# Reads --------------------------------------------------------------------------------------

def get_issue(ctx: Ctx, number: int, *, consistent: bool = False) -> Issue:
    issue = store.get_issue(ctx.repo_id, number, consistent=consistent)
    if issue is None:
        raise NotFoundError(f"issue does not exist [repo_id: {ctx.repo_id}, index: {number}]")
    return issue


@dataclass
class IssueQuery:
    state: str = "open"              # open | closed | all
    kind: str = ""                   # "" | issues | pulls
    keyword: str = ""
    labels: list[str] = field(default_factory=list)
    milestones: list[str] = field(default_factory=list)
    created_by: str = ""
    assigned_by: str = ""
    mentioned_by: str = ""
    since: int | None = None
    before: int | None = None

    @property
    def filtered(self) -> bool:
        return bool(self.keyword or self.labels or self.milestones or self.created_by
                     or self.assigned_by or self.mentioned_by or self.since is not None
                     or self.before is not None)


def _letters(query: IssueQuery) -> tuple[str, str]:
    states = {"open": "o", "closed": "c"}.get(query.state, "oc")
    types = {"issues": "i", "pulls": "p"}.get(query.kind, "ip")
    return states, types


def list_issues(ctx: Ctx, query: IssueQuery, offset: int, limit: int) -> tuple[list[Issue], int]:
    """Newest first.  Without filters: the page is located from the tracker's bucket
    counts and read with one Query (any offset).  With filters DynamoDB cannot key on,
    the state list is read whole (paged by DynamoDB) and filtered here."""
    tracker = ctx.tracker()
    states, types = _letters(query)
    if not query.filtered:
        return store.page(tracker, ctx.repo_id, states, types, offset, limit)
    people = {name: _user_id(ctx, name) for name in (query.created_by, query.assigned_by) if name}
    numbers = _numbers_with_keyword(ctx, query)
    if numbers is None:
        items = [i for i in store.query_all(ctx.repo_id, states, types)
                 if _matches(tracker, i, query, people)]
        return items[offset:offset + limit], len(items)
    if not replace(query, keyword="").filtered:
        # Only the keyword: the index's matches are the list; read the page's issues.
        return store.issues_numbered(ctx.repo_id, numbers[offset:offset + limit]), len(numbers)
    plain = replace(query, keyword="")
    items = [i for i in store.issues_numbered(ctx.repo_id, numbers)
             if _matches(tracker, i, plain, people)]
    return items[offset:offset + limit], len(items)


def _numbers_with_keyword(ctx: Ctx, query: IssueQuery) -> list[int] | None:
    """The issues whose words hold the keyword's, from the search index (the
    repository's list of its longest word, not every issue), newest first; None
    without a keyword the index can look up."""
    from chalicelib import search   # the search domain is above: it indexes the tracker

    if not query.keyword:
        return None
    states, types = _letters(query)
    return search.issue_numbers_matching(
        ctx.repo_id, query.keyword, closed=None if len(states) == 2 else states == "c",
        pull=None if len(types) == 2 else types == "p")


def _user_id(ctx: Ctx, name: str) -> int:
    try:
        return int(accounts.get_user(name, ctx.user).id)
    except NotFoundError:
        return -1


def _matches(tracker: Tracker, issue: Issue, query: IssueQuery, people: dict[str, int]) -> bool:
    if query.keyword:
        text = f"{issue.title}\n{issue.body}".lower()
        if not all(word in text for word in query.keyword.lower().split()):
            return False
    if query.labels:
        names = {tracker.labels[i]["name"] for i in issue.label_ids if i in tracker.labels}
        if not all(name in names for name in query.labels):
            return False
    if query.milestones:
        milestone = tracker.milestones.get(int(issue.milestone_id or 0))
        if milestone is None:
            return False
        wanted = set(query.milestones)
        if milestone.get("title") not in wanted and str(int(issue.milestone_id)) not in wanted:
            return False
    if query.created_by and int(issue.poster_id) != people[query.created_by]:
        return False
    if query.assigned_by and people[query.assigned_by] not in [int(i) for i in issue.assignee_ids]:
        return False
    if query.mentioned_by and f"@{query.mentioned_by.lower()}" not in issue.body.lower():
        return False
    if query.since is not None and int(issue.updated) < query.since:
        return False
    if query.before is not None and int(issue.updated) > query.before:
        return False
    return True


# Events ---------------------------------------------------------------------------------------

def issue_event(ctx: Ctx, issue: Issue, action: str,
                changes: dict | None = None) -> events.IssueChanged:
    return events.IssueChanged(
        **ctx.event_fields(), issue_id=int(issue.id), number=int(issue.number),
        is_pull=bool(issue.is_pull), action=action,
        changes=tuple(sorted((changes or {}).items())), issue=events.snapshot(issue))


def edit_events(ctx: Ctx, old: Issue, new: Issue) -> list[events.IssueChanged]:
    """Forgejo's actions for what an edit changed; an edit that changed none of them
    (a due date, or nothing) is still a write: "edited" with no changes."""
    changes = {name: getattr(old, name) for name in ("title", "body", "ref")
               if getattr(old, name) != getattr(new, name)}
    raised = [issue_event(ctx, new, "edited", changes)] if changes else []
    if old.state != new.state:
        raised.append(issue_event(ctx, new, "closed" if new.state == "closed" else "reopened"))
    if int(old.milestone_id or 0) != int(new.milestone_id or 0):
        raised.append(issue_event(ctx, new, "milestoned" if new.milestone_id else "demilestoned"))
    if list(old.assignee_ids) != list(new.assignee_ids):
        raised.append(issue_event(ctx, new, "assigned" if new.assignee_ids else "unassigned"))
    return raised or [issue_event(ctx, new, "edited")]


# Writes ----------------------------------------------------------------------------------------

def stage_counters(ctx: Ctx, old: Issue | None, new: Issue | None, tracker: Tracker, *,
                   take_number: bool = False) -> TrackerChange:
    """Stage the tracker and repository counter moves that take the issue from ``old``
    to ``new`` (None: absent); returns the tracker change."""
    change = TrackerChange.for_issue(old, new, tracker)
    if take_number:
        change.take_number(tracker)
    tracker_store.stage(ctx.repo_id, change, exists=tracker.exists)
    open_delta = int(bool(new is not None and new.is_open)) - \
        int(bool(old is not None and old.is_open))
    store.stage_open_count(ctx.repo, bool((new or old).is_pull), open_delta)
    return change


Written = tuple[Tracker, TrackerChange, Any]     # the tracker as read, its change, a result


def commit_retrying(ctx: Ctx, write: Callable[[bool, UnitOfWork], Written], *,
                    attempts: int = RETRIES, conflict: str) -> Any:
    """Run ``write(consistent, uow)`` (read, then stage) and commit it; when a staged
    condition fails because the issue or the tracker changed since read, run it again
    on a consistent re-read.  Returns ``write``'s result."""
    for attempt in range(attempts):
        try:
            with unit_of_work.writing() as uow:
                tracker, change, result = write(attempt > 0, uow)
        except ConditionFailed as failed:
            if failed.label == "repo":
                raise NotFoundError("repository does not exist") from None
            if failed.label not in RETRIED:
                raise
            # Exponential jitter: writers racing for the same item spread out instead of
            # colliding again in step (each lost race means another writer succeeded).
            time.sleep(random.uniform(0, min(MAX_BACKOFF, 0.005 * 2 ** attempt)))
            continue
        ctx.wrote(tracker, change)
        return result
    raise ConflictError(conflict)


def create_issue(ctx: Ctx, option: CreateIssueOption, *, pull: str = "",
                 also: Callable[[Issue, UnitOfWork], None] | None = None) -> Issue:
    """issueCreateIssue.  A pull request is created here too (the same number
    sequence): ``pull`` is its fields' JSON and ``also`` stages what goes with it in the
    same transaction."""
    accounts.check_not_blocked([ctx.repo.owner_id], ctx.user.id)   # preloaded: no read
    title = (option.title or "").strip()
    if not title:
        raise InvalidInput("[Title]: Required")
    if len(title) > MAX_TITLE:
        raise InvalidInput("[Title]: MaxSize")
    body = option.body or ""
    closed = bool(option.closed)
    wanted_labels: list[int] = []
    due, assigned = 0, []
    if ctx.can_write:
        wanted_labels = list(option.labels or [])
        due = parse_time(option.due_date or None, "Deadline") or 0
        assigned = assignees_from(ctx, option.assignee, option.assignees, bool(pull)) or []
    created = clock.seconds()
    issue_id = store.new_issue_id()     # one per create, however many attempts it takes

    def write(consistent: bool, uow: UnitOfWork) -> Written:
        tracker = ctx.tracker(consistent=consistent)
        issue = store.new_issue(
            ctx.repo_id, tracker.next_number + 1, issue_id, title=title, body=body,
            state="closed" if closed else "open", poster_id=ctx.user.id,
            poster=store.dumps(snapshot(ctx.user)),
            label_ids=with_labels([], wanted_labels, tracker) if ctx.can_write else [],
            milestone_id=milestone_from(tracker, option.milestone) if ctx.can_write else 0,
            due=due, ref=option.ref or "", created=created, updated=created,
            closed_at=created if closed else 0, is_pull=bool(pull), pull=pull)
        set_assignees(issue, assigned)
        store.stage_create_issue(issue)
        timeline_store.stage_changes(None, issue, _actor(ctx))
        if also is not None:
            also(issue, uow)
        change = stage_counters(ctx, None, issue, tracker, take_number=True)
        uow.raise_event(issue_event(ctx, issue, "opened"))
        if closed:
            uow.raise_event(issue_event(ctx, issue, "closed"))
        return tracker, change, issue

    return commit_retrying(ctx, write,
                           conflict="too many issues are being created at once; try again")


def _actor(ctx: Ctx) -> dict | None:
    return snapshot(ctx.user) if ctx.user is not None else None


def mutate(ctx: Ctx, number: int, change: Callable[[Issue, Issue, Tracker], None],
           raised: Callable[[Issue, Issue], list[events.Event]], *,
           commit_sha: str = "") -> tuple[Issue, Issue]:
    """Apply ``change(old, new, tracker)`` to a copy of the issue and commit it with
    every counter it moves, its timeline events (``timeline_store``; ``commit_sha``: the
    commit that closes it) and the events ``raised(old, new)``, conditional on the
    version read (retried on a lost race)."""
    def write(consistent: bool, uow: UnitOfWork) -> Written:
        old = get_issue(ctx, number, consistent=consistent)
        tracker = ctx.tracker(consistent=consistent)
        new = store.copy_issue(old)
        change(old, new, tracker)
        if int(new.milestone_id or 0) not in tracker.milestones:
            new.milestone_id = 0  # a deleted milestone
        new.version = int(old.version) + 1
        store.stage_replace_issue(new, int(old.version))
        timeline_store.stage_changes(old, new, _actor(ctx), commit_sha=commit_sha)
        counters = stage_counters(ctx, old, new, tracker)
        for event in raised(old, new):
            uow.raise_event(event)
        return tracker, counters, (old, new)

    return commit_retrying(ctx, write,
                           conflict="the issue changed while it was being edited; try again")


@dataclass
class IssueEdit:
    """What an EditIssueOption and an EditPullRequestOption share, parsed and checked
    (fields a non-writer may not set are left out, as Forgejo ignores them)."""
    title: str | None = None
    body: str | None = None
    state: str | None = None
    assigned: list | None = None
    due: int | None = None
    unset_due: bool = False
    milestone_given: bool = False
    milestone: int | None = None

    @classmethod
    def parse(cls, ctx: Ctx, option: IssueEditFields, *, can_write: bool,
              is_pull: bool) -> "IssueEdit":
        """``option``: an EditIssueOption, or a pull request's EditPullRequestOption."""
        title = value_of(option.title)
        if title is not None and len(title.strip()) > MAX_TITLE:
            raise InvalidInput("[Title]: MaxSize")
        return cls(
            title=title, body=value_of(option.body), state=value_of(option.state),
            assigned=assignees_from(ctx, option.assignee, option.assignees, is_pull)
            if can_write else None,
            due=parse_time(option.due_date or None, "Deadline") if can_write else None,
            unset_due=bool(option.unset_due_date) and can_write,
            milestone_given=can_write and given(option, "milestone"),
            milestone=value_of(option.milestone))

    def apply(self, old: Issue, new: Issue, tracker: Tracker) -> None:
        if self.title is not None and self.title.strip():
            new.title = self.title.strip()
        if self.body is not None:
            new.body = self.body
        if self.assigned is not None:
            set_assignees(new, self.assigned)
        if self.unset_due:
            new.due = 0
        elif self.due is not None:
            new.due = self.due
        if self.milestone_given:
            new.milestone_id = milestone_from(tracker, self.milestone)
        if self.state is not None:
            new.state = "closed" if self.state == "closed" else "open"
            if new.state == "closed" and old.is_open and any(dependency_store.open_blockers(old)):
                raise DependenciesLeft(DEPENDENCIES_LEFT)   # every close: edits, commits
            if new.state != old.state:
                new.closed_at = clock.seconds() if new.state == "closed" else 0
        new.updated = clock.seconds()


def edit_issue(ctx: Ctx, number: int, option: EditIssueOption) -> Issue:
    """issueEditIssue."""
    issue = get_issue(ctx, number)
    can_write = ctx.can_write_for(issue)
    if ctx.user is None or (int(issue.poster_id) != int(ctx.user.id) and not can_write):
        raise PermissionDenied("user should have a permission to write to a repo")
    edit = IssueEdit.parse(ctx, option, can_write=can_write, is_pull=bool(issue.is_pull))
    ref = value_of(option.ref)

    def change(old: Issue, new: Issue, tracker: Tracker) -> None:
        if ref is not None:
            new.ref = ref
        edit.apply(old, new, tracker)

    _, new = mutate(ctx, number, change, lambda old, new: edit_events(ctx, old, new))
    return new


def delete_issue(ctx: Ctx, number: int) -> None:
    """issueDelete: repository admins only; comments, times, reactions and references
    to it go with the issue.

    Past DynamoDB's 100 items per transaction the unit commits in chunks, in staging
    order: the comments and times go first and the issue itself (with its counters and
    the event) last, so a failure part-way leaves the issue, and deleting it again
    finishes the job with every counter right."""
    if not ctx.is_admin:
        raise PermissionDenied("user should be an owner or a collaborator with admin write "
                               "of a repository")

    def write(consistent: bool, uow: UnitOfWork) -> Written:
        old = get_issue(ctx, number, consistent=consistent)
        tracker = ctx.tracker(consistent=consistent)
        comments, timeline = timeline_store.entries_of(ctx.repo_id, number)
        store.stage_delete_items([*comments, *comment_store.refs_of(comments), *timeline,
                                  *comment_store.times_of(ctx.repo_id, number),
                                  *reference_store.references_of(ctx.repo_id, number),
                                  *reaction_store.reactions_under(ctx.repo_id, number)],
                                 label="issue content")
        store.stage_delete_issue(old)
        counters = stage_counters(ctx, old, None, tracker)
        uow.raise_event(issue_event(ctx, old, "deleted"))
        return tracker, counters, None

    commit_retrying(ctx, write, conflict="the issue changed while it was being deleted; try again")


# Labels of an issue -----------------------------------------------------------------------------

def issue_labels(ctx: Ctx, number: int) -> tuple[list[int], Tracker]:
    issue = get_issue(ctx, number)
    tracker = ctx.tracker()
    return [i for i in issue.label_ids if int(i) in tracker.labels], tracker


def _label_change(ctx: Ctx, number: int, compute: Callable[[list[int], Tracker], list[int]]):
    """Every label write is reported, changed or not, as Forgejo notifies it."""
    require_writer(ctx)

    def change(old: Issue, new: Issue, tracker: Tracker) -> None:
        current = [int(i) for i in old.label_ids if int(i) in tracker.labels]
        new.label_ids = compute(current, tracker)
        new.updated = clock.seconds()

    def raised(old: Issue, new: Issue) -> list[events.Event]:
        return [issue_event(ctx, new, "label_updated" if new.label_ids else "label_cleared")]

    return mutate(ctx, number, change, raised)[1]


def add_labels(ctx: Ctx, number: int, option: IssueLabelsOption) -> Issue:
    return _label_change(ctx, number, lambda cur, t: with_labels(
        cur, resolve_labels(option.labels, t), t))


def replace_labels(ctx: Ctx, number: int, option: IssueLabelsOption) -> Issue:
    return _label_change(ctx, number, lambda cur, t: with_labels(
        [], resolve_labels(option.labels, t), t))


def clear_labels(ctx: Ctx, number: int) -> Issue:
    return _label_change(ctx, number, lambda cur, t: [])


def remove_label(ctx: Ctx, number: int, identifier: str) -> Issue:
    require_writer(ctx)
    get_issue(ctx, number)
    found = resolve_labels([int(identifier) if identifier.isdigit() else identifier],
                           ctx.tracker())
    if not found:
        raise InvalidInput(f"label does not exist [id: {identifier}]")
    return _label_change(ctx, number, lambda cur, t: [i for i in cur if i != found[0]])
