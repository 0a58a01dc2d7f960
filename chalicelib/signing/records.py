"""GPGKey records (fj:services/convert/convert.go ToGPGKey), field for field."""
from __future__ import annotations

import json

from chalicelib.http import formats
from chalicelib.http import schemas
from chalicelib.http.schema_types import B, I, S, T, ref

# The records' Swagger definitions: Forgejo's names, fields and types, published by
# /swagger.v1.json (``http.schemas``) and checked against what this module builds.
SCHEMAS = schemas.declare({
    "GPGKeyEmail": {"email": S, "verified": B},
    "GPGKey": {
    "id": I, "primary_key_id": S, "key_id": S, "public_key": S,
    "emails": {"type": "array", "items": ref("GPGKeyEmail")},
    "subkeys": {"type": "array", "items": ref("GPGKey")}, "can_sign": B,
    "can_encrypt_comms": B, "can_encrypt_storage": B, "can_certify": B, "verified": B,
    "created_at": T, "expires_at": T,
},
}, lists=("GPGKey",))


def _time(seconds: int) -> str:
    return formats.rfc3339(seconds) if seconds else "0001-01-01T00:00:00Z"


def gpg_key_record(item) -> dict:
    """A GPGKey record (Forgejo's field set).  A subkey is verified on its own, when a
    token signed by it was verified under its id (Forgejo's subkey rows): verifying the
    primary key leaves its subkeys' flags as they were, as in Forgejo."""
    emails = [{"email": e, "verified": True} for e in json.loads(item.emails)]
    subkeys = [{
        "id": 0, "primary_key_id": item.key_id, "key_id": s["key_id"],
        "public_key": s.get("public_key", ""), "emails": [], "subkeys": [],
        "can_sign": s["can_sign"], "can_encrypt_comms": s["can_encrypt_comms"],
        "can_encrypt_storage": s["can_encrypt_storage"], "can_certify": s["can_certify"],
        "verified": bool(s.get("verified", False)), "created_at": _time(s["created"]),
        "expires_at": _time(s["expires"]),
    } for s in json.loads(item.subkeys)]
    return {
        "id": int(item.id), "primary_key_id": "", "key_id": item.key_id,
        "public_key": item.public_key, "emails": emails, "subkeys": subkeys,
        "can_sign": bool(item.can_sign), "can_encrypt_comms": bool(item.can_encrypt_comms),
        "can_encrypt_storage": bool(item.can_encrypt_storage),
        "can_certify": bool(item.can_certify), "verified": bool(item.verified),
        "created_at": _time(int(item.created)), "expires_at": _time(int(item.expires)),
    }
