"""The old addresses of transferred and renamed repositories, in the table, and the
lookup that turns one into the repository's address now.

A transfer or a rename leaves ``REPOREDIRECTS#<old owner id>`` / ``NAME#<old lower
name>`` holding the repository's id (Forgejo's ``repo_redirect``, keyed as Forgejo keys
it: by the owner's id, so the old address still leads somewhere after that owner is
renamed), written in the move's own transaction.  Whatever puts a repository at an
address (creation, fork, generation, migration: ``lifecycle.stage_creation``; a
transfer; a rename) deletes that address's redirect in its transaction, so a redirect
never hides behind a repository and comes back when that repository is deleted.

Every redirect holds the repository's id, not the next address: after A→B→C both A
and B lead to where the repository is now in one hop, and a redirect to a repository
deleted since leads nowhere (404).  Records of the first layout (keyed by the old
owner's name) are never read.

``moved_to`` is what the gateway asks (``chalicelib.http.renames``, by module name, as
it asks the accounts domain about renamed accounts) when a request naming
``{owner}/{repo}`` would answer 404: the owner by name, one GetItem of the redirect,
then the repository by its id, and only a caller who may read the repository learns
where it went.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib import accounts, repos
from chalicelib.errors import NotFoundError
from chalicelib.repo_admin.models import RepoRedirect, keys
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.repos import Repo

LABEL = "repository redirect"


def stage_redirect(owner_id: int, repo_lower: str, repo_id: int, created: int) -> None:
    """The old name ``repo_lower`` under the owner ``owner_id`` leads to ``repo_id``
    from now on."""
    unit_of_work.current().put(RepoRedirect(*keys.repo_redirect(int(owner_id), repo_lower),
                                            repo_id=int(repo_id), created=int(created)),
                               label=LABEL)


def stage_forget_redirect(owner_id: int, repo_lower: str) -> None:
    """No redirect from ``repo_lower`` under the owner ``owner_id`` (a repository
    lives there now)."""
    unit_of_work.current().delete(RepoRedirect(*keys.repo_redirect(int(owner_id), repo_lower)),
                                  label=LABEL)


def redirect_target(owner_id: int, repo_lower: str) -> int | None:
    """The id of the repository a redirect leads to (None: no redirect, or a record
    that names none)."""
    item = unit_of_work.get(RepoRedirect, keys.repo_redirect(int(owner_id), repo_lower))
    try:
        repo_id = int(getattr(item, "repo_id", None) or 0)
    except (TypeError, ValueError):
        return None
    return repo_id or None


def redirected_repo(owner_name: str, repo_name: str) -> Repo | None:
    """The repository an old address leads to, if its owner and the repository still
    exist."""
    owner = accounts.account_by_name(owner_name)
    if owner is None:
        return None
    repo_id = redirect_target(int(owner.id), repos.strip_git(repo_name).lower())
    return repos.repo_by_id(repo_id) if repo_id is not None else None


def moved_to(owner_name: str, repo_name: str, viewer: Account | None) -> tuple[str, str] | None:
    """(owner login, repository name) where the repository once at ``owner_name/repo_name``
    lives now, if ``viewer`` may read it there; None otherwise (and when nothing moved)."""
    repo = redirected_repo(owner_name, repo_name)
    if repo is None:
        return None
    try:
        view = repos.view_of(repo, repos.Caller(viewer))
    except NotFoundError:    # its owner was deleted meanwhile: nothing to lead to
        return None
    if not view.can_read:
        return None
    if (view.owner.lower_name, repo.lower_name) == (owner_name.lower(),
                                                    repos.strip_git(repo_name).lower()):
        return None          # it lives there (a stale record): no redirect to itself
    return view.owner.login, repo.name
