"""The Hook record (fj:services/webhook/general.go ToHook), field for field."""
from __future__ import annotations

from chalicelib.http import schemas
from chalicelib.http.formats import rfc3339
from chalicelib.http.schema_types import STRINGS, B, I, S, T, nullable

# The records' Swagger definitions: Forgejo's names, fields and types, published by
# /swagger.v1.json (``http.schemas``) and checked against what this module builds.
_STRING_MAP = {"type": "object", "additionalProperties": S}
SCHEMAS = schemas.declare({
    "Hook": {
    "id": I, "type": S, "branch_filter": S, "url": S, "config": _STRING_MAP, "events": STRINGS,
    "authorization_header": S, "content_type": S,
    "metadata": {},   # Forgejo's is untyped: null, or the hook type's settings object
    "active": B, "updated_at": T, "created_at": T,
},
}, lists=("Hook",))

_NUMBER = {"type": "number"}
_DELIVERY = {
    "id": I, "guid": S, "delivered_at": nullable(T), "redelivery": B, "duration": _NUMBER,
    "status": S, "status_code": I, "event": S, "action": nullable(S),
    "installation_id": nullable(I), "repository_id": nullable(I), "throttled_at": nullable(T),
    "hook_id": I, "event_type": S, "state": S, "attempts": I, "next_attempt_at": nullable(T),
}
_OBJECT = {"type": "object"}
EXTENSION_SCHEMAS = schemas.declare_extension({
    "HookDelivery": _DELIVERY,
    "HookDeliveryDetail": {
        **_DELIVERY, "url": S,
        "request": {"type": "object", "properties": {"headers": _OBJECT,
                                                     "payload": nullable(_OBJECT)}},
        "response": {"type": "object", "properties": {"headers": _OBJECT,
                                                      "payload": nullable(S)}},
        "attempt_history": {"type": "array", "items": _OBJECT},
    },
}, lists=("HookDelivery",))


def hook(item) -> dict:
    """A Hook record from a stored ``Hook``: never the secret; the deprecated ``config``
    holds url and content_type (and slack's settings), as Forgejo's ToHook."""
    from chalicelib.webhooks import service as hooks

    meta = hooks.metadata(item)
    config = {"url": item.url, "content_type": item.content_type}
    if item.hook_type == "slack":
        config.update(meta)
    return {
        "id": int(item.id),
        "type": item.hook_type,
        "branch_filter": item.branch_filter,
        "url": item.url,
        "config": config,
        "events": hooks.events_array(item),
        "authorization_header": item.authorization_header,
        "content_type": item.content_type,
        "metadata": meta,
        "active": bool(item.active),
        "updated_at": rfc3339(item.updated),
        "created_at": rfc3339(item.created),
    }
