"""Organizations and their members (teams: ``orgs.teams``).

An organization is created with its Owners team and first owner in one commit, so there
is never an organization nobody owns.  Membership follows team membership: joining a
team joins the organization, leaving the last team (or being removed) leaves it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib import accounts, clock, events
from chalicelib.errors import (ConditionFailed, ConflictError, InvalidInput, NotFoundError,
                               PermissionDenied)
from chalicelib.http import input_rules
from chalicelib.http.options import given_fields
from chalicelib.orgs import store, team_store, teams
from chalicelib.orgs.options import CreateOrgOption, EditOrgOption

# add_team_member and create_team are re-exported for callers that reach them here
# (tests/webhooks/test_hooks.py).
from chalicelib.orgs.teams import (  # noqa: F401
    add_team_member,
    create_team,
    member_accounts,
    require_owner,
)
from chalicelib.repos import can_see_account, is_org, rename_owner
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.orgs.store import Account, OrgMember
    from chalicelib.orgs.team_store import Team
    from chalicelib.store.unit_of_work import UnitOfWork



# --- organizations -------------------------------------------------------------------

def get_org(viewer: Account | None, name: str) -> Account:
    """The organization called ``name`` as ``viewer`` may see it (404 otherwise)."""
    org = accounts.account_by_name(name)
    if org is None or not is_org(org) or not can_see_account(viewer, org):
        raise NotFoundError(f"organization does not exist [name: {name}]")
    return org


def get_user_or_org(viewer: Account | None, name: str) -> Account:
    """The user or the organization called ``name`` as ``viewer`` may see it (a profile's
    address names either), from one lookup of the name: a user by ``get_visible_user``'s
    rule, an organization by ``get_org``'s; ``get_org``'s 404 otherwise."""
    account = viewer if viewer is not None and viewer.lower_name == name.lower() \
        else accounts.account_by_name(name)
    if account is not None and account.account_type == "user" \
            and accounts.can_see(viewer, account):
        return account
    if account is not None and is_org(account) and can_see_account(viewer, account):
        return account
    raise NotFoundError(f"organization does not exist [name: {name}]")


def _org_fields(org: Account, option: CreateOrgOption | EditOrgOption) -> None:
    """The fields sent onto the organization; null leaves a field as it is, an empty
    e-mail clears it."""
    input_rules.check_url(option.website or "", "website")
    sent = {name: value for name, value in given_fields(option).items() if value is not None}
    for name in ("full_name", "description", "website", "location"):
        if name in sent:
            setattr(org, name, sent[name])
    if "email" in sent:
        org.email = accounts.validate_email(sent["email"]) if sent["email"] else ""
    if "visibility" in sent:
        org.visibility = accounts.validate_visibility(sent["visibility"])
    if "repo_admin_change_team_access" in sent:
        org.repo_admin_change_team_access = sent["repo_admin_change_team_access"]


def _org_event(actor: Account | None, org: Account, action: str,
               before: dict | None = None) -> events.OrganizationChanged:
    after = events.snapshot(org)
    return events.OrganizationChanged(**accounts.actor_of_event(actor), org_id=int(org.id),
                                      action=action, org=after,
                                      changes=events.changes_between(before, after)
                                      if before is not None else ())


def create_org(actor: Account | None, owner: Account, option: CreateOrgOption) -> Account:
    """orgCreate / adminCreateOrg: the organization, its name claim, its Owners team and
    ``owner`` as that team's first member, in one commit."""
    if actor is None:
        raise PermissionDenied("token is required")
    if actor.id != owner.id and not actor.is_admin:
        raise PermissionDenied("user should be the site admin")
    if not actor.is_admin and not actor.allow_create_organization:
        raise PermissionDenied("user is not allowed to create organizations")
    name = accounts.validate_name(option.username or "", "UserName")
    org = store.new_org(name, clock.seconds())
    _org_fields(org, option)   # its e-mail is contact data, not a login: it claims nothing
    owners = teams.new_owners_team(org)
    try:
        with unit_of_work.writing() as uow:
            store.stage_create(org)
            uow.raise_event(_org_event(actor, org, "created"))
            teams.stage_new_team(uow, actor, owners)
            teams.stage_team_join(uow, actor, owners, owner, member=None)
    except ConditionFailed as failed:
        if failed.label == store.NAME_TAKEN:
            raise InvalidInput(f"user already exists [name: {name}]") from None
        raise
    return org


def rename_org(actor: Account | None, org: Account, new_name: str) -> None:
    """renameOrg: an owner gives the organization a new name; its old name leads to the
    new one and its repositories move with it (``repos.rename_owner``)."""
    require_owner(org, actor)
    rename_owner(actor, org, new_name, field="NewName")


def edit_org(actor: Account | None, org: Account, option: EditOrgOption) -> Account:
    """orgEdit: the fields sent change, the others stay."""
    require_owner(org, actor)
    before = events.snapshot(org)
    _org_fields(org, option)
    org.updated = clock.seconds()
    try:
        with unit_of_work.writing() as uow:
            store.stage_save(org)
            uow.raise_event(_org_event(actor, org, "edited", before))
    except ConditionFailed as failed:
        if failed.label == store.ORG:
            raise ConflictError("the account changed while it was being edited") from None
        raise
    return org


def delete_org(actor: Account | None, org: Account) -> None:
    """With its memberships, teams and webhooks; only once it owns no repository."""
    require_owner(org, actor)
    if org.num_repos:
        raise InvalidInput(f"organization still has ownership of repositories [uid: {org.id}]")
    try:
        with unit_of_work.writing() as uow:
            store.stage_delete(org)
            uow.raise_event(_org_event(actor, org, "deleted"))
    except ConditionFailed as failed:
        if failed.label == store.ORG:
            raise ConflictError("the account changed while it was being deleted") from None
        raise


def orgs_of(viewer: Account | None, user: Account) -> list[Account]:
    """Organizations ``user`` belongs to that ``viewer`` may see (private memberships
    only to the user, fellow members and admins)."""
    found = []
    for org, member in store.organizations_of(int(user.id)):
        if org is None or member is None or not can_see_account(viewer, org):
            continue
        private_view = viewer is not None and (viewer.id == user.id
                                               or teams.is_member(org, viewer))
        if member.public or private_view:
            found.append(org)
    return sorted(found, key=lambda o: o.lower_name)


# --- members -------------------------------------------------------------------------

def members(org: Account) -> list[OrgMember]:
    return store.list_members(int(org.id))


def shown_memberships(viewer: Account | None, org: Account,
                      memberships: list[OrgMember]) -> list[OrgMember]:
    """Of the organization's ``memberships``, those ``viewer`` may know of: every one
    for members and site admins, the public ones for everyone else."""
    if teams.is_member(org, viewer):
        return list(memberships)
    return [m for m in memberships if m.public]


def visible_members(viewer: Account | None, org: Account) -> list[Account]:
    """All members for members and admins; public members for everyone else."""
    return member_accounts(shown_memberships(viewer, org, members(org)))


@dataclass
class OrgPeople:
    """An organization's people as one viewer may see them (``people_of``)."""
    is_member: bool
    memberships: list[OrgMember]     # orgListMembers' rule, in the items' order
    teams: list[Team]                # orgListTeams' order; members only, else empty


def people_of(viewer: Account | None, org: Account) -> OrgPeople:
    """The memberships and teams an organization's profile shows ``viewer``, with the
    rules of orgListMembers and orgListTeams, from one Query of its partition (which
    also answers whether the viewer is a member, and what they own, with no read more)."""
    found, all_teams = store.members_and_teams(
        int(org.id), int(viewer.id) if viewer is not None else None)
    member = teams.is_member(org, viewer)
    return OrgPeople(member, shown_memberships(viewer, org, found),
                     teams.team_order(all_teams) if member else [])


def public_members(org: Account) -> list[Account]:
    return member_accounts([m for m in members(org) if m.public])


def check_member(viewer: Account | None, org: Account, user: Account, *,
                 public_only: bool) -> None:
    """404 unless ``user`` is a member the viewer may know of: public memberships for
    everyone, private ones for members and admins (unless ``public_only``)."""
    member = store.get_member(int(org.id), int(user.id))
    if member is None or ((public_only or not teams.is_member(org, viewer))
                          and not member.public):
        raise NotFoundError(f"user is not a member [name: {user.login}]")


def set_public(actor: Account | None, org: Account, user: Account, public: bool) -> None:
    """orgPublicizeMember / orgConcealMember: members change only their own."""
    member = store.get_member(int(org.id), int(user.id))
    if member is None:
        raise NotFoundError(f"user is not a member [name: {user.login}]")
    if actor is None or (actor.id != user.id and not actor.is_admin):
        raise PermissionDenied("Cannot publicize or conceal another member's membership")
    if bool(member.public) == public:
        return  # already so: nothing to write
    try:
        with unit_of_work.writing() as uow:
            store.set_public(member, public)
            uow.raise_event(teams.membership_event(actor, int(org.id), int(user.id),
                                                   "publicized" if public else "concealed"))
    except ConditionFailed as failed:
        if failed.label == store.MEMBERSHIP:
            raise NotFoundError(f"user is not a member [name: {user.login}]") from None
        raise


def remove_member(actor: Account | None, org: Account, user: Account) -> None:
    """orgDeleteMember: out of every team, and out of the organization, in one commit
    (refused when the user is the Owners team's last member)."""
    require_owner(org, actor)
    org_id, user_id = int(org.id), int(user.id)
    if store.get_member(org_id, user_id) is None:
        raise NotFoundError(f"user is not a member [name: {user.login}]")

    def change(uow: UnitOfWork, fresh: bool) -> None:
        member = store.get_member(org_id, user_id, fresh=fresh)
        if member is None:
            raise NotFoundError(f"user is not a member [name: {user.login}]")
        store.remove_member(org_id, member)
        uow.raise_event(teams.membership_event(actor, org_id, user_id, "removed"))
        for team in team_store.get_many_in_org(org_id, store.granted_team_ids(member)):
            if (team.permission == "owner"
                    and len(team_store.list_members(int(team.id))) <= 1):
                raise InvalidInput("cannot remove the last owner of an organization")
            team_store.remove_member(int(team.id), user_id)
            uow.raise_event(teams.team_event(actor, team, "member_removed", user_id=user_id))

    teams.write_grants(change)
