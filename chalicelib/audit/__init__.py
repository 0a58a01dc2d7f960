"""The audit log: every change the domain events record (who, what, to what, the fields
before and after, the request and address, when), kept ``[audit] RETENTION_DAYS`` and
exported daily to the bucket as JSON lines; read by site admins and organization owners.

Registered by ``chalicelib/areas.py``; ``jobs/consumers.py`` runs ``on_event`` for every
event type but background scheduling notes, ``jobs/schedules.py`` runs ``export_recent``
daily.  It reads accounts and repositories through the faces of ``accounts``, ``repos``
and ``orgs``.

Operations (``routes.py``): adminListAuditLog, orgListAuditLog.

| module | what it holds |
|---|---|
| ``consumers`` | The audit-log consumer: every domain event that records a change becomes an entry. |
| ``entries`` | The audit log's rules: a domain event becomes one entry, plain data, without storage. |
| ``export`` | The daily export of the audit log to the bucket, as JSON lines. |
| ``models`` | The audit domain's items in the table: its models and key layouts. |
| ``records`` | The AuditLogEntry record (a Nimbus extension: Forgejo has no audit log), as the two lists answer it and … |
| ``routes`` | The audit log's two lists: the instance's for site admins, an organization's for its owners (Nimbus … |
| ``scrub`` | The audit log's scrubbing and change rules, without storage: what of a snapshot an entry may show, and a … |
| ``service`` | The audit log as the API reads it: who may read which part, the filters, a page. |
| ``store`` | Audit entries in the table (the layout is ``models.py``'s). |
| ``targets`` | What each kind of domain event says in the audit log: its action, its target, its changes and the few … |
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "EVENT_TYPES":     "consumers",
    "on_event":        "consumers",
    "wants_event":     "consumers",
    "export_recent":   "export",
    "export_day":      "export",
    # The audit log pages (chalicelib/web/audit_pages.py) read it as the two lists do.
    "AuditQuery":      "service",
    "query_of":        "service",
    "instance_page":   "service",
    "org_page":        "service",
    "audit_entry":     "records",
})
