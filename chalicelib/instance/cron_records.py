"""The Cron record (adminCronList): a task's name, schedule and runs, as Forgejo's."""
from __future__ import annotations

from chalicelib.http import formats, schemas
from chalicelib.http.schema_types import I, S, T
from chalicelib.instance.cron import CronTask, next_run
from chalicelib.instance.cron_store import CronState

SCHEMAS = schemas.declare({
    "Cron": {"name": S, "schedule": S, "next": T, "prev": T, "exec_times": I},
}, lists=("Cron",))


def _time(seconds: float | None) -> str:
    # Forgejo answers Go's zero time for a task that has not run (or no next run known).
    return formats.rfc3339(seconds) if seconds else formats.GO_ZERO_TIME


def cron(task: CronTask, state: CronState) -> dict:
    return {"name": task.name, "schedule": task.schedule,
            "next": _time(next_run(task, state)), "prev": _time(state.prev),
            "exec_times": state.exec_times}
