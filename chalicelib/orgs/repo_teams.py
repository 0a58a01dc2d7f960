"""A repository's teams, seen from the repository (Forgejo's ``repository`` tag): which
teams of the owning organization cover it, whether one does, and giving a team the
repository or taking it away.

Here, not in the repos domain: the repositories domain sits below this one, and the
rule that gives a team a repository is this domain's (``teams.change_team_repo``,
which ``orgAddTeamRepository`` applies too); only who may differs.  Forgejo's rules:

- a repository owned by a user has no teams: 405 (``repo is not owned by an
  organization``);
- ``{team}`` is a team's name in the owning organization (404 when it has none);
- a team covers the repository when it was given it or includes every repository
  (Owners and the like), so adding such a team answers 422 ("already added"), and
  removing one that does not cover it 422 too ("was not added");
- changing needs a repository admin (the route), and the organization's owners unless
  the organization lets repository admins change team access
  (``repo_admin_change_team_access``).

Which teams cover the repository is read from its item's ``team_ids`` and the
organization's teams that include every repository, in one filtered Query
(``team_store.covering``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.errors import InvalidInput, NotAllowed, NotFoundError, PermissionDenied
from chalicelib.orgs import team_store as store
from chalicelib.orgs import teams
from chalicelib.repos import Access, is_org

if TYPE_CHECKING:
    from chalicelib.orgs.team_store import Team
    from chalicelib.repos import RepoView
    from chalicelib.orgs.store import Account


def _require_org(view: RepoView) -> None:
    if not is_org(view.owner):
        raise NotAllowed("repo is not owned by an organization")


def _covers(team: Team, view: RepoView) -> bool:
    return bool(team.includes_all_repositories) or store.covers(team, view.repo)


def _named(view: RepoView, name: str) -> Team:
    team = store.named(int(view.owner.id), name.strip().lower())
    if team is None:
        raise NotFoundError(f"team does not exist [org_id {int(view.owner.id)}, team_id 0, "
                            f"name: {name}]")
    return team


def repo_teams(view: RepoView) -> list[Team]:
    """repoListTeams: Owners first, then by name (as Forgejo orders them)."""
    _require_org(view)
    found = store.covering(int(view.owner.id), view.repo.team_ids)
    return sorted(found, key=lambda t: (t.lower_name != teams.OWNERS.lower(), t.lower_name))


def repo_team(view: RepoView, name: str) -> Team:
    """repoCheckTeam: the team when it covers the repository, else 404."""
    _require_org(view)
    team = _named(view, name)
    if not _covers(team, view):
        raise NotFoundError(f"team '{team.name}' does not cover the repository")
    return team


def change_repo_team(actor: Account, view: RepoView, name: str, *, add: bool) -> None:
    """repoAddTeam (``add``) and repoDeleteTeam, for a repository admin (the route)."""
    if not view.is_admin:
        raise PermissionDenied("user should be an owner or a collaborator with admin write "
                               "of a repository")
    _require_org(view)
    if not view.owner.repo_admin_change_team_access and view.access < Access.OWNER:
        raise PermissionDenied("user is nor repo admin nor owner")
    team = _named(view, name)
    covered = _covers(team, view)
    if add and covered:
        raise InvalidInput(f"team '{team.name}' is already added to repo")
    if not add and not covered:
        raise InvalidInput(f"team '{team.name}' was not added to repo")
    teams.change_team_repo(actor, team, view.repo, add=add)
