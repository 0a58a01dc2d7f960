"""The protection domain's items in the table: its models (and key layouts).

Only this domain's modules import this module; other domains reach these items
through the domain's face (``chalicelib/protection/__init__.py``).
"""
from __future__ import annotations

from pynamodb.attributes import NumberAttribute, UnicodeAttribute

from chalicelib.store.keys import keys as shared_keys
from chalicelib.store.table import Item


class ProtectionItem(Item, discriminator="protection"):
    rules = UnicodeAttribute(default="{}")
    version = NumberAttribute(default=0)


class keys(shared_keys):  # noqa: N801 - a namespace of key builders
    """Key layouts of the protection domain's items (docs/data-model.md)."""

    @staticmethod
    def protection(repo_id: int) -> tuple[str, str]:
        """Every branch and tag protection rule of a repository, in one item."""
        return shared_keys.repo_partition(repo_id), "PROTECTION"
