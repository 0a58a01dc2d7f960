"""Finding a branch in a repository's fork network (pull requests and compare).

A head written ``owner:branch`` or ``owner/repo:branch`` names the repository itself,
a fork of it owned by ``owner``, or its parent when it is a fork (Forgejo's
parseCompareInfo).  Repositories of one network share an object pool, so a walk in
either's object store sees both heads' commits.
"""
from __future__ import annotations

from chalicelib import accounts
from chalicelib.errors import NotFoundError
from chalicelib.repos import store as repo_store
from chalicelib.repos.views import Caller, RepoView, find, find_by_id, view_of


def locate(caller: Caller, base: RepoView, head: str) -> tuple[RepoView, str]:
    """(the head repository as ``caller`` sees it, the branch) for ``head``; 404 when
    the owner has no readable repository in the network."""
    if ":" not in head:
        return base, head
    owner_part, branch = head.split(":", 1)
    if ":" in branch:
        raise NotFoundError(f"invalid head {head!r}")
    label = f"{base.owner.login}/{base.repo.name}"
    if "/" in owner_part:
        owner_name, repo_name = owner_part.split("/", 1)
        view = find(caller, owner_name, repo_name)
        if view.repo.id != base.repo.id and int(view.repo.pool_id) != int(base.repo.pool_id):
            raise NotFoundError(f"{owner_part} is not in the fork network of {label}")
        return view, branch
    owner = accounts.get_user(owner_part, caller.user)     # NotFoundError when unknown
    if int(owner.id) == int(base.owner.id):
        return base, branch
    for fork in repo_store.forks_of(base.repo):
        if int(fork.owner_id) == int(owner.id):
            view = view_of(fork, caller, owner)
            if view.can_read:
                return view, branch
    if base.repo.fork and base.repo.parent_id:
        parent = find_by_id(caller, int(base.repo.parent_id))
        if parent is not None and int(parent.owner.id) == int(owner.id):
            return parent, branch
    raise NotFoundError(f"{owner.login} does not have a fork of {label} and {label} is not "
                        f"a fork of a repository from {owner.login}")
