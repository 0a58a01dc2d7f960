"""Repositories through the API, the read side: lists, ordering, search, forks.

The writes (create, fork, edit, delete) are ``repo_admin.service``: kept apart so a
request that only reads a repository does not import what writing one needs on a cold
start.  A repository as one caller sees it is a ``RepoView`` (``repo_views``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib import accounts
from chalicelib.errors import InvalidInput, NotFoundError
from chalicelib.repos import store
from chalicelib.repos.permissions import can_see, member_organizations
from chalicelib.repos.views import Caller, RepoView, list_visible

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.repos.store import Repo

SEARCH_MODES = ("fork", "source", "mirror", "collaborative")


def owned_by(caller: Caller, owner: Account) -> list[RepoView]:
    if not can_see(caller.user, owner):
        raise NotFoundError(f"user redirect does not exist [name: {owner.login}]")
    return list_visible(caller, store.owned_by(owner.id))


def accessible_to(caller: Caller) -> list[RepoView]:
    """userCurrentListRepos: what the caller owns, collaborates on, or reaches through
    an organization's teams."""
    from chalicelib.repos import access as repo_access

    user = caller.user
    found = {int(r.id): r for r in store.owned_by(user.id)}
    for view in repo_access.collaborating_on(caller, user):
        found.setdefault(int(view.repo.id), view.repo)
    for org in member_organizations(user):
        for repo in store.owned_by(int(org.id)):
            found.setdefault(int(repo.id), repo)
    return list_visible(caller, list(found.values()))


_ORDERINGS = {
    "name": (lambda v: v.repo.lower_name, False), "alpha": (lambda v: v.repo.lower_name, False),
    "alphabetically": (lambda v: v.repo.lower_name, False),
    "reversealphabetically": (lambda v: v.repo.lower_name, True),
    "id": (lambda v: v.repo.id, False), "oldest": (lambda v: v.repo.created, False),
    "newest": (lambda v: v.repo.created, True), "created": (lambda v: v.repo.created, False),
    "recentupdate": (lambda v: v.repo.updated, True), "updated": (lambda v: v.repo.updated, False),
    "leastupdate": (lambda v: v.repo.updated, False), "size": (lambda v: v.repo.size, False),
}


def order(views: list[RepoView], sort: str | None, direction: str | None = None) -> list[RepoView]:
    key, reverse = _ORDERINGS.get((sort or "name").lower(), _ORDERINGS["name"])
    if direction in ("asc", "desc"):
        reverse = direction == "desc"
    return sorted(views, key=key, reverse=reverse)


@dataclass
class SearchQuery:
    keyword: str = ""
    include_description: bool = False
    uid: int = 0
    exclusive: bool = False
    mode: str = ""
    include_private: bool = True
    is_private: bool | None = None
    template: bool | None = None
    archived: bool | None = None
    sort: str = "alpha"
    order: str = "asc"
    topic_only: bool = False       # the keyword names a topic (Forgejo's ``topic``)


def search(caller: Caller, query: SearchQuery) -> list[RepoView]:
    """repoSearch: every repository the caller may see that matches."""
    if query.mode and query.mode not in SEARCH_MODES:
        raise InvalidInput(f'Invalid search mode: "{query.mode}"')
    if query.uid:
        from chalicelib.repos import access as repo_access

        owner = accounts.account_by_id(query.uid)
        if owner is None:
            raise InvalidInput(f"user does not exist [uid: {query.uid}]")
        owned = store.owned_by(query.uid)
        shared = [] if query.exclusive else \
            [v.repo for v in repo_access.collaborating_on(caller, owner)]
        candidates = shared if query.mode == "collaborative" else owned + shared
    else:
        candidates = list(store.every())
    keyword = query.keyword.lower()

    def matches(r: Repo) -> bool:
        if keyword and keyword not in r.lower_name and not (
                query.include_description and keyword in r.description.lower()):
            return False
        if query.mode == "fork" and not r.fork or query.mode == "source" and r.fork:
            return False
        if query.mode == "mirror" and not r.mirror:
            return False
        if query.is_private is not None and bool(r.private) != query.is_private:
            return False
        if not query.include_private and r.private:
            return False
        if query.template is not None and bool(r.template) != query.template:
            return False
        return query.archived is None or bool(r.archived) == query.archived

    views = list_visible(caller, [r for r in candidates if matches(r)])
    return order(views, query.sort, query.order)


def forks(caller: Caller, view: RepoView) -> list[RepoView]:
    return list_visible(caller, store.forks_of(view.repo))
