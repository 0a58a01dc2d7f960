"""``python -m chalicelib.local`` (``make run``): Nimbus on this machine, no AWS needed.

Environment:
  PORT (8000), NIMBUS_HOST (127.0.0.1)   where to serve HTTP
  NIMBUS_DATA_DIR (./.nimbus)            saved state; see chalicelib/local/persistence.py
  NIMBUS_ADMIN_USER, NIMBUS_ADMIN_PASSWORD, NIMBUS_ADMIN_EMAIL
                                         create this site admin at start unless it exists
  NIMBUS_LOG_LEVEL (WARNING)             level of the app's own log lines
  NIMBUS_ACCESS_LOG (text)               text: a line per request on stderr; json: the
                                         telemetry lines on stdout, as Lambda writes them
                                         (docs/operations.md); off
  NIMBUS_AWS_ENDPOINT                    use the AWS services (moto) another process
                                         serves at this URL instead of embedded moto;
                                         that process keeps the state (runtime.py)
  NIMBUS_CONFIG, NIMBUS__<SECTION>__<KEY> settings (chalicelib/settings.py)

Every acknowledged write is journaled on disk first, so even kill -9 loses none (with
embedded moto; with NIMBUS_AWS_ENDPOINT, saving is the other process's business).
SIGTERM or Ctrl-C stops within a few seconds: running requests get two seconds to
finish, state is saved, exit 0.
"""
from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import traceback
from typing import Mapping

from chalicelib.errors import ServiceError
from chalicelib.jobs import cron
from chalicelib.jobs.schedules import SCHEDULES  # noqa: F401 - bench/local_throughput.py
from chalicelib.local.event_pipeline import EventPipeline
from chalicelib.local.runtime import DEFAULT_DATA_DIR, LocalRuntime
from chalicelib.local.webhook_worker import WebhookWorker

ADMIN_VARIABLES = ("NIMBUS_ADMIN_USER", "NIMBUS_ADMIN_PASSWORD", "NIMBUS_ADMIN_EMAIL")
# Start-up failures a user causes and can fix from the message alone: a bad setting
# (ValueError), the port or data dir in use, an admin password the rules refuse.
_USER_ERRORS = (ValueError, OSError, RuntimeError, ServiceError)
# How soon the main thread notices SIGTERM (signal handlers run between its waits).
STOP_POLL_SECONDS = 0.1


def ensure_admin_from_env(environ: Mapping[str, str]) -> str:
    """Create the admin the environment names, if any; a line saying what happened
    (empty when nothing was asked and a site admin exists: nothing to say)."""
    username, password, email = (environ.get(name, "") for name in ADMIN_VARIABLES)
    if username and password and email:
        from chalicelib.accounts import ensure_admin

        created = ensure_admin(username, password, email)
        return f"admin user {username!r} " + ("created" if created else "already exists")
    from chalicelib.accounts import site_admin_exists

    if site_admin_exists():
        return ""
    # The CLI finds this server's moto through runtime.json in the data dir.
    return (
        "NIMBUS_ADMIN_USER, NIMBUS_ADMIN_PASSWORD, NIMBUS_ADMIN_EMAIL not all set: no admin "
        "created. To create one, restart with all three set or, while this server runs:\n"
        "  .venv/bin/python -m chalicelib.cli admin user create "
        "--username NAME --password PW --email E --admin")


def every(schedule):
    """A background task running ``schedule`` as often as its Lambda would run, each run
    recorded for /admin/cron (chalicelib/jobs/cron.py)."""
    def task(stopping: threading.Event) -> None:
        while not stopping.wait(schedule.minutes * 60):
            try:
                cron.run_task(schedule.name, job=schedule.run)
            except Exception:  # noqa: BLE001 - keep the schedule alive, as Lambda would
                logging.getLogger("nimbus.jobs").exception("%s failed", schedule.name)
    return task


def cron_tasks(pipeline: EventPipeline) -> list:
    """Every cron task on its schedule, and adminCronRun's runs in threads.  The two
    sweeps run here besides the pipeline's and the webhook worker's own, more frequent
    sweeps, so /admin/cron and the health check read as in AWS; the outbox sweep hands
    what it finds to the pipeline, which is the events queue here."""
    own = {"outbox_sweep": pipeline.sweep_now}
    cron.run_here(own)
    return [every(schedule) for schedule in cron.as_schedules(own)]


def _resume_migrations() -> None:
    """Project migrations this data dir's previous process was running go on now, not
    when their lease runs out (that process was their only worker)."""
    from chalicelib import migrations

    resumed = migrations.resume_after_restart()
    if resumed:
        print(f"{resumed} project migration(s) resumed", flush=True)


def _cannot_start(exc: Exception) -> int:
    if not isinstance(exc, _USER_ERRORS):
        traceback.print_exc()
    print(f"nimbus: cannot start: {exc}", file=sys.stderr)
    return 1


def _access_log(kind: str) -> str:
    """``NIMBUS_ACCESS_LOG``; with ``json`` the telemetry lines go to stdout from now on."""
    kind = kind.strip().lower()
    if kind not in ("text", "json", "off"):
        raise ValueError(f"NIMBUS_ACCESS_LOG is text, json or off, not {kind!r}")
    if kind == "json":
        from chalicelib import telemetry

        telemetry.write_lines_to(sys.stdout)
    return kind


def main() -> int:
    logging.basicConfig(level=os.environ.get("NIMBUS_LOG_LEVEL", "WARNING").upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    stop_requested = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop_requested.set())

    try:
        access_log = _access_log(os.environ.get("NIMBUS_ACCESS_LOG", "text"))
        runtime = LocalRuntime(host=os.environ.get("NIMBUS_HOST", "127.0.0.1"),
                               port=int(os.environ.get("PORT", "8000")),
                               data_dir=os.environ.get("NIMBUS_DATA_DIR") or DEFAULT_DATA_DIR,
                               aws_endpoint=os.environ.get("NIMBUS_AWS_ENDPOINT"),
                               access_log=access_log == "text")
        runtime.prepare()
    except Exception as exc:  # noqa: BLE001 - reported by _cannot_start
        return _cannot_start(exc)
    try:
        # Before serving, so the admin exists by the time the first request arrives.
        said = ensure_admin_from_env(os.environ)
        if said:
            print(said, flush=True)
        _resume_migrations()
        pipeline = EventPipeline(runtime.yield_to_requests)
        for task in (cron_tasks(pipeline) + pipeline.tasks()
                     + WebhookWorker(runtime.yield_to_requests).tasks()):
            runtime.add_background(task)
        runtime.serve()
    except Exception as exc:  # noqa: BLE001 - reported by _cannot_start
        runtime.stop()
        return _cannot_start(exc)

    print(f"Nimbus is serving {runtime.url}/api/v1/version\n"
          f"data dir: {runtime.data_dir}\n"
          "Ctrl-C to stop", flush=True)
    while not stop_requested.wait(STOP_POLL_SECONDS):
        pass
    print("stopping: saving state ...", flush=True)
    try:
        runtime.stop()
    except Exception:  # noqa: BLE001 - report; the journal still holds every write
        logging.getLogger("nimbus.local").exception("final snapshot failed")
        return 1
    print("stopped", flush=True)
    return 0


def exit_now(code: int) -> None:
    """Exit without tearing the interpreter down: by now the state is on disk and the
    threads left are daemons, and unloading moto's thousands of modules and objects
    takes about two seconds of a stop's budget."""
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    exit_now(main())
