"""Search: an index per kind of search, kept current by the domain events, read a page at
a time so a search costs the same at any size (docs/search.md).  Today: repositories.

Operations (``routes.py``): repoSearch.

| module | what it holds |
|---|---|
| ``consumers`` | Keeping the search index current: the consumer of the events that change what a search finds … |
| ``index_store`` | The repository index in the table: its entries (``models.RepoEntry``) in the sort lists and gram lists, … |
| ``models`` | The search domain's items in the table: its models (and key layouts). |
| ``repo_search`` | Repository search through the index (repoSearch, the explore page): a page reads the entries of one list, … |
| ``routes`` | Search (Forgejo's ``repository`` tag): repoSearch through the repository index. |
| ``terms`` | What the repository index is made of, without storage: the grams a name is listed under, the one gram a … |

Registered by ``chalicelib/areas.py``; ``jobs/consumers.py`` runs ``on_event`` as
``search-index``.  It reads repositories and accounts through the faces of ``repos`` and
``accounts``.
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "EVENT_TYPES":      "consumers",
    "index_repo":       "consumers",
    "on_event":         "consumers",
    "wants_event":      "consumers",
    "search_repos":     "repo_search.search",
    "repo_query":       "routes",
})
