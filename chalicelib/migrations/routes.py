"""repoMigrate (Forgejo's ``repository`` tag), and a project migration's own small API.

``POST /repos/migrate`` answers as before for the git part alone (synchronous:
``repo_admin.migrate_repo``); with a service that has a project (gitea, forgejo, gogs,
github, gitlab) and any of labels, milestones, issues, pull requests, releases or wiki
asked, it checks everything, runs the migration for up to ``[migrations]
INLINE_SECONDS`` and answers 201 with the repository when it is done, else with the
record the migration will write while the rest goes on as queued work (``inline.py``).

Forgejo has no API for a migration's progress (its web shows a migrating page), so
these are Nimbus's own, kept out of the Swagger document (tag ``migrations``):

- ``GET /repos/{owner}/{repo}/migration``: where it stands (status queued, running,
  failed or done; the step; counts of what was brought; the redacted error);
- ``POST /repos/{owner}/{repo}/migration``: retry a failed one from where it stopped;
- ``DELETE /repos/{owner}/{repo}/migration``: discard a failed one and everything it
  wrote (the repository was never written, so ``repoDelete`` has nothing to delete).

Who: the migrating user and whoever may create repositories in the owner; 404 to
everyone else.
"""
from __future__ import annotations

from chalicelib import repo_admin, repos
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.repos import REPO, caller

OWN = {"tag": "migrations", "scope": "repository", "signed_in": True, "in_swagger": False}


@route("POST", "/repos/migrate", "repoMigrate", summary="Migrate a remote git repository",
       signed_in=True, body="MigrateRepoOptions",
       responses={201: "Repository", 403: "forbidden", 409: "conflict", 413: "quotaExceeded",
                  422: "validationError"}, **REPO)
def repo_migrate(req: ApiRequest) -> ApiResponse:
    # Imported here: the migration services (and the network guard) serve only these
    # routes, and importing the area should not pay for them.
    from chalicelib.migrations import inline, service

    option = req.option(repo_admin.MigrateRepoOptions)
    if service.wanted_parts(option):
        view = inline.migrate(caller(req), option)
    else:
        view = repo_admin.migrate_repo(caller(req), option)
    return ApiResponse.json(repos.repository_record(view, req.actor), status=201)


@route("GET", "/repos/{owner}/{repo}/migration", "repoMigrationStatus",
       summary="Where a repository's migration stands", responses={200: "empty", 404: "notFound"},
       **OWN)
def migration_status(req: ApiRequest) -> ApiResponse:
    from chalicelib.migrations import service

    task = service.task_for(caller(req), req.params["owner"], req.params["repo"])
    return ApiResponse.json(service.status_record(task))


@route("POST", "/repos/{owner}/{repo}/migration", "repoMigrationRetry",
       summary="Retry a failed migration from where it stopped",
       responses={202: "empty", 404: "notFound", 409: "conflict"}, **OWN)
def migration_retry(req: ApiRequest) -> ApiResponse:
    from chalicelib.migrations import service

    task = service.retry(caller(req), req.params["owner"], req.params["repo"])
    return ApiResponse.json(service.status_record(task), status=202)


@route("DELETE", "/repos/{owner}/{repo}/migration", "repoMigrationDelete",
       summary="Discard a failed migration and what it wrote",
       responses={204: "empty", 404: "notFound", 409: "conflict"}, **OWN)
def migration_delete(req: ApiRequest) -> ApiResponse:
    from chalicelib.migrations import service

    service.discard(caller(req), req.params["owner"], req.params["repo"])
    return ApiResponse.empty()
