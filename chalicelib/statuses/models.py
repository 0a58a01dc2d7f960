"""The statuses domain's items in the table: its models (and key layouts).

Only this domain's modules import this module; other domains reach these items
through the domain's face (``chalicelib/statuses/__init__.py``).
"""
from __future__ import annotations

from pynamodb.attributes import MapAttribute, NumberAttribute, UnicodeAttribute

from chalicelib.store.table import Item


class CommitStatusItem(Item, discriminator="commitstatus"):
    index = NumberAttribute()
    sha = UnicodeAttribute()
    state = UnicodeAttribute()
    context = UnicodeAttribute(default="")
    description = UnicodeAttribute(default="")
    target_url = UnicodeAttribute(default="")
    creator_id = NumberAttribute(default=0)
    creator = UnicodeAttribute(default="{}")     # JSON snapshot of the account
    created = NumberAttribute()


class StatusSummary(Item, discriminator="statussummary"):
    sha = UnicodeAttribute()
    count = NumberAttribute(default=0)
    latest = MapAttribute(default=dict)          # {context hash: status JSON}
