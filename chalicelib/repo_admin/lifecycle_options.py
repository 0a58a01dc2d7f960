"""The request bodies of the rest of a repository's lifecycle — its transfer, its
generation from a template, the site admins' flags, a git hook's edit — declared once:
the edge checks them (``ApiRequest.option``) and ``/swagger.v1.json`` publishes them
(``http.options``)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from chalicelib.http import input_rules
from chalicelib.http.options import UNSET, Int64, Option, UnsetType


class TransferRepoOption(Option):
    """repoTransfer: ``new_owner`` names a user or an organization; ``team_ids`` only for
    an organization (its teams that get the repository)."""
    max_lengths: ClassVar[Mapping[str, int]] = {"new_owner": input_rules.NAME_MAX}
    single_line: ClassVar[frozenset[str]] = frozenset({"new_owner"})

    new_owner: str
    team_ids: list[Int64] | None | UnsetType = UNSET


class ReplaceFlagsOption(Option):
    """repoReplaceAllFlags: the repository's flags are these afterwards."""
    max_lengths: ClassVar[Mapping[str, int]] = {"flags": 255}
    single_line: ClassVar[frozenset[str]] = frozenset({"flags"})

    flags: list[str] | None | UnsetType = UNSET


class EditGitHookOption(Option):
    """repoEditGitHook (answered as with git hooks disabled: never applied)."""
    content: str | None | UnsetType = UNSET


class GenerateRepoOption(Option):
    """generateRepo: the new repository's owner and name, and which of the template's
    items it gets."""
    max_lengths: ClassVar[Mapping[str, int]] = {
        "owner": input_rules.NAME_MAX, "name": 100, "description": 2048, "default_branch": 255}
    single_line: ClassVar[frozenset[str]] = frozenset({"owner", "name", "default_branch"})
    swagger_required = ("owner", "name")

    owner: str | None
    name: str | None
    description: str | None | UnsetType = UNSET
    private: bool | None | UnsetType = UNSET
    default_branch: str | None | UnsetType = UNSET
    git_content: bool | None | UnsetType = UNSET
    topics: bool | None | UnsetType = UNSET
    git_hooks: bool | None | UnsetType = UNSET
    webhooks: bool | None | UnsetType = UNSET
    avatar: bool | None | UnsetType = UNSET
    labels: bool | None | UnsetType = UNSET
    protected_branch: bool | None | UnsetType = UNSET


class RestoreDeletedRepoOption(Option):
    """repoRestoreDeleted (a Nimbus extension): ``name``, the name to restore it under
    (its own when left out).  Published with the extension records
    (``deleted_records.py``), not among Forgejo's bodies."""
    published: ClassVar[bool] = False
    max_lengths: ClassVar[Mapping[str, int]] = {"name": 100}
    single_line: ClassVar[frozenset[str]] = frozenset({"name"})

    name: str | None | UnsetType = UNSET
