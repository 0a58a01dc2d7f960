"""Project migrations: a repository brought from Gitea, Forgejo, Gogs, GitHub or GitLab
with its labels, milestones, issues, pull requests, releases and wiki, run as queued
work in steps that resume.

Operations (``routes.py``): repoMigrate, repoMigrationStatus, repoMigrationRetry,
repoMigrationDelete.

| module | what it holds |
|---|---|
| ``consumers`` | The internal consumer that runs a project migration's steps (``steps.run``): each ``MigrationStepDue`` is … |
| ``importer_git`` | The git, wiki and finish steps of a project migration (``steps.py``). |
| ``importer_releases`` | The releases step of a project migration (``steps.py``): each release with its attachments, through … |
| ``importer_reviews`` | A pull request's reviews in a project migration's pulls step (``importer_tracker``), written through … |
| ``importer_tracker`` | The tracker steps of a project migration (``steps.py``): labels, milestones, issues and pull requests, … |
| ``inline`` | repoMigrate of a project as Forgejo answers it: once the migration is complete. |
| ``models`` | The migrations domain's items in the table: its models (and key layouts). |
| ``project`` | A project as any source describes it: the records a migration reads from Gitea, Forgejo, Gogs, GitHub or … |
| ``routes`` | repoMigrate (Forgejo's ``repository`` tag), and a project migration's own small API. |
| ``service`` | Project migrations (repoMigrate with a service and more than git): start, status, retry, discard. |
| ``source_gitea`` | The reader of a Gitea, Forgejo or Gogs project, through their API v1 (as Forgejo's gitea and gogs … |
| ``source_github`` | The reader of a GitHub project, through the REST API v3 (as Forgejo's github downloader reads it). |
| ``source_gitlab`` | The reader of a GitLab project, through the REST API v4 (as Forgejo's gitlab downloader reads it). |
| ``source_http`` | The one HTTP client the migration readers talk to a source with, and the readings every reader shares … |
| ``sources`` | Which reader a migration opens: the service a client names (Forgejo's ``GitServiceType`` strings) and the … |
| ``steps`` | A project migration's steps, run as queued work that resumes. |
| ``store`` | Migration tasks in the table (``models.MigrationTask``). |
| ``turn`` | One worker's turn on a project migration (``steps.py`` runs the turns): the task as last written, the … |

Registered by ``chalicelib/areas.py``; the step consumer by
``chalicelib/jobs/consumers.py``; the stale-task job by ``chalicelib/jobs/schedules.py``.
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "EVENT_TYPES":          "consumers",
    "on_event":             "consumers",
    "wants_event":          "consumers",
    "use_source_opener":    "service",
    "resume_stale":         "steps",
    "resume_after_restart": "steps",
    "run_migration_step":   "steps.run",
    "PROJECT_SERVICES":     "service",
    "wanted_parts":         "service",
    "start_migration":      "inline.migrate",
    "migration_task":       "service.task_for",
    "migration_status":     "service.status_record",
    "retry_migration":      "service.retry",
    "discard_migration":    "service.discard",
})
