"""Releases and their attachments in the table.

Everything about a release lives in its repository's partition ``R#<repo id>`` (deleting
a repository removes it with the rest of that partition), next to each other in sort-key
order, so one Query reads a release with its attachments, or every release of a
repository with theirs:

| item | pk | sk | attributes |
|---|---|---|---|
| release | ``R#<repo>`` | ``RELEASE#<id, 15 digits>`` | ``id``, ``tag_name``, ``target``, ``title``, ``note``, ``draft``, ``prerelease``, ``hide_archive_links``, ``sha``, ``publisher_id``, ``publisher`` (JSON snapshot), ``created``, ``archive_zip``, ``archive_tar_gz``, ``version`` |
| attachment | ``R#<repo>`` | ``RELEASE#<release id>#ASSET#<id, 15 digits>`` | ``id``, ``uuid``, ``release_id``, ``name``, ``size``, ``download_count``, ``created``, ``uploader_id``, ``external_url``, ``s3_key``, ``state`` (ready, pending), ``expires`` (pending only) |
| tag claim | ``R#<repo>`` | ``RELTAG#<lower-case tag>`` | ``release_id`` |
| download link | ``ATTACH#<uuid>`` | ``ATTACH`` | ``repo_id``, ``release_id``, ``attachment_id``, ``expires`` (pending only) |

The tag claim makes a tag name unique per repository (Forgejo's unique index on
``(repo_id, lower_tag_name)``, drafts included): it is put with ``attribute_not_exists``
in the release's own transaction, so of two racing creates one fails
(``ConditionFailed(TAG)``).  Edits are conditional on ``version``; download and archive
counts move by atomic ``ADD`` and never touch ``version``, so a count is never lost to
an edit nor an edit to a count.  A pending attachment (presigned upload not yet
confirmed) and its link carry the table's TTL attribute ``expires``: an upload never
confirmed disappears by itself.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace

from pynamodb.exceptions import UpdateError

from chalicelib import repos
from chalicelib.releases.models import (PENDING, READY, AttachmentLink, ReleaseAssetItem,
                                        ReleaseItem, ReleaseTagClaim)
from chalicelib.repos import Repo
from chalicelib.store import unit_of_work
from chalicelib.store.table import Item

DIGITS = 15
RELEASE = "release"      # ConditionFailed label: the release is gone or was edited meanwhile
TAG = "release tag"      # the tag already has a release
ASSET = "attachment"     # the attachment is gone, or not in the state expected
REPO = "repo"            # the repository is gone
# Items staged by stage_create / stage_edit (for transactions that add a ref change).
CREATE_SIZE, EDIT_SIZE = 3, 4


class rkeys:  # noqa: N801 - key builders of this module
    PREFIX = "RELEASE#"

    @staticmethod
    def release(repo_id: int, release_id: int) -> tuple[str, str]:
        return f"R#{int(repo_id)}", f"RELEASE#{int(release_id):0{DIGITS}d}"

    @staticmethod
    def asset(repo_id: int, release_id: int, asset_id: int) -> tuple[str, str]:
        pk, sk = rkeys.release(repo_id, release_id)
        return pk, f"{sk}#ASSET#{int(asset_id):0{DIGITS}d}"

    @staticmethod
    def tag(repo_id: int, tag_name: str) -> tuple[str, str]:
        return f"R#{int(repo_id)}", f"RELTAG#{tag_name.lower()}"

    @staticmethod
    def link(uuid: str) -> tuple[str, str]:
        return f"ATTACH#{uuid}", "ATTACH"


@dataclass(frozen=True)
class Asset:
    """An attachment of a release as plain data."""
    id: int
    uuid: str
    release_id: int
    name: str
    size: int
    download_count: int
    created: int
    uploader_id: int = 0
    external_url: str = ""
    s3_key: str = ""
    state: str = READY


@dataclass(frozen=True)
class Release:
    """A release as plain data; ``assets``: its ready attachments by name (when read
    with them)."""
    id: int
    tag_name: str
    target: str
    title: str
    note: str
    draft: bool
    prerelease: bool
    hide_archive_links: bool
    sha: str
    publisher_id: int
    publisher: dict
    created: int
    archive_zip: int = 0
    archive_tar_gz: int = 0
    version: int = 1
    assets: tuple[Asset, ...] = field(default=())

    def edited(self, **changes) -> "Release":
        return replace(self, **changes)


_RELEASE_FIELDS = ("tag_name", "target", "title", "note", "draft", "prerelease",
                   "hide_archive_links", "sha", "publisher_id", "created")


def _release(item: ReleaseItem, assets=()) -> Release:
    return Release(id=int(item.id), tag_name=item.tag_name, target=item.target,
                   title=item.title, note=item.note, draft=bool(item.draft),
                   prerelease=bool(item.prerelease),
                   hide_archive_links=bool(item.hide_archive_links), sha=item.sha,
                   publisher_id=int(item.publisher_id or 0),
                   publisher=json.loads(item.publisher or "{}"), created=int(item.created),
                   archive_zip=int(item.archive_zip or 0),
                   archive_tar_gz=int(item.archive_tar_gz or 0),
                   version=int(item.version or 1),
                   assets=tuple(sorted(assets, key=lambda a: (a.name, a.id))))


def _asset(item: ReleaseAssetItem) -> Asset:
    return Asset(id=int(item.id), uuid=item.uuid, release_id=int(item.release_id),
                 name=item.name, size=int(item.size or 0),
                 download_count=int(item.download_count or 0), created=int(item.created),
                 uploader_id=int(item.uploader_id or 0), external_url=item.external_url,
                 s3_key=item.s3_key, state=item.state or READY)


# Reads ------------------------------------------------------------------------------------

MAX_TAG_BYTES = 1000     # DynamoDB's sort keys stop at 1024 bytes


def valid_tag_key(tag_name: str) -> bool:
    return 0 < len(tag_name.encode("utf-8", "surrogatepass")) <= MAX_TAG_BYTES


def valid_uuid(uuid: str) -> bool:
    """Attachment uuids are canonical UUIDs (36 characters): anything else names none."""
    return len(uuid) == 36 and all(ch in "0123456789abcdef-" for ch in uuid.lower())


def release_key(repo_id: int, release_id: int) -> tuple[str, str]:
    return rkeys.release(repo_id, release_id)


def asset_key(repo_id: int, release_id: int, asset_id: int) -> tuple[str, str]:
    return rkeys.asset(repo_id, release_id, asset_id)


def tag_key(repo_id: int, tag_name: str) -> tuple[str, str]:
    return rkeys.tag(repo_id, tag_name)


def link_key(uuid: str) -> tuple[str, str]:
    return rkeys.link(uuid)


def repo_id_key(repo_id: int) -> tuple[str, str]:
    """The repository's id link (to find a repository from an attachment's link)."""
    return repos.repo_id_key(int(repo_id))


def get(repo_id: int, release_id: int) -> Release | None:
    """The release alone (no assets): through the unit's identity map."""
    item = unit_of_work.get(ReleaseItem, release_key(repo_id, release_id))
    return _release(item) if item is not None else None


def _grouped(items, *, include_pending: bool = False) -> list[Release]:
    releases: dict[int, ReleaseItem] = {}
    assets: dict[int, list[Asset]] = {}
    for item in items:
        if isinstance(item, ReleaseItem):
            releases[int(item.id)] = item
        elif isinstance(item, ReleaseAssetItem) and (include_pending or item.state == READY):
            assets.setdefault(int(item.release_id), []).append(_asset(item))
    return [_release(item, assets.get(rid, ())) for rid, item in releases.items()]


def with_assets(repo_id: int, release_id: int, *,
                include_pending: bool = False) -> Release | None:
    """The release and its ready attachments (pending ones too if asked): one
    consistent Query."""
    pk, sk = release_key(repo_id, release_id)
    found = _grouped(Item.query(pk, Item.sk.startswith(sk), consistent_read=True),
                     include_pending=include_pending)
    return found[0] if found else None


def all_of(repo_id: int) -> list[Release]:
    """Every release of a repository with its ready attachments: one consistent Query
    (paged by DynamoDB past 1 MB), in id order."""
    return _grouped(Item.query(f"R#{int(repo_id)}", Item.sk.startswith(rkeys.PREFIX),
                               consistent_read=True))


def assets_of_repo(repo_id: int) -> list[Asset]:
    """Every attachment of a repository, pending ones too (cleanup after a deletion)."""
    items = Item.query(f"R#{int(repo_id)}", Item.sk.startswith(rkeys.PREFIX),
                       consistent_read=True)
    return [_asset(item) for item in items if isinstance(item, ReleaseAssetItem)]


def tag_owner(repo_id: int, tag_name: str, *, consistent: bool = False) -> int | None:
    """The id of the release that holds ``tag_name``, if any (none for a name longer
    than a tag may be: it could not be a sort key)."""
    if not valid_tag_key(tag_name):
        return None
    claim = unit_of_work.get(ReleaseTagClaim, tag_key(repo_id, tag_name), consistent=consistent)
    return int(claim.release_id) if claim is not None else None


def get_asset(repo_id: int, release_id: int, asset_id: int, *,
              consistent: bool = False) -> Asset | None:
    item = unit_of_work.get(ReleaseAssetItem, asset_key(repo_id, release_id, asset_id),
                            consistent=consistent)
    return _asset(item) if item is not None else None


@dataclass(frozen=True)
class Link:
    repo_id: int
    release_id: int
    attachment_id: int


def get_link(uuid: str) -> Link | None:
    if not valid_uuid(uuid):
        return None
    item = unit_of_work.get(AttachmentLink, link_key(uuid))
    if item is None:
        return None
    return Link(int(item.repo_id), int(item.release_id), int(item.attachment_id))


# Counters (atomic, outside any unit of work: they are no domain change) -------------------

def add_download(repo_id: int, release_id: int, asset_id: int) -> Asset | None:
    """One more download of a ready attachment, counted by ``ADD``; the attachment as it
    is after the count (None when it is gone or still pending).  One UpdateItem."""
    item = ReleaseAssetItem(*asset_key(repo_id, release_id, asset_id))
    try:
        item.update(actions=[ReleaseAssetItem.download_count.add(1)],
                    condition=ReleaseAssetItem.pk.exists() & (ReleaseAssetItem.state == READY))
    except UpdateError as exc:
        if exc.cause_response_code == "ConditionalCheckFailedException":
            return None
        raise
    return _asset(item)


def add_archive_download(repo_id: int, release_id: int, kind: str) -> bool:
    """One more download of a release's source archive (``zip`` or ``tar_gz``)."""
    attribute = ReleaseItem.archive_zip if kind == "zip" else ReleaseItem.archive_tar_gz
    try:
        ReleaseItem(*release_key(repo_id, release_id)).update(
            actions=[attribute.add(1)], condition=ReleaseItem.pk.exists())
    except UpdateError as exc:
        if exc.cause_response_code == "ConditionalCheckFailedException":
            return False
        raise
    return True


# Writes -----------------------------------------------------------------------------------

def _release_item(repo_id: int, release: Release) -> ReleaseItem:
    return ReleaseItem(*release_key(repo_id, release.id), id=release.id,
                       publisher=json.dumps(release.publisher, separators=(",", ":"),
                                            sort_keys=True),
                       archive_zip=release.archive_zip, archive_tar_gz=release.archive_tar_gz,
                       version=release.version,
                       **{name: getattr(release, name) for name in _RELEASE_FIELDS})


def _count_published(repo: Repo, delta: int, repo_staged: bool) -> None:
    """``num_releases`` counts published releases (Forgejo's release_counter: neither
    drafts nor bare tags); moved in the release's transaction.  Without a change, a check
    that the repository still exists takes its place, unless the unit already updates the
    repository on that condition (``repo_staged``: a ref change; DynamoDB takes one
    operation per item in a transaction)."""
    if delta:
        repos.stage_repo_counts(repo, {"num_releases": delta}, label=REPO)
    elif not repo_staged:
        repos.stage_repo_exists(repo, label=REPO)


def stage_create(repo: Repo, release: Release, *, repo_staged: bool = False) -> None:
    """The release, its tag claim and the repository's count (``CREATE_SIZE`` items)."""
    uow = unit_of_work.current()
    uow.put(_release_item(int(repo.id), release), label=RELEASE, must_not_exist=True)
    uow.put(ReleaseTagClaim(*tag_key(int(repo.id), release.tag_name), release_id=release.id),
            label=TAG, must_not_exist=True)
    _count_published(repo, 0 if release.draft else 1, repo_staged)


def stage_edit(repo: Repo, before: Release, after: Release, *,
               repo_staged: bool = False) -> None:
    """``after``'s fields, if nobody edited the release since ``before`` was read; a new
    tag name moves the claim (``TAG`` when another release holds it)."""
    uow = unit_of_work.current()
    repo_id = int(repo.id)
    actions = [getattr(ReleaseItem, name).set(getattr(after, name)) for name in _RELEASE_FIELDS]
    actions.append(ReleaseItem.version.set(before.version + 1))
    uow.update(ReleaseItem(*release_key(repo_id, before.id)), actions, label=RELEASE,
               condition=ReleaseItem.version == before.version)
    if after.tag_name.lower() != before.tag_name.lower():
        uow.delete(ReleaseTagClaim(*tag_key(repo_id, before.tag_name)), label=TAG,
                   condition=ReleaseTagClaim.release_id == before.id)
        uow.put(ReleaseTagClaim(*tag_key(repo_id, after.tag_name), release_id=after.id),
                label=TAG, must_not_exist=True)
    _count_published(repo, int(before.draft) - int(after.draft), repo_staged)


def stage_delete(repo: Repo, release: Release, assets: list[Asset]) -> None:
    """The release (unless edited meanwhile), its claim, its attachments and their
    links; the attachments first, so a unit past 100 items that fails part-way leaves a
    release with fewer attachments, which deleting again completes."""
    uow = unit_of_work.current()
    repo_id = int(repo.id)
    for asset in assets:
        stage_delete_asset(repo_id, asset)
    uow.delete(ReleaseItem(*release_key(repo_id, release.id)), label=RELEASE,
               condition=ReleaseItem.version == release.version)
    uow.delete(ReleaseTagClaim(*tag_key(repo_id, release.tag_name)), label=TAG,
               condition=ReleaseTagClaim.release_id == release.id)
    _count_published(repo, 0 if release.draft else -1, False)


def stage_add_asset(repo_id: int, asset: Asset, *, expires: int | None = None) -> None:
    """A new attachment and its download link, while the release exists."""
    uow = unit_of_work.current()
    uow.put(ReleaseAssetItem(*asset_key(repo_id, asset.release_id, asset.id), id=asset.id,
                             uuid=asset.uuid, release_id=asset.release_id, name=asset.name,
                             size=asset.size, download_count=0, created=asset.created,
                             uploader_id=asset.uploader_id, external_url=asset.external_url,
                             s3_key=asset.s3_key, state=asset.state, expires=expires),
            label=ASSET, must_not_exist=True)
    uow.put(AttachmentLink(*link_key(asset.uuid), repo_id=repo_id, release_id=asset.release_id,
                           attachment_id=asset.id, expires=expires),
            label=ASSET, must_not_exist=True)
    uow.check(ReleaseItem(*release_key(repo_id, asset.release_id)), ReleaseItem.pk.exists(),
              label=RELEASE)


def stage_confirm_asset(repo_id: int, asset: Asset, size: int) -> None:
    """A pending attachment becomes ready with its real size (once: ``ASSET`` when it was
    confirmed or removed meanwhile)."""
    uow = unit_of_work.current()
    uow.update(ReleaseAssetItem(*asset_key(repo_id, asset.release_id, asset.id)),
               [ReleaseAssetItem.state.set(READY), ReleaseAssetItem.size.set(size),
                ReleaseAssetItem.expires.remove()], label=ASSET,
               condition=ReleaseAssetItem.state == PENDING)
    uow.update(AttachmentLink(*link_key(asset.uuid)), [AttachmentLink.expires.remove()],
               label=ASSET, condition=AttachmentLink.pk.exists())


def stage_edit_asset(repo_id: int, asset: Asset, *, name: str, external_url: str) -> None:
    unit_of_work.current().update(
        ReleaseAssetItem(*asset_key(repo_id, asset.release_id, asset.id)),
        [ReleaseAssetItem.name.set(name), ReleaseAssetItem.external_url.set(external_url)],
        label=ASSET, condition=ReleaseAssetItem.pk.exists())


def stage_delete_asset(repo_id: int, asset: Asset) -> None:
    uow = unit_of_work.current()
    uow.delete(ReleaseAssetItem(*asset_key(repo_id, asset.release_id, asset.id)), label=ASSET,
               condition=ReleaseAssetItem.pk.exists())
    uow.delete(AttachmentLink(*link_key(asset.uuid)), label=ASSET)


def stage_forget_link(uuid: str) -> None:
    """A download link left by a deleted repository (its partition is purged apart);
    ``ConditionFailed(ASSET)`` when it is gone already (a redelivered cleanup)."""
    unit_of_work.current().delete(AttachmentLink(*link_key(uuid)), label=ASSET,
                                  condition=AttachmentLink.pk.exists())


def stage_check_unclaimed(repo_id: int, tag_name: str) -> None:
    """Deleting a bare tag: the unit fails with ``ConditionFailed(TAG)`` if a release
    holds ``tag_name`` by then (a name that cannot be a key can hold no claim)."""
    if valid_tag_key(tag_name):
        unit_of_work.current().check(ReleaseTagClaim(*tag_key(repo_id, tag_name)),
                                     ReleaseTagClaim.pk.does_not_exist(), label=TAG)
