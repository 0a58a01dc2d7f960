"""Running stopwatches in the table (keys in ``chalicelib.issues.store``).

A stopwatch is one item per user and issue, ``R#<repo>`` / ``STOPWATCH#<number>#<user>``,
listed for its user by gsi1 ``WATCHES#<user>`` in start order.  Starting puts it on
condition that the key is free, so two starts at once make one stopwatch; stopping
deletes it on condition that it is still the one read (its ``created``), in the same
transaction as the tracked time it becomes, so two stops at once write one time.
Labels in ``ConditionFailed``: "stopwatch".
"""
from __future__ import annotations

from chalicelib.issues.models import StopWatch
from chalicelib.issues.store import Issue, ikeys
from chalicelib.store import unit_of_work

LABEL = "stopwatch"


def get_stopwatch(repo_id: int, number: int, user_id: int, *,
                  consistent: bool = False) -> StopWatch | None:
    return unit_of_work.get(StopWatch, ikeys.stopwatch(repo_id, number, user_id),
                            consistent=consistent)


def user_stopwatches(user_id: int, limit: int) -> list[StopWatch]:
    """The user's running stopwatches, oldest first, at most ``limit``."""
    return list(StopWatch.gsi1.query(ikeys.user_stopwatches(user_id), limit=limit,
                                     page_size=limit))


def new_stopwatch(issue: Issue, user_id: int, created: int) -> StopWatch:
    repo_id, number = int(issue.repo_id), int(issue.number)
    return StopWatch(*ikeys.stopwatch(repo_id, number, user_id), user_id=user_id,
                     repo_id=repo_id, issue_number=number, issue_id=int(issue.id),
                     created=created, gsi1pk=ikeys.user_stopwatches(user_id),
                     gsi1sk=f"{created:015d}#{repo_id:015d}#{number:010d}")


def stage_start(item: StopWatch) -> None:
    unit_of_work.current().put(item, label=LABEL, must_not_exist=True)


def stage_finish(item: StopWatch) -> None:
    """Delete the stopwatch read, if nobody stopped it (or stopped and restarted it)
    since."""
    unit_of_work.current().delete(StopWatch(item.pk, item.sk), label=LABEL,
                                  condition=StopWatch.created == int(item.created))
