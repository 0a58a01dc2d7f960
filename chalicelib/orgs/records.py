"""Organization and Team records (fj:services/convert/convert.go), field for field."""
from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.accounts import avatar_url
from chalicelib.http import schemas
from chalicelib.http.formats import rfc3339
from chalicelib.http.schema_types import STRINGS, B, I, S, T, ref

if TYPE_CHECKING:
    from chalicelib.accounts import Account

# The records' Swagger definitions: Forgejo's names, fields and types, published by
# /swagger.v1.json (``http.schemas``) and checked against what this module builds.
SCHEMAS = schemas.declare({
    "Organization": {
        "id": I, "name": S, "username": S, "full_name": S, "email": S, "avatar_url": S,
        "description": S, "website": S, "location": S, "visibility": S,
        "repo_admin_change_team_access": B, "created": T,
    },
    "Team": {
        "id": I, "name": S, "description": S, "organization": ref("Organization"),
        "includes_all_repositories": B, "permission": S, "units": STRINGS,
        "units_map": {"type": "object", "additionalProperties": S}, "can_create_org_repo": B,
    },
}, lists=("Organization", "Team"))


def organization(org: Account) -> dict:
    return {
        "id": int(org.id),
        "name": org.login,
        "username": org.login,
        "full_name": org.full_name,
        "email": org.email,
        "avatar_url": avatar_url(org),
        "description": org.description,
        "website": org.website,
        "location": org.location,
        "visibility": org.visibility,
        "repo_admin_change_team_access": bool(org.repo_admin_change_team_access),
        "created": rfc3339(org.created),
    }


def team(item, org: Account) -> dict:
    import json

    units_map = json.loads(item.units_map or "{}")
    if item.permission == "owner" and not units_map:
        from chalicelib.repos import UNITS
        units_map = {unit: "owner" for unit in UNITS}
    return {
        "id": int(item.id),
        "name": item.name,
        "description": item.description,
        "organization": organization(org),
        "includes_all_repositories": bool(item.includes_all_repositories),
        "permission": item.permission,
        "units": list(item.units),
        "units_map": units_map,
        "can_create_org_repo": bool(item.can_create_org_repo),
    }
