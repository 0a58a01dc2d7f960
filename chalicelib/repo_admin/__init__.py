"""The repository lifecycle: create (own, org, admin), fork, migrate, mirror, edit, delete,
and the consumer that clears what a deleted repository leaves.

Operations (``conversion_routes.py``): repoConvert.
Operations (``deleted_routes.py``): repoListDeleted, repoRestoreDeleted.
Operations (``disabled_routes.py``): repoListGitHooks, repoGetGitHook, repoEditGitHook,
repoDeleteGitHook, adminUnadoptedList, adminAdoptRepository,
adminDeleteUnadoptedRepository.
Operations (``flag_routes.py``): repoListFlags, repoReplaceAllFlags, repoDeleteAllFlags,
repoCheckFlag, repoAddFlag, repoDeleteFlag.
Operations (``fork_sync_routes.py``): repoSyncForkDefaultInfo, repoSyncForkDefault,
repoSyncForkBranchInfo, repoSyncForkBranch.
Operations (``generate_routes.py``): generateRepo.
Operations (``push_mirror_routes.py``): repoListPushMirrors, repoAddPushMirror,
repoGetPushMirrorByRemoteName, repoDeletePushMirror, repoPushMirrorSync.
Operations (``routes.py``): createCurrentUserRepo, adminCreateRepo, repoDelete,
createFork, repoMirrorSync, repoEdit, createOrgRepo, createOrgRepoDeprecated.
Operations (``template_routes.py``): listGitignoresTemplates, getGitignoreTemplateInfo,
listLicenseTemplates, getLicenseTemplateInfo.
Operations (``transfer_routes.py``): repoTransfer, acceptRepoTransfer, rejectRepoTransfer.

| module | what it holds |
|---|---|
| ``consumers`` | The internal consumer of repository deletions: what a deleted repository leaves outside its records is … |
| ``conversion_routes`` | A pull mirror converted to a normal repository (Forgejo's ``repository`` tag): 200 with the repository as … |
| ``conversions`` | A pull mirror becomes a normal repository (``repoConvert``, Forgejo's "convert to regular repository"): … |
| ``deleted_purge`` | The purge of deleted repositories whose retention ran out (the ``deleted_repo_purge`` schedule, hourly; … |
| ``deleted_records`` | The DeletedRepository record (a Nimbus extension; ``deleted_routes.py``): a deleted repository kept … |
| ``deleted_routes`` | Deleted repositories kept restorable (a Nimbus extension, ``repository`` tag): ``GET /repos/deleted`` … |
| ``deletion`` | Restorable deletion: a deleted repository kept for ``[repository] DELETED_RETENTION_DAYS``, listed … |
| ``disabled_routes`` | Two areas of Forgejo's API that have nothing to act on in Nimbus, answered as a Forgejo configured that … |
| ``flag_routes`` | The site admins' repository flags (Forgejo's ``repository`` tag, ``reqSiteAdmin``): list, replace, delete … |
| ``flags`` | The site admins' repository flags (Forgejo's ``repo_flag``): free-form words an admin puts on a … |
| ``fork_sync`` | Fork sync (Forgejo's repoSyncForkDefaultInfo, repoSyncForkDefault, repoSyncForkBranchInfo, … |
| ``fork_sync_records`` | The SyncForkInfo record (fj:services/repository/sync_fork.go), field for field. |
| ``fork_sync_routes`` | Fork sync (Forgejo's ``repository`` tag): where a fork's branch stands against its parent's (its … |
| ``generate_routes`` | A new repository from a template (Forgejo's ``repository`` tag): 201 with the new repository, its owner's … |
| ``generation`` | A new repository from a template (``generateRepo``), by Forgejo's rules. |
| ``git_init`` | A new repository's git side: HEAD, and with ``auto_init`` the initial commit (README, optional .gitignore … |
| ``lfs_fetch`` | The Git LFS objects of a migration or a pull mirror's sync, downloaded from the remote's LFS server … |
| ``lifecycle`` | The repository lifecycle: creating, forking and deleting a repository's records, and cleaning up after a … |
| ``lifecycle_options`` | The request bodies of the rest of a repository's lifecycle — its transfer, its generation from a … |
| ``migrations`` | Migrating a repository from another git server, once or as a pull mirror. |
| ``mirror_store`` | The pull-mirror schedule: one small partition ``MIRRORS`` with an item per mirror (``<repo id, 15 … |
| ``models`` | The repo_admin domain's items in the table: its models (and key layouts). |
| ``options`` | The request bodies of the repository lifecycle, declared once: the edge checks them … |
| ``project_git`` | A project migration's git side (``chalicelib.migrations``): fetch into the new repository's pool and … |
| ``push_mirror_records`` | The PushMirror record (fj:services/convert/mirror.go ToPushMirror), field for field: the address without … |
| ``push_mirror_routes`` | Push mirrors (Forgejo's ``repository`` tag): list, add, get, delete, sync now. |
| ``push_mirror_store`` | Push mirrors in the table: one item per mirror in its repository's partition (``PUSHMIRROR#<remote … |
| ``push_mirror_sync`` | Pushing a repository to its push mirrors: on request (repoPushMirrorSync), after a push (queued work: the … |
| ``push_mirrors`` | Push mirrors of a repository (Forgejo's repoListPushMirrors, repoAddPushMirror, … |
| ``remotes`` | The remote of a migration, a pull or a push mirror: its address and credentials, and the only HTTP client … |
| ``renames`` | A repository's new name (``repoEdit`` with ``name``), by Forgejo's rules (``ChangeRepositoryName``). |
| ``routes`` | Repository writes: create (own and admin), delete, fork, mirror sync, edit (a migration's route is … |
| ``secrets`` | Credentials a repository keeps for talking to another server (a push mirror's username and password, a … |
| ``service`` | Repository writes through the API: create, fork, edit, delete. |
| ``template_routes`` | The templates a new repository may start from (Forgejo's ``miscellaneous`` tag): the ``.gitignore`` and … |
| ``template_vars`` | The variables a template repository's files may use, as Forgejo documents them for ``.forgejo/template`` … |
| ``transfer_routes`` | A repository's transfer to another owner (Forgejo's ``repository`` tag): start it, and the recipient's … |
| ``transfer_store`` | The old addresses of transferred and renamed repositories, in the table, and the lookup that turns one … |
| ``transfers`` | Giving a repository to another owner: ``repoTransfer``, ``acceptRepoTransfer``, ``rejectRepoTransfer``, … |

Registered by ``chalicelib/areas.py``; the cleanup consumer by
``chalicelib/jobs/consumers.py``; the mirror schedule by
``chalicelib/jobs/schedules.py``.
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "on_repository_deleted":  "consumers",
    "purge_deleted_repos":    "deleted_purge.purge_due",
    "deleted_retention_days": "deletion.retention_days",
    # The deleted repositories' pages (chalicelib/web/deleted_repo_pages.py).
    "list_deleted_repos":     "deletion.list_deleted",
    "restore_deleted_repo":   "deletion.restore",
    "sync_due":               "migrations",
    "push_mirrors_pushed":    "push_mirror_sync.on_pushed",
    "push_mirrors_want":      "push_mirror_sync.wants_event",
    "sync_due_push_mirrors":  "push_mirror_sync.sync_due",
    "migrate_repo":           "migrations.migrate",
    "plan_migration":         "migrations.plan",
    "MigrateRepoOptions":     "options",
    "GitImport":              "project_git",
    "import_git":             "project_git",
    "stage_finished_repo":    "project_git",
    "record_imported_lfs":    "project_git",
    "discard_import":         "project_git",
    "fetch_wiki_refs":        "project_git",
    "MigrationRemote":        "remotes.Remote",
    "seal_migration_credentials":    "secrets.seal",
    "unseal_migration_credentials":  "secrets.unseal",
    "CreateRepoOption":       "options",
    "EditRepoOption":         "options",
    "create_repo":            "service",
    "delete_repo":            "service",
    "edit_repo":              "service",
    "TransferRepoOption":     "lifecycle_options",
    "GenerateRepoOption":     "lifecycle_options",
    "start_transfer":         "transfers.start",
    "answer_transfer":        "transfers.answer",
    "withdraw_transfer":      "transfers.withdraw",
    "may_accept_transfer":    "transfers.may_accept",
    "generate_repo":          "generation.generate",
})
