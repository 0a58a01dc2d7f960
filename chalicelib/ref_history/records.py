"""The ref history's records (Nimbus extensions, published in /swagger.v1.json beside
Forgejo's): ``RefActivity``, one ref move, and ``RefRestored``, what a restore did.

``actor`` is the mover's User record as the caller may see it, null when the account
is gone; ``actor_login`` keeps the name it had then.  ``action`` is ``created``,
``updated`` or ``deleted``; a created ref has ``old_sha`` all zeros, a deleted one
``new_sha``.
"""
from __future__ import annotations

from chalicelib import accounts
from chalicelib.http import schemas
from chalicelib.http.formats import rfc3339
from chalicelib.http.schema_types import B, I, S, T, nullable, ref

SCHEMAS = schemas.declare_extension({
    "RefActivity": {"id": I, "ref": S, "old_sha": S, "new_sha": S, "forced": B, "action": S,
                    "via": S, "actor": nullable(ref("User")), "actor_login": S, "created": T},
    "RefRestored": {"ref": S, "old_sha": S, "new_sha": S, "restored_from": I, "changed": B},
}, lists=("RefActivity",))


def ref_activity(entry, actor, viewer) -> dict:
    """A RefActivity for a stored entry; ``actor``: the mover's account, or None."""
    return {"id": int(entry.id), "ref": entry.ref, "old_sha": entry.old, "new_sha": entry.new,
            "forced": bool(entry.forced), "action": entry.action, "via": entry.via or "",
            "actor": accounts.user_record(actor, viewer) if actor is not None else None,
            "actor_login": entry.actor_login, "created": rfc3339(entry.created)}


def ref_restored(restored) -> dict:
    """A RefRestored for ``service.Restored``."""
    return {"ref": restored.ref, "old_sha": restored.old, "new_sha": restored.new,
            "restored_from": int(restored.entry_id), "changed": bool(restored.changed)}
