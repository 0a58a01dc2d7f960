"""The cron tasks' bookkeeping: one small item per task, written by each run.

| item | pk | sk | attributes |
|---|---|---|---|
| cron task | ``CRON`` | ``<task name>`` | ``prev``, ``scheduled``, ``first``, ``finished`` (epoch seconds), ``exec_times``, ``run_id`` and ``running_until`` (the run in progress), ``outcome``, ``failure`` |

A run begins with one conditional UpdateItem: it takes the task only when no other run
holds it (``running_until`` absent or past), and in the same write counts itself
(``exec_times`` ADD 1) and sets ``prev`` (and ``scheduled`` when its schedule started
it).  A second run while one holds the task (a manual run during the scheduled one, or
two scheduled invocations overlapping) finds the condition false and is skipped, as
Forgejo skips a task that is still running.  The run ends with a second UpdateItem
conditioned on its own ``run_id``, so a run that outlived its hold never clears a later
run's.  A run that dies without ending (the function timed out) holds the task only
until ``running_until``, which is its function's timeout.

The items share one partition: the list is one Query of at most a handful of items,
written at most a few times a minute.
"""
from __future__ import annotations

from dataclasses import dataclass

from pynamodb.exceptions import UpdateError

from chalicelib.instance.models import CronTaskItem

PARTITION = "CRON"
FINISHED, FAILED = "finished", "failed"


@dataclass(frozen=True)
class CronState:
    """What the table says of one task's runs (all None/0 before its first run)."""
    name: str
    prev: float | None = None
    scheduled: float | None = None
    first: float | None = None
    exec_times: int = 0
    running_until: float = 0
    finished: float | None = None
    outcome: str | None = None
    failure: str | None = None

    def running(self, now: float) -> bool:
        return self.running_until > now


def _number(value) -> float | None:
    return None if value is None else float(value)


def _state(item: CronTaskItem) -> CronState:
    return CronState(name=item.sk, prev=_number(item.prev), scheduled=_number(item.scheduled),
                     first=_number(item.first), exec_times=int(item.exec_times or 0),
                     running_until=float(item.running_until or 0),
                     finished=_number(item.finished), outcome=item.outcome,
                     failure=item.failure)


def states() -> dict[str, CronState]:
    """Every task that ever ran, by name (one Query)."""
    return {item.sk: _state(item)
            for item in CronTaskItem.query(PARTITION, consistent_read=True)}


def _conditional(item: CronTaskItem, actions: list, condition) -> bool:
    try:
        item.update(actions=actions, condition=condition)
    except UpdateError as exc:
        if exc.cause_response_code == "ConditionalCheckFailedException":
            return False
        raise
    return True


def begin(name: str, run_id: str, *, now: float, hold_seconds: float, scheduled: bool) -> bool:
    """Take the task for the run ``run_id`` and count it; False when another run holds it."""
    actions = [CronTaskItem.kind.set(CronTaskItem),     # an update that creates sets no kind
               CronTaskItem.prev.set(now), CronTaskItem.first.set(CronTaskItem.first | now),
               CronTaskItem.exec_times.add(1), CronTaskItem.run_id.set(run_id),
               CronTaskItem.running_until.set(now + hold_seconds)]
    if scheduled:
        actions.append(CronTaskItem.scheduled.set(now))
    free = CronTaskItem.running_until.does_not_exist() | (CronTaskItem.running_until < now)
    return _conditional(CronTaskItem(PARTITION, name), actions, free)


def finish(name: str, run_id: str, *, now: float, failure: str | None = None) -> bool:
    """Release the task and record how the run ``run_id`` ended; False when the run no
    longer held it (it outlived its hold and another run took the task)."""
    actions = [CronTaskItem.running_until.set(0), CronTaskItem.finished.set(now),
               CronTaskItem.outcome.set(FAILED if failure else FINISHED),
               CronTaskItem.failure.set(failure) if failure else CronTaskItem.failure.remove()]
    return _conditional(CronTaskItem(PARTITION, name), actions, CronTaskItem.run_id == run_id)
