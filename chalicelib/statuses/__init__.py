"""Commit statuses: what CI systems report on a commit, and the combined state.

Operations (``routes.py``): repoListStatuses, repoCreateStatus,
repoGetCombinedStatusByRef (``[api] STATUS_ROUTES``: the combined status or, with
``forgejo``, the list), repoGetCombinedStatusByRefModern.

| layer | modules |
|---|---|
| routes (thin handlers) | ``routes`` |
| records (Forgejo JSON) | ``records`` (CommitStatus, CombinedStatus) |
| rules | ``service`` (who may report, validation, the latest status per context, events) |
| storage | ``store`` (statuses and the per-commit summary item) |

Registered by ``chalicelib/areas.py``.  Pull requests read it (scheduled merges wait
on it: ``pulls/merging.py``, ``pulls/sync.py``) and the pull request page
shows it (``web/issue_pages.py``).  It takes repositories, access and accounts from
``services`` and the repository record from ``repos.records``.
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "combined_status_record":  "records.combined_status",
    "combined_state":          "service",
    "combined_status":         "service",
    "status_summary":          "store.get_summary",
    "status_summary_key":      "store.summary_key",
})
