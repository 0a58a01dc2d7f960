"""The request bodies of the repositories domain, declared once: the edge checks them
(``ApiRequest.option``) and ``/swagger.v1.json`` publishes them (``http.options``).

A deploy key's body is the accounts domain's ``CreateKeyOption`` (one definition for
every SSH key Forgejo accepts): ``access_routes`` imports it from there."""
from __future__ import annotations

from typing import Literal

from chalicelib.http.options import UNSET, Option, UnsetType

# The modes a collaborator may be given, in Forgejo's order.
CollaboratorPermission = Literal["read", "write", "admin"]


class AddCollaboratorOption(Option):
    """repoAddCollaborator.  Left out (or null): a new collaborator gets write, an
    existing one keeps the mode they have."""

    permission: CollaboratorPermission | None | UnsetType = UNSET
