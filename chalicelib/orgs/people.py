"""People and their teams across organizations: a user's teams (``userListTeams``), a
search of an organization's teams (``teamSearch``) and what a user may do in an
organization (``orgGetUserPermissions``).

Each member's organization membership holds their team grants (``store``: team id ->
permission, units, all repositories), so a user's teams and their level in an
organization are read from memberships, never from every team's member list.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib import accounts
from chalicelib.errors import NotFoundError, PermissionDenied
from chalicelib.orgs import store, team_store
from chalicelib.orgs.teams import is_member
from chalicelib.repos import Access, can_see_account, is_org, team_grants

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.orgs.models import OrgMember
    from chalicelib.orgs.team_store import Team


# --- the organization a route names, through its preloaded name claim ----------------

def name_keys(*names: str) -> list:
    """First preload batch of a route naming accounts: their name claims."""
    return [accounts.login_claim_key(name) for name in names]


def account_keys(names: tuple[str, ...], org_name: str, user_id: int | None) -> list:
    """Second preload batch: the accounts the claims name, and the memberships in the
    organization of the caller and of every account named."""
    # The claims are read: their holders cost nothing, their accounts come in this batch.
    holders = {name.lower(): accounts.login_holder(name) for name in names}
    org_id = holders.get(org_name.lower())
    ids = {holder for holder in holders.values() if holder is not None}
    wanted = [accounts.account_key(holder) for holder in sorted(ids)]
    if org_id is not None:
        members = (ids - {org_id}) | ({int(user_id)} if user_id is not None else set())
        wanted += [store.member_key(org_id, member) for member in sorted(members)]
    return wanted


def named_account(name: str) -> Account | None:
    """The account called ``name`` (no read when its claim and item are preloaded)."""
    return accounts.accounts_by_login([name]).get(name.lower())


def visible_org(viewer: Account | None, name: str) -> Account:
    """The organization called ``name`` as ``viewer`` may see it (404 otherwise)."""
    org = named_account(name)
    if org is None or not is_org(org) or not can_see_account(viewer, org):
        raise NotFoundError(f"organization does not exist [name: {name}]")
    return org


# --- a user's teams ------------------------------------------------------------------

def teams_of(user: Account) -> list[tuple[Team, Account]]:
    """userListTeams: every team the user belongs to, with its organization, by
    organization then team name (Owners first).  One Query of the member-of items, one
    batch of the organizations with the memberships, one batch of the teams."""
    orgs = {int(org.id): org for org, member in store.organizations_of(int(user.id))
            if org is not None and member is not None}
    members = {org_id: store.get_member(org_id, int(user.id)) for org_id in orgs}
    found = [(team, orgs[int(team.org_id)]) for team in team_store.get_across(
        (org_id, team_id) for org_id, member in members.items()
        for team_id in store.granted_team_ids(member))]
    return sorted(found, key=lambda pair: (pair[1].lower_name, pair[0].permission != "owner",
                                           pair[0].lower_name))


# --- searching an organization's teams -------------------------------------------------

@dataclass(frozen=True)
class TeamQuery:
    keyword: str = ""
    include_desc: bool = True


def search_teams(actor: Account | None, org: Account, query: TeamQuery) -> list[Team]:
    """teamSearch: the organization's teams whose name (or, with ``include_desc``,
    description) holds the keyword, by name.  Members search only the teams they
    belong to and site admins every team, as Forgejo does; others are refused."""
    if not is_member(org, actor):
        raise PermissionDenied("Must be an organization member")
    if actor.is_admin:
        candidates = team_store.list_teams(int(org.id))
    else:
        member = store.get_member(int(org.id), int(actor.id))
        candidates = team_store.get_many_in_org(int(org.id), store.granted_team_ids(member))
    keyword = query.keyword.strip().lower()

    def matches(team: Team) -> bool:
        return not keyword or keyword in team.lower_name or (
            query.include_desc and keyword in (team.description or "").lower())

    return sorted((t for t in candidates if matches(t)), key=lambda t: t.lower_name)


# --- a user's permissions in an organization -------------------------------------------

@dataclass(frozen=True)
class OrgPermissions:
    can_read: bool
    can_write: bool
    is_admin: bool
    is_owner: bool
    can_create_repository: bool


def _sees_org(user: Account, org: Account, member: OrgMember | None) -> bool:
    """Forgejo's ``HasOrgOrUserVisible`` for the user asked about: admins and members
    always; otherwise not a private organization, and a restricted user none."""
    if user.is_admin or member is not None:
        return True
    return org.visibility != "private" and not user.restricted


def user_permissions(viewer: Account | None, username: str, org_name: str) -> OrgPermissions:
    """orgGetUserPermissions: the user's highest team permission in the organization,
    and whether they may create its repositories (its owners, and members of a team
    that may).  404 when the caller may not see the user or the organization, or the
    user may not see the organization."""
    user = named_account(username)
    if user is None or user.account_type != "user" or not accounts.can_see(viewer, user):
        raise NotFoundError(f"user redirect does not exist [name: {username}]")
    org = visible_org(viewer, org_name)
    member = store.get_member(int(org.id), int(user.id))
    if not _sees_org(user, org, member):
        raise NotFoundError(f"organization does not exist [name: {org_name}]")
    grants = team_grants(member)
    level = max((permission for permission, _, _ in grants.values()), default=Access.NONE)
    # Forgejo's CanCreateOrgRepo: the Owners team's members, or a team that may.
    can_create = level >= Access.OWNER or any(
        team.can_create_org_repo for team in team_store.get_many_in_org(int(org.id), grants))
    return OrgPermissions(can_read=level > Access.NONE, can_write=level > Access.READ,
                          is_admin=level > Access.WRITE, is_owner=level > Access.ADMIN,
                          can_create_repository=bool(can_create))
