"""Repository search for a signed-in user who reaches private repositories through
organizations and collaborations, on the in-memory twin (the fast layer): the index's
filter is widened to their own, their organizations' and their collaborations'
entries, each checked by the read rule, so a search shows exactly what they may read,
pages exactly (one repository a page), and a page costs the same AWS calls however
many organizations they belong to."""
from __future__ import annotations

import pytest

from chalicelib import accounts, aws, repos, search
from chalicelib.orgs import teams
from chalicelib.orgs.options import CreateTeamOption
from chalicelib.repos import access
from chalicelib.repos.options import AddCollaboratorOption
from chalicelib.search import repo_search, terms
from chalicelib.store import unit_of_work
from tests import memory_scene as scene

# The explore page's query (chalicelib/web/pages.py) and the API's usual ones.
EXPLORE = repos.SearchQuery(keyword="proj", include_description=True, sort="recentupdate",
                            order="desc")
QUERIES = (EXPLORE, repos.SearchQuery(), repos.SearchQuery(keyword="proj"),
           repos.SearchQuery(keyword="proj", sort="newest"),
           repos.SearchQuery(keyword="proj", sort="recentupdate"),
           repos.SearchQuery(keyword="", sort="size", order="desc"))


def _team(owner, org, name: str, member, *, covering=(), everything: bool = False):
    team = teams.create_team(owner, org, CreateTeamOption(
        name=name, permission="read", includes_all_repositories=everything))
    teams.add_team_member(owner, team, member)
    for view in covering:
        teams.add_team_repo(owner, team, view.repo)
    return team


def _share(owner, view, login: str) -> None:
    access.add_collaborator(owner, view, login, AddCollaboratorOption(permission="read"))


@pytest.fixture
def world(memory):
    """uma belongs to three organizations of oz: acme (a team with every repository),
    beta (a team given one of its two private repositories) and the private gamma (a
    team given one private repository; its public one is hidden from non-members).  She
    has repositories of her own, one of pat's private repositories is shared with her
    and another was shared and then taken back; pat, oz and cal have private ones of
    their own, cal a public one."""
    people = {name: scene.user(name) for name in ("uma", "oz", "pat", "cal")}
    uma, oz, pat, cal = (people[n] for n in ("uma", "oz", "pat", "cal"))
    acme, beta = scene.org(oz, "acme"), scene.org(oz, "beta")
    gamma = scene.org(oz, "gamma", visibility="private")
    made = {}

    def repo(owner, name, **fields):
        made[name] = scene.repo(owner, f"{name}-proj", actor=oz if owner in (acme, beta, gamma)
                                else owner, **fields)
        return made[name]

    repo(acme, "acme-a", private=True)
    repo(acme, "acme-b", private=True)
    repo(acme, "acme-open")
    _team(oz, acme, "all", uma, everything=True)
    repo(beta, "beta-shown", private=True)
    repo(beta, "beta-hidden", private=True)
    _team(oz, beta, "some", uma, covering=[made["beta-shown"]])
    repo(gamma, "gamma-shown", private=True)
    repo(gamma, "gamma-hidden", private=True)
    repo(gamma, "gamma-public")
    _team(oz, gamma, "some", uma, covering=[made["gamma-shown"]])
    repo(uma, "uma-secret", private=True)
    repo(uma, "uma-open")
    _share(pat, repo(pat, "pat-shared", private=True), "uma")
    _share(pat, repo(pat, "pat-taken-back", private=True), "uma")
    access.remove_collaborator(pat, made["pat-taken-back"], "uma")
    repo(pat, "pat-secret", private=True)
    repo(oz, "oz-secret", private=True)
    repo(cal, "cal-open")
    for view in made.values():
        search.index_repo(int(view.repo.id))
    return {name: scene.fresh(account) for name, account in people.items()}


def full_filter(caller, query: repos.SearchQuery) -> list[str]:
    """Every repository the caller may read that matches, sorted in Python."""
    owners = ("uma", "oz", "pat", "cal", "acme", "beta", "gamma")
    everything = [r for name in owners
                  for r in repos.repos_owned_by(int(accounts.account_by_name(name).id))]
    keyword = query.keyword.lower()
    kept = [v for v in repos.list_visible(caller, everything)
            if not keyword or keyword in v.repo.lower_name
            or query.include_description and keyword in v.repo.description.lower()]
    order, descending = terms.sort_of(query.sort, query.order)
    kept.sort(key=lambda v: terms.sort_key(order, lname=v.repo.lower_name, repo_id=v.repo.id,
                                           updated=v.repo.updated, size=v.repo.size),
              reverse=descending)
    return [f"{v.owner.login}/{v.repo.name}" for v in kept]


def page(caller, query, offset: int, limit: int) -> tuple[list[str], int]:
    with unit_of_work.start():      # as in a request: one batch per check
        views, total = search.search_repos(caller, query, offset, limit)
    return [f"{v.owner.login}/{v.repo.name}" for v in views], total


def test_a_member_finds_exactly_what_she_may_read(world):
    uma = scene.caller(world["uma"])
    found, _ = page(uma, EXPLORE, 0, 50)
    assert sorted(found) == sorted([
        "acme/acme-a-proj", "acme/acme-b-proj", "acme/acme-open-proj",
        "beta/beta-shown-proj", "gamma/gamma-shown-proj", "gamma/gamma-public-proj",
        "uma/uma-secret-proj", "uma/uma-open-proj", "pat/pat-shared-proj",
        "cal/cal-open-proj"])
    for query in QUERIES:
        assert page(uma, query, 0, 50)[0] == full_filter(uma, query), query


@pytest.mark.parametrize("who", ["anonymous", "pat", "cal", "oz"])
def test_the_others_find_what_they_may_read(world, who):
    caller = scene.caller(None if who == "anonymous" else world[who])
    for query in QUERIES:
        assert page(caller, query, 0, 50)[0] == full_filter(caller, query), (who, query)


def test_one_repository_a_page_pages_exactly(world):
    uma = scene.caller(world["uma"])
    for query in QUERIES:
        every = full_filter(uma, query)
        shown = []
        for offset in range(len(every) + 2):
            found, total = page(uma, query, offset, 1)
            shown += found
            assert found == every[offset:offset + 1], (query, offset)
            # The page's end and what was read past it: every entry dropped by the read
            # rule is read past, never counted.
            assert min(offset + 1, len(every)) <= total <= len(every), (query, offset, total)
            if offset + 1 >= len(every):
                assert total == len(every), (query, offset)
        assert shown == every


def test_past_what_the_filter_holds_every_hidden_entry_is_checked(world, monkeypatch):
    """Someone reaching more organizations and repositories than the filter may name
    gets the same answers from a read of every entry."""
    monkeypatch.setattr(repo_search, "REACH_IN_FILTER", 2)
    uma = scene.caller(world["uma"])
    for query in QUERIES:
        assert page(uma, query, 0, 50)[0] == full_filter(uma, query), query
        every = full_filter(uma, query)
        assert [name for offset in range(len(every)) for name in
                page(uma, query, offset, 1)[0]] == every


class Calls:
    """AWS calls made while counting (the project's call hook, registered once a
    process: hooks stay for the process's life)."""
    counted: list | None = None

    @classmethod
    def hook(cls, **_) -> None:
        if cls.counted is not None:
            cls.counted[0] += 1

    @classmethod
    def of(cls, run) -> int:
        if not getattr(aws, "_repo_search_reach_hook", False):
            aws.add_call_hook(cls.hook)
            aws._repo_search_reach_hook = True
        cls.counted = [0]
        try:
            run()
            return cls.counted[0]
        finally:
            cls.counted = None


def test_a_page_costs_the_same_with_one_or_three_organizations(memory):
    """Her organizations' ids (one Query), her collaborations' (one Query), the page
    of the index (one Query) and one batch deciding and showing it: 4, with one
    organization or three, each with private repositories, and a collaboration."""
    uma, oz, pat = scene.user("uma"), scene.user("oz"), scene.user("pat")
    _share(pat, scene.repo(pat, "pat-proj", private=True), "uma")
    search.index_repo(int(repos.repos_owned_by(int(pat.id))[0].id))

    def join(name: str) -> None:
        org = scene.org(oz, name)
        for n in range(2):
            view = scene.repo(org, f"{name}-proj{n}", actor=oz, private=True)
            search.index_repo(int(view.repo.id))
        _team(oz, org, "all", uma, everything=True)

    def calls() -> int:
        caller = scene.caller(scene.fresh(uma))
        return Calls.of(lambda: page(caller, EXPLORE, 0, 5))

    join("one")
    with_one = calls()
    join("two")
    join("three")
    assert len(page(scene.caller(scene.fresh(uma)), EXPLORE, 0, 50)[0]) == 7
    assert calls() == with_one == 4
