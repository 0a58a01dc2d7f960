"""The contents domain's items in the table: its models (and key layouts).

Only this domain's modules import this module; other domains reach these items
through the domain's face (``chalicelib/contents/__init__.py``).
"""
from __future__ import annotations

from pynamodb.attributes import NumberAttribute, UnicodeAttribute

from chalicelib.store.keys import keys as shared_keys
from chalicelib.store.table import Item


class BranchInfo(Item, discriminator="branch"):
    """The head commit of a branch, kept on every ref change so branch lists need no
    git reads."""
    name = UnicodeAttribute()
    commit_id = UnicodeAttribute()
    message = UnicodeAttribute(default="")
    author_name = UnicodeAttribute(default="")
    author_email = UnicodeAttribute(default="")
    author_time = NumberAttribute(default=0)
    author_tz = NumberAttribute(default=0)
    committer_name = UnicodeAttribute(default="")
    committer_email = UnicodeAttribute(default="")
    committer_time = NumberAttribute(default=0)
    committer_tz = NumberAttribute(default=0)
    signature = UnicodeAttribute(default="")
    signed_payload = UnicodeAttribute(default="")


class keys(shared_keys):  # noqa: N801 - a namespace of key builders
    """Key layouts of the contents domain's items (docs/data-model.md)."""

    @staticmethod
    def branch(repo_id: int, name: str) -> tuple[str, str]:
        return shared_keys.repo_partition(repo_id), f"BRANCH#{name}"

    BRANCH_PREFIX = "BRANCH#"
