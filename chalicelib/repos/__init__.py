"""Repositories, the read side: the record, search and lists, forks; who may do what
(``permissions``); collaborators, stars, watches and deploy keys (``access``); and what
every route below ``/repos/{owner}/{repo}`` reads from its request (``request``).

Operations (``access_routes.py``): repoListCollaborators, repoCheckCollaborator,
repoAddCollaborator, repoDeleteCollaborator, repoGetRepoPermissions,
userCurrentCheckStarring, userCurrentPutStar, userCurrentDeleteStar,
userCurrentListStarred, userListStarred, repoListStargazers, userCurrentCheckSubscription,
userCurrentPutSubscription, userCurrentDeleteSubscription, repoListSubscribers,
userCurrentListSubscriptions, userListSubscriptions, repoListKeys, repoCreateKey,
repoGetKey, repoDeleteKey.
Operations (``id_routes.py``): repoGetByID.
Operations (``owner_routes.py``): adminRenameUser.
Operations (``routes.py``): repoGet, userCurrentListRepos, userListRepos, listForks.
Operations (``topic_routes.py``): repoListTopics, repoUpdateTopics, repoAddTopic,
repoDeleteTopic, topicSearch.

| module | what it holds |
|---|---|
| ``access`` | Who else uses a repository: collaborators, stargazers, watchers and deploy keys. |
| ``access_routes`` | Collaborators, stars, watches (subscriptions) and deploy keys of a repository. |
| ``access_store`` | Who else uses a repository, in the table: collaborations, stars, watches, deploy keys, and the items … |
| ``deleted_store`` | Deleted repositories kept restorable, in the table (``repo_admin/deletion.py`` holds the rules; … |
| ``fork_network`` | Finding a branch in a repository's fork network (pull requests and compare). |
| ``id_routes`` | A repository by its id (``repoGetByID``): the record as the caller may see it, 404 otherwise (missing or … |
| ``merge_settings`` | A repository's pull request settings: which merge styles are allowed and the defaults (Forgejo's … |
| ``models`` | The repos domain's items in the table: its models (and key layouts). |
| ``options`` | The request bodies of the repositories domain, declared once: the edge checks them … |
| ``owner_routes`` | A user's new name (Forgejo's ``admin`` tag): the site admin renames a user, whose repositories move with … |
| ``owners`` | An owner's new name: renaming a user or an organization (``adminRenameUser``, ``renameOrg``) and moving … |
| ``permissions`` | The one place that decides what a caller may do with a repository. |
| ``records`` | Repository, Permission, WatchInfo and DeployKey records, field for field. |
| ``rename_store`` | A repository's new name in the table (a rename: ``repo_admin/renames.py``). |
| ``request`` | What every route and page under ``/repos/{owner}/{repo}`` reads from its request: the caller, the … |
| ``routes`` | Repositories, the reads: get, search, lists, forks. What every route under ``/repos/{owner}/{repo}`` … |
| ``service`` | Repositories through the API, the read side: lists, ordering, search, forks. |
| ``store`` | Repositories in the table. |
| ``topic_routes`` | Repository topics (Forgejo's ``repository`` tag): a repository's topics, read by its readers and changed … |
| ``topic_store`` | Repository topics in the table. |
| ``topics`` | Repository topics (Forgejo's ``repo_topic``): list, replace, add, remove, and the search across every … |
| ``views`` | A repository as one caller sees it: ``RepoView`` (the record, its owner and the caller's access mode), … |

Registered by ``chalicelib/areas.py``.  Every domain above reads the repository through
``views`` and ``permissions``.
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "WATCHES":                  "access",
    "add_collaborator":         "access",
    "remove_collaborator":      "access",
    "deploy_keys":              "access",
    "add_deploy_key":           "access",
    "delete_deploy_key":        "access",
    "AddCollaboratorOption":    "options",
    "deploy_key_record":        "records.deploy_key",
    "collaborators":            "access",
    "collaborators_with_modes": "access",
    "collaborated_repo_ids":    "access_store",
    "followers":                "access",
    "deploy_keys_of":           "access_store",
    "stage_delete_deploy_key":  "access_store",
    "repo_watcher_ids":         "access_store.watcher_ids",
    "repo_watched_by":          "access_store.watches",
    "repo_watch_key":           "access_store.watch_key",
    "locate_branch":            "fork_network.locate",
    "MERGE_DEFAULTS":           "merge_settings.DEFAULTS",
    "MERGE_STYLE_SWITCH":       "merge_settings.STYLE_SWITCH",
    "edited_merge_settings":    "merge_settings.edited",
    "merge_settings_of":        "merge_settings.settings_of",
    "merge_style_allowed":      "merge_settings.style_allowed",
    "Repo":                     "models",
    "Access":                   "permissions",
    "HasAccess":                "permissions",
    "UNITS":                    "permissions",
    "access_keys":              "permissions",
    "can_create_in":            "permissions",
    "can_see_account":          "permissions.can_see",
    "collaboration":            "permissions",
    "is_org":                   "permissions",
    "is_org_owner":             "permissions",
    "membership":               "permissions",
    "repo_access":              "permissions",
    "team_grants":              "permissions",
    "repo_api_url":             "records",
    "repo_html_url":            "records",
    "repository_record":        "records.repository",
    "GitRefusal":               "request",
    "IN_REPO":                  "request",
    "PAGE":                     "request",
    "REPO":                     "request",
    "caller":                   "request",
    "current_repo":             "request",
    "git_repo":                 "request",
    "repo_list":                "request",
    "repo_preload":             "request",
    "repo_preload_more":        "request",
    "repo_record":              "request",
    "SEARCH_MODES":             "service",
    "SearchQuery":              "service",
    "accessible_repos":         "service.accessible_to",
    "order_repos":              "service.order",
    "search_repos":             "service.search",
    "visible_repos_of":         "service.owned_by",
    "DELETED_GONE":             "deleted_store.DELETED",
    "deleted_repo":             "deleted_store.get",
    "deleted_repos_of":         "deleted_store.of_owner",
    "every_deleted_repo":       "deleted_store.every",
    "deleted_repos_due":        "deleted_store.due",
    "deleted_repo_stored":      "deleted_store.stored_repo",
    "deleted_repo_record":      "deleted_store.record_of",
    "stage_hide_repo":          "deleted_store.stage_hide",
    "stage_reveal_repo":        "deleted_store.stage_reveal",
    "stage_reattach_fork":      "deleted_store",
    "stage_drop_fork_link":     "deleted_store",
    "stage_forget_deleted":     "deleted_store.stage_forget",
    "restored_repo_record":     "deleted_store.restored_record",
    "FORK_GONE":                "store.FORK",
    "EDITABLE":                 "store",
    "OWNER_GONE":               "store.OWNER",
    "move_owned":               "owners",
    "on_owner_renamed":         "owners.on_event",
    "rename_owner":             "owners",
    "repos_by_link":            "store.linked",
    "PARENT_GONE":              "store.PARENT",
    "POOL_GONE":                "store.POOL",
    "REPO_CHANGED":             "store.REPO",
    "REPO_ID_TAKEN":            "store.REPO_ID",
    "creation_size":            "store",
    "every_pool":               "store.pools",
    "every_repo":               "store.every",
    "forks_of":                 "store",
    "new_repo_record":          "store.new_record",
    "pool_by_id":               "store.get_pool",
    "refreshed_repos":          "store.refreshed",
    "repo_by_id":               "store.get_by_id",
    "repo_by_name":             "store.get",
    "repo_from_snapshot":       "store.from_snapshot",
    "repo_id_key":              "store.id_key",
    "repo_values":              "store.stored_values",
    "repos_by_ids":             "store.get_many_by_id",
    "repos_owned_by":           "store.owned_by",
    "stage_create_repo":        "store.stage_create",
    "stage_delete_pool":        "store",
    "stage_delete_repo":        "store.stage_delete",
    "stage_detach_fork":        "store",
    "stage_pool_exists":        "store",
    "stage_purge_partition":    "store",
    "stage_repo_count_values":  "store.stage_count_values",
    "stage_repo_counts":        "store.stage_counts",
    "stage_repo_exists":        "store.stage_exists",
    "stage_repo_fields":        "store.stage_set",
    "stage_repo_team":          "store.stage_team",
    "stage_repo_wiki_contents": "store.stage_wiki_contents",
    "stage_save_repo":          "store.stage_save",
    "stage_move_repo":          "store.stage_move",
    "stage_transfer_state":     "store",
    "stage_repo_flags":         "store.stage_flags",
    "transferred_repo_record":  "store.transferred_record",
    "renamed_repo_record":      "rename_store.renamed_record",
    "stage_rename_repo":        "rename_store.stage_rename",
    "stage_unchanged_quota":    "store",
    "unchanged_quota_size":     "store",
    "forget_repo_topics":       "topics",
    "replace_repo_topics":      "topics.replace_topics",
    "ANONYMOUS":                "views",
    "Caller":                   "views",
    "RepoView":                 "views",
    "find_repo":                "views.find",
    "find_repo_by_id":          "views.find_by_id",
    "list_visible":             "views",
    "list_visible_linked":      "views",
    "repo_preload_keys":        "views.preload_keys",
    "strip_git":                "views",
    "view_of":                  "views",
})
