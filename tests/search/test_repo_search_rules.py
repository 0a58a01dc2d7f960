"""Repository search through the index, on the in-memory twin (the fast layer): results
equal a full filter of every repository on a sample of queries (substring anywhere in
the name, any case, one-, two- and three-letter keywords, descriptions, each sort and
direction, the mode/archived/template/private filters, paging), private repositories
only for those who may read them, and the index following renames, visibility
changes, edits and deletions."""
from __future__ import annotations

import itertools

import pytest

from chalicelib import accounts, repo_admin, repos, search
from chalicelib.repo_admin import service as repo_service
from chalicelib.search import terms
from tests import memory_scene as scene

NAMES = ("alpha", "Alpine-tools", "beta", "gamma.js", "zq-lib", "proj", "project-x",
         "my_proj", "PROJECTOR", "a", "ab", "xyzzy")


@pytest.fixture
def world(memory):
    """alice's public repositories (a fork, a mirror-less archive, a template among
    them), her private ``hidden``, bob's private ``bobs-secret`` shared with nobody,
    and the limited user lim's public ``limproj``; every repository indexed."""
    alice, bob = scene.user("alice"), scene.user("bob")
    lim = scene.user("lim", visibility="limited")
    made = []
    for n, name in enumerate(NAMES):
        made.append(scene.repo(alice, name, description=f"about {name} number{n}",
                               template=(n % 5 == 0)).repo)
    made.append(scene.repo(alice, "hidden", private=True).repo)
    made.append(scene.repo(bob, "bobs-secret", private=True, description="proj secret").repo)
    made.append(scene.repo(lim, "limproj").repo)
    view = repos.find_repo(scene.caller(alice), "alice", "beta")
    repo_service.edit_repo(scene.caller(alice), view, repo_admin.EditRepoOption(archived=True))
    for repo in made:
        search.index_repo(int(repo.id))
    return {"alice": scene.fresh(alice), "bob": scene.fresh(bob), "lim": scene.fresh(lim),
            "root": scene.user("root", admin=True)}


def full_filter(caller, query: repos.SearchQuery) -> list[str]:
    """What a search must answer: every repository the caller may read, filtered and
    sorted in Python (the old way, reading everything)."""
    everything = [r for owner in ("alice", "bob", "lim", "root")
                  for r in repos.repos_owned_by(int(accounts.account_by_name(owner).id))]
    views = repos.list_visible(caller, everything)
    keyword = query.keyword.lower()
    kept = []
    for v in views:
        r = v.repo
        if keyword and keyword not in r.lower_name and not (
                query.include_description and keyword in r.description.lower()):
            continue
        if query.mode == "fork" and not r.fork or query.mode == "source" and r.fork:
            continue
        if query.archived is not None and bool(r.archived) != query.archived:
            continue
        if query.template is not None and bool(r.template) != query.template:
            continue
        if query.is_private is not None and bool(r.private) != query.is_private:
            continue
        if not query.include_private and r.private:
            continue
        kept.append(v)
    order, descending = terms.sort_of(query.sort, query.order)
    kept.sort(key=lambda v: terms.sort_key(order, lname=v.repo.lower_name, repo_id=v.repo.id,
                                           updated=v.repo.updated, size=v.repo.size),
              reverse=descending)
    return [f"{v.owner.login}/{v.repo.name}" for v in kept]


def found(caller, query: repos.SearchQuery, offset: int = 0, limit: int = 50) -> list[str]:
    views, _ = search.search_repos(caller, query, offset, limit)
    return [f"{v.owner.login}/{v.repo.name}" for v in views]


KEYWORDS = ("", "a", "P", "pr", "proj", "PROJ", "zq", "oje", "tools", "nothing", "number1",
            "secret")
SORTS = (("alpha", "asc"), ("alpha", "desc"), ("newest", None), ("id", "asc"),
         ("recentupdate", None), ("size", "desc"))


@pytest.mark.parametrize("who", ["anonymous", "alice", "bob", "lim", "root"])
def test_results_equal_a_full_filter(world, who):
    caller = scene.caller(None if who == "anonymous" else world[who])
    cases = [(keyword, SORTS[0], False) for keyword in KEYWORDS] + list(
        itertools.product(("", "p", "proj", "number1"), SORTS[1:], (False, True)))
    for keyword, (sort, order), desc in cases:
        query = repos.SearchQuery(keyword=keyword, include_description=desc, sort=sort,
                                  order=order or "")
        assert found(caller, query) == full_filter(caller, query), (who, keyword, sort, desc)


def test_filters_and_pages(world):
    caller = scene.caller(world["alice"])
    for extra in (dict(archived=True), dict(archived=False), dict(template=True),
                  dict(is_private=True), dict(is_private=False), dict(include_private=False),
                  dict(mode="fork"), dict(mode="source")):
        query = repos.SearchQuery(keyword="", **extra)
        assert found(caller, query) == full_filter(caller, query), extra
    query = repos.SearchQuery(keyword="p")
    every = full_filter(caller, query)
    pages = [found(caller, query, offset, 3) for offset in range(0, len(every) + 3, 3)]
    assert [name for page in pages for name in page] == every


def test_private_repositories_only_for_readers(world):
    anyone = repos.SearchQuery(keyword="secret")
    assert found(scene.caller(None), anyone) == []
    assert found(scene.caller(world["alice"]), anyone) == []
    assert found(scene.caller(world["bob"]), anyone) == ["bob/bobs-secret"]
    assert found(scene.caller(world["root"]), anyone) == ["bob/bobs-secret"]
    # A limited owner's repository: signed-in users only.
    assert found(scene.caller(None), repos.SearchQuery(keyword="limproj")) == []
    assert found(scene.caller(world["bob"]), repos.SearchQuery(keyword="limproj")) == \
        ["lim/limproj"]


def test_the_index_follows_changes(world):
    alice = world["alice"]
    anyone = scene.caller(None)
    view = repos.find_repo(scene.caller(alice), "alice", "xyzzy")
    repo_service.edit_repo(scene.caller(alice), view, repo_admin.EditRepoOption(private=True))
    search.index_repo(int(view.repo.id))
    assert found(anyone, repos.SearchQuery(keyword="xyzzy")) == []
    assert found(scene.caller(alice), repos.SearchQuery(keyword="xyzzy")) == ["alice/xyzzy"]
    repos.rename_owner(None, scene.fresh(alice), "alicia")
    for repo in repos.repos_owned_by(int(alice.id)):
        search.index_repo(int(repo.id))
    assert found(anyone, repos.SearchQuery(keyword="gamma")) == ["alicia/gamma.js"]
    view = repos.find_repo(scene.caller(scene.fresh(alice)), "alicia", "gamma.js")
    repo_service.delete_repo(scene.caller(scene.fresh(alice)), view)
    search.index_repo(int(view.repo.id))
    assert found(anyone, repos.SearchQuery(keyword="gamma")) == []
