"""The instance's records: its version and its API settings (Forgejo's definitions)."""
from __future__ import annotations

from chalicelib.http import schemas
from chalicelib.http.schema_types import I, S

# The records' Swagger definitions: Forgejo's names, fields and types, published by
# /swagger.v1.json (``http.schemas``) and checked against what this module builds.
SCHEMAS = schemas.declare({
    "ServerVersion": {"version": S},
    "GeneralAPISettings": {
        "max_response_items": I, "default_paging_num": I, "default_git_trees_per_page": I,
        "default_max_blob_size": I,
    },
})
