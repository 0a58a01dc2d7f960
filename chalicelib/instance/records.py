"""The instance's records: its version and its settings (Forgejo's definitions)."""
from __future__ import annotations

from chalicelib.http import schemas
from chalicelib.http.schema_types import B, I, S, ref

# The records' Swagger definitions: Forgejo's names, fields and types, published by
# /swagger.v1.json (``http.schemas``) and checked against what this module builds.
SCHEMAS = schemas.declare({
    "ServerVersion": {"version": S},
    "GeneralAPISettings": {
        "max_response_items": I, "default_paging_num": I, "default_git_trees_per_page": I,
        "default_max_blob_size": I,
    },
    "GeneralUISettings": {
        "allowed_reactions": {"type": "array", "items": S}, "custom_emojis":
            {"type": "array", "items": S}, "default_theme": S,
    },
    "GeneralRepoSettings": {
        "forks_disabled": B, "http_git_disabled": B, "lfs_disabled": B,
        "migrations_disabled": B, "mirrors_disabled": B, "stars_disabled": B,
        "time_tracking_disabled": B,
    },
    "GeneralAttachmentSettings": {
        "allowed_types": S, "enabled": B, "max_files": I, "max_size": I,
    },
    "NodeInfo": {
        "version": S, "software": ref("NodeInfoSoftware"), "protocols":
            {"type": "array", "items": S}, "services": ref("NodeInfoServices"),
        "openRegistrations": B, "usage": ref("NodeInfoUsage"), "metadata": {"type": "object"},
    },
    "NodeInfoSoftware": {"name": S, "version": S, "repository": S, "homepage": S},
    "NodeInfoServices": {"inbound": {"type": "array", "items": S},
                         "outbound": {"type": "array", "items": S}},
    "NodeInfoUsage": {"users": ref("NodeInfoUsageUsers"), "localPosts": I, "localComments": I},
    "NodeInfoUsageUsers": {"total": I, "activeHalfyear": I, "activeMonth": I},
})
