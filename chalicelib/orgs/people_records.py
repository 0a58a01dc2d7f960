"""OrganizationPermissions records (fj:routers/api/v1/org/org.go)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.http import schemas
from chalicelib.http.schema_types import B

if TYPE_CHECKING:
    from chalicelib.orgs.people import OrgPermissions

SCHEMAS = schemas.declare({
    "OrganizationPermissions": {
        "can_read": B, "can_write": B, "is_admin": B, "is_owner": B,
        "can_create_repository": B,
    },
})


def organization_permissions(found: OrgPermissions) -> dict:
    return {
        "can_read": found.can_read,
        "can_write": found.can_write,
        "is_admin": found.is_admin,
        "is_owner": found.is_owner,
        "can_create_repository": found.can_create_repository,
    }
