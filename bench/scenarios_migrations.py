"""Scenarios for a project migration's own API (``chalicelib.migrations``): its status,
retry and discard.  Each measures a migration of its own that failed at its labels
step (its source refuses them), the git part fetched from the bench's local remote."""
from __future__ import annotations

from scenarios_git import LOCAL_REMOTES, remote
from scene import Req, Scene, settings_in_force


class RefusingSource:
    """A source that answers for the repository and refuses its labels."""

    def repository(self):
        return None

    def labels(self):
        from chalicelib.errors import InvalidInput

        raise InvalidInput("the source refused the labels")

    def wiki_clone_url(self) -> str:
        return ""


def failed_migration(s: Scene) -> str:
    from chalicelib import migrations

    name = s.unique("project")
    migrations.use_source_opener(lambda *a, **kw: RefusingSource())
    try:
        # Queued at once (no turn in the request), so the first turn fails at labels
        # and leaves the failed task these operations read.
        with settings_in_force({**LOCAL_REMOTES, "NIMBUS__MIGRATIONS__INLINE_SECONDS": "0"}):
            s.must("POST", "/repos/migrate", "token", {
                "clone_addr": remote(s)["url"], "repo_name": name, "service": "gitea",
                "labels": True}, expect=201)
            migrations.run_migration_step("alice", name, 1)
    finally:
        migrations.use_source_opener(None)
    return name


def scenarios() -> dict:
    return {
        "repoMigrationStatus": lambda s: [Req(
            "GET", f"/repos/alice/{s.once('migration', lambda: failed_migration(s))}/migration",
            "token")],
        "repoMigrationRetry": lambda s: [Req(
            "POST", f"/repos/alice/{failed_migration(s)}/migration", "token", expect=202)],
        "repoMigrationDelete": lambda s: [Req(
            "DELETE", f"/repos/alice/{failed_migration(s)}/migration", "token", expect=204)],
    }


BUDGETS = {("repoMigrationStatus", "token"): 3, ("repoMigrationRetry", "token"): 4,
           ("repoMigrationDelete", "token"): 23}
