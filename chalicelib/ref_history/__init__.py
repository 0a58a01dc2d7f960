"""The ref history: every move of a repository's branches and tags (a push, a merge,
the API, a mirror sync), who made it, old and new tip, forced or not, kept
``[repository] REF_HISTORY_DAYS`` days, and the undo of a move (a ref put back to an
earlier tip, subject to the protection rules), with what it may restore kept by pack
compaction (``kept_tips``).

Registered by ``chalicelib/areas.py``; ``jobs/consumers.py`` runs ``on_event`` for
``RepositoryPushed``; ``jobs/schedules.compact_packs`` passes ``kept_tips`` to
``gitstore.compact_pool``.

Operations (``routes.py``): repoListRefActivity, repoRestoreRef.

| module | what it holds |
|---|---|
| ``consumers`` | What the ref history records: the consumer of ``RepositoryPushed`` (every ref move goes through … |
| ``models`` | The ref history's items in the table: its model and key layouts. |
| ``records`` | The ref history's records (Nimbus extensions, published in /swagger.v1.json beside Forgejo's): … |
| ``routes`` | The ref history and its undo (Nimbus extensions under the ``repository`` tag): every move of a branch or … |
| ``service`` | The ref history as the API reads it, and the undo of a move (``restore``). |
| ``store`` | Ref history entries in the table (the layout is ``models.py``'s). |
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "EVENT_TYPES":   "consumers",
    "on_event":      "consumers",
    "wants_event":   "consumers",
    # Pack compaction keeps what the live history may restore.
    "kept_tips":     "service",
    # The ref history page (chalicelib/web/ref_history_pages.py).
    "RefFilter":     "service",
    "list_ref_activity": "service.list_activity",
    "restore_ref":   "service.restore",
    "ref_short_name": "service.short_name",
})
