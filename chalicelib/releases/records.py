"""Releases and their attachments -> Forgejo's Release and Attachment records, field for
field (``schemas.RECORDS``; Forgejo's ``services/convert/release.go`` and
``attachment.go``)."""
from __future__ import annotations

from urllib.parse import quote

from chalicelib import repos
from chalicelib.http import formats, schemas, uploads
from chalicelib.http.schema_types import B, I, S, T, ref

# The records' Swagger definitions: Forgejo's names, fields and types, published by
# /swagger.v1.json (``http.schemas``) and checked against what this module builds.
SCHEMAS = schemas.declare({
    "TagArchiveDownloadCount": {"zip": I, "tar_gz": I},
    "Release": {
        "id": I, "tag_name": S, "target_commitish": S, "name": S, "body": S, "url": S,
        "html_url": S, "tarball_url": S, "zipball_url": S, "hide_archive_links": B,
        "upload_url": S, "draft": B, "prerelease": B, "created_at": T, "published_at": T,
        "author": ref("User"), "assets": {"type": "array", "items": ref("Attachment")},
        "archive_download_count": ref("TagArchiveDownloadCount"),
    },
}, lists=("Release", "Attachment"))


def _path_segments(text: str) -> str:
    """Forgejo's ``util.PathEscapeSegments``: each segment escaped, slashes kept."""
    return "/".join(quote(part, safe="") for part in text.split("/"))


def download_url(asset) -> str:
    """``browser_download_url``: the external link, or ``<ROOT_URL>attachments/<uuid>``."""
    return uploads.download_url(asset.uuid, asset.external_url)


def attachment(asset) -> dict:
    """An Attachment (a release's)."""
    return uploads.attachment_record(asset.id, name=asset.name, size=asset.size,
                                     download_count=asset.download_count,
                                     created=asset.created, uuid=asset.uuid,
                                     external_url=asset.external_url)


def upload(found) -> dict:
    """A presigned upload (``services.release_files.Upload``): the pending Attachment with
    where and until when to PUT its bytes (our extension, not a Forgejo record)."""
    return {**attachment(found.asset), "upload_url": found.url, "upload_method": "PUT",
            "upload_expires_at": formats.rfc3339(found.expires_at)}


def release(item, view, author: dict) -> dict:
    """A Release; ``author`` is the publisher's User record.  The archive links point at
    the API's archive route (Forgejo's name the web route, which Nimbus does not serve);
    ``published_at`` is the creation time, as Forgejo sends it."""
    api_url = repos.repo_api_url(view.owner.login, view.repo.name)
    url = f"{api_url}/releases/{int(item.id)}"
    tag = _path_segments(item.tag_name)
    return {
        "id": int(item.id),
        "tag_name": item.tag_name,
        "target_commitish": item.target,
        "name": item.title,
        "body": item.note,
        "url": url,
        "html_url": f"{repos.repo_html_url(view)}/releases/tag/{tag}",
        "tarball_url": f"{api_url}/archive/{tag}.tar.gz",
        "zipball_url": f"{api_url}/archive/{tag}.zip",
        "hide_archive_links": bool(item.hide_archive_links),
        "upload_url": f"{url}/assets",
        "draft": bool(item.draft),
        "prerelease": bool(item.prerelease),
        "created_at": formats.rfc3339(item.created),
        "published_at": formats.rfc3339(item.created),
        "author": author,
        "assets": [attachment(a) for a in item.assets],
        "archive_download_count": {"zip": int(item.archive_zip),
                                   "tar_gz": int(item.archive_tar_gz)},
    }
