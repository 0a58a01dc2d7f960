"""Issues: list, create, get, edit, delete, and the labels of an issue.

Permissions (Forgejo's): whoever can read the repository's issues unit may open an issue
and comment; the author or a writer may edit one (403 otherwise), and only writers set
labels, milestones, assignees and due dates (on creation those are silently dropped for
others, as Forgejo does).  Counters move in the same transaction as the change that
moves them (see ``chalicelib.store.issues``); edits are conditional on the issue's
``version`` and retried on a lost race, never read-modify-written blindly.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable

from chalicelib.services import accounts, events
from chalicelib.services.errors import (ConflictError, InvalidInput, NotFoundError,
                                        PermissionDenied)
from chalicelib.services.permissions import Access, repo_access
from chalicelib.services.repos import Caller, RepoView
from chalicelib.store import ids, session
from chalicelib.store import issues as store
from chalicelib.store.issues import Issue, Tracker
from chalicelib.store.table import Account, keys

ISSUES_UNIT = "repo.issues"
PULLS_UNIT = "repo.pulls"
MAX_TITLE = 255
RETRIES = 5


# Context ----------------------------------------------------------------------------------

@dataclass
class Ctx:
    """A repository's issue tracker as one caller sees it."""
    view: RepoView
    caller: Caller
    access: Access                      # on the issues unit
    _pulls: Access | None = field(default=None, repr=False)

    @property
    def repo(self):
        return self.view.repo

    @property
    def repo_id(self) -> int:
        return int(self.view.repo.id)

    @property
    def user(self) -> Account | None:
        return self.caller.user

    @property
    def can_write(self) -> bool:
        return self.access >= Access.WRITE

    @property
    def is_admin(self) -> bool:
        return self.access >= Access.ADMIN

    def can_write_for(self, issue: Issue) -> bool:
        if not issue.is_pull:
            return self.can_write
        if self._pulls is None:
            self._pulls = repo_access(self.user, self.repo, self.view.owner,
                                      public_only=self.caller.public_only, unit=PULLS_UNIT)
        return self._pulls >= Access.WRITE

    def tracker(self, *, consistent: bool = False) -> Tracker:
        return store.get_tracker(self.repo_id, consistent=consistent)


def context(caller: Caller, view: RepoView) -> Ctx:
    access = repo_access(caller.user, view.repo, view.owner, public_only=caller.public_only,
                         unit=ISSUES_UNIT)
    if access < Access.READ:
        raise NotFoundError("repository does not exist")
    return Ctx(view, caller, access)


def preload_keys(repo_id: int, number: int | None = None) -> list:
    found = [store.ikeys.tracker(repo_id)]
    if number is not None:
        found.append(store.ikeys.issue(repo_id, number))
    return found


def require_writer(ctx: Ctx) -> None:
    if not ctx.can_write:
        raise PermissionDenied("user should have a permission to write to a repo")


def now() -> int:
    return int(time.time())


# Users inside issues ------------------------------------------------------------------------
#
# An issue page must render without reading every poster's account (the call budget is
# fixed), so issues and comments keep a snapshot of the account taken when written; the
# caller's and the owner's accounts, which every request has read anyway, are used fresh.

_SNAPSHOT = ("id", "login", "lower_name", "full_name", "email", "keep_email_private",
             "visibility", "created", "restricted", "location", "website", "description",
             "pronouns", "language", "login_name", "source_id", "is_admin", "active",
             "prohibit_login", "last_login")


def snapshot(account: Account) -> dict:
    out = {}
    for name in _SNAPSHOT:
        value = getattr(account, name)
        out[name] = int(value) if isinstance(value, float) else value
    return out


def account_from(data: dict | str, fresh: dict[int, Account] | None = None) -> Account:
    if isinstance(data, str):
        data = json.loads(data or "{}")
    account_id = int(data.get("id") or 0)
    if fresh and account_id in fresh:
        return fresh[account_id]
    values = {k: data[k] for k in _SNAPSHOT if k in data}
    values.setdefault("login", "")
    values.setdefault("lower_name", values["login"].lower())
    values.setdefault("created", 0)
    values.setdefault("updated", 0)
    return Account(*keys.account(account_id), **values)


def fresh_accounts(ctx: Ctx) -> dict[int, Account]:
    found = {int(ctx.view.owner.id): ctx.view.owner}
    if ctx.user is not None:
        found[int(ctx.user.id)] = ctx.user
    return found


# Parsing ----------------------------------------------------------------------------------

def parse_time(text: str | None, field_name: str) -> int | None:
    """RFC 3339 -> unix seconds; a bad value is a 422."""
    if text is None or text == "":
        return None
    try:
        return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())
    except (ValueError, TypeError):
        raise InvalidInput(f"[{field_name}]: invalid time {text!r}") from None


def _int_list(values, field_name: str) -> list[int]:
    out = []
    for raw in values or []:
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise InvalidInput(f"[{field_name}]: expected a list of integers")
        out.append(raw)
    return out


def exclusive_scope(label: dict) -> str:
    name = label.get("name", "")
    if not label.get("exclusive") or "/" not in name:
        return ""
    return name[:name.rfind("/")]


def with_labels(current: list[int], added: list[int], tracker: Tracker) -> list[int]:
    """``current`` plus ``added`` (known labels only); an exclusive label drops the
    other labels of its scope, the later one winning."""
    result = list(current)
    for label_id in added:
        label = tracker.labels.get(label_id)
        if label is None or label_id in result:
            continue
        scope = exclusive_scope(label)
        if scope:
            result = [i for i in result
                      if exclusive_scope(tracker.labels.get(i, {})) != scope]
        result.append(label_id)
    return result


def resolve_labels(values, tracker: Tracker) -> list[int]:
    """IssueLabelsOption.labels: ids or names."""
    if values is None:
        return []
    if not isinstance(values, list):
        raise InvalidInput("[Labels]: expected a list")
    by_name = {}
    for label_id, label in sorted(tracker.labels.items()):
        by_name.setdefault(label.get("name", ""), label_id)
    out = []
    for raw in values:
        if isinstance(raw, bool):
            raise InvalidInput("[Labels]: expected ids or names")
        if isinstance(raw, int):
            label_id = raw
        elif isinstance(raw, str):
            label_id = int(raw) if raw.isdigit() and int(raw) in tracker.labels \
                else by_name.get(raw, 0)
        else:
            raise InvalidInput("[Labels]: expected ids or names")
        if label_id in tracker.labels:
            out.append(label_id)
    return out


def _assignees(ctx: Ctx, data: dict, is_pull: bool = False) -> list[Account] | None:
    """assignee/assignees -> accounts that may be assigned (writers), else 422."""
    single = accounts.optional(data, "assignee", str)
    many = accounts.optional(data, "assignees", list)
    if single is None and many is None:
        return None
    names = ([single] if single else []) + [n for n in (many or []) if isinstance(n, str)]
    found: list[Account] = []
    for name in dict.fromkeys(n for n in names if n):
        try:
            user = accounts.get_user(name, ctx.user)
        except NotFoundError:
            raise InvalidInput(f"Assignee does not exist: [name: {name}]") from None
        unit = PULLS_UNIT if is_pull else ISSUES_UNIT
        if repo_access(user, ctx.repo, ctx.view.owner, unit=unit) < Access.WRITE:
            raise InvalidInput(f"user does not have access to repository [user: {name}, "
                               f"repo: {ctx.repo.name}]")
        found.append(user)
    return found


def _milestone(tracker: Tracker, milestone_id) -> int:
    if milestone_id is None or milestone_id == 0:
        return 0
    if isinstance(milestone_id, bool) or not isinstance(milestone_id, int):
        raise InvalidInput("[Milestone]: expected an integer")
    if milestone_id not in tracker.milestones:
        raise InvalidInput(f"milestone does not exist [id: {milestone_id}]")
    return milestone_id


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
    items = [i for i in store.query_all(ctx.repo_id, states, types)
             if _matches(tracker, i, query, people)]
    return items[offset:offset + limit], len(items)


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


# Writes ----------------------------------------------------------------------------------------

def _count_ops(ctx: Ctx, old: Issue | None, new: Issue | None, tracker: Tracker) -> list:
    """Tracker and repository updates that take the issue from ``old`` to ``new``
    (None: absent).  Returns transaction operations."""
    ops: list = []
    actions: list = []
    conditions = []
    delta: dict[str, int] = {}
    milestones: dict[tuple[int, str], int] = {}
    open_delta = 0
    for issue, sign in ((old, -1), (new, +1)):
        if issue is None:
            continue
        key = store.count_key(issue.state, bool(issue.is_pull), int(issue.number))
        delta[key] = delta.get(key, 0) + sign
        milestone = int(issue.milestone_id or 0)
        if milestone:
            slot = (milestone, "o" if issue.is_open else "c")
            milestones[slot] = milestones.get(slot, 0) + sign
        if issue.is_open:
            open_delta += sign
    for key, d in delta.items():
        if d:
            actions.append(store.bump("counts", key, by=d, create=True))
    for (milestone, slot), d in milestones.items():
        if not d:
            continue
        if d < 0 and milestone not in tracker.milestones:
            continue  # deleted: its counters went with it
        actions.append(store.bump("milestones", str(milestone), slot, by=d))
        conditions.append(milestone)
    comments = (int(new.num_comments) if new is not None else 0) - \
               (int(old.num_comments) if old is not None else 0)
    if comments:
        actions.append(store.IssueTracker.num_comments.add(comments))
    if actions:
        condition = None
        for milestone in dict.fromkeys(conditions):
            c = store.milestone_exists(milestone)
            condition = c if condition is None else condition & c
        ops.append(store.tracker_update(ctx.repo_id, actions, condition))
    if open_delta:
        ops.append(store.repo_counter(ctx.repo, bool((new or old).is_pull), open_delta))
    return ops


def create_issue(ctx: Ctx, data: dict) -> Issue:
    """issueCreateIssue: ``data`` is a CreateIssueOption."""
    opt = accounts.optional
    title = (opt(data, "title", str) or "").strip()
    if not title:
        raise InvalidInput("[Title]: Required")
    if len(title) > MAX_TITLE:
        raise InvalidInput("[Title]: MaxSize")
    body = opt(data, "body", str) or ""
    closed = bool(opt(data, "closed", bool))
    if ctx.tracker().item is None:
        store.ensure_tracker(ctx.repo_id)
    tracker = ctx.tracker(consistent=True)
    label_ids: list[int] = []
    milestone_id, due, assigned = 0, 0, []
    if ctx.can_write:
        label_ids = with_labels([], _int_list(opt(data, "labels", list), "Labels"), tracker)
        milestone_id = _milestone(tracker, data.get("milestone"))
        due = parse_time(opt(data, "due_date", str), "Deadline") or 0
        assigned = _assignees(ctx, data) or []
    number = store.allocate_number(ctx.repo_id)
    created = now()
    issue = Issue(*store.ikeys.issue(ctx.repo_id, number), id=ids.next_id("issue"),
                  repo_id=ctx.repo_id, number=number, title=title, body=body,
                  state="closed" if closed else "open", poster_id=ctx.user.id,
                  poster=store.dumps(snapshot(ctx.user)),
                  assignee_ids=[int(a.id) for a in assigned],
                  assignees=store.dumps([snapshot(a) for a in assigned]),
                  label_ids=label_ids, milestone_id=milestone_id, due=due,
                  ref=opt(data, "ref", str) or "", created=created, updated=created,
                  closed_at=created if closed else 0)
    store.place(issue)
    failed = store.commit(("issue", "save", (issue,), {"condition": Issue.pk.does_not_exist()}),
                          *_count_ops(ctx, None, issue, tracker))
    if failed == "tracker":
        raise InvalidInput(f"milestone does not exist [id: {milestone_id}]")
    if failed == "repo":
        raise NotFoundError("repository does not exist")
    if failed is not None:  # pragma: no cover - numbers are never reused
        raise ConflictError(f"issue number {number} is taken")
    _forget(ctx, number)
    _publish(ctx, issue, "opened")
    if closed:
        _publish(ctx, issue, "closed")
    return issue


def _forget(ctx: Ctx, number: int | None = None) -> None:
    session.forget(store.ikeys.tracker(ctx.repo_id))
    session.forget((ctx.repo.pk, ctx.repo.sk))
    if number is not None:
        session.forget(store.ikeys.issue(ctx.repo_id, number))


def _copy(issue: Issue) -> Issue:
    return Issue.from_raw_data(issue.serialize())


def mutate(ctx: Ctx, number: int, change: Callable[[Issue, Issue, Tracker], None]) -> tuple[Issue, Issue]:
    """Apply ``change(old, new, tracker)`` to a fresh copy and write it with every counter
    it moves, conditional on the version read; retried when the issue changed meanwhile."""
    for _ in range(RETRIES):
        old = get_issue(ctx, number, consistent=True)
        tracker = ctx.tracker(consistent=True)
        new = _copy(old)
        change(old, new, tracker)
        if int(new.milestone_id or 0) not in tracker.milestones:
            new.milestone_id = 0  # a deleted milestone
        new.version = int(old.version) + 1
        store.place(new)
        failed = store.commit(("issue", "save", (new,), {"condition": Issue.version == old.version}),
                              *_count_ops(ctx, old, new, tracker))
        _forget(ctx, number)
        if failed is None:
            return old, new
        if failed == "repo":
            raise NotFoundError("repository does not exist")
    raise ConflictError("the issue changed while it was being edited; try again")


def edit_issue(ctx: Ctx, number: int, data: dict) -> Issue:
    """issueEditIssue: ``data`` is an EditIssueOption."""
    opt = accounts.optional
    issue = get_issue(ctx, number)
    can_write = ctx.can_write_for(issue)
    if ctx.user is None or (int(issue.poster_id) != int(ctx.user.id) and not can_write):
        raise PermissionDenied("user should have a permission to write to a repo")
    title = opt(data, "title", str)
    body = opt(data, "body", str)
    ref = opt(data, "ref", str)
    state = opt(data, "state", str)
    if title is not None and len(title.strip()) > MAX_TITLE:
        raise InvalidInput("[Title]: MaxSize")
    assigned = _assignees(ctx, data, bool(issue.is_pull)) if can_write else None
    due = parse_time(opt(data, "due_date", str), "Deadline") if can_write else None
    unset_due = bool(opt(data, "unset_due_date", bool)) and can_write
    milestone_given = can_write and "milestone" in data

    def change(old: Issue, new: Issue, tracker: Tracker) -> None:
        if title is not None and title.strip():
            new.title = title.strip()
        if body is not None:
            new.body = body
        if ref is not None:
            new.ref = ref
        if assigned is not None:
            new.assignee_ids = [int(a.id) for a in assigned]
            new.assignees = store.dumps([snapshot(a) for a in assigned])
        if unset_due:
            new.due = 0
        elif due is not None:
            new.due = due
        if milestone_given:
            new.milestone_id = _milestone(tracker, data.get("milestone"))
        if state is not None:
            new.state = "closed" if state == "closed" else "open"
            if new.state != old.state:
                new.closed_at = now() if new.state == "closed" else 0
        new.updated = now()

    old, new = mutate(ctx, number, change)
    _publish_changes(ctx, old, new)
    return new


def delete_issue(ctx: Ctx, number: int) -> None:
    """issueDelete: repository admins only; comments and times go with the issue."""
    if not ctx.is_admin:
        raise PermissionDenied("user should be an owner or a collaborator with admin write "
                               "of a repository")
    for _ in range(RETRIES):
        old = get_issue(ctx, number, consistent=True)
        tracker = ctx.tracker(consistent=True)
        failed = store.commit(("issue", "delete", (old,), {"condition": Issue.version == old.version}),
                              *_count_ops(ctx, old, None, tracker))
        _forget(ctx, number)
        if failed is None:
            break
    else:
        raise ConflictError("the issue changed while it was being deleted; try again")
    comments = store.comments_of(ctx.repo_id, number)
    refs = [store.CommentRef(*store.ikeys.comment_ref(ctx.repo_id, int(c.id))) for c in comments]
    store.delete_items([*comments, *refs, *store.times_of(ctx.repo_id, number)])
    _publish(ctx, old, "deleted")


# Labels of an issue -----------------------------------------------------------------------------

def issue_labels(ctx: Ctx, number: int) -> tuple[list[int], Tracker]:
    issue = get_issue(ctx, number)
    tracker = ctx.tracker()
    return [i for i in issue.label_ids if int(i) in tracker.labels], tracker


def _label_change(ctx: Ctx, number: int, compute: Callable[[list[int], Tracker], list[int]]):
    require_writer(ctx)

    def change(old: Issue, new: Issue, tracker: Tracker) -> None:
        current = [int(i) for i in old.label_ids if int(i) in tracker.labels]
        new.label_ids = compute(current, tracker)
        new.updated = now()

    old, new = mutate(ctx, number, change)
    if list(old.label_ids) != list(new.label_ids):
        _publish(ctx, new, "label_cleared" if not new.label_ids else "label_updated")
    return new


def add_labels(ctx: Ctx, number: int, data: dict) -> Issue:
    return _label_change(ctx, number, lambda cur, t: with_labels(
        cur, resolve_labels(data.get("labels"), t), t))


def replace_labels(ctx: Ctx, number: int, data: dict) -> Issue:
    return _label_change(ctx, number, lambda cur, t: with_labels(
        [], resolve_labels(data.get("labels"), t), t))


def clear_labels(ctx: Ctx, number: int) -> Issue:
    return _label_change(ctx, number, lambda cur, t: [])


def remove_label(ctx: Ctx, number: int, identifier: str) -> Issue:
    require_writer(ctx)
    get_issue(ctx, number)
    tracker = ctx.tracker()
    found = resolve_labels([int(identifier) if identifier.isdigit() else identifier], tracker)
    if not found:
        raise InvalidInput(f"label does not exist [id: {identifier}]")
    return _label_change(ctx, number, lambda cur, t: [i for i in cur if i != found[0]])


# Events -------------------------------------------------------------------------------------------

def _publish(ctx: Ctx, issue: Issue, action: str, changes: dict | None = None) -> None:
    events.publish(events.IssueChanged(
        actor_id=ctx.user.id if ctx.user else None, repo_id=ctx.repo_id, issue_id=int(issue.id),
        number=int(issue.number), is_pull=bool(issue.is_pull), action=action,
        changes=tuple(sorted((changes or {}).items()))))


def _publish_changes(ctx: Ctx, old: Issue, new: Issue) -> None:
    changes = {}
    if old.title != new.title:
        changes["title"] = old.title
    if old.body != new.body:
        changes["body"] = old.body
    if old.ref != new.ref:
        changes["ref"] = old.ref
    if changes:
        _publish(ctx, new, "edited", changes)
    if old.state != new.state:
        _publish(ctx, new, "closed" if new.state == "closed" else "reopened")
    if int(old.milestone_id or 0) != int(new.milestone_id or 0):
        _publish(ctx, new, "milestoned" if new.milestone_id else "demilestoned")
    if list(old.assignee_ids) != list(new.assignee_ids):
        _publish(ctx, new, "assigned" if new.assignee_ids else "unassigned")

