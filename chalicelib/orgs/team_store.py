"""Teams of an organization in the table.

Key layout (docs/data-model.md):
- a team: ``A#<org id>``/``TEAM#<team id>``, created with its name claim
  ``A#<org id>``/``TEAMNAME#<lower name>`` and its id link ``TEAMID#<team id>``/``TEAM``
  (finds the organization from a bare team id, for the ``/teams/{id}`` routes), each
  on condition that its key is free;
- its members and repositories: ``TEAM#<team id>``/``MEMBER#<user id>`` and
  ``REPO#<repo id>``; giving a team a repository also puts the team id in the
  repository's ``team_ids``, which is what deciding access reads.

The members' team grants live on their organization membership (``orgs.store``); the
services change both in one unit of work.  Writes here stage into the current unit of
work and never commit.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Iterable

from chalicelib import accounts, repos
from chalicelib.orgs.models import Team, TeamLink, TeamMember, TeamRepo, keys
from chalicelib.store import ids, unit_of_work
from chalicelib.store.table import Item

if TYPE_CHECKING:
    from chalicelib.repos import Repo

# Team, TeamMember: the record classes services name in type hints (read from here).

# Labels of staged writes whose condition can fail (``ConditionFailed.label``).
TEAM = "team"                    # the team is gone (edit) or its id is taken (create)
NAME_TAKEN = "team name"         # another team of the organization has the name
LINK = "team link"
REPO = "repository"              # the repository given to / taken from a team is gone


# Reads ----------------------------------------------------------------------------------

def get(team_id: int) -> Team | None:
    """A team from its id alone (two reads: the id link names the organization)."""
    link = unit_of_work.get(TeamLink, keys.team_link(team_id))
    return get_in_org(int(link.org_id), team_id) if link else None


def lookup_keys(team_id: int) -> list[tuple[str, str]]:
    """What ``get(team_id)`` reads first: the id link (for a request's first batch)."""
    return [keys.team_link(team_id)]


def context_keys(team_id: int, user_id: int | None) -> list[tuple[str, str]]:
    """Once the id link is known: the team, its organization and the caller's
    membership there (for a request's second batch)."""
    link = unit_of_work.get(TeamLink, keys.team_link(team_id))
    if link is None:
        return []
    org_id = int(link.org_id)
    found = [keys.team(org_id, team_id), accounts.account_key(org_id)]
    if user_id is not None:
        found.append(keys.org_member(org_id, user_id))
    return found


def get_in_org(org_id: int, team_id: int, *, fresh: bool = False) -> Team | None:
    """``fresh`` reads consistently (a retry after part of a change was committed)."""
    return unit_of_work.get(Team, keys.team(org_id, team_id), consistent=fresh)


def get_many_in_org(org_id: int, team_ids) -> list[Team]:
    """Teams of one organization by id, read in one batch; missing ones left out."""
    wanted = [keys.team(org_id, int(team_id)) for team_id in team_ids]
    unit_of_work.prefetch(wanted)
    found = (unit_of_work.get(Team, key) for key in wanted)
    return [team for team in found if team is not None]


def get_across(pairs: Iterable[tuple[int, int]]) -> list[Team]:
    """Teams of several organizations by (organization id, team id), read in one batch
    (a user's teams); missing ones left out."""
    wanted = [keys.team(int(org_id), int(team_id)) for org_id, team_id in pairs]
    unit_of_work.prefetch(wanted)
    found = (unit_of_work.get(Team, key) for key in wanted)
    return [team for team in found if team is not None]


def list_teams(org_id: int) -> list[Team]:
    return list(Item.query(keys.account_partition(org_id), Item.sk.startswith(keys.TEAM_PREFIX)))


def named(org_id: int, lower_name: str) -> Team | None:
    """The organization's team of that (lower-case) name: one Query of its teams that
    DynamoDB filters to the one (the name claim does not name the team)."""
    found = Item.query(keys.account_partition(org_id), Item.sk.startswith(keys.TEAM_PREFIX),
                       filter_condition=Team.lower_name == lower_name)
    return next((team for team in found if isinstance(team, Team)), None)


# ``IN`` takes at most 100 operands; one is the includes-all test's.
_COVERING_IDS = 99


def covering(org_id: int, team_ids) -> list[Team]:
    """The organization's teams that cover a repository given ``team_ids`` (its
    ``team_ids``): those and every team that includes all repositories, such as Owners,
    which no repository lists.  One Query of the organization's teams, filtered by
    DynamoDB to those (a page more per further 99 given teams)."""
    wanted = sorted({int(team_id) for team_id in team_ids or ()})
    found: dict[int, Team] = {}
    for start in range(0, max(len(wanted), 1), _COVERING_IDS):
        chunk = wanted[start:start + _COVERING_IDS]
        condition = Team.includes_all_repositories == True  # noqa: E712 - an expression
        if chunk:
            condition = condition | Team.id.is_in(*chunk)
        for team in Item.query(keys.account_partition(org_id),
                               Item.sk.startswith(keys.TEAM_PREFIX), filter_condition=condition):
            if isinstance(team, Team):
                found[int(team.id)] = team
    return list(found.values())


def _partition(team_id: int) -> str:
    """``TEAM#<id>``: the partition holding a team's member and repository links."""
    return keys.team_member(team_id, 0)[0]


def list_members(team_id: int) -> list[TeamMember]:
    return list(Item.query(_partition(team_id), Item.sk.startswith(keys.MEMBER_PREFIX)))


def list_repos(team_id: int) -> list[Repo]:
    """The repositories given to the team (that still exist), in two batched reads."""
    links = Item.query(_partition(team_id), Item.sk.startswith(keys.TEAM_REPO_PREFIX))
    return repos.repos_by_ids([int(link.repo_id) for link in links])


def repo_links(team_id: int) -> list[tuple[int, str]]:
    """(id, key) of each repository given to the team, as the links were written (a
    repository renamed since is found by its id: ``repos.repos_by_link``)."""
    return [(int(link.repo_id), link.repo_pk) for link in Item.query(
        _partition(team_id), Item.sk.startswith(keys.TEAM_REPO_PREFIX))]


def member_key(team_id: int, user_id: int) -> tuple[str, str]:
    """For batching the read of a team membership with others (``prefetch``)."""
    return keys.team_member(team_id, user_id)


def is_member(team_id: int, user_id: int) -> bool:
    return unit_of_work.get(TeamMember, keys.team_member(team_id, user_id)) is not None


# Records ----------------------------------------------------------------------------

def new_team(org_id: int, name: str, *, permission: str, units: list[str], units_map: dict,
             description: str = "", includes_all_repositories: bool = False,
             can_create_org_repo: bool = False, created: int = 0) -> Team:
    """A team record with a fresh id (nothing written)."""
    team_id = ids.next_id("team")
    return Team(*keys.team(org_id, team_id), id=team_id, org_id=org_id, name=name,
                lower_name=name.lower(), description=description, permission=permission,
                units=units, units_map=json.dumps(units_map),
                includes_all_repositories=includes_all_repositories,
                can_create_org_repo=can_create_org_repo, created=created)


def stored_values(team: Team) -> dict:
    """The team's stored attributes without PynamoDB's discriminator (a class, which
    ``events.snapshot`` cannot serialise)."""
    return {name: value for name, value in team.attribute_values.items() if name != "kind"}


def units_map(team: Team) -> dict:
    return json.loads(team.units_map or "{}")


def set_units(team: Team, units: list[str], mapping: dict) -> None:
    team.units, team.units_map = units, json.dumps(mapping)


# Staged writes ------------------------------------------------------------------------

def stage_create(team: Team) -> None:
    """The team with its name claim and id link, each on condition its key is free
    (ConditionFailed ``NAME_TAKEN`` when the organization has a team of that name)."""
    uow = unit_of_work.current()
    org_id, team_id = int(team.org_id), int(team.id)
    uow.put(team, label=TEAM, must_not_exist=True)
    uow.put(TeamLink(*keys.team_name(org_id, team.lower_name), org_id=org_id),
            label=NAME_TAKEN, must_not_exist=True)
    uow.put(TeamLink(*keys.team_link(team_id), org_id=org_id), label=LINK, must_not_exist=True)


def stage_save(team: Team, *, previous_lower_name: str | None = None) -> None:
    """An edited team, on condition it still exists (``TEAM``); a renamed team moves its
    name claim (``NAME_TAKEN`` when the new name is taken).  Stage it before the
    members' grants: in a unit past 100 items it then commits in the first chunk."""
    uow = unit_of_work.current()
    org_id = int(team.org_id)
    if previous_lower_name is not None and previous_lower_name != team.lower_name:
        uow.put(TeamLink(*keys.team_name(org_id, team.lower_name), org_id=org_id),
                label=NAME_TAKEN, must_not_exist=True)
        uow.delete(TeamLink(*keys.team_name(org_id, previous_lower_name)), label=TEAM)
    uow.put(team, label=TEAM, condition=Team.pk.exists())


def list_links(team_id: int) -> list[TeamMember | TeamRepo]:
    """The team's member and repository links, in one query (what deleting it needs)."""
    return list(Item.query(_partition(team_id)))


def member_ids(links: list[TeamMember | TeamRepo]) -> list[int]:
    return [int(link.user_id) for link in links if isinstance(link, TeamMember)]


def stage_delete(team: Team, links: list[TeamMember | TeamRepo]) -> None:
    """The team, its name claim, id link, its ``links`` (``list_links``), and its id in
    the ``team_ids`` of the repositories it covered.  The members' grants are the
    caller's to revoke, staged first: conditional writes go first so that a unit past
    100 items fails in its first transaction, before anything is deleted."""
    uow = unit_of_work.current()
    org_id, team_id = int(team.org_id), int(team.id)
    # A deleted repository leaves its link behind: only existing ones are updated.
    for repo in repos.repos_by_ids([int(link.repo_id) for link in links if isinstance(link, TeamRepo)]):
        _stage_coverage(repo, team_id, covered=False)
    for link in links:
        uow.delete(link, label=TEAM)
    uow.delete(team, label=TEAM)
    uow.delete(TeamLink(*keys.team_name(org_id, team.lower_name)), label=TEAM)
    uow.delete(TeamLink(*keys.team_link(team_id)), label=TEAM)


def claim_keys(teams: list[Team]) -> set[tuple[str, str]]:
    """The name claims of these teams (``stage_delete`` removes them with the team)."""
    return {keys.team_name(int(t.org_id), t.lower_name) for t in teams}


def add_member(team: Team, user_id: int) -> None:
    unit_of_work.current().put(TeamMember(*keys.team_member(int(team.id), user_id),
                                          user_id=user_id), label=TEAM)


def remove_member(team_id: int, user_id: int) -> None:
    unit_of_work.current().delete(TeamMember(*keys.team_member(team_id, user_id)), label=TEAM)


def add_repo(team: Team, repo: Repo) -> None:
    """Give the team the repository (``REPO`` when the repository vanished)."""
    team_id, repo_id = int(team.id), int(repo.id)
    unit_of_work.current().put(TeamRepo(*keys.team_repo(team_id, repo_id), repo_id=repo_id,
                                        repo_pk=repo.pk), label=TEAM)
    _stage_coverage(repo, team_id, covered=True)


def remove_repo(team: Team, repo: Repo) -> None:
    team_id = int(team.id)
    unit_of_work.current().delete(TeamRepo(*keys.team_repo(team_id, int(repo.id))), label=TEAM)
    _stage_coverage(repo, team_id, covered=False)


def covers(team: Team, repo: Repo) -> bool:
    """Is the repository one of the team's (explicitly given)?"""
    return int(team.id) in set(repo.team_ids or ())


def _stage_coverage(repo: Repo, team_id: int, *, covered: bool) -> None:
    # Conditional on the repository existing: an update would otherwise create a stub
    # repository item when the repository is deleted at the same time.
    repos.stage_repo_team(repo, team_id, covered=covered, label=REPO)


def stage_repo_links(team_ids: Iterable[int], repo: Repo, *, add: bool) -> None:
    """The teams' links to the repository alone, put (``add``) or deleted: a transfer
    writes the repository item itself (its ``team_ids``) in the same unit, so the
    coverage update ``add_repo`` stages would touch that item twice."""
    uow = unit_of_work.current()
    for team_id in team_ids:
        link = TeamRepo(*keys.team_repo(int(team_id), int(repo.id)), repo_id=int(repo.id),
                        repo_pk=repo.pk)
        if add:
            uow.put(link, label=TEAM)
        else:
            uow.delete(link, label=TEAM)
