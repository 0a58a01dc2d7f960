"""The request bodies of the avatars domain, declared once: the edge checks them
(``ApiRequest.option``) and ``/swagger.v1.json`` publishes them (``http.options``)."""
from __future__ import annotations

from typing import ClassVar, Mapping

from chalicelib.http.input_rules import MAX_REQUEST_BODY
from chalicelib.http.options import Option

# The edge only bounds the text by what a Lambda request can carry; the decoded bytes
# are held to ``[picture] AVATAR_MAX_FILE_SIZE`` by the rule (413).
_LIMITS = {"image": MAX_REQUEST_BODY}


class UpdateUserAvatarOption(Option):
    """userUpdateAvatar, orgUpdateAvatar: ``image`` is the picture, base64-encoded.
    Forgejo's description marks it optional; a body without it is refused all the same."""
    max_lengths: ClassVar[Mapping[str, int]] = _LIMITS
    swagger_required = ()

    image: str


class UpdateRepoAvatarOption(Option):
    """repoUpdateAvatar: as ``UpdateUserAvatarOption``."""
    max_lengths: ClassVar[Mapping[str, int]] = _LIMITS
    swagger_required = ()

    image: str
