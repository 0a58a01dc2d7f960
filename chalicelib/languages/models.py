"""The languages domain's items in the table: its models (and key layouts).

Only this domain's modules import this module; other domains reach these items
through the domain's face (``chalicelib/languages/__init__.py``).
"""
from __future__ import annotations

from pynamodb.attributes import NumberAttribute, UnicodeAttribute

from chalicelib.store.table import Item


class LanguageStatsItem(Item, discriminator="languagestats"):
    commit = UnicodeAttribute(default="")
    sizes = UnicodeAttribute(default="{}")
    version = NumberAttribute(default=0)
    computed = NumberAttribute(default=0)
