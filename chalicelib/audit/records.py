"""The AuditLogEntry record (a Nimbus extension: Forgejo has no audit log), as the two
lists answer it and the daily export writes it, one JSON object a line."""
from __future__ import annotations

from chalicelib.audit.entries import Entry
from chalicelib.http import schemas
from chalicelib.http.formats import rfc3339
from chalicelib.http.schema_types import I, S, T, nullable

_OBJECT = {"type": "object"}
_NAMED = {"type": "object", "properties": {"id": I, "login": S}}
SCHEMAS = schemas.declare_extension({
    "AuditLogEntry": {
        "id": S, "action": S, "actor": nullable(_NAMED),
        "target": {"type": "object", "properties": {"kind": S, "id": I, "name": S}},
        # {field: {"before": …, "after": …}} for every field the change touched.
        "changes": {"type": "object", "additionalProperties": {
            "type": "object", "properties": {"before": {}, "after": {}}}},
        "details": _OBJECT,
        "repo": nullable({"type": "object", "properties": {"id": I, "full_name": S}}),
        "owner": nullable(_NAMED),
        "request_id": S, "address": S, "created_at": T,
    },
}, lists=("AuditLogEntry",))


def audit_entry(entry: Entry) -> dict:
    """The AuditLogEntry of a stored entry (the actor, repository and owner as they were
    named when it happened)."""
    return {
        "id": entry.event_id,
        "action": entry.action,
        "actor": {"id": entry.actor_id, "login": entry.actor_login} if entry.actor_id else None,
        "target": dict(entry.target),
        "changes": dict(entry.changes),
        "details": dict(entry.details),
        "repo": {"id": entry.repo_id, "full_name": entry.repo_name} if entry.repo_id else None,
        "owner": {"id": entry.owner_id, "login": entry.owner_login} if entry.owner_id else None,
        "request_id": entry.request_id,
        "address": entry.address,
        "created_at": rfc3339(entry.time),
    }
