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
as the page and one entry more; then one batch for the issues, their trackers, their
repositories, their owners and the caller's access to them.  The total is the page's
end, plus one when another page follows (counting would read every match).

The caller's own lists (``mine`` without a keyword: assigned, created, mentioned, review
requested, reviewed) are already one person's, so they are read without the visibility
filter and nothing is computed up front: the entries read are kept when the read rule
keeps them (the same batch decides it), and the page is a window over the kept ones, so
an issue of a repository the caller can no longer read neither shows nor shifts the
page.  Several such lists are checked in one batch (``search_many``: the dashboard).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import islice
from typing import Iterable, Iterator

from chalicelib import accounts, issues, orgs, repos
from chalicelib.errors import BadInput, NotFoundError
from chalicelib.search import issue_index_store, issue_terms
from chalicelib.search.issue_index_store import IssueFilter
from chalicelib.search.repo_search import (entry_repo_keys, entry_repositories, facts_of,
                                           visibility_for)
from chalicelib.store import unit_of_work
from chalicelib.store.pages import kept_in_chunks, window

AHEAD = 1
# The smallest page DynamoDB is asked for (a Query without a limit reads up to 1 MB).
MIN_READ = 20
# Entries of a caller's own list checked at once after the first page's worth (when
# some were dropped): one batch each.
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


def own_list(caller: repos.Caller, query: IssueSearch) -> bool:
    """Does the search read one of the caller's own lists (no keyword: a keyword's list
    is the instance's), which is checked entry by entry instead of filtered?"""
    return caller.user is not None and any(name in MINE_LISTS for name in query.mine) \
        and not issue_terms.keyword_words(query.keyword)


def issue_filter(caller: repos.Caller, query: IssueSearch) -> IssueFilter:
    owner_id, team_repos = _scope(caller, query)
    visibility = visibility_for(caller)
    people = {}
    if caller.user is not None:
        people = {MINE_LISTS[name]: int(caller.user.id) for name in query.mine
                  if name in MINE_LISTS}
    own = own_list(caller, query)
    return IssueFilter(
        words=tuple(issue_terms.keyword_words(query.keyword)),
        closed=STATES.get(query.state), pull=KINDS.get(query.kind),
        visibility=None if own else visibility,
        hidden_repos=() if own else _hidden_reachable(caller, visibility, owner_id,
                                                      team_repos),
        repos=team_repos, owner_id=owner_id, any_label=query.labels,
        milestones=query.milestones, since=query.since, before=query.before, people=people)


def search_issues(caller: repos.Caller, query: IssueSearch, offset: int,
                  limit: int) -> tuple[list[tuple[repos.RepoView, object]], int]:
    """One page of issueSearchIssues: (repository, issue) pairs newest first, and the
    total to report."""
    return search_many(caller, [(query, offset, limit)])[0]


def search_many(caller: repos.Caller, asked: list[tuple[IssueSearch, int, int]], *,
                also: Iterable = ()) -> list[tuple[list, int]]:
    """A page of each search (query, offset, limit), their first checks in one batch
    that also reads ``also`` (keys the page needs anyway): each search's list is one
    Query, the batch one BatchGetItem while it holds at most 100 keys."""
    started = [_start(caller, query, offset, limit) for query, offset, limit in asked]
    unit_of_work.prefetch([*also, *(key for s in started for key in _keys(caller, s["first"]))])
    answers = []
    for (_, offset, limit), s in zip(asked, started):
        if s["own"]:
            page, seen = window(_kept(caller, s["first"], s["rest"], s["want"]), offset,
                                limit, ahead=AHEAD)
            answers.append(([(ctx, issue) for _, ctx, issue in page], seen))
        else:
            answers.append(([(ctx, issue) for _, ctx, issue in _readable(caller, s["first"])],
                            s["seen"]))
    return answers


def _start(caller: repos.Caller, query: IssueSearch, offset: int, limit: int) -> dict:
    """The search's list read as far as its first check: the page of a filtered list,
    or a page's worth of the caller's own list."""
    wanted = issue_filter(caller, query)
    want = offset + limit + AHEAD
    if own_list(caller, query):
        rest = issue_index_store.read(wanted, page_size=max(want, MIN_READ))
        return {"own": True, "first": list(islice(rest, want)), "rest": rest, "want": want}
    if wanted.visibility == () and not wanted.hidden_repos:
        return {"own": False, "first": [], "seen": 0}
    read = issue_index_store.read(wanted, page_size=max(want, MIN_READ))
    page, seen = window(read, offset, limit, ahead=AHEAD)
    return {"own": False, "first": page, "seen": seen}


def _kept(caller: repos.Caller, first: list, rest: Iterator, want: int) -> Iterator[tuple]:
    """The entries of a caller's own list the read rule keeps, in order: the first
    ones were read in the page's batch, later ones (only when some were dropped) a few
    at a time, one batch each."""
    return kept_in_chunks(first, rest, want, lambda chunk: _readable(caller, chunk),
                          lambda chunk: unit_of_work.prefetch(_keys(caller, chunk)))


def _keys(caller: repos.Caller, entries: list) -> list:
    """Every item deciding and showing these entries reads: the issues, trackers and
    label sets, the repositories (by the key the entry names), their owners and the
    caller's collaboration and membership."""
    return [*issues.issue_page_keys((int(e.repo_id), int(e.number), int(e.owner_id))
                                    for e in entries), *entry_repo_keys(caller, entries)]


def issues_of(caller: repos.Caller, entries: list) -> list[tuple[repos.RepoView, object]]:
    """The issues of a page of entries that the caller may read, in the page's order
    (one batch)."""
    unit_of_work.prefetch(_keys(caller, entries))
    return [(ctx, issue) for _, ctx, issue in _readable(caller, entries)]


def _readable(caller: repos.Caller, entries: list) -> list[tuple]:
    """(entry, tracker context, issue) for each entry whose issue the caller may read
    now: the repository's read rule, then the tracker's unit rule."""
    if not entries:
        return []
    views = {int(v.repo.id): v for v in repos.list_visible(caller, entry_repositories(entries))}
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
            shown.append((entry, contexts[where], issue))
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
