"""A repository's new name (``repoEdit`` with ``name``), by Forgejo's rules
(``ChangeRepositoryName``).

- The repository's admins rename it (``edit_repo`` checks that first); a mirror or an
  archived repository may be renamed too, as in Forgejo.
- The name is checked as a new repository's is (``lifecycle.validate_name``); a name
  another repository of the owner has (in any case) is 422, worded as Forgejo's API
  words it; a change of case only is allowed and leaves no redirect.

The rename is one transaction: the repository item moves to the key of its new name
(``repos.stage_rename_repo``: only if nothing changed since it was read, and only if
the new key is free, so of two renames racing for one name exactly one wins and the
other is told the name is taken), a redirect from the old name is left and any
redirect from the new one removed (``transfer_store``), with ``RepositoryEdited``
naming the old name (the search index lists the repository under its new name).
Everything else about the repository is keyed by its id and stays; old API paths and
clone URLs lead to the new ones through the redirect (307).
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from chalicelib import clock, contents, events, repos
from chalicelib.errors import ConditionFailed, ConflictError, InvalidInput
from chalicelib.repo_admin import transfer_store
from chalicelib.repo_admin.lifecycle import validate_name
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.repos import RepoView


def taken_message(name: str) -> str:
    return f"repo name is already taken [name: {name}]"


def check_new_name(view: RepoView, name: str) -> str:
    """``name`` if the repository may take it (422 otherwise); read before anything is
    written, so a request that cannot rename changes nothing."""
    validate_name(name)
    repo = view.repo
    if name.lower() != repo.lower_name:
        found = repos.repo_by_name(view.owner.lower_name, name)
        if found is not None and int(found.id) != int(repo.id):
            raise InvalidInput(taken_message(name))
    return name


def rename(doer: Account | None, view: RepoView, name: str) -> RepoView:
    """Give the repository the name ``name`` (checked: ``check_new_name``); the view of
    it afterwards."""
    repo, owner = view.repo, view.owner
    if name == repo.name:
        return view
    now = clock.seconds()
    renamed = repos.renamed_repo_record(repo, owner, name, updated=now)
    moves = renamed.lower_name != repo.lower_name
    try:
        with unit_of_work.writing() as uow:
            repos.stage_rename_repo(repo, renamed)
            if moves:
                transfer_store.stage_redirect(int(owner.id), repo.lower_name, int(repo.id), now)
                transfer_store.stage_forget_redirect(int(owner.id), renamed.lower_name)
            uow.raise_event(events.RepositoryEdited(
                **contents.push_event_fields(renamed, doer), changes=(("name", repo.name),)))
    except ConditionFailed as failed:
        if failed.label == repos.REPO_CHANGED and failed.exists:
            raise InvalidInput(taken_message(name)) from None
        raise ConflictError("the repository changed while it was being renamed; "
                            "try again") from None
    return replace(view, repo=renamed)
