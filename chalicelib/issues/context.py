"""What every issue tracker operation shares: the repository's tracker as one caller
sees it (``Ctx``), the preload plan, account snapshots, and input parsing.

Permissions (Forgejo's): whoever can read the repository's issues unit may open an issue
and comment; the author or a writer may edit one (403 otherwise), and only writers set
labels, milestones, assignees and due dates (on creation those are silently dropped for
others, as Forgejo does).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Iterable

from chalicelib import accounts, events, repos

# Account snapshots are the accounts domain's; the issue modules name them from here.
from chalicelib.accounts import Account, account_from
from chalicelib.accounts import account_snapshot as snapshot
from chalicelib.errors import InvalidInput, NotFoundError, PermissionDenied
from chalicelib.http.options import UNSET, UnsetType
from chalicelib.issues import org_label_store, store
from chalicelib.issues.store import Issue, Tracker
from chalicelib.issues.tracker_store import TrackerChange
from chalicelib.repos import (Access, Caller, HasAccess, RepoView, access_keys, is_org,
                              repo_access, strip_git)

ISSUES_UNIT = "repo.issues"
PULLS_UNIT = "repo.pulls"
MAX_TITLE = 255


# Context ----------------------------------------------------------------------------------

@dataclass
class Ctx(HasAccess):
    """A repository's issue tracker as one caller sees it.  The tracker is read once per
    request and, after a write, kept as the write left it (never read again)."""
    view: RepoView
    caller: Caller
    access: Access                      # on the issues unit
    pulls_access: Access | None = field(default=None, repr=False)
    known_tracker: Tracker | None = field(default=None, repr=False)

    @property
    def repo(self):
        return self.view.repo

    @property
    def repo_id(self) -> int:
        return int(self.view.repo.id)

    @property
    def user(self) -> Account | None:
        return self.caller.user


    def can_write_for(self, issue: Issue) -> bool:
        if not issue.is_pull:
            return self.can_write
        if self.pulls_access is None:
            self.pulls_access = repo_access(self.user, self.repo, self.view.owner,
                                            public_only=self.caller.public_only, unit=PULLS_UNIT)
        return self.pulls_access >= Access.WRITE

    def tracker(self, *, consistent: bool = False) -> Tracker:
        if consistent or self.known_tracker is None:
            self.known_tracker = store.get_tracker(self.repo_id, consistent=consistent)
            if is_org(self.view.owner):   # its labels are the repository's too
                owner_id = int(self.view.owner.id)
                self.known_tracker.attach_org_labels(org_label_store.get(owner_id).labels)
        return self.known_tracker

    def wrote(self, tracker: Tracker, change: TrackerChange) -> None:
        """The commit of ``change`` (staged on ``tracker`` as read) succeeded."""
        self.known_tracker = change.applied(tracker)

    def event_fields(self) -> dict:
        """Who did it, where: the fields every event of this tracker carries."""
        return dict(actor_id=int(self.user.id) if self.user else None,
                    actor=events.snapshot(self.user), repo_id=self.repo_id,
                    repo=events.snapshot(self.repo))


def context(caller: Caller, view: RepoView, unit: str = ISSUES_UNIT) -> Ctx:
    """The tracker as ``caller`` sees it through ``unit`` (issues, or pull requests)."""
    access = repo_access(caller.user, view.repo, view.owner, public_only=caller.public_only,
                         unit=unit)
    if access < Access.READ:
        raise NotFoundError("repository does not exist")
    return Ctx(view, caller, access, pulls_access=access if unit == PULLS_UNIT else None)


def tracker_for(repo_id: int, owner: Account) -> Tracker:
    """A repository's tracker with its owning organization's labels, read outside a
    request's context (the search index: label names)."""
    tracker = store.get_tracker(repo_id, consistent=True)
    if is_org(owner):
        tracker.attach_org_labels(org_label_store.get(int(owner.id)).labels)
    return tracker


def page_keys(places: Iterable[tuple[int, int, int]]) -> list[tuple[str, str]]:
    """The keys a page of issues from several repositories reads, (repository id,
    number, owner id) each: the issues, their repositories' trackers and owners' label
    sets, for one batch with the caller's other reads (a cross-repository search)."""
    places = list(places)
    return [store.ikeys.issue(r, n) for r, n, _ in places] + \
        [store.ikeys.tracker(r) for r in dict.fromkeys(r for r, _, _ in places)] + \
        [org_label_store.org_labels_key(o) for o in dict.fromkeys(o for _, _, o in places)]


def preload_more_keys(owner_name: str, repo_name: str, user_id: int | None, *,
                      number: int | None = None, comment_id: int | None = None,
                      time_id: int | None = None) -> list:
    """The second preload batch of an issue route: the caller's access items, the
    tracker, and what the path names (the issue, a comment's lookup item, a time)."""
    repo = repos.repo_by_name(owner_name, strip_git(repo_name))
    if repo is None:
        return []
    repo_id = int(repo.id)
    found = access_keys(repo, user_id) + [store.ikeys.tracker(repo_id),
                                          org_label_store.org_labels_key(int(repo.owner_id))]
    if user_id is not None:   # whether the owner blocks the caller, for the writes
        found.append(accounts.block_key(int(repo.owner_id), user_id))
    if number is not None:
        found.append(store.ikeys.issue(repo_id, number))
        if time_id is not None:
            found.append(store.ikeys.tracked_time(repo_id, number, time_id))
    if comment_id is not None:
        found.append(store.ikeys.comment_ref(repo_id, comment_id))
    return found


def require_writer(ctx: Ctx) -> None:
    if not ctx.can_write:
        raise PermissionDenied("user should have a permission to write to a repo")



# Users inside issues ------------------------------------------------------------------------
def assignee_accounts(issue: Issue, fresh: dict[int, Account]) -> list[Account]:
    return [account_from(a, fresh) for a in json.loads(issue.assignees or "[]")]


def fresh_accounts(ctx: Ctx) -> dict[int, Account]:
    found = {int(ctx.view.owner.id): ctx.view.owner}
    if ctx.user is not None:
        found[int(ctx.user.id)] = ctx.user
    return found


def set_assignees(issue: Issue, assigned: list[Account]) -> None:
    issue.assignee_ids = [int(a.id) for a in assigned]
    issue.assignees = store.dumps([snapshot(a) for a in assigned])


# Parsing ----------------------------------------------------------------------------------

def value_of(field: Any) -> Any:
    """An option's field as an edit reads it: left out or null both mean "no change"."""
    return None if field is UNSET else field


def parse_time(text: str | None, field_name: str) -> int | None:
    """RFC 3339 -> unix seconds; a bad value is a 422."""
    if text is None or text == "":
        return None
    try:
        return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())
    except (ValueError, TypeError):
        raise InvalidInput(f"[{field_name}]: invalid time {text!r}") from None


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
    """IssueLabelsOption.labels: ids or names (the option takes a list of anything)."""
    if not values:
        return []
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


def assignees_from(ctx: Ctx, assignee: str | None | UnsetType,
                   assignees: list[str] | None | UnsetType,
                   is_pull: bool = False) -> list[Account] | None:
    """An option's assignee/assignees -> accounts that may be assigned (writers), else
    422; None when neither was sent (or both were null): the assignees stay."""
    single, many = value_of(assignee), value_of(assignees)
    if single is None and many is None:
        return None
    names = ([single] if single else []) + list(many or [])
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


def milestone_from(tracker: Tracker, milestone_id: int | None | UnsetType) -> int:
    """An option's milestone: left out, null or 0 is none."""
    if not milestone_id:
        return 0
    if milestone_id not in tracker.milestones:
        raise InvalidInput(f"milestone does not exist [id: {milestone_id}]")
    return milestone_id
