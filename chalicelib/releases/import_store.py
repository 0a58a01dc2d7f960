"""Releases brought in by a project migration (``chalicelib.migrations``): each with its
tag, title, notes, flags, author and date as the source had them, and its attachments'
bytes stored as an upload stores them (``attachments/<repo>/<uuid>``, the owner's
``releases`` usage charged in the record's transaction, the quota checked first).

Written in the migration's units of work beside its cursor:

- a release is put under its tag's claim (``must_not_exist``): a resumed step that
  finds the claim taken reads the release it wrote instead of writing another;
- an attachment's uuid is derived from the release and the source's attachment id, so
  bytes stored again after a crash overwrite the same object, and its record is put
  with the cursor that counts it.

The repository's ``num_releases`` is not moved here (the repository record is written
last, with ``published_count``).
"""
from __future__ import annotations

import json
import uuid as uuids
from typing import TYPE_CHECKING, Iterable

from chalicelib import quota
from chalicelib.accounts import account_snapshot
from chalicelib.http.uploads import check_name, check_size
from chalicelib.releases import s3_objects as release_bytes
from chalicelib.releases import store
from chalicelib.releases.assets import SUBJECT
from chalicelib.releases.models import (AttachmentLink, ReleaseAssetItem, ReleaseItem,
                                        ReleaseTagClaim)
from chalicelib.releases.store import READY, Asset, Release
from chalicelib.store import ids, unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import Account

NAMESPACE = uuids.UUID("0b3f4a52-5f1e-4c47-9a55-8d2b1f0c6e11")


def existing(repo_id: int, tag_name: str) -> Release | None:
    """The release a resumed step wrote for this tag already, if any."""
    owner = store.tag_owner(repo_id, tag_name, consistent=True)
    return store.get(repo_id, owner) if owner is not None else None


def stage_release(repo_id: int, *, tag_name: str, target: str, title: str, note: str,
                  draft: bool, prerelease: bool, sha: str, publisher: Account,
                  created: int) -> Release:
    """Put the release and its tag claim (``store.TAG`` when the tag has one)."""
    release = Release(id=ids.next_id("release"), tag_name=tag_name, target=target,
                      title=title, note=note, draft=bool(draft), prerelease=bool(prerelease),
                      hide_archive_links=False, sha=sha, publisher_id=int(publisher.id),
                      publisher=account_snapshot(publisher), created=int(created))
    uow = unit_of_work.current()
    uow.put(ReleaseItem(*store.release_key(repo_id, release.id), id=release.id,
                        tag_name=tag_name, target=target, title=title, note=note,
                        draft=bool(draft), prerelease=bool(prerelease), sha=sha,
                        publisher_id=int(publisher.id),
                        publisher=json.dumps(release.publisher, separators=(",", ":"),
                                             sort_keys=True),
                        created=int(created), version=1),
            label=store.RELEASE, must_not_exist=True)
    uow.put(ReleaseTagClaim(*store.tag_key(repo_id, tag_name), release_id=release.id),
            label=store.TAG, must_not_exist=True)
    return release


def asset_uuid(repo_id: int, release_id: int, source_id: int, name: str) -> str:
    return str(uuids.uuid5(NAMESPACE, f"{int(repo_id)}/{int(release_id)}/{int(source_id)}/{name}"))


def store_bytes(repo_id: int, owner_id: int, uuid: str, name: str,
                chunks: Iterable[bytes]) -> tuple[str, int]:
    """Read the attachment's bytes and put them at its key: (key, size).  Refused as an
    upload is (its name, its size, the owner's quota)."""
    check_name(name)
    data = bytearray()
    for chunk in chunks:
        data += chunk
        check_size(len(data))
    quota.ensure_within_quota(int(owner_id), SUBJECT, adding=len(data))
    key = release_bytes.key(repo_id, uuid)
    release_bytes.put(key, bytes(data))
    return key, len(data)


def stage_asset(repo_id: int, owner_id: int, release_id: int, *, uuid: str, name: str,
                size: int, created: int, uploader_id: int, download_count: int,
                object_key: str) -> Asset:
    """The attachment's record and download link, charged to the owner's usage."""
    asset = Asset(id=ids.next_id("attachment"), uuid=uuid, release_id=int(release_id),
                  name=name, size=int(size), download_count=int(download_count),
                  created=int(created), uploader_id=int(uploader_id), s3_key=object_key,
                  state=READY)
    uow = unit_of_work.current()
    uow.put(ReleaseAssetItem(*store.asset_key(repo_id, release_id, asset.id), id=asset.id,
                             uuid=uuid, release_id=int(release_id), name=name, size=int(size),
                             download_count=int(download_count), created=int(created),
                             uploader_id=int(uploader_id), external_url="",
                             s3_key=object_key, state=READY),
            label=store.ASSET, must_not_exist=True)
    uow.put(AttachmentLink(*store.link_key(uuid), repo_id=repo_id, release_id=int(release_id),
                           attachment_id=asset.id), label=store.ASSET)
    if size:
        quota.stage_attachment_usage(int(owner_id), "releases", int(size))
    return asset


def published_count(repo_id: int) -> int:
    """Published releases (not drafts) of the repository: its ``num_releases``."""
    return sum(1 for release in store.all_of(repo_id) if not release.draft)
