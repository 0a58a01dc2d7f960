"""Issue search through the index: across repositories (``issueSearchIssues``, "my
issues" in clients) and one repository's issues with a keyword (``issueListIssues``
with ``q``).

Who finds what, as Forgejo's: every public repository's issues (anonymous callers and
public-only tokens only those), a signed-in user also limited owners' and the private
repositories they can reach (``repos.accessible_repos``: bounded by what they reach,
not by the instance), a site admin every issue; ``owner`` and ``team`` narrow it to
those repositories.  Newest first.  Every issue on a page passes the repositories
domain's read rule and the tracker's unit rule again, so an index that has not caught
up can hide an issue for a moment, never show one it should not.

A page reads one list (``issue_index_store.list_for``), filtered by DynamoDB, as far
as the page and one entry more; then one batch for the issues, their trackers and
their owners, and one for their repositories.  The total is the page's end, plus one
when another page follows (counting would read every match).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from chalicelib import accounts, issues, orgs, repos
from chalicelib.errors import BadInput, NotFoundError
from chalicelib.search import issue_index_store, issue_terms
from chalicelib.search.issue_index_store import IssueFilter
from chalicelib.search.repo_search import facts_of, visibility_for
from chalicelib.store import unit_of_work
from chalicelib.store.pages import window

AHEAD = 1
# The smallest page DynamoDB is asked for (a Query without a limit reads up to 1 MB).
MIN_READ = 20
STATES = {"open": False, "closed": True}
KINDS = {"issues": False, "pulls": True}


@dataclass(frozen=True)
class IssueSearch:
    """issueSearchIssues' query, as Forgejo reads it."""
    state: str = "open"                  # open | closed | all
    kind: str = ""                       # issues | pulls | "" (both)
    keyword: str = ""
    labels: tuple[str, ...] = ()         # any of these names
    milestones: tuple[str, ...] = ()     # any of these titles
    since: int | None = None
    before: int | None = None
    owner: str = ""
    team: str = ""
    # The caller's own: created, assigned, mentioned, review_requested, reviewed.
    mine: tuple[str, ...] = field(default_factory=tuple)


MINE_LISTS = {"created": "poster", "assigned": "assignee", "mentioned": "mentioned",
              "review_requested": "review_requested", "reviewed": "reviewed"}


def _hidden_reachable(caller: repos.Caller, visibility, owner_id: int | None,
                      repo_ids: tuple[int, ...] | None) -> tuple[int, ...]:
    """The repositories the index hides from the caller's visibility that they may
    read anyway (their own private ones, shared ones, their organizations')."""
    if caller.user is None or caller.public_only or visibility is None:
        return ()
    found = []
    for view in repos.accessible_repos(caller):
        if facts_of(view.repo, view.owner).vis in visibility:
            continue
        if owner_id is not None and int(view.repo.owner_id) != owner_id:
            continue
        if repo_ids is not None and int(view.repo.id) not in repo_ids:
            continue
        found.append(int(view.repo.id))
    return tuple(sorted(found))


def _scope(caller: repos.Caller, query: IssueSearch) -> tuple[int | None, tuple[int, ...] | None]:
    """The owner and the team's repositories the search is narrowed to (400 for an
    unknown one, as Forgejo answers)."""
    if not query.owner:
        if query.team:
            raise BadInput("Owner organisation is required for filtering on team")
        return None, None
    try:
        owner = accounts.get_user(query.owner, caller.user)
    except NotFoundError:
        raise BadInput("Owner not found") from None
    if not query.team:
        return int(owner.id), None
    if not repos.is_org(owner):
        raise BadInput("Owner organisation is required for filtering on team")
    try:
        team_repos = orgs.named_team_repo_ids(owner, query.team)
    except NotFoundError:
        raise BadInput("Team not found") from None
    return int(owner.id), tuple(team_repos) if team_repos is not None else None


def issue_filter(caller: repos.Caller, query: IssueSearch) -> IssueFilter:
    owner_id, team_repos = _scope(caller, query)
    visibility = visibility_for(caller)
    people = {}
    if caller.user is not None:
        people = {MINE_LISTS[name]: int(caller.user.id) for name in query.mine
                  if name in MINE_LISTS}
    return IssueFilter(
        words=tuple(issue_terms.keyword_words(query.keyword)),
        closed=STATES.get(query.state), pull=KINDS.get(query.kind),
        visibility=visibility,
        hidden_repos=_hidden_reachable(caller, visibility, owner_id, team_repos),
        repos=team_repos, owner_id=owner_id, any_label=query.labels,
        milestones=query.milestones, since=query.since, before=query.before, people=people)


def search_issues(caller: repos.Caller, query: IssueSearch, offset: int,
                  limit: int) -> tuple[list[tuple[repos.RepoView, object]], int]:
    """One page of issueSearchIssues: (repository, issue) pairs newest first, and the
    total to report."""
    wanted = issue_filter(caller, query)
    if wanted.visibility == () and not wanted.hidden_repos:
        return [], 0
    read = issue_index_store.read(wanted, page_size=max(offset + limit + AHEAD, MIN_READ))
    page, seen = window(read, offset, limit, ahead=AHEAD)
    return issues_of(caller, page), seen


def issues_of(caller: repos.Caller, entries: list) -> list[tuple[repos.RepoView, object]]:
    """The issues of a page of entries that the caller may read, in the page's order:
    one batch for the issues, their trackers and owners, one for their repositories."""
    if not entries:
        return []
    unit_of_work.prefetch([*issues.issue_page_keys((int(e.repo_id), int(e.number),
                                                    int(e.owner_id)) for e in entries),
                           *(accounts.account_key(int(e.owner_id)) for e in entries)])
    found = repos.repos_by_link(list(dict.fromkeys((int(e.repo_id), e.repo_pk)
                                                   for e in entries)))
    views = {int(v.repo.id): v for v in repos.list_visible(caller, found)}
    contexts: dict[tuple[int, bool], object] = {}
    shown = []
    for entry in entries:
        view = views.get(int(entry.repo_id))
        issue = issues.issue_item(int(entry.repo_id), int(entry.number)) \
            if view is not None else None
        if issue is None:
            continue
        unit = issues.PULLS_UNIT if issue.is_pull else issues.ISSUES_UNIT
        where = (int(entry.repo_id), bool(issue.is_pull))
        if where not in contexts:
            try:
                contexts[where] = issues.issue_context(caller, view, unit)
            except NotFoundError:
                contexts[where] = None
        if contexts[where] is not None:
            shown.append((contexts[where], issue))
    return shown


def numbers_matching(repo_id: int, keyword: str, *, closed: bool | None,
                     pull: bool | None) -> list[int] | None:
    """The numbers of one repository's issues whose words hold every word of
    ``keyword``, newest first (what the repository's list of its longest word holds,
    not the repository's every issue); None when the keyword has no word the index
    lists (then the tracker filters as before)."""
    words = tuple(issue_terms.keyword_words(keyword))
    if not words:
        return None
    wanted = IssueFilter(words=words, closed=closed, pull=pull)
    return [int(e.number) for e in issue_index_store.read(wanted, repo_id=repo_id)]
