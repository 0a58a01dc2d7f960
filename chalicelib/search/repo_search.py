"""Repository search through the index (repoSearch, the explore page): a page reads the
entries of one list, filtered by DynamoDB, then, in one batch, the repositories, their
owners and the caller's access to them.

Who finds what: anonymous callers (and public-only tokens) the ``pub`` entries,
signed-in users also ``lim`` ones, site admins every entry.  A signed-in user also
finds the ``hid`` entries they may read (their own private repositories, those of their
organizations, those shared with them): the filter also keeps the entries of their
own and their organizations' repositories and of those they collaborate on (one Query
each for the ids, however many), and each such entry is kept only when the
repositories domain's read rule keeps it (decided in the page's batch), so the page is
cut from what the caller may read and its total stays exact.  Every repository shown
passes the read rule (``repos.list_visible``), so an entry the index has not caught up
with can hide a repository for a moment, never show one it should not.

With ``uid`` the search is over one account's repositories, which its own index
lists (``repos.search_repos``).
"""
from __future__ import annotations

from dataclasses import replace
from itertools import islice
from types import SimpleNamespace
from typing import Iterator

from chalicelib import orgs, repos
from chalicelib.errors import InvalidInput
from chalicelib.search import index_store, terms
from chalicelib.search.index_store import Facts, Filter
from chalicelib.store import unit_of_work
from chalicelib.store.pages import kept_in_chunks, window

# Entries read past the page, to know whether another page follows: on a sort list
# (every repository) one; on a keyword's list in name or creation order a few, so that
# a search finding few gets its exact total.  Not more: every entry read costs the page
# (50 made a search of a common word twice as slow as one of a rare word).
AHEAD = 1
COUNT_AHEAD = 10
# The smallest page DynamoDB is asked for: a read stops near what the page needs (a
# Query without a limit reads up to 1 MB, however few entries the page shows).
MIN_READ = 20
# Entries checked at once after the page's first batch, when the read rule dropped
# some (a private repository of an organization the caller's teams do not cover).
# The most ids (organizations, shared repositories) passed in the filter, whose
# expression DynamoDB bounds (4 KB): past it every hidden entry is read and checked.
REACH_IN_FILTER = 200


def facts_of(repo, owner) -> Facts:
    """What the index keeps of a repository and who may find it there."""
    visibility = getattr(owner, "visibility", "public") or "public"
    vis = "hid" if repo.private or visibility == "private" else \
        "lim" if visibility == "limited" else "pub"
    return Facts(repo_id=int(repo.id), repo_pk=repo.pk, lname=repo.lower_name,
                 ldesc=(repo.description or "").lower(),
                 topics=tuple(sorted(repo.topics or ())), owner_id=int(repo.owner_id),
                 vis=vis, private=bool(repo.private), fork=bool(repo.fork),
                 mirror=bool(repo.mirror), template=bool(repo.template),
                 archived=bool(repo.archived), updated=int(repo.updated or 0),
                 size=int(repo.size or 0))


def visibility_for(caller: repos.Caller) -> tuple[str, ...] | None:
    user = caller.user
    if user is None or caller.public_only:
        return ("pub",)
    if user.is_admin:
        return None
    if getattr(user, "restricted", False):
        return ()       # a restricted user finds only what was shared with them
    return ("pub", "lim")


def _filter(query: repos.SearchQuery, keyword: str, visibility) -> Filter:
    mode = query.mode
    private = query.is_private
    if not query.include_private:
        private = False
    return Filter(keyword=keyword, in_description=query.include_description,
                  topic_only=query.topic_only,
                  visibility=visibility, private=private,
                  fork=True if mode == "fork" else False if mode == "source" else None,
                  mirror=True if mode == "mirror" else None, template=query.template,
                  archived=query.archived)


def _keeps(facts: Facts, wanted: Filter) -> bool:
    """``wanted`` applied to one repository (what DynamoDB's filter does to entries)."""
    if wanted.topic_only:
        if wanted.keyword and wanted.keyword not in facts.topics:
            return False
    elif wanted.keyword and wanted.keyword not in facts.lname and not any(
            wanted.keyword in topic for topic in facts.topics) and not (
            wanted.in_description and wanted.keyword in facts.ldesc):
        return False
    for name in ("private", "fork", "mirror", "template", "archived"):
        value = getattr(wanted, name)
        if value is not None and getattr(facts, name) != value:
            return False
    return True


def _reachable(caller: repos.Caller, wanted: Filter, visibility) -> Filter:
    """``wanted`` widened to the entries the visibility hides that the signed-in caller
    may read anyway: their own, their organizations' (one Query of their memberships)
    and those they collaborate on (one Query of their collaborations), in any number,
    whatever they are; each is checked by the read rule once read.  Someone who
    reaches more than the filter holds gets every entry (``visibility`` None), the
    hidden ones checked the same way."""
    if caller.user is None or visibility is None or caller.public_only \
            or wanted.private is False:
        return wanted
    user_id = int(caller.user.id)
    owners = tuple(sorted({user_id, *orgs.organization_ids_of(user_id)}))
    shared = tuple(sorted(repos.collaborated_repo_ids(user_id)))
    if len(owners) + len(shared) > REACH_IN_FILTER:
        return replace(wanted, visibility=None)
    return replace(wanted, owners=owners, repos=shared)


def search(caller: repos.Caller, query: repos.SearchQuery, offset: int,
           limit: int) -> tuple[list[repos.RepoView], int]:
    """One page of repoSearch and the total to report: exact for a keyword of two or
    more letters (every match of its gram is read); without one, what was read — the
    page's end, and one more when another page follows — since counting every
    repository would read them all."""
    if query.mode and query.mode not in repos.SEARCH_MODES:
        raise InvalidInput(f'Invalid search mode: "{query.mode}"')
    if query.uid:
        found = repos.search_repos(caller, query)
        return found[offset:offset + limit], len(found)
    order, descending = terms.sort_of(query.sort, query.order)
    keyword = query.keyword.lower()
    visibility = visibility_for(caller)
    wanted = _reachable(caller, _filter(query, keyword, visibility), visibility)
    if wanted.visibility == () and not wanted.owners and not wanted.repos:
        return [], 0
    list_pk, in_order = index_store.list_for(keyword, order, in_description=wanted.in_description,
                                             topic_only=wanted.topic_only)
    ahead = AHEAD if list_pk.startswith(index_store.SORT_LIST_PREFIX) else COUNT_AHEAD
    entries: Iterator = index_store.read(
        list_pk, wanted, descending=descending and in_order,
        page_size=max(offset + limit + ahead, MIN_READ) if in_order else None)
    if not in_order:
        # A keyword's list in another order (update time, size): every match of the
        # gram is read (what the gram's entries hold) and sorted; the total is exact.
        every = sorted(entries, key=lambda e: terms.sort_key(
            order, lname=e.lname, repo_id=e.repo_id, updated=e.updated, size=e.size),
            reverse=descending)
        entries, ahead = iter(every), len(every)
    # In order (a sort list, or a keyword's list by name or creation): read as far as
    # the page and a few more, whatever the list holds.
    kept = _kept(caller, entries, wanted, visibility, offset, limit, ahead)
    page, seen = window(kept, offset, limit, ahead=ahead)
    return _views(caller, page, wanted), seen


def _kept(caller: repos.Caller, entries: Iterator, wanted: Filter, visibility, offset: int,
          limit: int, ahead: int) -> Iterator:
    """The entries the caller finds, in order: those the visibility shows, and the
    others when the read rule keeps them.  The first page's worth (and ``ahead``) is
    decided in one batch, which also reads what the page shows; more entries, only
    when some were dropped, a few at a time (``kept_in_chunks``), one batch each."""
    want = offset + limit + ahead
    first = list(islice(entries, want))
    unit_of_work.prefetch(entry_repo_keys(caller, [e for n, e in enumerate(first)
                                         if offset <= n < offset + limit
                                         or not _shown(e, visibility)]))

    def keep(chunk: list) -> list:
        readable = _readable(caller, [e for e in chunk if not _shown(e, visibility)], wanted)
        return [e for e in chunk if _shown(e, visibility) or int(e.repo_id) in readable]
    return kept_in_chunks(first, entries, want, keep,
                          lambda chunk: unit_of_work.prefetch(entry_repo_keys(caller, chunk)))


def _shown(entry, visibility) -> bool:
    """Is the entry one the caller's visibility shows (kept as it is, as before the
    widening: the page's views check it again)?"""
    return visibility is None or entry.vis in visibility


def entry_repo_keys(caller: repos.Caller, entries: list) -> list:
    """What deciding and showing index entries reads of their repositories (repository
    and issue entries alike: each names its repository's key, id and owner): the
    repositories, their owners, and the caller's collaboration and membership."""
    user = caller.user
    user_id = int(user.id) if user is not None and not user.is_admin else None
    found = []
    for entry in entries:
        found.append((entry.repo_pk, "REPO"))
        shape = SimpleNamespace(id=int(entry.repo_id), owner_id=int(entry.owner_id))
        found += repos.access_keys(shape, user_id)
    return found


def entry_repositories(entries: list) -> list:
    """The entries' repositories: by the key each entry names (read in the batch),
    by id for one renamed or transferred since."""
    found, moved = {}, []
    for entry in entries:
        repo = unit_of_work.get(repos.Repo, (entry.repo_pk, "REPO"))
        if repo is not None and int(repo.id) == int(entry.repo_id):
            found[int(repo.id)] = repo
        else:
            moved.append((int(entry.repo_id), entry.repo_pk))
    if moved:
        found.update((int(r.id), r) for r in repos.repos_by_link(list(dict.fromkeys(moved))))
    return list(found.values())


def _readable(caller: repos.Caller, entries: list, wanted: Filter) -> dict[int, repos.RepoView]:
    """The views of the entries' repositories that the caller may read and that still
    match (the index may lag behind a change), by id."""
    if not entries:
        return {}
    return {int(v.repo.id): v for v in repos.list_visible(caller, entry_repositories(entries))
            if _keeps(facts_of(v.repo, v.owner), wanted)}


def _views(caller: repos.Caller, page: list, wanted: Filter) -> list[repos.RepoView]:
    unit_of_work.prefetch(entry_repo_keys(caller, page))     # known already, unless the page moved
    shown = _readable(caller, page, wanted)
    return [shown[int(e.repo_id)] for e in page if int(e.repo_id) in shown]
