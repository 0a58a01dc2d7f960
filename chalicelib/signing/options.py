"""The request bodies of the signing domain, declared once: the edge checks them
(``ApiRequest.option``) and ``/swagger.v1.json`` publishes them (``http.options``)."""
from __future__ import annotations

from chalicelib.http.options import UNSET, Option, UnsetType


class CreateGPGKeyOption(Option):
    """userCurrentPostGPGKey.  The key is required, but the rule says so, with Forgejo's
    own field name (``[ArmoredKey]: Required``), when it is missing, null or blank."""
    swagger_required = ("armored_public_key",)

    armored_public_key: str | None | UnsetType = UNSET
    armored_signature: str | None | UnsetType = UNSET
