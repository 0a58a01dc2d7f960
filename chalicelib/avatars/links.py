"""Where an avatar is served and stored: one key names it, from what a record already has.

| avatar | URL (outside /api/v1) | S3 object |
|---|---|---|
| an account's identicon (user or organization) | ``avatars/a<account id>`` | none: drawn on request |
| an account's upload | ``avatars/a<account id>-<sha256 of the PNG>`` | ``avatars/a/<account id>/<sha256>.png`` |
| a repository's identicon | ``avatars/r<repo id>`` | none |
| a repository's upload | ``avatars/r<repo id>-<sha256>`` | ``avatars/r/<repo id>/<sha256>.png`` |

The account or repository item keeps the content hash of its upload (``avatar``), so a
record's ``avatar_url`` costs no read, and the URL changes whenever the picture does:
whatever a URL answers never changes, which is why it may be cached for a year.  Ids,
not names, so a rename or a transfer keeps the picture and its URL.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from chalicelib.http.formats import app_url

ACCOUNT = "a"
REPOSITORY = "r"
PREFIX = "avatars/"
# The kind, the id, and the upload's SHA-256 when there is one.
_KEY = re.compile(r"^(?P<kind>[ar])(?P<id>[1-9][0-9]{0,18})(?:-(?P<digest>[0-9a-f]{64}))?$")


@dataclass(frozen=True)
class AvatarKey:
    kind: str           # ACCOUNT | REPOSITORY
    subject_id: int
    digest: str         # "" for the identicon

    @property
    def path(self) -> str:
        tail = f"-{self.digest}" if self.digest else ""
        return f"{self.kind}{self.subject_id}{tail}"

    @property
    def object_key(self) -> str:
        """The upload's S3 key (an identicon has none)."""
        return f"{PREFIX}{self.kind}/{self.subject_id}/{self.digest}.png"

    @property
    def seed(self) -> str:
        """What the identicon is drawn from: the same for every picture of a subject."""
        return f"{self.kind}{self.subject_id}"


def avatar_key(kind: str, subject_id: int, digest: str | None = "") -> AvatarKey:
    return AvatarKey(kind, int(subject_id), digest or "")


def avatar_link(kind: str, subject_id: int, digest: str | None = "") -> str:
    """The ``avatar_url`` of an account (``ACCOUNT``) or a repository (``REPOSITORY``)
    whose item keeps ``digest`` (empty: none uploaded, the identicon)."""
    return app_url() + PREFIX + avatar_key(kind, subject_id, digest).path


def parse(text: str) -> AvatarKey | None:
    """The key a URL's last segment names, None when it names none."""
    found = _KEY.match(text or "")
    if found is None:
        return None
    return AvatarKey(found["kind"], int(found["id"]), found["digest"] or "")
