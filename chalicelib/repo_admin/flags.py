"""The site admins' repository flags (Forgejo's ``repo_flag``): free-form words an
admin puts on a repository (Forgejo uses them to mark repositories for its own
moderation tooling), listed, checked, added, removed, replaced.

Kept on the repository item itself (``flags``, a string set): a repository has few,
the record read for the request carries them, and each change is one conditional
update on the set as read, so two admins changing a repository's flags at once never
lose one's change silently (the second is refused with 409 and may try again).
Only site admins reach these (the routes' ``site_admin``: 403 for anyone else).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from chalicelib import repos
from chalicelib.errors import (
    ConditionFailed,
    ConflictError,
    InvalidInput,
    NotFoundError,
)
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.repos import RepoView

MAX_FLAG = 255      # Forgejo's column is a VARCHAR(255)


def flags_of(view: RepoView) -> list[str]:
    """repoListFlags: the flags by name."""
    return sorted(view.repo.flags or ())


def has_flag(view: RepoView, flag: str) -> bool:
    return flag in set(view.repo.flags or ())


def _checked(flags: Iterable[str]) -> set[str]:
    found = set()
    for flag in flags:
        if not isinstance(flag, str) or not flag.strip():
            raise InvalidInput("[Flags]: a flag is a non-empty text")
        if len(flag) > MAX_FLAG:
            raise InvalidInput(f"[Flags]: a flag has at most {MAX_FLAG} characters")
        found.add(flag)
    return found


def _write(view: RepoView, flags: set[str]) -> None:
    repo = view.repo
    if flags == set(repo.flags or ()):
        return      # nothing changes: no write
    try:
        with unit_of_work.writing():
            repos.stage_repo_flags(repo, flags)
    except ConditionFailed:
        raise ConflictError("the repository's flags changed meanwhile; try again") from None
    repo.flags = set(flags) or None


def replace_flags(view: RepoView, flags: Iterable[str] | None) -> None:
    """repoReplaceAllFlags (none: every flag goes)."""
    _write(view, _checked(flags or ()))


def add_flag(view: RepoView, flag: str) -> None:
    _write(view, set(view.repo.flags or ()) | _checked([flag]))


def delete_flag(view: RepoView, flag: str) -> None:
    """repoDeleteFlag: removing a flag the repository does not have is no error."""
    _write(view, set(view.repo.flags or ()) - {flag})


def require_flag(view: RepoView, flag: str) -> None:
    """repoCheckFlag: 404 when the repository does not have it."""
    if not has_flag(view, flag):
        raise NotFoundError(f"repository has no flag [name: {flag}]")
