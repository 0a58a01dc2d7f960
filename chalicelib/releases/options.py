"""The request bodies of the releases domain, declared once: the edge checks them
(``ApiRequest.option``) and ``/swagger.v1.json`` publishes them (``http.options``)."""
from __future__ import annotations

from typing import ClassVar, Mapping

from chalicelib.http import input_rules
from chalicelib.http.options import UNSET, Option, UnsetType
# Shared with issue and comment attachments (one definition per Forgejo name).
from chalicelib.http.uploads import EditAttachmentOptions  # noqa: F401


class ReleaseFields(Option, kw_only=True):
    """The fields a release's create and edit share.  Not a definition of its own."""
    published = False

    target_commitish: str | None | UnsetType = UNSET
    name: str | None | UnsetType = UNSET
    body: str | None | UnsetType = UNSET
    draft: bool | None | UnsetType = UNSET
    prerelease: bool | None | UnsetType = UNSET
    hide_archive_links: bool | None | UnsetType = UNSET


class CreateReleaseOption(ReleaseFields, kw_only=True):
    """repoCreateRelease (and the browser's new-release form).  A null or blank tag
    name reaches the rule, which answers "Required"; an empty title is the rule's too."""
    max_lengths: ClassVar[Mapping[str, int]] = {"tag_name": 255, "target_commitish": 255, "name": 255,
                       "body": input_rules.BODY_MAX}
    single_line: ClassVar[frozenset[str]] = frozenset({"tag_name", "target_commitish", "name"})
    published = True

    tag_name: str | None


class EditReleaseOption(ReleaseFields, kw_only=True):
    """repoEditRelease: a text changes when it is sent non-empty, a flag when it is sent
    (left out or null, either stays as it is)."""
    max_lengths: ClassVar[Mapping[str, int]] = {"tag_name": 255, "target_commitish": 255, "name": 255,
                       "body": input_rules.BODY_MAX}
    single_line: ClassVar[frozenset[str]] = frozenset({"tag_name", "target_commitish", "name"})
    published = True

    tag_name: str | None | UnsetType = UNSET
