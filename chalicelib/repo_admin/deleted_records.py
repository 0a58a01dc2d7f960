"""The DeletedRepository record (a Nimbus extension; ``deleted_routes.py``): a deleted
repository kept restorable, as ``repoListDeleted`` lists it."""
from __future__ import annotations

from chalicelib.http import schemas
from chalicelib.http.formats import rfc3339
from chalicelib.http.schema_types import B, I, S, T

EXTENSION_SCHEMAS = schemas.declare_extension({
    "DeletedRepository": {
        "id": I, "owner": S, "name": S, "full_name": S, "private": B, "deleted_at": T,
        "purge_at": T, "deleted_by": S, "size": I,
    },
    # repoRestoreDeleted's body (``lifecycle_options.RestoreDeletedRepoOption``).
    "RestoreDeletedRepoOption": {"name": S},
}, lists=("DeletedRepository",))


def deleted_repository(listing) -> dict:
    """``listing``: a ``deletion.DeletedListing``; ``size`` in bytes (packs and Git LFS
    objects, as the repository's quota counted them)."""
    record, owner = listing.record, listing.owner_login
    return {"id": int(record.repo_id), "owner": owner, "name": record.name,
            "full_name": f"{owner}/{record.name}", "private": bool(record.private),
            "deleted_at": rfc3339(record.deleted_at), "purge_at": rfc3339(record.purge_at),
            "deleted_by": record.deleted_by, "size": int(listing.size)}
