"""The instance's cron tasks (Forgejo's ``/admin/cron``): the project's schedules, when
each last ran, and starting one now.

The tasks are the scheduled functions of ``app.py`` (``chalicelib/jobs/schedules.py``
and the two sweeps); ``tests/test_admin_cron.py`` holds this list to theirs and to the
template's function timeouts.  Their runs are recorded in the table (``cron_store``) by
the jobs themselves (``chalicelib/jobs/cron.py``), wherever they run.

Starting a task (adminCronRun) queues it, as Forgejo starts it in the background and
answers 204 at once: a task may run for up to fifteen minutes (a compaction, a mirror
sync), longer than an API request may take (29 s behind API Gateway), and with rights
the API's role does not hold.  In AWS the API invokes the task's own function
asynchronously (``InvocationType=Event``: Lambda queues the invocation, as EventBridge
does for the schedule), so the run is the scheduled run exactly: same code, role,
timeout and memory.  The API's functions find those functions' names in
``NIMBUS_CRON_FUNCTIONS`` (``infra/template.py``).  The local runtime installs its own
launcher (``use_launcher``): a background thread, as its schedules are.
"""
from __future__ import annotations

import json
import logging
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from chalicelib import aws, clock
from chalicelib.errors import NotFoundError
from chalicelib.instance import cron_store
from chalicelib.instance.cron_store import CronState

log = logging.getLogger("nimbus.cron")

# The API's functions' environment: {task name: the Lambda function that runs it}.
FUNCTIONS_VARIABLE = "NIMBUS_CRON_FUNCTIONS"
# The ``source`` of the event a manual run's invocation carries (EventBridge's is
# ``aws.events``): the run then does not count as its schedule's.
MANUAL_SOURCE = "nimbus.admin"
# A run holds its task a little past its function's timeout (clocks differ).
HOLD_SLACK_SECONDS = 30
# Chalice's timeout for a function the template gives none (.chalice/config.json).
DEFAULT_TIMEOUT = 29


@dataclass(frozen=True)
class CronTask:
    name: str              # app.py's schedule name
    every: int             # seconds between scheduled runs (app.py's Rate)
    function: str          # the Lambda that runs it in AWS (infra/template.py)
    timeout: int = DEFAULT_TIMEOUT   # that function's timeout, seconds

    @property
    def schedule(self) -> str:
        """Forgejo's spelling of the schedule (robfig/cron ``@every <Go duration>``)."""
        hours, rest = divmod(self.every, 3600)
        if not rest:
            return f"@every {hours}h"
        return f"@every {self.every // 60}m" if not self.every % 60 else f"@every {self.every}s"


TASKS = (
    CronTask("mirror_sync", 10 * 60, "MirrorSync", 900),
    CronTask("pack_compaction", 24 * 3600, "PackCompaction", 900),
    CronTask("lfs_collect", 3600, "LfsCollect", 900),
    CronTask("quota_check", 24 * 3600, "QuotaCheck", 900),
    CronTask("migration_resume", 5 * 60, "MigrationResume"),
    CronTask("deleted_repo_purge", 3600, "DeletedRepoPurge", 900),
    CronTask("audit_export", 24 * 3600, "AuditExport", 900),
    CronTask("outbox_sweep", 5 * 60, "OutboxSweep"),
    CronTask("webhook_sweep", 60, "WebhookSweep"),
)
_BY_NAME = {task.name: task for task in TASKS}

Launcher = Callable[[CronTask, str], None]
_launcher: list[Launcher | None] = [None]


def task_named(name: str) -> CronTask:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise NotFoundError(f"cron task {name!r} does not exist") from None


def list_tasks() -> list[tuple[CronTask, CronState]]:
    """Every task with its recorded runs, in the schedules' order (one Query)."""
    found = cron_store.states()
    return [(task, found.get(task.name) or CronState(task.name)) for task in TASKS]


def next_run(task: CronTask, state: CronState) -> float | None:
    """When the schedule runs the task next: its last scheduled run plus its interval
    (a manual run does not move the schedule); None before the schedule ran it."""
    return state.scheduled + task.every if state.scheduled else None


# Starting a task now ------------------------------------------------------------------

def use_launcher(launch: Launcher | None) -> None:
    """Start tasks with ``launch(task, doer)`` in this process (the local runtime, tests);
    None puts back the default, the task's function in AWS."""
    _launcher[0] = launch


def request_run(name: str, doer: str) -> CronTask:
    """Queue a run of the task ``name`` for the site admin ``doer``; it runs as its
    schedule runs it (skipped if a run of it is still going, as in Forgejo)."""
    task = task_named(name)
    (_launcher[0] or _invoke_function)(task, doer)
    log.info("cron task %s started by admin %s", task.name, doer)
    return task


def manual_event(task: CronTask, doer: str) -> dict:
    """The event a manual run's invocation carries: EventBridge's fields (Chalice's
    ``CloudWatchEvent`` reads them), with Nimbus's source."""
    return {"version": "0", "id": uuid.uuid4().hex, "detail-type": "adminCronRun",
            "source": MANUAL_SOURCE, "account": "", "time": "", "region": "",
            "resources": [], "detail": {"task": task.name, "doer": doer}}


def is_manual(event) -> bool:
    """Whether a scheduled function's event (a dict or Chalice's event) is a manual run's."""
    source = event.get("source") if isinstance(event, dict) else getattr(event, "source", "")
    return source == MANUAL_SOURCE


def _invoke_function(task: CronTask, doer: str) -> None:
    names = json.loads(os.environ.get(FUNCTIONS_VARIABLE) or "{}")
    function = names.get(task.name)
    if not function:
        raise RuntimeError(f"cannot start cron task {task.name}: {FUNCTIONS_VARIABLE} names "
                           "no function for it (infra/template.py sets it for the API)")
    aws.client("lambda").invoke(FunctionName=function, InvocationType="Event",
                                Payload=json.dumps(manual_event(task, doer)).encode())


# A run's bookkeeping (the jobs call these) --------------------------------------------

def begin_run(name: str, *, manual: bool = False) -> str | None:
    """Take the task for a run and count it; the run's id, or None when another run
    of the task still holds it (this one is then skipped)."""
    task = task_named(name)
    run_id = uuid.uuid4().hex
    taken = cron_store.begin(task.name, run_id, now=clock.now(), scheduled=not manual,
                             hold_seconds=task.timeout + HOLD_SLACK_SECONDS)
    return run_id if taken else None


def end_run(name: str, run_id: str, *, failure: str | None = None) -> None:
    """Release the task and record how the run ended (``failure``: the exception's type)."""
    if not cron_store.finish(name, run_id, now=clock.now(), failure=failure):
        log.warning("cron task %s: run %s outlived its hold; another run took the task",
                    name, run_id)


# What is behind (the health check) -------------------------------------------------------

# A schedule is late when its last run started more than two intervals ago and this
# much more (EventBridge may start a run a minute late; a daily task may run long).
LATE_SLACK_SECONDS = 10 * 60


def lateness(task: CronTask, state: CronState, now: float, since: float | None) -> str:
    """Why the task is behind, or "" when it is not.  ``since``: when the first run of any
    task was recorded (the schedules' bookkeeping began), so a task that never ran is
    behind only once its schedule has had time to run it twice."""
    allowed = 2 * task.every + LATE_SLACK_SECONDS
    if state.outcome == cron_store.FAILED:
        return f"its last run failed ({state.failure})"
    if state.prev is None:
        if since is not None and now - since > allowed:
            return f"it never ran, though schedules have run for {_ago(now - since)}"
        return ""
    if now - state.prev > allowed and not state.running(now):
        return f"its last run started {_ago(now - state.prev)} ago (every {_ago(task.every)})"
    return ""


def _ago(seconds: float) -> str:
    seconds = int(seconds)
    if seconds >= 2 * 86400:
        return f"{seconds // 86400} days"
    if seconds >= 2 * 3600:
        return f"{seconds // 3600} hours"
    if seconds >= 120:
        return f"{seconds // 60} minutes"
    return f"{seconds} seconds"
