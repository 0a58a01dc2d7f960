"""Release attachments: uploads (direct, external, presigned), edits, deletions, downloads.

Bytes live in S3 at ``attachments/<repo id>/<uuid>``; the records in the release's
partition (``store.releases``).  Who may do what: as ``services.releases`` (readers list,
read and download the attachments of releases they see; writers change them).

Three ways in (README, "Release attachments"):

- direct: the bytes in the request (``multipart/form-data`` field ``attachment``, or a
  raw body), up to what one Lambda request carries; PutObject, then one transaction
  (attachment, download link, the release still there).  A failed transaction removes
  the object again;
- external: a link (``external_url``), no bytes;
- presigned, for anything larger: ``start_upload`` records a *pending* attachment (with
  the table's TTL, so one never confirmed disappears) and hands out a presigned PUT URL;
  the client PUTs the bytes straight to S3 and calls ``confirm_upload``, which reads the
  object's real size with HeadObject (and its first bytes when types are restricted)
  and makes the attachment ready.

Limits (Forgejo's settings): ``[attachment] ENABLED`` (404 "Attachment is not enabled"
when off), ``[attachment] MAX_SIZE`` in MiB (413), and the types of
``[repository.release] ALLOWED_TYPES`` (empty: all), checked as Forgejo's
``upload.Verify`` does — the file's extension, its sniffed type or a ``type/*``
wildcard — and refused with 422.

Downloads (``/attachments/<uuid>``, ``browser_download_url``) count ``download_count``
with one atomic ``ADD`` per download, and answer the bytes when they fit a Lambda
response, otherwise a 302 to a short-lived presigned GET URL.
"""
from __future__ import annotations

import uuid as uuids
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from chalicelib import accounts, clock, issues, quota, repos
from chalicelib.errors import BadInput, ConditionFailed, InvalidInput, NotFoundError, TooLarge
from chalicelib.http import input_rules, uploads
from chalicelib.http.uploads import DIRECT_LIMIT, SNIFF_BYTES, check_name, check_size
from chalicelib.releases import s3_objects as release_bytes
from chalicelib.releases import service as releases
from chalicelib.releases import store
from chalicelib.releases.options import EditAttachmentOptions
from chalicelib.repos import Caller, access_keys, view_of
from chalicelib.settings import get_settings
from chalicelib.store import ids, unit_of_work

if TYPE_CHECKING:
    from chalicelib.releases.service import Ctx
    from chalicelib.releases.store import Asset

# A presigned upload not confirmed within a day is dropped (TTL on its records).
# Whose quota an upload counts against, and under which subject (Forgejo's).
SUBJECT = "size:assets:attachments:releases"
PENDING_SECONDS = 86_400


@dataclass(frozen=True)
class Upload:
    """A presigned upload: the pending attachment and where to PUT its bytes."""
    asset: Asset
    url: str
    expires_at: int


@dataclass(frozen=True)
class Download:
    name: str
    size: int
    data: bytes | None           # the bytes, or None when ``url`` should be followed
    url: str | None



# Rules ------------------------------------------------------------------------------------

def check_type(name: str, head: bytes | None) -> None:
    """``uploads.check_type`` against ``[repository.release] ALLOWED_TYPES``."""
    uploads.check_type(name, head, get_settings().release.ALLOWED_TYPES)


def check_external_url(url: str) -> str:
    """Forgejo's ``IsValidReleaseAssetURL``: an absolute http(s) URL (with a host, and
    one Go's parser takes, as every URL field: ``input_rules.is_valid_url``)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc \
            or any(ch.isspace() for ch in url) or not input_rules.is_valid_url(url):
        raise BadInput(f"invalid external URL: '{url}'")
    return url


# Reads ------------------------------------------------------------------------------------

def list_assets(ctx: Ctx, release_id: int) -> tuple[Asset, ...]:
    return releases.get_release(ctx, release_id).assets


def get_asset(ctx: Ctx, release_id: int, asset_id: int, *, pending: bool = False) -> Asset:
    """An attachment of a release the caller sees (both items come with the preload)."""
    releases.visible_release(ctx, release_id)
    asset = store.get_asset(ctx.repo_id, release_id, asset_id)
    if asset is None or asset.release_id != release_id or (asset.state != store.READY
                                                          and not pending):
        raise NotFoundError(f"attachment does not exist [id: {asset_id}]")
    return asset


# Writes -----------------------------------------------------------------------------------

def _writable_release(ctx: Ctx, release_id: int) -> None:
    releases.require_writer(ctx)
    releases.visible_release(ctx, release_id)


def _new_asset(ctx: Ctx, release_id: int, name: str, *, stored: bool, **fields) -> Asset:
    uuid = str(uuids.uuid4())
    return store.Asset(id=ids.next_id("attachment"), uuid=uuid, release_id=release_id,
                       name=name, download_count=0, created=clock.seconds(),
                       uploader_id=int(ctx.user.id),
                       s3_key=release_bytes.key(ctx.repo_id, uuid) if stored else "", **fields)


def _add(ctx: Ctx, asset: Asset, *, expires: int | None = None) -> None:
    try:
        with unit_of_work.writing():
            store.stage_add_asset(ctx.repo_id, asset, expires=expires)
            # Charged with the record (a pending upload when it is confirmed).
            if asset.state == store.READY and asset.size:
                quota.stage_attachment_usage(int(ctx.repo.owner_id), "releases", asset.size)
    except ConditionFailed as failed:
        if failed.label == store.RELEASE:
            raise NotFoundError(f"release does not exist [id: {asset.release_id}]") from None
        raise


def upload(ctx: Ctx, release_id: int, *, name: str, data: bytes) -> Asset:
    """repoCreateReleaseAttachment with the bytes in the request."""
    uploads.require_enabled()
    _writable_release(ctx, release_id)
    check_name(name)
    check_size(len(data))
    check_type(name, data[:SNIFF_BYTES])
    quota.ensure_within_quota(int(ctx.repo.owner_id), SUBJECT, adding=len(data))  # before storing
    asset = _new_asset(ctx, release_id, name, stored=True, size=len(data))
    # Bytes first, record last: a crash between leaves an object nothing points at, never
    # a record without its bytes.
    release_bytes.put(asset.s3_key, data)
    try:
        _add(ctx, asset)
    except Exception:
        remove_bytes([asset])
        raise
    return asset


def add_external(ctx: Ctx, release_id: int, *, name: str, url: str) -> Asset:
    """repoCreateReleaseAttachment with ``external_url``: a link, no bytes."""
    uploads.require_enabled()
    _writable_release(ctx, release_id)
    check_external_url(url)
    if not name:
        path = urlsplit(url).path.rstrip("/")
        name = path.rsplit("/", 1)[-1] or urlsplit(url).hostname or url
    check_name(name)
    asset = _new_asset(ctx, release_id, name, stored=False, size=0, external_url=url)
    _add(ctx, asset)
    return asset


def start_upload(ctx: Ctx, release_id: int, *, name: str, size: int) -> Upload:
    """The first step of a presigned upload: a pending attachment of ``size`` bytes and
    a PUT URL for them (valid ``UPLOAD_URL_SECONDS``)."""
    uploads.require_enabled()
    _writable_release(ctx, release_id)
    check_name(name)
    if size < 0:
        raise InvalidInput("[Size]: must be the number of bytes to upload")
    check_size(size)
    check_type(name, None)
    quota.ensure_within_quota(int(ctx.repo.owner_id), SUBJECT, adding=size)
    asset = _new_asset(ctx, release_id, name, stored=True, size=size, state=store.PENDING)
    _add(ctx, asset, expires=clock.seconds() + PENDING_SECONDS)
    return Upload(asset, release_bytes.upload_url(asset.s3_key),
                  clock.seconds() + release_bytes.UPLOAD_URL_SECONDS)


def confirm_upload(ctx: Ctx, release_id: int, asset_id: int) -> Asset:
    """The last step of a presigned upload: the object's real size (HeadObject) must be
    the size announced and within the limits; the attachment becomes ready.  Confirming
    a ready attachment again answers it unchanged."""
    _writable_release(ctx, release_id)
    asset = store.get_asset(ctx.repo_id, release_id, asset_id, consistent=True)
    if asset is None or asset.release_id != release_id:
        raise NotFoundError(f"attachment does not exist [id: {asset_id}]")
    if asset.state == store.READY:
        return asset
    size = release_bytes.size_of(asset.s3_key)
    if size is None:
        raise InvalidInput("nothing was uploaded yet: PUT the bytes to upload_url first")
    try:
        check_size(size)
        if get_settings().release.ALLOWED_TYPES.strip():
            check_type(asset.name, release_bytes.read_head(asset.s3_key, SNIFF_BYTES))
    except (TooLarge, InvalidInput):
        _discard(ctx, asset)
        raise
    if size != asset.size:
        raise InvalidInput(f"the upload has {size} bytes, not the {asset.size} announced: "
                           "PUT the whole file again")
    try:
        with unit_of_work.writing():
            store.stage_confirm_asset(ctx.repo_id, asset, size)
            # Counted when confirmed, with the real size.
            quota.stage_attachment_usage(int(ctx.repo.owner_id), "releases", size)
    except ConditionFailed:
        confirmed = store.get_asset(ctx.repo_id, release_id, asset_id, consistent=True)
        if confirmed is not None and confirmed.state == store.READY:
            return confirmed
        raise NotFoundError(f"attachment does not exist [id: {asset_id}]") from None
    return replace(asset, state=store.READY, size=size)


def _discard(ctx: Ctx, asset: Asset) -> None:
    """A refused presigned upload: its records and its bytes go."""
    with unit_of_work.writing():
        store.stage_delete_asset(ctx.repo_id, asset)
    remove_bytes([asset])


def edit_asset(ctx: Ctx, release_id: int, asset_id: int,
               option: EditAttachmentOptions) -> Asset:
    """repoEditReleaseAttachment (201 in Forgejo)."""
    releases.require_writer(ctx)
    asset = get_asset(ctx, release_id, asset_id)
    name = (option.name or "").strip() or asset.name
    check_name(name)
    url = (option.browser_download_url or "").strip()
    if url:
        if not asset.external_url:
            raise BadInput("existing attachment is not external")
        check_external_url(url)
    external = url or asset.external_url
    try:
        with unit_of_work.writing():
            store.stage_edit_asset(ctx.repo_id, asset, name=name, external_url=external)
    except ConditionFailed:
        raise NotFoundError(f"attachment does not exist [id: {asset_id}]") from None
    return replace(asset, name=name, external_url=external)


def delete_asset(ctx: Ctx, release_id: int, asset_id: int) -> None:
    """repoDeleteReleaseAttachment: the records, then the bytes."""
    releases.require_writer(ctx)
    asset = get_asset(ctx, release_id, asset_id, pending=True)
    try:
        with unit_of_work.writing():
            store.stage_delete_asset(ctx.repo_id, asset)
            if asset.state == store.READY and asset.size and not asset.external_url:
                quota.stage_attachment_usage(int(ctx.repo.owner_id), "releases", -asset.size)
    except ConditionFailed:
        raise NotFoundError(f"attachment does not exist [id: {asset_id}]") from None
    remove_bytes([asset])


def remove_bytes(assets: list[Asset]) -> None:
    release_bytes.remove([a.s3_key for a in assets])


def forget_repo(repo_id: int, owner_id: int = 0) -> None:
    """After a repository was deleted (the cleanup consumer, before its partition is
    purged): the download links of its attachments, every object under its prefix, and
    the owner's attachment usage (``owner_id``; a redelivered event finds no links
    left, so the usage is given back once)."""
    for asset in store.assets_of_repo(repo_id):
        try:
            with unit_of_work.writing():
                store.stage_forget_link(asset.uuid)
                if owner_id and asset.state == store.READY and asset.size and \
                        not asset.external_url:
                    quota.stage_attachment_usage(int(owner_id), "releases", -int(asset.size))
        except ConditionFailed:
            continue        # forgotten (and given back) by an earlier delivery
    release_bytes.remove_repo(repo_id)


def download_preload(uuid: str) -> list:
    """What a download route reads with the token: the attachment's download link, a
    release's or an issue's (or comment's): one uuid names at most one of them."""
    if not store.valid_uuid(uuid):
        return []
    return [store.link_key(uuid), issues.issue_attachment_link_key(uuid)]


def content_disposition(name: str) -> str:
    return release_bytes.content_disposition(name)


# Downloads --------------------------------------------------------------------------------

def download_preload_more(uuid: str, user_id: int | None) -> list:
    """Second preload batch of a download: the repository's id link and the release
    item (the download link came with the first batch)."""
    link = store.get_link(uuid)
    if link is None:
        return issues.issue_attachment_preload_more(uuid) if store.valid_uuid(uuid) else []
    return [store.repo_id_key(link.repo_id),
            store.release_key(link.repo_id, link.release_id)]


def download(caller: Caller, uuid: str, *, count: bool = True) -> Download:
    """``browser_download_url``: the attachment's bytes (or where to get them) for a
    caller who may read the release (or the issue: ``issues.download_issue_attachment``);
    counted unless ``count`` is False (HEAD)."""
    link = store.get_link(uuid)
    if link is None and store.valid_uuid(uuid):
        served = issues.download_issue_attachment(caller, uuid, count=count)
        if served is not None:
            return _serve(served.name, served.size, served.object_key)
    repo = repos.repo_by_id(link.repo_id) if link is not None else None
    if repo is None:
        raise NotFoundError(f"attachment does not exist [uuid: {uuid}]")
    user_id = int(caller.user.id) if caller.user is not None else None
    unit_of_work.prefetch([accounts.account_key(int(repo.owner_id)),
                           *access_keys(repo, user_id)])
    ctx = releases.context(caller, view_of(repo, caller))
    releases.visible_release(ctx, link.release_id)
    if count:
        asset = store.add_download(link.repo_id, link.release_id, link.attachment_id)
    else:
        asset = store.get_asset(link.repo_id, link.release_id, link.attachment_id)
    if asset is None or asset.state != store.READY:
        raise NotFoundError(f"attachment does not exist [uuid: {uuid}]")
    if asset.external_url:
        return Download(asset.name, 0, None, asset.external_url)
    return _serve(asset.name, asset.size, asset.s3_key)


def _serve(name: str, size: int, object_key: str) -> Download:
    """The bytes when they fit a Lambda response, else a presigned GET URL."""
    if size > DIRECT_LIMIT:
        return Download(name, size, None, release_bytes.download_url(object_key, name))
    data = release_bytes.read(object_key)
    return Download(name, len(data), data, None)
