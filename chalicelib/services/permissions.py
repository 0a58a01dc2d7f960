"""The one place that decides what a caller may do with a repository.

Access modes are ordered as in Forgejo: none < read < write < admin < owner.  Callers
ask ``repo_access``; guards turn a too-low mode into 404 (cannot even see it) or 403
(can see it, may not do this).
"""
from __future__ import annotations

from enum import IntEnum

from chalicelib.services.accounts import can_see
from chalicelib.store.table import Account, Repo


class Access(IntEnum):
    NONE = 0
    READ = 1
    WRITE = 2
    ADMIN = 3
    OWNER = 4

    @property
    def label(self) -> str:
        return self.name.lower()


def repo_access(user: Account | None, repo: Repo, owner: Account, *,
                public_only: bool = False) -> Access:
    """The caller's mode on ``repo`` (owned by ``owner``).

    ``public_only`` is a token limited to public resources: private repositories are
    invisible to it whoever holds it.
    """
    if public_only and (repo.private or owner.visibility != "public"):
        return Access.NONE
    if user is not None and (user.is_admin or user.id == repo.owner_id):
        return Access.OWNER
    granted = _granted(user, repo)
    if granted:
        return granted
    if repo.private or not can_see(user, owner):
        return Access.NONE
    if user is not None and user.restricted:
        return Access.NONE  # restricted users see only what they were given explicitly
    return Access.READ


def _granted(user: Account | None, repo: Repo) -> Access:
    """Explicit grants: collaborations and organization teams (organization issue)."""
    return Access.NONE


def can_create_in(user: Account | None, owner: Account) -> bool:
    """May ``user`` create repositories owned by ``owner``?"""
    if user is None:
        return False
    return user.is_admin or user.id == owner.id
