"""Organizations and their memberships in the table.

Key layout (docs/data-model.md):
- an organization is an ``Account`` (``A#<id>``/``A``, ``account_type`` org) with the
  name claim ``LOGIN#<lower name>`` it shares with users; its e-mail is contact data and
  claims nothing;
- a membership: ``A#<org id>``/``MEMBER#<user id>`` (``public``, ``grants``), with its
  reverse ``A#<user id>``/``ORGOF#<org id>`` in the user's partition (lists a user's
  organizations);
- ``grants`` holds the member's teams in the organization, as JSON
  {team id: [permission, units_map or null, includes_all_repositories]}, so deciding
  access to an organization's repository reads this one item.  It is changed
  compare-and-swap on the value read (label ``GRANTS``): racing team changes fail the
  commit instead of overwriting each other, and the services retry.

Writes stage into the current unit of work and never commit.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

from chalicelib import accounts
from chalicelib.orgs import team_store
from chalicelib.orgs.models import MemberOf, OrgMember, Team, keys
from chalicelib.store import ids, partitions, unit_of_work
from chalicelib.store.table import Item

if TYPE_CHECKING:
    from chalicelib.accounts import Account

# Labels of staged writes whose condition can fail (``ConditionFailed.label``).
ORG = "organization"           # changed (edit, delete) since it was read
NAME_TAKEN = "organization name"
MEMBERSHIP = "membership"      # created meanwhile (join) or gone (publicize)
GRANTS = "grants"              # the member's teams changed since they were read


# Organizations ----------------------------------------------------------------------

def new_org(login: str, created: int) -> Account:
    """An organization record with a fresh id (nothing written)."""
    return accounts.new_account(ids.next_id("account"), login, account_type="org",
                                created=created)


def stage_create(org: Account) -> None:
    """The organization with its name claim (``NAME_TAKEN`` when a user or another
    organization has the name)."""
    accounts.stage_create_account(org, label=ORG, name_label=NAME_TAKEN)


def stage_save(org: Account) -> None:
    """The edited organization, on condition nobody changed it since it was read
    (``ORG``)."""
    accounts.stage_save_account(org, label=ORG)


def stage_delete(org: Account) -> None:
    """The organization, its name claim and everything in its partition: memberships
    (with their reverse items), teams (with their links) and webhooks.

    The organization goes first, conditional on the version read (creating a repository
    bumps it, so a repository created meanwhile fails the deletion instead of being
    orphaned).  Past DynamoDB's 100 items the unit commits in chunks, the first holding
    this condition; what a later chunk failed to remove is unreachable once the
    organization is gone.
    """
    accounts.stage_delete_account(org, label=ORG, name_label=ORG, purge=False)
    partition = [item for item in partitions.items(keys.account_partition(org.id))
                 if (item.pk, item.sk) != (org.pk, org.sk)]
    teams = [item for item in partition if isinstance(item, Team)]
    removed_with_teams = team_store.claim_keys(teams)
    for team in teams:
        team_store.stage_delete(team, team_store.list_links(int(team.id)))
    uow = unit_of_work.current()
    for item in partition:
        if isinstance(item, Team) or (item.pk, item.sk) in removed_with_teams:
            continue
        uow.delete(item, label=ORG)
        if isinstance(item, OrgMember):
            uow.delete(MemberOf(*keys.member_of(int(item.user_id), int(org.id))), label=ORG)


def organizations_of(user_id: int) -> list[tuple[Account | None, OrgMember | None]]:
    """Each organization the user belongs to with the user's membership there (read
    in one batch after the query of the user's member-of items)."""
    org_ids = [int(link.org_id) for link in Item.query(
        keys.account_partition(user_id), Item.sk.startswith(keys.MEMBER_OF_PREFIX))]
    unit_of_work.prefetch([accounts.account_key(org_id) for org_id in org_ids] +
                          [keys.org_member(org_id, user_id) for org_id in org_ids])
    return [(accounts.account_by_id(org_id),
             unit_of_work.get(OrgMember, keys.org_member(org_id, user_id)))
            for org_id in org_ids]


def organization_ids_of(user_id: int) -> set[int]:
    """Ids of the organizations the user belongs to (one Query of the member-of items,
    no organization read)."""
    return {int(link.org_id) for link in Item.query(
        keys.account_partition(user_id), Item.sk.startswith(keys.MEMBER_OF_PREFIX))}


# Memberships --------------------------------------------------------------------------

def member_key(org_id: int, user_id: int) -> tuple[str, str]:
    """For batching the read of a membership with others (``prefetch``)."""
    return keys.org_member(org_id, user_id)


def get_member(org_id: int, user_id: int, *, fresh: bool = False) -> OrgMember | None:
    """``fresh`` reads consistently (a retry after a lost compare-and-swap)."""
    return unit_of_work.get(OrgMember, keys.org_member(org_id, user_id), consistent=fresh)


def get_members(org_id: int, user_ids, *, fresh: bool = False) -> dict[int, OrgMember]:
    """Memberships by user id, in one batch (or consistent reads when ``fresh``)."""
    wanted = {int(user_id): keys.org_member(org_id, int(user_id)) for user_id in user_ids}
    if not fresh:
        unit_of_work.prefetch(wanted.values())
    found = {user_id: unit_of_work.get(OrgMember, key, consistent=fresh)
             for user_id, key in wanted.items()}
    return {user_id: member for user_id, member in found.items() if member is not None}


def list_members(org_id: int) -> list[OrgMember]:
    return list(Item.query(keys.account_partition(org_id), Item.sk.startswith(keys.MEMBER_PREFIX)))


def members_and_teams(org_id: int, viewer_id: int | None) -> tuple[list[OrgMember], list[Team]]:
    """The organization's memberships and teams in one Query: both live in its
    partition, ``MEMBER#…`` sorting just before ``TEAM#…`` (what sorts between them,
    such as the organization's labels, the filter leaves out).  The viewer's membership
    (or its absence) is kept in the unit of work, so membership and ownership tests and
    access to the organization's repositories read it no more."""
    found = list(Item.query(keys.account_partition(org_id),
                            Item.sk.between(keys.MEMBER_PREFIX, keys.TEAM_PREFIX + "~"),
                            filter_condition=Item.kind.is_in(OrgMember, Team)))
    members = [item for item in found if isinstance(item, OrgMember)]
    if viewer_id is not None:
        unit_of_work.remember(keys.org_member(org_id, viewer_id), next(
            (m for m in members if int(m.user_id) == viewer_id), None))
    return members, [item for item in found if isinstance(item, Team)]


def grant_of(team: Team) -> list:
    """What a member's ``grants`` hold for one of their teams."""
    return [team.permission, team_store.units_map(team) or None,
            bool(team.includes_all_repositories)]


def _grants(member: OrgMember) -> dict[str, list]:
    return json.loads(member.grants or "{}")


def granted_team_ids(member: OrgMember) -> list[int]:
    return [int(team_id) for team_id in _grants(member)]


def has_grant(member: OrgMember, team: Team) -> bool:
    """Does the membership hold the team's grant as the team is now?"""
    return _grants(member).get(str(int(team.id))) == grant_of(team)


def add_member(org_id: int, user_id: int, team: Team, joined: int) -> OrgMember:
    """A new membership holding one team's grant, with its reverse item
    (``MEMBERSHIP`` when the user became a member meanwhile)."""
    member = OrgMember(*keys.org_member(org_id, user_id), user_id=user_id, created=joined,
                       grants=json.dumps({str(int(team.id)): grant_of(team)}, sort_keys=True))
    uow = unit_of_work.current()
    uow.put(member, label=MEMBERSHIP, must_not_exist=True)
    uow.put(MemberOf(*keys.member_of(user_id, org_id), org_id=org_id), label=MEMBERSHIP)
    return member


def grant_team(member: OrgMember, team: Team) -> bool:
    """Record (or refresh) the team's grant on the membership; False when it is
    already there as it is (nothing staged)."""
    grants = _grants(member)
    grants[str(int(team.id))] = grant_of(team)
    return _stage_grants(member, grants)


def revoke_team(member: OrgMember, team_id: int) -> bool:
    """Drop the team's grant from the membership; False when it held none."""
    grants = _grants(member)
    grants.pop(str(int(team_id)), None)
    return _stage_grants(member, grants)


def _stage_grants(member: OrgMember, grants: dict) -> bool:
    old = member.grants or "{}"
    new = json.dumps(grants, sort_keys=True)
    if json.loads(new) == json.loads(old):
        return False
    unit_of_work.current().update(member, [OrgMember.grants.set(new)], label=GRANTS,
                                  condition=OrgMember.grants == old)
    return True


def remove_member(org_id: int, member: OrgMember) -> None:
    """The membership and its reverse item, on condition the member's teams did not
    change since they were read (``GRANTS``)."""
    uow = unit_of_work.current()
    uow.delete(member, label=GRANTS, condition=OrgMember.grants == (member.grants or "{}"))
    uow.delete(MemberOf(*keys.member_of(int(member.user_id), org_id)), label=MEMBERSHIP)


def set_public(member: OrgMember, public: bool) -> None:
    """Show or hide the membership (``MEMBERSHIP`` when it ended meanwhile)."""
    unit_of_work.current().update(member, [OrgMember.public.set(public)], label=MEMBERSHIP,
                                  condition=OrgMember.pk.exists())
