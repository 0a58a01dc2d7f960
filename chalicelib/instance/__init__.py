"""The instance itself: its version and API settings, and its cron tasks (the periodic
jobs: their runs, and starting one).

Operations (``cron_routes.py``): adminCronList, adminCronRun.
Operations (``metrics_routes.py``): getMetrics.
Operations (``routes.py``): getVersion, getGeneralAPISettings, getGeneralUISettings,
getGeneralRepositorySettings, getGeneralAttachmentSettings, getNodeInfo.

| module | what it holds |
|---|---|
| ``cron`` | The instance's cron tasks (Forgejo's ``/admin/cron``): the project's schedules, when each last ran, and … |
| ``cron_records`` | The Cron record (adminCronList): a task's name, schedule and runs, as Forgejo's. |
| ``cron_routes`` | The instance's cron tasks for site admins: list them with their runs, start one now. |
| ``cron_store`` | The cron tasks' bookkeeping: one small item per task, written by each run. |
| ``metrics_routes`` | ``GET /metrics``: the telemetry lines' metrics in Prometheus's text format, on the local runtime only … |
| ``models`` | The instance domain's items in the table: its models (key layouts in ``cron_store``). |
| ``records`` | The instance's records: its version and its settings (Forgejo's definitions). |
| ``routes`` | Instance-wide endpoints: version and the settings clients read (API, UI, repository and attachment … |

Registered by ``chalicelib/areas.py``.
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    # The cron tasks: the jobs record their runs, the local runtime starts them, the
    # health check reads them (chalicelib/jobs/cron.py, chalicelib/upkeep/health.py).
    "CRON_TASKS":            "cron.TASKS",
    "cron_task_runs":        "cron.list_tasks",
    "cron_lateness":         "cron.lateness",
    "begin_cron_run":        "cron.begin_run",
    "end_cron_run":          "cron.end_run",
    "is_manual_cron_run":    "cron.is_manual",
    "use_cron_launcher":     "cron.use_launcher",
})
