"""The repo_admin domain's items in the table: its models (and key layouts).

Only this domain's modules import this module; other domains reach these items
through the domain's face (``chalicelib/repo_admin/__init__.py``).
"""
from __future__ import annotations

from pynamodb.attributes import NumberAttribute, UnicodeAttribute

from chalicelib.store.keys import keys as shared_keys
from chalicelib.store.table import Item


class MirrorDue(Item, discriminator="mirrordue"):
    """A pull mirror's next sync time; the schedule is one small partition."""
    repo_pk = UnicodeAttribute(default="")
    due = NumberAttribute(default=0)


class MirrorLfsPending(Item, discriminator="mirrorlfspending"):
    objects = UnicodeAttribute(default="")


class keys(shared_keys):  # noqa: N801 - a namespace of key builders
    """Key layouts of the repo_admin domain's items (docs/data-model.md)."""

    MIRROR_SCHEDULE = "MIRRORS"

    @staticmethod
    def mirror_due(repo_id: int) -> tuple[str, str]:
        return "MIRRORS", f"{repo_id:015d}"
