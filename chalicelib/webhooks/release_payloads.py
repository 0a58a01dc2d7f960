"""The Release record inside a release webhook payload, from a ``ReleaseChanged``
event's snapshot (``services.releases.snapshot``): Forgejo's ``ToAPIRelease(ctx, repo,
rel, false)`` — the publisher as an anonymous viewer sees it, attachments with their
download addresses.  The snapshot is read back into the shape the API's record builder
takes, so a payload and ``GET …/releases/{id}`` always agree."""
from __future__ import annotations

from types import SimpleNamespace

from chalicelib import accounts, releases
from chalicelib.webhooks import sources as webhook_sources


def _asset(item: dict) -> SimpleNamespace:
    return SimpleNamespace(
        id=int(item.get("id") or 0), name=item.get("name", ""), size=int(item.get("size") or 0),
        download_count=int(item.get("download_count") or 0), created=item.get("created", 0),
        uuid=item.get("uuid", ""), external_url=item.get("external_url") or "")


def release_record(event, view) -> dict:
    data = dict(event.release or {})
    item = SimpleNamespace(
        id=int(data.get("id") or event.release_id), tag_name=data.get("tag_name", event.tag_name),
        target=data.get("target", ""), title=data.get("title", ""), note=data.get("note", ""),
        hide_archive_links=bool(data.get("hide_archive_links")), draft=bool(data.get("draft")),
        prerelease=bool(data.get("prerelease")), created=data.get("created", 0),
        archive_zip=int(data.get("archive_zip") or 0),
        archive_tar_gz=int(data.get("archive_tar_gz") or 0),
        assets=[_asset(a) for a in data.get("assets") or ()])
    publisher = webhook_sources.account(data.get("publisher") or {})
    author = accounts.user_record(publisher, None) if publisher is not None else None
    return releases.release_record(item, view, author)
