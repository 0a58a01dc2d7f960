"""Repository search through the index (repoSearch, the explore page): a page reads the
entries of one list, filtered by DynamoDB, then the page's repositories and owners.

Who finds what: anonymous callers (and public-only tokens) the ``pub`` entries,
signed-in users also ``lim`` ones, site admins every entry; a signed-in user's own
private repositories, and those shared with them, come from their own lists
(``repos.accessible_repos``: bounded by what they can reach, not by the instance) and
are merged in order.  Every repository shown passes the repositories domain's read
rule once more (``repos.list_visible``), so an entry the index has not caught up with
can hide a repository for a moment, never show one it should not.

With ``uid`` the search is over one account's repositories, which its own index
lists (``repos.search_repos``).
"""
from __future__ import annotations

import heapq
from typing import Iterable

from chalicelib import repos
from chalicelib.errors import InvalidInput
from chalicelib.search import index_store, terms
from chalicelib.search.index_store import Facts, Filter
from chalicelib.store.pages import window

# Entries read past the page, to know whether another page follows: on a sort list
# (every repository) one; on a keyword's list in name or creation order a few, so that
# a search finding few gets its exact total.  Not more: every entry read costs the page
# (50 made a search of a common word twice as slow as one of a rare word).
AHEAD = 1
COUNT_AHEAD = 10
# The smallest page DynamoDB is asked for: a read stops near what the page needs (a
# Query without a limit reads up to 1 MB, however few entries the page shows).
MIN_READ = 20


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


def _own(caller: repos.Caller, wanted: Filter, visibility) -> list[Facts]:
    """The signed-in caller's repositories the index does not show them (private ones,
    and those of private owners) that match."""
    if caller.user is None or visibility is None or caller.public_only \
            or wanted.private is False:
        return []
    found = []
    for view in repos.accessible_repos(caller):
        facts = facts_of(view.repo, view.owner)
        if facts.vis not in visibility and _keeps(facts, wanted):
            found.append(facts)
    return found


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
    wanted = _filter(query, keyword, visibility)
    list_pk, in_order = index_store.list_for(keyword, order, in_description=wanted.in_description,
                                             topic_only=wanted.topic_only)
    ahead = AHEAD if list_pk.startswith(index_store.SORT_LIST_PREFIX) else COUNT_AHEAD
    entries: Iterable = index_store.read(
        list_pk, wanted, descending=descending and in_order,
        page_size=max(offset + limit + ahead, MIN_READ) if in_order else None) \
        if visibility != () else []
    own = _own(caller, wanted, visibility)

    def key(item) -> str:
        return terms.sort_key(order, lname=item.lname, repo_id=item.repo_id,
                              updated=item.updated, size=item.size)

    if in_order:
        # The list is in the wanted order (a sort list, or a keyword's list by name or
        # creation): read as far as the page and a few more, whatever the list holds.
        own.sort(key=key, reverse=descending)
        merged = heapq.merge(entries, own, key=key, reverse=descending)
        page, seen = window(merged, offset, limit, ahead=ahead)
    else:
        # A keyword's list in another order (update time, size): every match of the
        # gram is read (what the gram's entries hold) and sorted; the total is exact.
        every = sorted([*entries, *own], key=key, reverse=descending)
        page, seen = every[offset:offset + limit], len(every)
    return _views(caller, page, wanted), seen


def _views(caller: repos.Caller, page: list, wanted: Filter) -> list[repos.RepoView]:
    found = {int(r.id): r for r in repos.repos_by_link([(int(e.repo_id), e.repo_pk)
                                                        for e in page])}
    shown = {int(v.repo.id): v for v in repos.list_visible(caller, list(found.values()))}
    views = []
    for entry in page:
        view = shown.get(int(entry.repo_id))
        if view is not None and _keeps(facts_of(view.repo, view.owner), wanted):
            views.append(view)
    return views
