"""The repository lifecycle: create (own, org, admin), fork, migrate, mirror, edit, delete,
and the consumer that clears what a deleted repository leaves.

Operations (``routes.py``): createCurrentUserRepo, adminCreateRepo, repoDelete,
createFork, repoMigrate, repoMirrorSync, repoEdit, createOrgRepo, createOrgRepoDeprecated.
Operations (``template_routes.py``): listGitignoresTemplates, getGitignoreTemplateInfo,
listLicenseTemplates, getLicenseTemplateInfo.

| module | what it holds |
|---|---|
| ``consumers`` | The internal consumer of repository deletions: what a deleted repository leaves outside its records is … |
| ``git_init`` | A new repository's git side: HEAD, and with ``auto_init`` the initial commit (README, optional .gitignore … |
| ``lfs_fetch`` | The Git LFS objects of a migration or a pull mirror's sync, downloaded from the remote's LFS server … |
| ``lifecycle`` | The repository lifecycle: creating, forking and deleting a repository's records, and cleaning up after a … |
| ``migrations`` | Migrating a repository from another git server, once or as a pull mirror. |
| ``mirror_store`` | The pull-mirror schedule: one small partition ``MIRRORS`` with an item per mirror (``<repo id, 15 … |
| ``models`` | The repo_admin domain's items in the table: its models (and key layouts). |
| ``options`` | The request bodies of the repository lifecycle, declared once: the edge checks them … |
| ``remotes`` | The remote of a migration or a pull mirror: its address and credentials, and the only HTTP client that … |
| ``routes`` | Repository writes: create (own and admin), delete, fork, migrate, mirror sync, edit. |
| ``service`` | Repository writes through the API: create, fork, edit, delete. |
| ``template_routes`` | The templates a new repository may start from (Forgejo's ``miscellaneous`` tag): the ``.gitignore`` and … |

Registered by ``chalicelib/areas.py``; the cleanup consumer by
``chalicelib/jobs/consumers.py``; the mirror schedule by
``chalicelib/jobs/schedules.py``.
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "on_repository_deleted":  "consumers",
    "sync_due":               "migrations",
    "CreateRepoOption":       "options",
    "EditRepoOption":         "options",
    "create_repo":            "service",
    "delete_repo":            "service",
    "edit_repo":              "service",
})
