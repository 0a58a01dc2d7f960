"""The request body of the wiki API, declared once: the edge checks it
(``ApiRequest.option``) and ``/swagger.v1.json`` publishes it (``http.options``)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from chalicelib.http.options import UNSET, Option, UnsetType


class CreateWikiPageOptions(Option):
    """repoCreateWikiPage and repoEditWikiPage: the title (an edit's empty one keeps the
    page's name), the content in base64, an optional commit message."""
    # A page holds what a request may carry; the title names a file (git's 255 bytes
    # of a path component, with room for the escaping).
    max_lengths: ClassVar[Mapping[str, int]] = {"title": 255, "message": 65536}
    single_line: ClassVar[frozenset[str]] = frozenset({"title"})

    title: str | None | UnsetType = UNSET
    content_base64: str | None | UnsetType = UNSET
    message: str | None | UnsetType = UNSET
