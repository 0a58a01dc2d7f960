"""The Hook record (fj:services/webhook/general.go ToHook), field for field."""
from __future__ import annotations

from chalicelib.http.formats import rfc3339


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
