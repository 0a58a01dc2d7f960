"""The search domain's items in the table: its models (and key layouts).

Only this domain's modules import this module; other domains reach the index through
the domain's face (``chalicelib/search/__init__.py``).
"""
from __future__ import annotations

from pynamodb.attributes import BooleanAttribute, NumberAttribute, UnicodeAttribute

from chalicelib.store.table import Item


class RepoEntry(Item, discriminator="searchrepo"):
    """One repository in one list of the repository index: a sort list (all repositories
    in one order) or a gram list (the repositories whose name holds a two- or three-letter
    gram, by name).  It carries what a search filters and sorts on, so a page is one
    Query with the rest decided by DynamoDB's filter, and the key to read the repository
    itself."""
    repo_id = NumberAttribute()
    repo_pk = UnicodeAttribute()
    lname = UnicodeAttribute()
    ldesc = UnicodeAttribute(default="")       # on the sort lists only (includeDesc)
    owner_id = NumberAttribute()
    # Who may find it through the index: pub (everyone), lim (signed-in users: a public
    # repository of a limited owner), hid (private, or a private owner's: site admins;
    # others reach theirs through their own lists).
    vis = UnicodeAttribute()
    private = BooleanAttribute(default=False)
    fork = BooleanAttribute(default=False)
    mirror = BooleanAttribute(default=False)
    template = BooleanAttribute(default=False)
    archived = BooleanAttribute(default=False)
    updated = NumberAttribute(default=0)
    size = NumberAttribute(default=0)


class RepoIndexDoc(Item, discriminator="searchrepodoc"):
    """Which entries a repository has in the index (JSON list of [pk, sk]), so the next
    indexing removes the ones it no longer has; ``version`` orders two indexings."""
    entries = UnicodeAttribute(default="[]")
    version = NumberAttribute(default=0)


class keys:  # noqa: N801 - a namespace of key builders
    """Key layouts of the search domain's items (docs/data-model.md)."""

    @staticmethod
    def sort_list(order: str) -> str:
        return f"SRCHR#S#{order}"

    @staticmethod
    def gram_list(gram: str) -> str:
        return f"SRCHR#G#{gram}"

    @staticmethod
    def doc(repo_id: int) -> tuple[str, str]:
        return f"SRCHR#D#{int(repo_id)}", "DOC"
