"""The request body of the OAuth2 applications API, declared once: the edge checks it
(``ApiRequest.option``) and ``/swagger.v1.json`` publishes it (``http.options``)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from chalicelib.http.options import UNSET, Option, UnsetType


class CreateOAuth2ApplicationOptions(Option):
    """userCreateOAuth2Application and userUpdateOAuth2Application (an edit sends the
    whole application again, as Forgejo's does)."""
    max_lengths: ClassVar[Mapping[str, int]] = {"name": 255}
    single_line: ClassVar[frozenset[str]] = frozenset({"name"})

    name: str | None | UnsetType = UNSET
    redirect_uris: list[str] | None | UnsetType = UNSET
    confidential_client: bool | None | UnsetType = UNSET
