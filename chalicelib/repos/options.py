"""The request bodies of the repositories domain, declared once: the edge checks them
(``ApiRequest.option``) and ``/swagger.v1.json`` publishes them (``http.options``).

A deploy key's body is the accounts domain's ``CreateKeyOption`` (one definition for
every SSH key Forgejo accepts): ``access_routes`` imports it from there."""
from __future__ import annotations

from typing import Annotated, ClassVar, Literal, Mapping, get_args

from chalicelib.http.options import UNSET, Meta, Option, UnsetType

# The modes a collaborator may be given, in Forgejo's order.
CollaboratorPermission = Literal["read", "write", "admin"]
# Published as that enum; any text reaches the rule, which reads it in any case
# ("Write") and refuses the others with its own text (``repos.access``).
PermissionText = Annotated[str, Meta(extra={"enum": list(get_args(CollaboratorPermission))})]


class AddCollaboratorOption(Option):
    """repoAddCollaborator.  Left out (or null): a new collaborator gets write, an
    existing one keeps the mode they have."""
    max_lengths: ClassVar[Mapping[str, int]] = {"permission": 16}
    single_line: ClassVar[frozenset[str]] = frozenset({"permission"})

    permission: PermissionText | None | UnsetType = UNSET


class RepoTopicOptions(Option):
    """repoUpdateTopics: the repository's topics become these (null or left out: none)."""
    topics: list[str] | None | UnsetType = UNSET
