"""The quota domain's items in the table: its models (and key layouts).

Only this domain's modules import this module; other domains reach these items
through the domain's face (``chalicelib/quota/__init__.py``).
"""
from __future__ import annotations

from pynamodb.attributes import ListAttribute, NumberAttribute, UnicodeAttribute

from chalicelib.store.table import Item


class QuotaRuleItem(Item, discriminator="quotarule"):
    name = UnicodeAttribute()
    limit = NumberAttribute()
    subjects = ListAttribute(of=UnicodeAttribute, default=list)


class QuotaGroupItem(Item, discriminator="quotagroup"):
    name = UnicodeAttribute()
    rules = ListAttribute(of=UnicodeAttribute, default=list)


class QuotaVersion(Item, discriminator="quotaversion"):
    version = NumberAttribute(default=0)


class QuotaMember(Item, discriminator="quotamember"):
    user_id = NumberAttribute()


class Usage(Item, discriminator="usage"):
    owner_id = NumberAttribute(default=0)
    repos_public = NumberAttribute(default=0)
    repos_private = NumberAttribute(default=0)
    attachments_issues = NumberAttribute(default=0)
    attachments_releases = NumberAttribute(default=0)
    git_lfs = NumberAttribute(default=0)
    groups = ListAttribute(of=UnicodeAttribute, default=list)
