"""A pull mirror becomes a normal repository (``repoConvert``, Forgejo's "convert to
regular repository"): it takes pushes from then on, and is no longer synced.

For the repository's admins (owners, admin collaborators, site admins; 403 otherwise);
422 for a repository that is no mirror.  One unit of work: the repository's mirror
attributes cleared (the remote's credentials with them; its ``original_url`` stays,
as in Forgejo), its item in the mirror schedule and the Git LFS objects a sync still
owed removed (``mirror_store``), with ``RepositoryEdited`` naming ``mirror``.  A sync
that was running finds the repository no mirror (``migrations.sync`` refuses), and
with no interval left it is never scheduled again.
"""
from __future__ import annotations

from chalicelib import clock, contents, events, repos
from chalicelib.errors import (
    ConditionFailed,
    InvalidInput,
    NotFoundError,
    PermissionDenied,
)
from chalicelib.repo_admin import mirror_store
from chalicelib.repos import Caller, RepoView
from chalicelib.store import unit_of_work

NOT_A_MIRROR = "Repository is not a mirror"
# What a mirror keeps that a normal repository does not (the credentials among them).
CLEARED = {"mirror": False, "mirror_interval": 0, "mirror_next": 0, "mirror_auth": "",
           "mirror_lfs": False, "mirror_lfs_endpoint": ""}


def convert(caller: Caller, view: RepoView) -> RepoView:
    if not view.is_admin:
        raise PermissionDenied("user should be an owner or a collaborator with admin write "
                               "of a repository")
    repo = view.repo
    if not repo.mirror:
        raise InvalidInput(NOT_A_MIRROR)
    fields = dict(CLEARED, updated=clock.seconds())
    try:
        with unit_of_work.writing() as uow:
            repos.stage_repo_fields(repo, fields)
            mirror_store.stage_unschedule(int(repo.id))
            mirror_store.stage_lfs_pending(int(repo.id), {})
            uow.raise_event(events.RepositoryEdited(
                **contents.push_event_fields(repo, caller.user, **fields),
                changes=(("mirror", True),)))
    except ConditionFailed:
        raise NotFoundError(f"repository does not exist [id: {int(repo.id)}]") from None
    for name, value in fields.items():
        setattr(repo, name, value)
    return view
