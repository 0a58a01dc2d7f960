"""Uploaded files (attachments of releases, issues and comments): how a request carries
one, and what one may be under Forgejo's ``[attachment]`` settings.

- ``upload_input``: the file and its name from whatever form the client used
  (``multipart/form-data`` field ``attachment``, a raw body with ``?name=``, or an
  ``external_url`` as a form or JSON field);
- ``require_enabled`` (404 "Attachment is not enabled" when ``[attachment] ENABLED`` is
  off), ``check_size`` (``[attachment] MAX_SIZE`` in MiB, 413), ``check_name`` and
  ``check_type``: Forgejo's ``upload.Verify`` against a list of allowed types (the
  file's extension, its sniffed type or a ``type/*`` wildcard; 422).  Which list is the
  caller's: ``[repository.release] ALLOWED_TYPES`` for releases, ``[attachment]
  ALLOWED_TYPES`` for issues and comments.
"""
from __future__ import annotations

import mimetypes
from typing import ClassVar, Mapping
from urllib.parse import quote

from chalicelib.errors import BadInput, InvalidInput, NotFoundError, TooLarge
from chalicelib.http.formats import rfc3339
from chalicelib.http.message import ApiRequest
from chalicelib.http.options import UNSET, Option, UnsetType
from chalicelib.settings import get_settings

# A Lambda response carries 6 MB, base64 included: larger files leave through S3.
DIRECT_LIMIT = 4_400_000
MAX_NAME = 255
SNIFF_BYTES = 512


class EditAttachmentOptions(Option):
    """repoEditReleaseAttachment, issueEditIssueAttachment and
    issueEditIssueCommentAttachment: an empty or left-out name keeps the attachment's;
    a link may be changed only on an external attachment."""
    max_lengths: ClassVar[Mapping[str, int]] = {"name": 255, "browser_download_url": 2048}
    single_line: ClassVar[frozenset[str]] = frozenset({"name"})

    name: str | None | UnsetType = UNSET
    browser_download_url: str | None | UnsetType = UNSET


def upload_input(req: ApiRequest) -> tuple[str, bytes | None, str]:
    """(name, the file's bytes or None, external_url) from whatever form the client used
    (Forgejo reads ``name`` and ``external_url`` from the query or the form)."""
    name = (req.arg("name") or "").strip()
    kind = req.content_type
    if kind == "multipart/form-data":
        from chalicelib.http import multipart

        form = multipart.parse(req.headers.get("content-type") or "", req.body)
        part = form.file("attachment")
        name = name or form.value("name").strip() or (part.filename if part else "") or ""
        return name, part.data if part is not None else None, form.value("external_url").strip()
    if kind == "application/x-www-form-urlencoded" or "json" in kind:
        data = req.json(required=False)
        name = name or str(data.get("name") or "").strip()
        return name, None, str(data.get("external_url") or "").strip()
    return name, req.body if req.body else None, ""


def require_enabled() -> None:
    if not get_settings().attachment.ENABLED:
        raise NotFoundError("Attachment is not enabled")


def max_bytes() -> int | None:
    """``[attachment] MAX_SIZE`` in bytes (0: no limit)."""
    mib = get_settings().attachment.MAX_SIZE
    return mib * 1024 * 1024 if mib > 0 else None


def check_size(size: int) -> None:
    limit = max_bytes()
    if limit is not None and size > limit:
        raise TooLarge(f"attachment of {size} bytes is larger than the maximum of "
                       f"{get_settings().attachment.MAX_SIZE} MiB")


def check_name(name: str) -> str:
    if not name:
        raise BadInput("Missing 'name' parameter")
    if len(name) > MAX_NAME or any(ord(ch) < 32 for ch in name):
        raise InvalidInput("[Name]: invalid attachment name (at most 255 printable characters)")
    return name


_SIGNATURES = ((b"PK\x03\x04", "application/zip"), (b"\x1f\x8b\x08", "application/x-gzip"),
               (b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"),
               (b"GIF87a", "image/gif"), (b"GIF89a", "image/gif"), (b"%PDF-", "application/pdf"),
               (b"BM", "image/bmp"), (b"Rar!\x1a\x07", "application/x-rar-compressed"),
               (b"\x00\x00\x01\x00", "image/x-icon"), (b"OggS\x00", "application/ogg"))
_BINARY = set(range(0, 9)) | {11} | set(range(14, 27)) | set(range(28, 32))


def sniff(head: bytes) -> str:
    """The content type of the first bytes, as Go's ``http.DetectContentType`` decides
    it for the common cases (signatures, else text when no control bytes, else binary)."""
    for signature, kind in _SIGNATURES:
        if head.startswith(signature):
            return kind
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if not any(byte in _BINARY for byte in head):
        return "text/plain"
    return "application/octet-stream"


def _extension(name: str) -> str:
    """Go's ``path.Ext``: from the last dot of the last element (``a.tar.gz`` -> ``.gz``)."""
    base = name.rsplit("/", 1)[-1]
    dot = base.rfind(".")
    return base[dot:].lower() if dot >= 0 else ""


def check_type(name: str, head: bytes | None, allowed_types: str) -> None:
    """Forgejo's ``upload.Verify`` against ``allowed_types`` (comma or ``|`` separated):
    an entry allows a file by its extension (``.zip``), its type (``application/zip``)
    or a wildcard (``image/*``); ``*/*`` or no entry allows everything.  Without the
    bytes (a presigned upload not yet made) the type is guessed from the name."""
    raw = allowed_types.replace("|", ",")
    allowed = [entry.strip().lower() for entry in raw.split(",") if entry.strip()]
    if not allowed:
        return
    kind = sniff(head) if head is not None else \
        (mimetypes.guess_type(name)[0] or "application/octet-stream")
    extension = _extension(name)
    for entry in allowed:
        if entry == "*/*" or (entry.startswith(".") and entry == extension) or entry == kind \
                or (entry.endswith("/*") and kind.startswith(entry[:-1])):
            return
    raise InvalidInput(f"This file extension or type is not allowed to be uploaded. "
                       f"Type: {kind}")


# The Attachment record ----------------------------------------------------------------------

def download_url(uuid: str, external_url: str = "") -> str:
    """``browser_download_url``: the external link, or ``<ROOT_URL>attachments/<uuid>``."""
    if external_url:
        return external_url
    return f"{get_settings().app_url}attachments/{quote(uuid, safe='')}"


def attachment_record(attachment_id: int, *, name: str, size: int, download_count: int,
                      created: int, uuid: str, external_url: str = "") -> dict:
    """Forgejo's Attachment (of a release, an issue or a comment), field for field."""
    return {
        "id": int(attachment_id),
        "name": name,
        "size": int(size),
        "download_count": int(download_count),
        "created_at": rfc3339(created),
        "uuid": uuid,
        "browser_download_url": download_url(uuid, external_url),
        "type": "external" if external_url else "attachment",
    }
