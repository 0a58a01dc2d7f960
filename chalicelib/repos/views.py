"""A repository as one caller sees it: ``RepoView`` (the record, its owner and the
caller's access mode), ``Caller``, and the lookups that build views.

Split from ``repos`` so that the modules about what may be done with a repository
(access, issues, hooks) and the repository lifecycle (``repos``, ``migrations``) share
these without importing each other.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib import accounts
from chalicelib.errors import NotFoundError
from chalicelib.repos import access_store, store
from chalicelib.repos.permissions import Access, HasAccess, decision_keys, repo_access
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.repos.store import Repo


@dataclass
class RepoView(HasAccess):
    repo: Repo
    owner: Account
    access: Access


@dataclass(frozen=True)
class Caller:
    """Who asks: the account and whether their token is limited to public things."""
    user: Account | None
    public_only: bool = False


ANONYMOUS = Caller(None)


def preload_keys(owner_name: str, repo_name: str) -> list:
    return [store.key(owner_name, strip_git(repo_name))]


def preload_more_keys(owner_name: str, repo_name: str, user_id: int | None) -> list:
    from chalicelib.repos.permissions import access_keys

    repo = store.get(owner_name, strip_git(repo_name))
    if repo is None:
        return []
    # Whether the owner blocks the caller (stars, watches) rides in the same batch.
    blocked = [accounts.block_key(int(repo.owner_id), user_id)] if user_id is not None else []
    return access_keys(repo, user_id) + blocked


def preload_id_keys(repo_id: int) -> list:
    """``/repositories/{id}``: the id link, read with the credential."""
    return [store.id_key(repo_id)]


def preload_more_id_keys(repo_id: int, user_id: int | None) -> list:
    """Then, the repository read (its key is in the link): what deciding access reads."""
    from chalicelib.repos.permissions import access_keys

    repo = store.get_by_id(repo_id)
    return access_keys(repo, user_id) if repo is not None else []


def strip_git(name: str) -> str:
    return name[:-4] if name.lower().endswith(".git") else name


def view_of(repo: Repo, caller: Caller, owner: Account | None = None) -> RepoView:
    owner = owner or accounts.account_by_id(int(repo.owner_id))
    if owner is None:  # the owner was deleted under us: treat as gone
        raise NotFoundError(f"repository does not exist [id: {repo.id}]")
    return RepoView(repo, owner, repo_access(caller.user, repo, owner,
                                              public_only=caller.public_only))


def find(caller: Caller, owner_name: str, repo_name: str) -> RepoView:
    """The repository as the caller sees it; 404 when it is missing or invisible."""
    repo = store.get(owner_name, strip_git(repo_name))
    view = view_of(repo, caller) if repo is not None else None
    if view is None or not view.can_read:
        raise NotFoundError(f"repository does not exist [owner: {owner_name}, name: {repo_name}]")
    return view


def find_by_id(caller: Caller, repo_id: int) -> RepoView | None:
    repo = store.get_by_id(repo_id)
    if repo is None:
        return None
    view = view_of(repo, caller)
    return view if view.can_read else None


def parent_of(view: RepoView, caller: Caller) -> RepoView | None:
    if not view.repo.fork or not view.repo.parent_id:
        return None
    return find_by_id(caller, int(view.repo.parent_id))


def list_visible(caller: Caller, repos: list[Repo]) -> list[RepoView]:
    """Views of the repositories the caller may read: the owners in one batch, then
    what deciding the caller's access reads (their collaborations, their memberships
    of the owning organizations) in one more, rather than a read per repository (a
    batch takes 100 keys; what the request read already is not read again)."""
    owner_ids = {int(r.owner_id) for r in repos}
    unit_of_work.prefetch(accounts.account_key(i) for i in owner_ids)
    owners = {i: accounts.account_by_id(i) for i in owner_ids}
    unit_of_work.prefetch(key for r in repos if owners.get(int(r.owner_id)) is not None
                          for key in decision_keys(caller.user, r, owners[int(r.owner_id)],
                                                   public_only=caller.public_only))
    views = [RepoView(r, owners[int(r.owner_id)],
                      repo_access(caller.user, r, owners[int(r.owner_id)],
                                  public_only=caller.public_only))
             for r in repos if owners.get(int(r.owner_id)) is not None]
    return [v for v in views if v.can_read]


def list_visible_linked(caller: Caller, links: list[tuple[int, str]]) -> list[RepoView]:
    """``list_visible`` of the repositories (id, key) links name (``store.linked``: a
    team's repositories), the caller's collaborations on them read in the same batch as
    the records (their ids are in the links), so the list costs one batch when the
    owners are known (an organization's page read its organization already)."""
    user = caller.user
    ahead = [access_store.collaboration_key(repo_id, int(user.id)) for repo_id, _ in links] \
        if user is not None and not user.is_admin else []
    return list_visible(caller, store.linked(links, also=ahead))
