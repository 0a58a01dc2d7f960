"""The PushMirror record (fj:services/convert/mirror.go ToPushMirror), field for field:
the address without credentials, never the password."""
from __future__ import annotations

from chalicelib.http import schemas
from chalicelib.http.formats import go_duration, rfc3339
from chalicelib.http.schema_types import B, S, T, nullable

SCHEMAS = schemas.declare({
    "PushMirror": {
        "repo_name": S, "remote_name": S, "remote_address": S, "created": T,
        "last_update": nullable(T), "last_error": S, "interval": S, "sync_on_commit": B,
        "public_key": S, "branch_filter": S,
    },
}, lists=("PushMirror",))


def push_mirror(item, repo_name: str) -> dict:
    """``last_update`` is null until the first sync (Forgejo's AsTimePtr of zero)."""
    return {
        "repo_name": repo_name,
        "remote_name": item.sk.split("#", 1)[1],
        "remote_address": item.remote_address,
        "created": rfc3339(item.created),
        "last_update": rfc3339(item.last_update) if item.last_update else None,
        "last_error": item.last_error or "",
        "interval": go_duration(int(item.interval or 0)),
        "sync_on_commit": bool(item.sync_on_commit),
        "public_key": "",
        "branch_filter": item.branch_filter or "",
    }
