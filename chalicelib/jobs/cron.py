"""Running a cron task: its job with its bookkeeping, however it was started.

Every run of a scheduled job goes through ``run_task``: in AWS each scheduled function
of ``app.py`` (started by EventBridge, or by adminCronRun's asynchronous invocation),
locally the runtime's schedule threads and its manual runs (``run_here``).  The run
takes its task in the table before the job starts and releases it after
(``instance.begin_cron_run`` / ``end_cron_run``), which counts it for adminCronList
and skips it while another run of the task holds it.

The jobs themselves are ``chalicelib/jobs/schedules.py``'s and the two sweeps, each
imported when it runs (the API function never imports them).
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from chalicelib import instance
from chalicelib.jobs import schedules

log = logging.getLogger("nimbus.jobs")


def _outbox_sweep() -> int:
    from chalicelib.jobs import relay

    return relay.sweep()


def _webhook_sweep() -> int:
    from chalicelib import webhooks

    return webhooks.sweep_deliveries()


JOBS: dict[str, Callable[[], int]] = {
    **{schedule.name: schedule.run for schedule in schedules.SCHEDULES},
    "outbox_sweep": _outbox_sweep,
    "webhook_sweep": _webhook_sweep,
}


def run_task(name: str, *, manual: bool = False, job: Callable[[], int] | None = None) -> int:
    """Run the task ``name`` once (``job``: the work, when not the task's usual job);
    what the job returns, or 0 when another run of the task still holds it."""
    run_id = instance.begin_cron_run(name, manual=manual)
    if run_id is None:
        log.warning("cron task %s is still running; this run is skipped", name)
        return 0
    try:
        done = (job or JOBS[name])()
    except BaseException as exc:
        instance.end_cron_run(name, run_id, failure=type(exc).__name__)
        raise
    instance.end_cron_run(name, run_id)
    return done


def run_scheduled(name: str, event) -> int:
    """A scheduled function's body (``app.py``): its event tells a manual run apart."""
    return run_task(name, manual=instance.is_manual_cron_run(event))


def as_schedules(own: dict[str, Callable[[], int]] | None = None) -> list[schedules.Schedule]:
    """Every cron task as a ``Schedule`` (its interval, its job; ``own``: this process's
    work for some tasks), for a process that runs the schedules itself."""
    own = own or {}
    return [schedules.Schedule(task.name, task.every // 60, own.get(task.name) or JOBS[task.name])
            for task in instance.CRON_TASKS]


def run_here(jobs: dict[str, Callable[[], int]] | None = None) -> None:
    """Start adminCronRun's runs in this process, each in a background thread (the
    local runtime; its schedules run in threads too).  ``jobs``: this process's own
    work for some tasks (the local runtime's events pipeline sweeps its outbox itself)."""
    own = dict(jobs or {})

    def launch(task, doer: str) -> None:
        def run() -> None:
            try:
                run_task(task.name, manual=True, job=own.get(task.name))
            except Exception:  # recorded as failed (run_task); the thread ends
                log.exception("cron task %s, started by %s, failed", task.name, doer)

        threading.Thread(target=run, name=f"cron-{task.name}", daemon=True).start()

    instance.use_cron_launcher(launch)
