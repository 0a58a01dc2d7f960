"""An issue's timeline as the issues domain keeps it, read and rendered: its comments, its
events (``timeline_store``) and the references to it (``reference_store``), and the
TimelineComment records of the events and references (fj:services/convert/
issue_comment.go ToTimelineComment), field for field.

Reading takes one Query of the comments with the events (one key prefix) and one of the
references; when a reference comes from another issue or a comment of this repository,
one BatchGetItem more reads those issues and comments (``ref_issue``, ``ref_comment``).
A reference whose issue or comment is gone is left out (Forgejo deletes it with its
source), and so is a label event whose label was deleted (Forgejo deletes those too).
References made from another repository are left out: showing one would take that
repository and the caller's access to it, reads this bounded timeline does not make.
Dependency events (``add_dependency``/``remove_dependency``) carry their other issue as
``dependent_issue``, read by key with one BatchGetItem, from any repository the caller
reads (its repository, owner and access are read once each); an event whose other issue
is gone or hidden from the caller is left out, as Forgejo leaves it out.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from chalicelib import accounts
from chalicelib.http.formats import rfc3339
from chalicelib.issues import records as issue_records
from chalicelib.issues import dependency_store, reference_store, timeline_store
from chalicelib.issues.context import Ctx
from chalicelib.issues.dependencies import Readable, can_read
from chalicelib.issues.request import Renderer
from chalicelib.issues.service import get_issue

if TYPE_CHECKING:
    from chalicelib.issues.models import Comment, IssueReference, TimelineEvent
    from chalicelib.issues.store import Issue

COMMIT_REF = "commit_ref"
NO_ACTION = "none"
# Every TimelineComment field at its zero value (Forgejo sends them all).
EMPTY = {
    "old_project_id": 0, "project_id": 0, "old_milestone": None, "milestone": None,
    "tracked_time": None, "old_title": "", "new_title": "", "old_ref": "", "new_ref": "",
    "ref_issue": None, "ref_comment": None, "ref_action": NO_ACTION, "ref_commit_sha": "",
    "review_id": 0, "label": None, "assignee": None, "assignee_team": None,
    "resolve_doer": None, "dependent_issue": None, "removed_assignee": False,
}


@dataclass
class Found:
    """One event or reference with what its record needs (the referencing issue and
    comment, read for it)."""
    item: TimelineEvent | IssueReference
    ref_issue: Issue | None = None
    ref_comment: Comment | None = None
    dependent: tuple[Ctx, Issue] | None = None    # a dependency event's other issue

    @property
    def type(self) -> str:
        return self.item.comment_type if self.is_reference else self.item.type

    @property
    def is_reference(self) -> bool:
        return timeline_store.is_reference(self.item)

    @property
    def id(self) -> int:
        return int(self.item.id)

    @property
    def created(self) -> int:
        return int(self.item.created)

    @property
    def poster(self) -> str:
        return self.item.poster


@dataclass
class IssueTimeline:
    issue: Issue
    comments: list[Comment]
    entries: list[Found] = field(default_factory=list)   # events and references


def issue_timeline(ctx: Ctx, number: int) -> IssueTimeline:
    """The issue (404 when missing), its comments, and its events and references that
    can be shown, each list oldest first."""
    issue = get_issue(ctx, number)
    comments, events = timeline_store.entries_of(ctx.repo_id, number)
    tracker = ctx.tracker()
    found = [Found(e) for e in events
             if e.type != timeline_store.LABEL_TYPE or int(e.label_id) in tracker.labels]
    references = [r for r in reference_store.references_of(ctx.repo_id, number)
                  if int(r.ref_repo_id) == ctx.repo_id]
    for reference, source, comment in timeline_store.with_sources(ctx.repo_id, references):
        found.append(Found(reference, source, comment))
    found = _with_dependents(ctx, found)
    found.sort(key=lambda f: (f.created, f.id))
    return IssueTimeline(issue, comments, found)


def _with_dependents(ctx: Ctx, found: list[Found]) -> list[Found]:
    """Dependency events with their other issue (one BatchGetItem); as Forgejo's
    timeline, those whose other issue is gone or hidden from the caller are left out."""
    wanted = [f for f in found if f.type in timeline_store.DEPENDENCY_TYPES]
    if not wanted:
        return found
    others = dependency_store.issues_named(
        [(int(f.item.dependent_repo_id), int(f.item.dependent_number),
          int(f.item.dependent_issue_id)) for f in wanted])
    readable = Readable(ctx)
    hidden = set()
    for entry, other in zip(wanted, others):
        other_ctx = readable.tracker_of(int(other.repo_id)) if other is not None else None
        if other_ctx is None or not can_read(other_ctx, other):
            hidden.add(id(entry))
        else:
            entry.dependent = (other_ctx, other)
    return [f for f in found if id(f) not in hidden]


# Records ------------------------------------------------------------------------------------

class TimelineRenderer:
    """TimelineComment records of events and references for one request (users from the
    stored snapshots; labels and milestones from the tracker the request has read)."""

    def __init__(self, req, ctx: Ctx):
        self.records = Renderer(req, ctx)
        self.ctx, self.viewer, self.req = ctx, req.actor, req
        self.elsewhere: dict[int, Renderer] = {ctx.repo_id: self.records}

    def user(self, stored: str) -> dict | None:
        if not stored or stored == "{}":
            return None
        return accounts.user_record(accounts.account_from(stored, self.records.fresh),
                                    self.viewer)

    def _label(self, label_id: int) -> dict | None:
        entry = self.records.tracker.labels.get(int(label_id))
        return issue_records.label(label_id, entry, self.ctx.view) if entry else None

    def _milestone(self, milestone_id: int) -> dict | None:
        entry = self.records.tracker.milestones.get(int(milestone_id or 0))
        return issue_records.milestone(milestone_id, entry) if entry else None

    def record(self, found: Found, *, number: int, is_pull: bool) -> dict:
        issue_url = issue_records.issue_html_url(self.ctx.view, number, is_pull)
        out = {
            **EMPTY, "id": found.id, "type": found.type,
            "html_url": f"{issue_url}#issuecomment-{found.id}",
            "pull_request_url": issue_url if is_pull else "",
            "issue_url": "" if is_pull else issue_url,
            "user": self.user(found.poster), "body": "",
            "created_at": rfc3339(found.created), "updated_at": rfc3339(found.created),
        }
        if found.is_reference:
            out.update(self._reference_fields(found))
        else:
            out.update(self._event_fields(found.item))
        if found.dependent is not None:
            out["dependent_issue"] = self._issue_elsewhere(*found.dependent)
        return out

    def _issue_elsewhere(self, ctx: Ctx, issue: Issue) -> dict:
        """An Issue record of any repository's tracker (one Renderer, so one tracker
        read, per repository)."""
        if ctx.repo_id not in self.elsewhere:
            self.elsewhere[ctx.repo_id] = Renderer(self.req, ctx)
        return self.elsewhere[ctx.repo_id].issue(issue)

    def _event_fields(self, event: TimelineEvent) -> dict:
        fields: dict = {"body": event.body, "ref_commit_sha": event.commit_sha,
                        "old_title": event.old_title, "new_title": event.new_title,
                        "old_ref": event.old_ref}
        if event.type == timeline_store.LABEL_TYPE:
            fields["label"] = self._label(int(event.label_id))
        elif event.type == timeline_store.MILESTONE:
            fields["milestone"] = self._milestone(int(event.milestone_id))
            fields["old_milestone"] = self._milestone(int(event.old_milestone_id))
        elif event.type == timeline_store.ASSIGNEES:
            fields["assignee"] = self.user(event.assignee)
            fields["removed_assignee"] = bool(event.removed_assignee)
        return fields

    def _reference_fields(self, found: Found) -> dict:
        ref: IssueReference = found.item
        if ref.comment_type == COMMIT_REF:
            return {"body": ref.content, "ref_commit_sha": ref.commit_sha}
        source = found.ref_issue
        fields = {"ref_action": ref.ref_action or NO_ACTION,
                  "ref_issue": self.records.issue(source)}
        if found.ref_comment is not None:
            fields["ref_comment"] = self.records.comment(found.ref_comment, bool(source.is_pull))
        return fields

