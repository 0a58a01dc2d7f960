"""Search: an index per kind of search, kept current by the domain events, read a page at
a time so a search costs the same at any size (docs/search.md).  Today: repositories.

Operations (``issue_routes.py``): issueSearchIssues.
Operations (``routes.py``): repoSearch.

| module | what it holds |
|---|---|
| ``account_index`` | The account index: users and organizations by the pieces of their names, full names and e-mail addresses, … |
| ``account_index_store`` | The account index in the table: each account's entries (``models.AccountEntry``) in the gram lists, its … |
| ``consumers`` | Keeping the search index current: the consumer of the events that change what a search finds … |
| ``entry_store`` | How every index of the search domain writes one item's entries: all the entries it should have are put … |
| ``index_store`` | The repository index in the table: its entries (``models.RepoEntry``) in the sort lists and gram lists, … |
| ``issue_index_store`` | The issue index in the table: each issue's entries (``models.IssueEntry``) in the lists a search reads, … |
| ``issue_indexing`` | Keeping the issue index current: an issue is indexed again, from what it is now, whenever an event says … |
| ``issue_routes`` | Issue search (Forgejo's ``issue`` tag): issueSearchIssues through the issue index. |
| ``issue_search`` | Issue search through the index: across repositories (``issueSearchIssues``, "my issues" in clients) and … |
| ``issue_terms`` | What the issue index is made of, without storage: the words an issue is listed under, the words a keyword … |
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
    "index_issue":      "issue_indexing",
    "index_repo_issues": "issue_indexing.index_new_issues",
    "issue_numbers_matching": "issue_search.numbers_matching",
    "account_ids_matching": "account_index.ids_matching",
    "index_account":    "account_index",
    # The dashboard (chalicelib/web): "assigned to you", "review requested".
    "IssueSearch":      "issue_search",
    "search_issues":    "issue_search",
    "search_issues_many": "issue_search.search_many",
})
