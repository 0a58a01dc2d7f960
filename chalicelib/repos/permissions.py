"""The one place that decides what a caller may do with a repository.

Access modes are ordered as in Forgejo: none < read < write < admin < owner.  Callers
ask ``repo_access``; guards turn a too-low mode into 404 (cannot even see it) or 403
(can see it, may not do this).

Inputs, all single items the gateway reads in its second batch (see ``access_keys``):
the owner's account, the caller's collaboration on the repository, and — for an
organization's repository — the caller's membership item, which carries their team
grants in that organization.  So deciding never costs a query.
"""
from __future__ import annotations

import json
from enum import IntEnum
from typing import TYPE_CHECKING

from chalicelib import accounts, orgs
from chalicelib.repos import access_store as store
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.orgs import OrgMember
    from chalicelib.repos.access_store import Account, Collaboration, Repo

CODE_UNIT = "repo.code"
UNITS = ("repo.code", "repo.issues", "repo.ext_issues", "repo.pulls", "repo.releases",
         "repo.wiki", "repo.ext_wiki", "repo.projects", "repo.packages", "repo.actions")


class Access(IntEnum):
    NONE = 0
    READ = 1
    WRITE = 2
    ADMIN = 3
    OWNER = 4

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str | None) -> "Access":
        """Forgejo reads only read/write/admin from input; anything else is none."""
        return {"read": cls.READ, "write": cls.WRITE, "admin": cls.ADMIN,
                "owner": cls.OWNER}.get((text or "").lower(), cls.NONE)


class HasAccess:
    """What an ``access`` mode allows, for the views that carry one (a repository as one
    caller sees it, an issue tracker context)."""
    access: Access

    @property
    def can_read(self) -> bool:
        return self.access >= Access.READ

    @property
    def can_write(self) -> bool:
        return self.access >= Access.WRITE

    @property
    def is_admin(self) -> bool:
        return self.access >= Access.ADMIN


def membership(org_id: int, user_id: int) -> OrgMember | None:
    return orgs.get_member(org_id, user_id)


def collaboration(repo_id: int, user_id: int) -> Collaboration | None:
    return store.collaboration(repo_id, user_id)


def access_keys(repo: Repo, user_id: int | None) -> list:
    """Every item ``repo_access`` reads for this caller: the owner, the caller's
    collaboration and organization membership.  Prefetch them in one batch."""
    found = [accounts.account_key(int(repo.owner_id))]
    if user_id is not None:
        found.append(store.collaboration_key(int(repo.id), user_id))
        found.append(orgs.member_key(int(repo.owner_id), user_id))
    return found


def decision_keys(user: Account | None, repo: Repo, owner: Account, *,
                  public_only: bool = False) -> list:
    """The items ``repo_access`` will read for this caller once the owner is known: the
    caller's collaboration and, for an organization's repository, their membership;
    none when the caller's standing alone decides (anonymous, site admin, the owner, a
    public-only token on something not public).  To batch them for a list."""
    if user is None or user.is_admin or user.id == repo.owner_id:
        return []
    if public_only and (repo.private or owner.visibility != "public"):
        return []
    found = [store.collaboration_key(int(repo.id), int(user.id))]
    if is_org(owner):
        found.append(orgs.member_key(int(owner.id), int(user.id)))
    return found


def prefetch_access(repos: list[Repo], user_id: int | None) -> None:
    """Read what deciding access to each of ``repos`` needs, in one batch."""
    unit_of_work.prefetch(key for repo in repos for key in access_keys(repo, user_id))


def is_org(account: Account) -> bool:
    return account.account_type == "org"


def can_see(viewer: Account | None, account: Account) -> bool:
    """Visibility of a user or an organization profile (public/limited/private): what
    the account alone decides, and an organization's members see it whatever its
    visibility (the membership is read only when that decides)."""
    if accounts.can_see(viewer, account):
        return True
    return (viewer is not None and is_org(account)
            and membership(int(account.id), int(viewer.id)) is not None)


def member_organizations(user: Account) -> list[Account]:
    """The organizations ``user`` belongs to (whose repositories they reach through
    their teams): every one, whatever its visibility, since a member sees it."""
    return [org for org, member in orgs.memberships_of(int(user.id))
            if org is not None and member is not None]


def team_grants(member: OrgMember | None) -> dict[int, tuple[Access, dict, bool]]:
    """{team id: (permission, units_map, includes_all_repositories)}"""
    if member is None:
        return {}
    raw = json.loads(member.grants or "{}")
    return {int(tid): (Access.parse(perm), units or {}, bool(all_repos))
            for tid, (perm, units, all_repos) in raw.items()}


def _team_mode(repo: Repo, member: OrgMember | None, unit: str) -> Access:
    best = Access.NONE
    covered = set(repo.team_ids or ())
    for team_id, (permission, units, all_repos) in team_grants(member).items():
        if not all_repos and team_id not in covered:
            continue
        if permission >= Access.ADMIN:
            # A team with admin (or the Owners team) owns the repositories it covers.
            return Access.OWNER
        mode = Access.parse(units.get(unit)) if units else permission
        best = max(best, mode)
    return best


def is_org_owner(org: Account, user: Account | None) -> bool:
    if user is None:
        return False
    if user.is_admin:
        return True
    grants = team_grants(membership(int(org.id), int(user.id)))
    return any(permission == Access.OWNER for permission, _, _ in grants.values())


def repo_access(user: Account | None, repo: Repo, owner: Account, *,
                public_only: bool = False, unit: str = CODE_UNIT) -> Access:
    """The caller's mode on ``repo`` (owned by ``owner``) for one unit (code by default)."""
    if public_only and (repo.private or owner.visibility != "public"):
        return Access.NONE
    if user is not None and (user.is_admin or user.id == repo.owner_id):
        return Access.OWNER
    granted = Access.NONE
    if user is not None:
        collab = collaboration(int(repo.id), int(user.id))
        if collab is not None:
            granted = Access.parse(collab.mode)
        if is_org(owner):
            granted = max(granted, _team_mode(repo, membership(int(owner.id), int(user.id)),
                                              unit))
    if granted:
        return granted
    if repo.private or not can_see(user, owner):
        return Access.NONE
    if user is not None and user.restricted:
        return Access.NONE  # restricted users see only what they were given explicitly
    return Access.READ


def can_create_in(user: Account | None, owner: Account) -> bool:
    """May ``user`` create repositories owned by ``owner`` (a user or an organization)?"""
    if user is None:
        return False
    if user.is_admin or user.id == owner.id:
        return True
    if not is_org(owner):
        return False
    grants = team_grants(membership(int(owner.id), int(user.id)))
    if any(permission == Access.OWNER for permission, _, _ in grants.values()):
        return True
    for team_id in grants:
        team = orgs.team_in_org(int(owner.id), team_id)
        if team is not None and team.can_create_org_repo:
            return True
    return False
