"""The releases domain's items in the table: its models (and key layouts).

Only this domain's modules import this module; other domains reach these items
through the domain's face (``chalicelib/releases/__init__.py``).
"""
from __future__ import annotations

from pynamodb.attributes import BooleanAttribute, NumberAttribute, UnicodeAttribute

from chalicelib.store.table import Item

# An attachment's states: ready to download, or announced and not yet uploaded.
READY, PENDING = "ready", "pending"


class ReleaseItem(Item, discriminator="release"):
    id = NumberAttribute()
    tag_name = UnicodeAttribute()
    target = UnicodeAttribute(default="")
    title = UnicodeAttribute(default="")
    note = UnicodeAttribute(default="")
    draft = BooleanAttribute(default=False)
    prerelease = BooleanAttribute(default=False)
    hide_archive_links = BooleanAttribute(default=False)
    sha = UnicodeAttribute(default="")
    publisher_id = NumberAttribute(default=0)
    publisher = UnicodeAttribute(default="{}")
    created = NumberAttribute()
    archive_zip = NumberAttribute(default=0)
    archive_tar_gz = NumberAttribute(default=0)
    version = NumberAttribute(default=1)


class ReleaseAssetItem(Item, discriminator="releaseasset"):
    id = NumberAttribute()
    uuid = UnicodeAttribute()
    release_id = NumberAttribute()
    name = UnicodeAttribute()
    size = NumberAttribute(default=0)
    download_count = NumberAttribute(default=0)
    created = NumberAttribute()
    uploader_id = NumberAttribute(default=0)
    external_url = UnicodeAttribute(default="")
    s3_key = UnicodeAttribute(default="")
    state = UnicodeAttribute(default=READY)
    expires = NumberAttribute(null=True)


class ReleaseTagClaim(Item, discriminator="releasetag"):
    release_id = NumberAttribute()


class AttachmentLink(Item, discriminator="attachmentlink"):
    repo_id = NumberAttribute()
    release_id = NumberAttribute()
    attachment_id = NumberAttribute()
    expires = NumberAttribute(null=True)
