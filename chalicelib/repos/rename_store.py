"""A repository's new name in the table (a rename: ``repo_admin/renames.py``).

The repository item is keyed by its owner's name and its own, so a rename moves it to
the key of the new name the way an owner's rename or a transfer does (``store.
stage_move``: the old item only if unchanged since read, the new key only if free, the
id link following; everything else about the repository is keyed by its id and stays).
A rename that changes only the case of the name keeps the key: the item is updated in
place if nobody changed it since it was read.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.repos.models import Repo, keys
from chalicelib.repos.store import REPO, moved_record, stage_move
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import Account


def renamed_record(repo: Repo, owner: Account, name: str, *, updated: int) -> Repo:
    """The repository item called ``name`` under its owner's current name (not yet
    written; ``stage_rename`` writes it): as ``store.moved_record``, with the new name in
    its key and its indexes."""
    renamed = moved_record(repo, owner)
    lower = name.lower()
    renamed.pk, renamed.sk = keys.repo(owner.lower_name, lower)
    renamed.name, renamed.lower_name = name, lower
    renamed.gsi1pk, renamed.gsi1sk = keys.repo_owner_gsi(int(repo.owner_id), lower)
    renamed.gsi2sk = f"{owner.lower_name}/{lower}"
    renamed.updated = int(updated)
    return renamed


def stage_rename(repo: Repo, renamed: Repo) -> None:
    """Write ``renamed`` in place of ``repo``, if the stored item is still the one read
    (``REPO``): moved to its new key, which must be free (``REPO``, ``exists`` set), or
    (the same key: only the case changed) updated where it is."""
    if (renamed.pk, renamed.sk) != (repo.pk, repo.sk):
        stage_move(repo, renamed)
        return
    unit_of_work.current().update(
        Repo(repo.pk, repo.sk),
        [Repo.name.set(renamed.name), Repo.updated.set(int(renamed.updated)),
         Repo.version.set(int(renamed.version))],
        label=REPO, condition=(Repo.id == int(repo.id)) & (Repo.version == int(repo.version)))
