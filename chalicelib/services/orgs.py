"""Organizations, their members and teams.

Each member's ``OrgMember`` item carries their team grants in the organization (see
``permissions``), so every change to a team's membership, permission or coverage is
written through to the grants of the members it affects.  Grant updates are
compare-and-swap on the previous JSON, retried, so racing team changes do not lose
each other's effect.
"""
from __future__ import annotations

import json
import time

from pynamodb.exceptions import TransactWriteError, UpdateError
from pynamodb.transactions import TransactWrite

from chalicelib.services import accounts, events
from chalicelib.services.errors import (AlreadyExists, ConflictError, InvalidInput,
                                        NotFoundError, PermissionDenied)
from chalicelib.services.permissions import (UNITS, can_see, is_org, is_org_owner, membership,
                                             team_grants)
from chalicelib.store import accounts as account_store
from chalicelib.store import ids, session
from chalicelib.store.table import (Account, Item, MemberOf, OrgMember, Repo, Team, TeamLink,
                                    TeamMember, TeamRepo, connection, keys)
from chalicelib.store.transact import put_new

OWNERS = "Owners"
TEAM_PERMISSIONS = ("read", "write", "admin")
_GRANT_ATTEMPTS = 8


def now() -> int:
    return int(time.time())


# --- organizations -------------------------------------------------------------------

def get_org(viewer: Account | None, name: str) -> Account:
    """The organization called ``name`` as ``viewer`` may see it (404 otherwise)."""
    org = account_store.get_by_name(name)
    if org is None or not is_org(org) or not can_see(viewer, org):
        raise NotFoundError(f"organization does not exist [name: {name}]")
    return org


def require_owner(org: Account, actor: Account | None) -> None:
    if actor is None or not is_org_owner(org, actor):
        raise PermissionDenied("Must be an organization owner")


def _org_fields(org: Account, data: dict) -> None:
    opt = accounts.optional
    for name in ("full_name", "description", "website", "location"):
        value = opt(data, name, str)
        if value is not None:
            setattr(org, name, value)
    email = opt(data, "email", str)
    if email is not None:
        org.email = accounts.validate_email(email) if email else ""
    visibility = opt(data, "visibility", str)
    if visibility is not None:
        org.visibility = accounts.validate_visibility(visibility)
    flag = opt(data, "repo_admin_change_team_access", bool)
    if flag is not None:
        org.repo_admin_change_team_access = flag


def create_org(actor: Account | None, owner: Account, data: dict) -> Account:
    """orgCreate / adminCreateOrg: ``owner`` becomes the first member of Owners."""
    if actor is None:
        raise PermissionDenied("token is required")
    if actor.id != owner.id and not actor.is_admin:
        raise PermissionDenied("user should be the site admin")
    if not actor.is_admin and not actor.allow_create_organization:
        raise PermissionDenied("user is not allowed to create organizations")
    name = accounts.validate_name(accounts.optional(data, "username", str) or "", "UserName")
    if account_store.name_taken(name):
        raise InvalidInput(f"user already exists [name: {name}]")
    created = now()
    org = Account(*keys.account(0), id=0, account_type="org", login=name,
                  lower_name=name.lower(), created=created, updated=created,
                  gsi1pk=keys.login_gsi(name.lower())[0], gsi1sk=keys.login_gsi(name.lower())[1])
    _org_fields(org, data)
    org.id = ids.next_id("account")
    org.pk, org.sk = keys.account(org.id)
    email = org.email
    org.email = ""  # an organization's e-mail is contact data, not a login: no claim
    try:
        account_store.create(org)
    except AlreadyExists:
        raise InvalidInput(f"user already exists [name: {name}]") from None
    try:
        if email:
            org.email = email
            org.save()
        team = _new_team(org, {"name": OWNERS, "permission": "owner",
                               "includes_all_repositories": True, "can_create_org_repo": True,
                               "description": ""}, owners=True)
        add_team_member(None, team, owner, check=False)
    except BaseException:
        _purge(org)  # never leave an organization without its Owners team
        raise
    events.publish(events.OrganizationCreated(actor_id=actor.id, org_id=org.id))
    return org


def edit_org(actor: Account | None, org: Account, data: dict) -> Account:
    require_owner(org, actor)
    _org_fields(org, data)
    org.updated = now()
    account_store.save_changes(org)
    return org


def delete_org(actor: Account | None, org: Account) -> None:
    require_owner(org, actor)
    if org.num_repos:
        raise InvalidInput(f"organization still has ownership of repositories [uid: {org.id}]")
    _purge(org)


def _purge(org: Account) -> None:
    """Remove an organization with its memberships and teams."""
    for item in list(Item.query(keys.account(org.id)[0])):
        if isinstance(item, OrgMember):
            MemberOf(*keys.member_of(int(item.user_id), int(org.id))).delete()
        if isinstance(item, Team):
            for link in Item.query(f"TEAM#{int(item.id)}"):
                _delete_team_side(link)
            TeamLink(*keys.team_link(int(item.id))).delete()
    account_store.delete(org)


def orgs_of(viewer: Account | None, user: Account) -> list[Account]:
    """Organizations ``user`` belongs to that ``viewer`` may see (private memberships
    only to the user and admins)."""
    links = list(Item.query(keys.account(user.id)[0], Item.sk.startswith(keys.MEMBER_OF_PREFIX)))
    session.prefetch([keys.account(int(link.org_id)) for link in links] +
                     [keys.org_member(int(link.org_id), int(user.id)) for link in links])
    found = []
    for link in links:
        org = account_store.get_by_id(int(link.org_id))
        if org is None or not can_see(viewer, org):
            continue
        member = membership(int(org.id), int(user.id))
        private_view = viewer is not None and (viewer.id == user.id or viewer.is_admin
                                               or membership(int(org.id), int(viewer.id)))
        if member is not None and (member.public or private_view):
            found.append(org)
    return sorted(found, key=lambda o: o.lower_name)


# --- members -------------------------------------------------------------------------

def members(org: Account) -> list[OrgMember]:
    return list(Item.query(keys.account(org.id)[0], Item.sk.startswith(keys.MEMBER_PREFIX)))


def member_accounts(items: list[OrgMember]) -> list[Account]:
    session.prefetch(keys.account(int(m.user_id)) for m in items)
    found = [account_store.get_by_id(int(m.user_id)) for m in items]
    return sorted((a for a in found if a is not None), key=lambda a: a.lower_name)


def visible_members(viewer: Account | None, org: Account) -> list[Account]:
    """All members for members and admins; public members for everyone else."""
    everyone = members(org)
    if viewer is not None and (viewer.is_admin or membership(int(org.id), int(viewer.id))):
        return member_accounts(everyone)
    return member_accounts([m for m in everyone if m.public])


def set_public(actor: Account | None, org: Account, user: Account, public: bool) -> None:
    """orgPublicizeMember / orgConcealMember: members change only their own."""
    member = membership(int(org.id), int(user.id))
    if member is None:
        raise NotFoundError(f"user is not a member [name: {user.login}]")
    if actor is None or (actor.id != user.id and not actor.is_admin):
        raise PermissionDenied("Cannot publicize or conceal another member's membership")
    member.update(actions=[OrgMember.public.set(public)])


def remove_member(actor: Account | None, org: Account, user: Account) -> None:
    """orgDeleteMember: out of every team, and out of the organization."""
    require_owner(org, actor)
    member = membership(int(org.id), int(user.id))
    if member is None:
        raise NotFoundError(f"user is not a member [name: {user.login}]")
    for team_id in list(team_grants(member)):
        team = get_team_by_id(team_id)
        if team is not None:
            remove_team_member(actor, team, user)


# --- teams ---------------------------------------------------------------------------

def _units(data: dict, permission: str) -> tuple[list[str], dict]:
    units = accounts.optional(data, "units", list)
    units_map = accounts.optional(data, "units_map", dict)
    if units_map is not None:
        for unit, mode in units_map.items():
            if unit not in UNITS or mode not in ("none", "read", "write", "admin"):
                raise InvalidInput(f"[UnitsMap]: invalid unit {unit!r} or mode {mode!r}")
        return sorted(units_map), dict(units_map)
    if units is not None:
        bad = [u for u in units if u not in UNITS]
        if bad:
            raise InvalidInput(f"[Units]: unknown units {bad}")
        return list(units), {u: permission for u in units}
    return list(UNITS), {u: permission for u in UNITS}


def _new_team(org: Account, data: dict, *, owners: bool = False) -> Team:
    opt = accounts.optional
    name = (opt(data, "name", str) or "").strip()
    if not name:
        raise InvalidInput("[Name]: Required")
    if len(name) > 255 or not all(c.isalnum() or c in "-_." for c in name):
        raise InvalidInput("[Name]: AlphaDashDot")
    permission = opt(data, "permission", str) or "read"
    if not owners and permission not in TEAM_PERMISSIONS:
        raise InvalidInput("[Permission]: must be read, write or admin")
    units, units_map = _units(data, permission) if not owners else (list(UNITS), {})
    team = Team(*keys.team(int(org.id), 0), id=ids.next_id("team"), org_id=int(org.id),
                name=name, lower_name=name.lower(), description=opt(data, "description", str) or "",
                permission=permission, units=units, units_map=json.dumps(units_map),
                includes_all_repositories=bool(opt(data, "includes_all_repositories", bool)),
                can_create_org_repo=bool(opt(data, "can_create_org_repo", bool)), created=now())
    team.pk, team.sk = keys.team(int(org.id), int(team.id))
    claim = TeamLink(*keys.team_name(int(org.id), team.lower_name), org_id=int(org.id))
    link = TeamLink(*keys.team_link(int(team.id)), org_id=int(org.id))
    try:
        put_new(("name", claim), ("team", team), ("link", link))
    except AlreadyExists:
        raise InvalidInput(f"team already exists [org: {org.id}, name: {name}]") from None
    return team


def create_team(actor: Account | None, org: Account, data: dict) -> Team:
    require_owner(org, actor)
    return _new_team(org, data)


def teams(org: Account) -> list[Team]:
    return list(Item.query(keys.account(org.id)[0], Item.sk.startswith(keys.TEAM_PREFIX)))


def get_team_by_id(team_id: int) -> Team | None:
    link = session.get(TeamLink, keys.team_link(team_id))
    return session.get(Team, keys.team(int(link.org_id), team_id)) if link else None


def find_team(actor: Account | None, team_id: int) -> tuple[Team, Account]:
    """A team and its organization; visible to the organization's members and admins."""
    team = get_team_by_id(team_id)
    org = account_store.get_by_id(int(team.org_id)) if team else None
    if team is None or org is None or actor is None or not (
            actor.is_admin or membership(int(org.id), int(actor.id))):
        raise NotFoundError(f"team does not exist [id: {team_id}]")
    return team, org


def _grant(team: Team) -> list:
    units = json.loads(team.units_map or "{}")
    return [team.permission, units or None, bool(team.includes_all_repositories)]


def _update_grants(org_id: int, user_id: int, change) -> None:
    """Apply ``change(grants dict)`` to a member's grants, compare-and-swap."""
    for _ in range(_GRANT_ATTEMPTS):
        member = session.get(OrgMember, keys.org_member(org_id, user_id), consistent=True)
        if member is None:
            return
        old = member.grants or "{}"
        grants = json.loads(old)
        change(grants)
        new = json.dumps(grants, sort_keys=True)
        if new == old:
            return
        try:
            member.update(actions=[OrgMember.grants.set(new)], condition=OrgMember.grants == old)
            return
        except UpdateError as exc:
            if getattr(exc, "cause_response_code", "") != "ConditionalCheckFailedException":
                raise
    raise ConflictError("team membership changed concurrently; try again")


def edit_team(actor: Account | None, team: Team, org: Account, data: dict) -> Team:
    require_owner(org, actor)
    opt = accounts.optional
    name = opt(data, "name", str)
    if name is not None and name.lower() != team.lower_name:
        if team.permission == "owner":
            raise InvalidInput("the Owners team cannot be renamed")
        claim = TeamLink(*keys.team_name(int(org.id), name.lower()), org_id=int(org.id))
        try:
            put_new(("name", claim))
        except AlreadyExists:
            raise InvalidInput(f"team already exists [org: {org.id}, name: {name}]") from None
        TeamLink(*keys.team_name(int(org.id), team.lower_name)).delete()
        team.name, team.lower_name = name, name.lower()
    for field in ("description",):
        value = opt(data, field, str)
        if value is not None:
            setattr(team, field, value)
    if team.permission != "owner":
        permission = opt(data, "permission", str)
        if permission is not None:
            if permission not in TEAM_PERMISSIONS:
                raise InvalidInput("[Permission]: must be read, write or admin")
            team.permission = permission
        if "units" in data or "units_map" in data or permission is not None:
            team.units, units_map = _units(data, team.permission)
            team.units_map = json.dumps(units_map)
        for flag in ("includes_all_repositories", "can_create_org_repo"):
            value = opt(data, flag, bool)
            if value is not None:
                setattr(team, flag, value)
    team.save()
    grant = _grant(team)
    for member in team_members(team):
        _update_grants(int(org.id), int(member.user_id),
                       lambda g, tid=str(team.id): g.__setitem__(tid, grant))
    return team


def delete_team(actor: Account | None, team: Team, org: Account) -> None:
    require_owner(org, actor)
    if team.permission == "owner":
        raise InvalidInput("the Owners team cannot be deleted")
    for link in list(Item.query(f"TEAM#{int(team.id)}")):
        _delete_team_side(link, org_id=int(org.id), team_id=int(team.id))
    TeamLink(*keys.team_name(int(org.id), team.lower_name)).delete()
    TeamLink(*keys.team_link(int(team.id))).delete()
    team.delete()


def _delete_team_side(link, *, org_id: int | None = None, team_id: int | None = None) -> None:
    """Undo one member or repository link of a team that is going away."""
    if isinstance(link, TeamMember) and org_id is not None:
        _update_grants(org_id, int(link.user_id), lambda g: g.pop(str(team_id), None))
    if isinstance(link, TeamRepo):
        repo = session.get(Repo, (link.repo_pk, "REPO"))
        if repo is not None and team_id is not None:
            repo.update(actions=[Repo.team_ids.delete({team_id})])
    link.delete()


def team_members(team: Team) -> list[TeamMember]:
    return list(Item.query(f"TEAM#{int(team.id)}", Item.sk.startswith(keys.MEMBER_PREFIX)))


def add_team_member(actor: Account | None, team: Team, user: Account, *,
                    check: bool = True) -> None:
    """Joining a team makes the user a member of the organization."""
    org_id = int(team.org_id)
    if check:
        org = account_store.get_by_id(org_id)
        require_owner(org, actor)
    if is_org(user):
        raise InvalidInput("an organization cannot join a team")
    joined = now()
    try:
        with TransactWrite(connection=connection()) as tx:
            tx.save(OrgMember(*keys.org_member(org_id, int(user.id)), user_id=int(user.id),
                              created=joined), condition=OrgMember.pk.does_not_exist())
            tx.save(MemberOf(*keys.member_of(int(user.id), org_id), org_id=org_id))
    except TransactWriteError as exc:
        if not any(r and r.code == "ConditionalCheckFailed"
                   for r in exc.cancellation_reasons or []):
            raise
    session.forget(keys.org_member(org_id, int(user.id)))
    TeamMember(*keys.team_member(int(team.id), int(user.id)), user_id=int(user.id)).save()
    grant = _grant(team)
    _update_grants(org_id, int(user.id), lambda g: g.__setitem__(str(team.id), grant))


def remove_team_member(actor: Account | None, team: Team, user: Account) -> None:
    org_id = int(team.org_id)
    org = account_store.get_by_id(org_id)
    require_owner(org, actor)
    if session.get(TeamMember, keys.team_member(int(team.id), int(user.id))) is None:
        raise NotFoundError(f"user is not a team member [name: {user.login}]")
    if team.permission == "owner" and len(team_members(team)) <= 1:
        raise InvalidInput("cannot remove the last owner of an organization")
    TeamMember(*keys.team_member(int(team.id), int(user.id))).delete()
    _update_grants(org_id, int(user.id), lambda g: g.pop(str(team.id), None))
    member = session.get(OrgMember, keys.org_member(org_id, int(user.id)), consistent=True)
    if member is not None and not team_grants(member):
        # No team left: no longer a member of the organization.
        member.delete(condition=OrgMember.grants == member.grants)
        MemberOf(*keys.member_of(int(user.id), org_id)).delete()
        session.forget(keys.org_member(org_id, int(user.id)))


def team_repos(team: Team) -> list[TeamRepo]:
    return list(Item.query(f"TEAM#{int(team.id)}", Item.sk.startswith("REPO#")))


def add_team_repo(actor: Account | None, team: Team, repo: Repo) -> None:
    org = account_store.get_by_id(int(team.org_id))
    require_owner(org, actor)
    if int(repo.owner_id) != int(team.org_id):
        raise InvalidInput("the repository does not belong to the team's organization")
    TeamRepo(*keys.team_repo(int(team.id), int(repo.id)), repo_id=int(repo.id),
             repo_pk=repo.pk).save()
    repo.update(actions=[Repo.team_ids.add({int(team.id)})])


def remove_team_repo(actor: Account | None, team: Team, repo: Repo) -> None:
    org = account_store.get_by_id(int(team.org_id))
    require_owner(org, actor)
    TeamRepo(*keys.team_repo(int(team.id), int(repo.id))).delete()
    repo.update(actions=[Repo.team_ids.delete({int(team.id)})])
