"""Scenarios for issue search (issueSearchIssues) through the issue index.

The tracker's history on alice/demo (``issue_calls.history``: 150 issues titled
"issue <n>", every third closed), its newest issues indexed as the search-index
consumer leaves them
(the scene runs no event pipeline), so a search reads a real page: one Query of a
list, filtered by DynamoDB, then one batch for the page's issues, their trackers and
owners, and one for their repositories.  A signed-in caller also reads the private
repositories they reach (their own lists) and their access.
"""
from __future__ import annotations

from issue_calls import HISTORY, history
from scene import Req, Scene, after


# The newest issues indexed: more than a page (limit 10) and one, so a page reads what
# it would read in a full index.  (Each indexing is a transaction, and the bench's moto
# copies the whole table for each: indexing all 150 would cost it gigabytes.)
INDEXED = 12


def index_demo_issues(s: Scene) -> None:
    """alice/demo's newest issues in the index; makes nothing new, so no other
    scenario's counts move."""
    def index() -> bool:
        from chalicelib import repos, search

        repo = repos.repo_by_name("alice", "demo")
        for number in range(HISTORY, HISTORY - INDEXED, -1):
            search.index_issue(int(repo.id), number)
        return True

    history(s)
    s.once("issue_search_index", index)


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {
        "issueSearchIssues": lambda s: after(index_demo_issues(s), [
            Req("GET", "/repos/issues/search?q=issue&limit=10"),
            Req("GET", "/repos/issues/search?state=all&limit=10"),
            Req("GET", "/repos/issues/search?q=issue&limit=10", "token"),
            Req("GET", "/repos/issues/search?created=true&limit=10", "token")]),
    }


# Anonymous: the list, then one batch (issues, trackers, label sets, repositories,
# owners).  With a token: the token and the caller's access (two batches), then a keyword
# search reads the private repositories the caller reaches (their own, shared, their
# organizations': four Queries) before the list; the caller's own lists (created=true)
# skip that and check each entry in the page's batch.
BUDGETS = {
    ("issueSearchIssues", "anon"): 2,
    ("issueSearchIssues", "token"): 7,
}
