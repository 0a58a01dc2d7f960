"""The request bodies of the signing domain, declared once: the edge checks them
(``ApiRequest.option``) and ``/swagger.v1.json`` publishes them (``http.options``)."""
from __future__ import annotations

from typing import Annotated, Any, ClassVar, Mapping

from chalicelib.http import input_rules
from chalicelib.http.options import UNSET, Meta, Option, UnsetType

# Published as a string; no rule reads it, so any value is ignored (as it was before
# the edge checked bodies).
IgnoredText = Annotated[Any, Meta(extra={"type": "string"})]


class CreateGPGKeyOption(Option):
    """userCurrentPostGPGKey.  The key is required, but the rule says so, with Forgejo's
    own field name (``[ArmoredKey]: Required``), when it is missing, null or blank; a
    key that is not a text gets that answer too."""
    max_lengths: ClassVar[Mapping[str, int]] = {"armored_public_key": input_rules.BODY_MAX,
                       "armored_signature": input_rules.BODY_MAX}
    single_line: ClassVar[frozenset[str]] = frozenset()
    swagger_required = ("armored_public_key",)
    texts = {("ArmoredPublicKey", "type"): "[ArmoredKey]: Required"}

    armored_public_key: str | None | UnsetType = UNSET
    armored_signature: IgnoredText | UnsetType = UNSET


class VerifyGPGKeyOption(Option):
    """userVerifyGPGKey.  Forgejo's binding requires both fields and names them by their
    Go names: a missing, null, blank or non-text one is the rule's ``[KeyID]: Required``
    or ``[Signature]: Required`` (the key id first).  Forgejo publishes only ``key_id``
    as required."""
    max_lengths: ClassVar[Mapping[str, int]] = {"key_id": 64,
                                                "armored_signature": input_rules.BODY_MAX}
    single_line: ClassVar[frozenset[str]] = frozenset({"key_id"})
    swagger_required = ("key_id",)
    texts: ClassVar[dict[tuple[str, str], str]] = {
        ("KeyId", "type"): "[KeyID]: Required",
        ("ArmoredSignature", "type"): "[Signature]: Required"}

    key_id: str | None | UnsetType = UNSET
    armored_signature: str | None | UnsetType = UNSET
