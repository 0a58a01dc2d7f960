"""Teams of an organization: the teams themselves, their members and repositories.

Owning an organization means belonging to its Owners team, so the owner check lives
here too.  Each member's organization membership carries their team grants (what
deciding access reads, see ``permissions``), so every change to a team's membership,
permission or coverage writes through to the grants of the members it affects, in the
same unit of work as the change.  Grants are compare-and-swap on the value read: when a
racing change wins, the operation runs again on fresh reads (``write_grants``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from chalicelib import accounts, clock, events, repos
from chalicelib.errors import (ConditionFailed, ConflictError, InvalidInput, NotFoundError,
                               PermissionDenied)
from chalicelib.http.options import UNSET, given
from chalicelib.orgs import store as org_store
from chalicelib.orgs import team_store as store
from chalicelib.orgs.options import CreateTeamOption, EditTeamOption
from chalicelib.repos import UNITS, Caller, RepoView, is_org, is_org_owner, list_visible, view_of
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.orgs.store import Account, OrgMember
    from chalicelib.orgs.team_store import Team
    from chalicelib.repos import Repo
    from chalicelib.store.unit_of_work import UnitOfWork

OWNERS = "Owners"
TEAM_PERMISSIONS = ("read", "write", "admin")
UNIT_MODES = ("none", "read", "write", "admin")
GRANT_ATTEMPTS = 8
# Lost races on a membership: its grants changed, or it was created meanwhile.
_GRANT_RACES = (org_store.GRANTS, org_store.MEMBERSHIP)



def require_owner(org: Account | None, actor: Account | None) -> None:
    if org is None or actor is None or not is_org_owner(org, actor):
        raise PermissionDenied("Must be an organization owner")


def is_member(org: Account, user: Account | None) -> bool:
    """Site admins count as members of every organization."""
    return user is not None and (
        user.is_admin or org_store.get_member(int(org.id), int(user.id)) is not None)


def member_accounts(items: list) -> list[Account]:
    """The accounts of membership items (anything with ``user_id``), by name."""
    found = accounts.accounts_by_ids(int(item.user_id) for item in items)
    return sorted(found, key=lambda a: a.lower_name)


def write_grants(change: Callable[[UnitOfWork, bool], None]) -> None:
    """Run ``change(uow, fresh)`` and commit what it staged; when a racing change won
    a membership (``ConditionFailed`` on its grants), run it again reading the
    memberships fresh.  Other failed conditions reach the caller to translate."""
    for attempt in range(GRANT_ATTEMPTS):
        try:
            with unit_of_work.writing() as uow:
                change(uow, attempt > 0)
            return
        except ConditionFailed as failed:
            if failed.label not in _GRANT_RACES:
                raise
    raise ConflictError("team membership changed concurrently; try again")


def team_event(actor: Account | None, team: Team, action: str, **change) -> events.TeamChanged:
    """``change``: ``user_id`` for member_* actions, ``repo_id`` and ``repo`` for repo_*
    ones, ``changes`` for "edited"."""
    return events.TeamChanged(**accounts.actor_of_event(actor), org_id=int(team.org_id),
                              team_id=int(team.id), action=action,
                              team=events.snapshot(team), **change)


def membership_event(actor: Account | None, org_id: int, user_id: int,
                      action: str) -> events.MembershipChanged:
    # The member's account is in the unit already (every caller read it).
    user = accounts.account_by_id(user_id)
    return events.MembershipChanged(**accounts.actor_of_event(actor), org_id=org_id,
                                    user_id=user_id, action=action,
                                    user=events.snapshot(user))


def _name_taken(org: Account, name: str) -> InvalidInput:
    return InvalidInput(f"team already exists [org: {org.id}, name: {name}]")


# --- reading teams ---------------------------------------------------------------------

def list_teams(actor: Account | None, org: Account) -> list[Team]:
    """The organization's teams for its members, Owners first, then by name."""
    if not is_member(org, actor):
        raise PermissionDenied("Must be an organization member")
    return team_order(store.list_teams(int(org.id)))


def team_order(found: list[Team]) -> list[Team]:
    """Owners first, then by name."""
    return sorted(found, key=lambda t: (t.permission != "owner", t.lower_name))


def preload_keys(team_id: int) -> list:
    """``/teams/{id}`` routes: read the team's id link with the credential."""
    return store.lookup_keys(team_id)


def preload_more_keys(team_id: int, user_id: int | None) -> list:
    """Then the team, its organization and the caller's membership, in one batch."""
    return store.context_keys(team_id, user_id)


def find_team(actor: Account | None, team_id: int) -> tuple[Team, Account]:
    """A team and its organization; visible to the organization's members and admins."""
    team = store.get(team_id)
    org = accounts.account_by_id(int(team.org_id)) if team else None
    if team is None or org is None or not is_member(org, actor):
        raise NotFoundError(f"team does not exist [id: {team_id}]")
    return team, org


def team_members(team: Team) -> list[Account]:
    return member_accounts(store.list_members(int(team.id)))


def get_team_member(team: Team, user: Account) -> Account:
    if not store.is_member(int(team.id), int(user.id)):
        raise NotFoundError(f"user is not a team member [name: {user.login}]")
    return user


def team_repositories(caller: Caller, team: Team, org: Account) -> list[RepoView]:
    """The team's repositories the caller may see (all the organization's for a team
    that includes every repository)."""
    if team.includes_all_repositories:
        return list_visible(caller, repos.repos_owned_by(int(org.id)))
    # The links name each repository's key: the records and the caller's access items
    # in one batch.
    return repos.list_visible_linked(caller, store.repo_links(int(team.id)))


def find_org_repo(org: Account, owner_name: str, repo_name: str) -> Repo:
    """``owner_name/repo_name`` when it is a repository of ``org`` (404 otherwise)."""
    repo = repos.repo_by_name(owner_name, repo_name)
    if repo is None or int(repo.owner_id) != int(org.id):
        raise NotFoundError(f"repository does not exist [name: {repo_name}]")
    return repo


def team_repository(caller: Caller, team: Team, org: Account, repo: Repo) -> RepoView:
    if not team.includes_all_repositories and not store.covers(team, repo):
        raise NotFoundError("the repository is not the team's")
    return view_of(repo, caller, org)


# --- creating, editing and deleting teams ------------------------------------------------

def _sent(value):
    """A field's value, None when it was left out or sent as null."""
    return None if value is UNSET else value


def _units(option: CreateTeamOption | EditTeamOption, permission: str) -> tuple[list[str], dict]:
    """The team's units and their modes: the units map wins, then the units list (each
    at the team's permission), else every unit."""
    units, units_map = _sent(option.units), _sent(option.units_map)
    if units_map is not None:
        for unit, mode in units_map.items():
            if unit not in UNITS or mode not in UNIT_MODES:
                raise InvalidInput(f"[UnitsMap]: invalid unit {unit!r} or mode {mode!r}")
        return sorted(units_map), dict(units_map)
    if units is not None:
        bad = [u for u in units if u not in UNITS]
        if bad:
            raise InvalidInput(f"[Units]: unknown units {bad}")
        return list(units), {u: permission for u in units}
    return list(UNITS), {u: permission for u in UNITS}


def new_team(org: Account, option: CreateTeamOption) -> Team:
    """A validated team record, nothing written yet."""
    name = (option.name or "").strip()
    if not name:
        raise InvalidInput("[Name]: Required")
    if len(name) > 255 or not all(c.isalnum() or c in "-_." for c in name):
        raise InvalidInput("[Name]: AlphaDashDot")
    # Not a Literal: Forgejo's description has no enum here, and the message is its own.
    permission = option.permission or "read"
    if permission not in TEAM_PERMISSIONS:
        raise InvalidInput("[Permission]: must be read, write or admin")
    units, units_map = _units(option, permission)
    return store.new_team(int(org.id), name, permission=permission, units=units,
                          units_map=units_map, description=option.description or "",
                          includes_all_repositories=bool(option.includes_all_repositories),
                          can_create_org_repo=bool(option.can_create_org_repo),
                          created=clock.seconds())


def new_owners_team(org: Account) -> Team:
    """The Owners team every organization is created with (owner permission on every
    unit and repository; its units map stays empty, meaning all of them)."""
    return store.new_team(int(org.id), OWNERS, permission="owner", units=list(UNITS),
                          units_map={}, includes_all_repositories=True,
                          can_create_org_repo=True, created=clock.seconds())


def stage_new_team(uow: UnitOfWork, actor: Account | None, team: Team) -> None:
    store.stage_create(team)
    uow.raise_event(team_event(actor, team, "created"))


def create_team(actor: Account | None, org: Account, option: CreateTeamOption) -> Team:
    """orgCreateTeam."""
    require_owner(org, actor)
    team = new_team(org, option)
    try:
        with unit_of_work.writing() as uow:
            stage_new_team(uow, actor, team)
    except ConditionFailed as failed:
        if failed.label == store.NAME_TAKEN:
            raise _name_taken(org, team.name) from None
        raise
    return team


def _apply_edit(team: Team, option: EditTeamOption) -> None:
    """The fields sent (null: left as they are) onto the team record (the Owners team
    keeps its name and powers)."""
    name = _sent(option.name)
    if name is not None and name.lower() != team.lower_name:
        if team.permission == "owner":
            raise InvalidInput("the Owners team cannot be renamed")
        team.name, team.lower_name = name, name.lower()
    description = _sent(option.description)
    if description is not None:
        team.description = description
    if team.permission == "owner":
        return
    permission = _sent(option.permission)
    if permission is not None:
        if permission not in TEAM_PERMISSIONS:
            raise InvalidInput("[Permission]: must be read, write or admin")
        team.permission = permission
    if given(option, "units") or given(option, "units_map") or permission is not None:
        store.set_units(team, *_units(option, team.permission))
    for flag in ("includes_all_repositories", "can_create_org_repo"):
        value = _sent(getattr(option, flag))
        if value is not None:
            setattr(team, flag, value)


def edit_team(actor: Account | None, team: Team, org: Account, option: EditTeamOption) -> Team:
    """orgEditTeam: the fields sent change, the others stay."""
    require_owner(org, actor)
    previous_name = team.lower_name
    before = events.snapshot(team)
    _apply_edit(team, option)
    changes = events.changes_between(before, events.snapshot(team))

    def change(uow: UnitOfWork, fresh: bool) -> None:
        previous = previous_name
        if fresh:
            # A team with 100+ members commits in chunks: the team (and its name claim)
            # went in the first one if a later one lost a race on a member's grants.
            stored = store.get_in_org(int(org.id), int(team.id), fresh=True)
            previous = stored.lower_name if stored is not None else previous
        store.stage_save(team, previous_lower_name=previous)
        member_ids = [int(m.user_id) for m in store.list_members(int(team.id))]
        for member in org_store.get_members(int(org.id), member_ids, fresh=fresh).values():
            org_store.grant_team(member, team)
        uow.raise_event(team_event(actor, team, "edited", changes=changes))

    try:
        write_grants(change)
    except ConditionFailed as failed:
        if failed.label == store.NAME_TAKEN:
            raise _name_taken(org, team.name) from None
        if failed.label == store.TEAM:
            raise NotFoundError(f"team does not exist [id: {team.id}]") from None
        raise
    return team


def delete_team(actor: Account | None, team: Team, org: Account) -> None:
    require_owner(org, actor)
    if team.permission == "owner":
        raise InvalidInput("the Owners team cannot be deleted")

    def change(uow: UnitOfWork, fresh: bool) -> None:
        links = store.list_links(int(team.id))
        member_ids = store.member_ids(links)
        for member in org_store.get_members(int(org.id), member_ids, fresh=fresh).values():
            org_store.revoke_team(member, int(team.id))
        store.stage_delete(team, links)
        uow.raise_event(team_event(actor, team, "deleted"))

    write_grants(change)


# --- team members ----------------------------------------------------------------------

def stage_team_join(uow: UnitOfWork, actor: Account | None, team: Team, user: Account,
                    member: OrgMember | None) -> None:
    """``user`` joins ``team``, and its organization too when ``member`` (their
    membership there) is None."""
    if is_org(user):
        raise InvalidInput("an organization cannot join a team")
    org_id, user_id = int(team.org_id), int(user.id)
    store.add_member(team, user_id)
    if member is None:
        org_store.add_member(org_id, user_id, team, clock.seconds())
        uow.raise_event(membership_event(actor, org_id, user_id, "added"))
    else:
        org_store.grant_team(member, team)
    uow.raise_event(team_event(actor, team, "member_added", user_id=user_id))


def add_team_member(actor: Account | None, team: Team, user: Account) -> None:
    """Joining a team makes the user a member of the organization."""
    org_id, user_id = int(team.org_id), int(user.id)
    require_owner(accounts.account_by_id(org_id), actor)

    def change(uow: UnitOfWork, fresh: bool) -> None:
        if not fresh:
            unit_of_work.prefetch([org_store.member_key(org_id, user_id),
                                   store.member_key(int(team.id), user_id)])
        member = org_store.get_member(org_id, user_id, fresh=fresh)
        if (member is not None and org_store.has_grant(member, team)
                and store.is_member(int(team.id), user_id)):
            return  # already in the team: nothing to write
        stage_team_join(uow, actor, team, user, member)

    write_grants(change)


def remove_team_member(actor: Account | None, team: Team, user: Account) -> None:
    """Leaving the last of one's teams in an organization leaves the organization."""
    org_id, team_id, user_id = int(team.org_id), int(team.id), int(user.id)
    require_owner(accounts.account_by_id(org_id), actor)
    unit_of_work.prefetch([org_store.member_key(org_id, user_id),
                           store.member_key(team_id, user_id)])
    if not store.is_member(team_id, user_id):
        raise NotFoundError(f"user is not a team member [name: {user.login}]")
    if team.permission == "owner" and len(store.list_members(team_id)) <= 1:
        raise InvalidInput("cannot remove the last owner of an organization")

    def change(uow: UnitOfWork, fresh: bool) -> None:
        store.remove_member(team_id, user_id)
        uow.raise_event(team_event(actor, team, "member_removed", user_id=user_id))
        member = org_store.get_member(org_id, user_id, fresh=fresh)
        if member is None:
            return
        if set(org_store.granted_team_ids(member)) - {team_id}:
            org_store.revoke_team(member, team_id)
        else:
            org_store.remove_member(org_id, member)
            uow.raise_event(membership_event(actor, org_id, user_id, "removed"))

    write_grants(change)


# --- team repositories -----------------------------------------------------------------

def _change_team_repo(actor: Account | None, team: Team, repo: Repo, *, add: bool) -> None:
    require_owner(accounts.account_by_id(int(team.org_id)), actor)
    change_team_repo(actor, team, repo, add=add)


def change_team_repo(actor: Account | None, team: Team, repo: Repo, *, add: bool) -> None:
    """Give the team the repository (``add``) or take it away: the one rule both the
    team's routes (organization owners) and the repository's (``repo_teams``: its
    admins, where the organization lets them) apply once they decided who may."""
    if int(repo.owner_id) != int(team.org_id):
        raise InvalidInput("the repository does not belong to the team's organization")
    if store.covers(team, repo) == add:
        return  # nothing to change
    try:
        with unit_of_work.writing() as uow:
            (store.add_repo if add else store.remove_repo)(team, repo)
            uow.raise_event(team_event(actor, team, "repo_added" if add else "repo_removed",
                                        repo_id=int(repo.id), repo=events.snapshot(repo)))
    except ConditionFailed as failed:
        if failed.label == store.REPO:
            raise NotFoundError(f"repository does not exist [name: {repo.name}]") from None
        raise


def add_team_repo(actor: Account | None, team: Team, repo: Repo) -> None:
    _change_team_repo(actor, team, repo, add=True)


def remove_team_repo(actor: Account | None, team: Team, repo: Repo) -> None:
    _change_team_repo(actor, team, repo, add=False)


def named_team_repo_ids(org: Account, name: str) -> list[int] | None:
    """The ids of the repositories the organization's team ``name`` is given (None: it
    includes every repository of the organization); NotFoundError when there is no such
    team.  For filters over a team's repositories (issueSearchIssues ``team``)."""
    team = store.named(int(org.id), name.lower())
    if team is None:
        raise NotFoundError(f"team does not exist [name: {name}]")
    if team.includes_all_repositories:
        return None
    return [int(r.id) for r in store.list_repos(int(team.id))]
