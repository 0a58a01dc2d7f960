"""The orgs domain's items in the table: its models (and key layouts).

Only this domain's modules import this module; other domains reach these items
through the domain's face (``chalicelib/orgs/__init__.py``).
"""
from __future__ import annotations

from pynamodb.attributes import BooleanAttribute, ListAttribute, NumberAttribute, UnicodeAttribute

from chalicelib.store.keys import keys as shared_keys
from chalicelib.store.table import Item


class OrgMember(Item, discriminator="orgmember"):
    """A user's membership of an organization (pk = the organization).  ``grants``
    denormalises the user's teams in the organization, so deciding access to an
    organization repository needs this one item (read in the same batch as the
    repository's owner): JSON {team id: [permission, units_map or null, includes_all]}."""
    user_id = NumberAttribute()
    public = BooleanAttribute(default=False)
    grants = UnicodeAttribute(default="{}")
    created = NumberAttribute(default=0)


class MemberOf(Item, discriminator="memberof"):
    """The reverse of OrgMember, in the user's partition: lists a user's organizations."""
    org_id = NumberAttribute()


class Team(Item, discriminator="team"):
    id = NumberAttribute()
    org_id = NumberAttribute()
    name = UnicodeAttribute()
    lower_name = UnicodeAttribute()
    description = UnicodeAttribute(default="")
    permission = UnicodeAttribute(default="read")   # none|read|write|admin|owner
    units = ListAttribute(of=UnicodeAttribute, default=list)
    units_map = UnicodeAttribute(default="{}")       # JSON {unit: mode}
    includes_all_repositories = BooleanAttribute(default=False)
    can_create_org_repo = BooleanAttribute(default=False)
    created = NumberAttribute(default=0)


class TeamLink(Item, discriminator="teamlink"):
    """Finds a team's organization from the team id (``/teams/{id}`` routes)."""
    org_id = NumberAttribute()


class TeamMember(Item, discriminator="teammember"):
    user_id = NumberAttribute()


class TeamRepo(Item, discriminator="teamrepo"):
    repo_id = NumberAttribute()
    repo_pk = UnicodeAttribute()


class keys(shared_keys):  # noqa: N801 - a namespace of key builders
    """Key layouts of the orgs domain's items (docs/data-model.md)."""

    # Organizations, teams and repository access (organization issue).
    @staticmethod
    def org_member(org_id: int, user_id: int) -> tuple[str, str]:
        return shared_keys.account_partition(org_id), f"MEMBER#{user_id:015d}"

    @staticmethod
    def member_of(user_id: int, org_id: int) -> tuple[str, str]:
        return shared_keys.account_partition(user_id), f"ORGOF#{org_id:015d}"

    @staticmethod
    def team(org_id: int, team_id: int) -> tuple[str, str]:
        return shared_keys.account_partition(org_id), f"TEAM#{team_id:015d}"

    @staticmethod
    def team_name(org_id: int, lower_name: str) -> tuple[str, str]:
        return shared_keys.account_partition(org_id), f"TEAMNAME#{lower_name}"

    @staticmethod
    def team_link(team_id: int) -> tuple[str, str]:
        return f"TEAMID#{team_id}", "TEAM"

    @staticmethod
    def team_member(team_id: int, user_id: int) -> tuple[str, str]:
        return f"TEAM#{team_id}", f"MEMBER#{user_id:015d}"

    @staticmethod
    def team_repo(team_id: int, repo_id: int) -> tuple[str, str]:
        return f"TEAM#{team_id}", f"{keys.TEAM_REPO_PREFIX}{repo_id:015d}"

    TEAM_REPO_PREFIX = "REPO#"

    MEMBER_PREFIX = "MEMBER#"

    MEMBER_OF_PREFIX = "ORGOF#"

    TEAM_PREFIX = "TEAM#"
