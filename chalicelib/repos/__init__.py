"""Repositories, the read side: the record, search and lists, forks; who may do what
(``permissions``); collaborators, stars, watches and deploy keys (``access``); and what
every route below ``/repos/{owner}/{repo}`` reads from its request (``request``).

Operations (``access_routes.py``): repoListCollaborators, repoCheckCollaborator,
repoAddCollaborator, repoDeleteCollaborator, repoGetRepoPermissions,
userCurrentCheckStarring, userCurrentPutStar, userCurrentDeleteStar,
userCurrentListStarred, userListStarred, repoListStargazers,
userCurrentCheckSubscription, userCurrentPutSubscription, userCurrentDeleteSubscription,
repoListSubscribers, userCurrentListSubscriptions, repoListKeys, repoCreateKey,
repoGetKey, repoDeleteKey.
Operations (``routes.py``): repoGet, repoSearch, userCurrentListRepos, userListRepos,
listForks.

| module | what it holds |
|---|---|
| ``access`` | Who else uses a repository: collaborators, stargazers, watchers and deploy keys. |
| ``access_routes`` | Collaborators, stars, watches (subscriptions) and deploy keys of a repository. |
| ``access_store`` | Who else uses a repository, in the table: collaborations, stars, watches, deploy keys, and the items … |
| ``fork_network`` | Finding a branch in a repository's fork network (pull requests and compare). |
| ``merge_settings`` | A repository's pull request settings: which merge styles are allowed and the defaults (Forgejo's … |
| ``options`` | The request bodies of the repositories domain, declared once: the edge checks them … |
| ``permissions`` | The one place that decides what a caller may do with a repository. |
| ``records`` | Repository, Permission, WatchInfo and DeployKey records, field for field. |
| ``request`` | What every route and page under ``/repos/{owner}/{repo}`` reads from its request: the caller, the … |
| ``routes`` | Repositories, the reads: get, search, lists, forks.  What every route under ``/repos/{owner}/{repo}`` … |
| ``service`` | Repositories through the API, the read side: lists, ordering, search, forks. |
| ``store`` | Repositories in the table. |
| ``views`` | A repository as one caller sees it: ``RepoView`` (the record, its owner and the caller's access mode), … |

Registered by ``chalicelib/areas.py``.  Every domain above reads the repository through
``views`` and ``permissions``.
"""
