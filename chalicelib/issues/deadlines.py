"""An issue's deadline (issueEditIssueDeadline), as Forgejo sets it: writers of the
issue's unit only (403 otherwise); the date counts and the time becomes the end of that
day (23:59:59 UTC); null or left out removes it.  The change is an issue edit: one write
conditional on the issue's version, with its "edited" event (``service.mutate``);
setting the deadline it already has writes nothing."""
from __future__ import annotations

from datetime import datetime, timezone

from chalicelib import clock
from chalicelib.errors import PermissionDenied
from chalicelib.issues.context import Ctx, parse_time
from chalicelib.issues.options import EditDeadlineOption
from chalicelib.issues.service import edit_events, get_issue, mutate
from chalicelib.issues.store import Issue, Tracker


def end_of_day(moment: int) -> int:
    day = datetime.fromtimestamp(moment, tz=timezone.utc)
    return int(day.replace(hour=23, minute=59, second=59, microsecond=0).timestamp())


def set_deadline(ctx: Ctx, number: int, option: EditDeadlineOption) -> int:
    """The deadline now (unix seconds, 0: none)."""
    issue = get_issue(ctx, number)
    if ctx.user is None or not ctx.can_write_for(issue):
        raise PermissionDenied("Not repo writer")
    raw = option.due_date if isinstance(option.due_date, str) else None
    given = parse_time(raw or None, "Deadline")
    due = end_of_day(given) if given is not None else 0
    if due == int(issue.due or 0):
        return due

    def change(old: Issue, new: Issue, tracker: Tracker) -> None:
        new.due = due
        new.updated = clock.seconds()

    mutate(ctx, number, change, lambda old, new: edit_events(ctx, old, new))
    return due
