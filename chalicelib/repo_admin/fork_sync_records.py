"""The SyncForkInfo record (fj:services/repository/sync_fork.go), field for field."""
from __future__ import annotations

from chalicelib.http import schemas
from chalicelib.http.schema_types import B, I, S

SCHEMAS = schemas.declare({
    "SyncForkInfo": {"allowed": B, "commits_behind": I, "base_commit": S, "fork_commit": S},
})


def sync_fork_info(info) -> dict:
    """From ``fork_sync.SyncInfo``: empty texts where Forgejo leaves them unset."""
    return {"allowed": bool(info.allowed), "commits_behind": int(info.commits_behind),
            "base_commit": info.base_commit, "fork_commit": info.fork_commit}
