"""Commit statuses: what CI systems report on a commit, and the combined state.

Operations (``routes.py``): repoListStatuses, repoCreateStatus,
repoGetCombinedStatusByRef, repoGetCombinedStatusByRefModern.

| module | what it holds |
|---|---|
| ``models`` | The statuses domain's items in the table: its models (and key layouts). |
| ``options`` | The request bodies of the statuses domain, declared once: the edge checks them (``ApiRequest.option``) … |
| ``records`` | Commit statuses -> Forgejo's CommitStatus and CombinedStatus records, field for field … |
| ``routes`` | Commit statuses (Forgejo's ``repository`` tag): create, list, combined status. |
| ``service`` | Commit statuses: create, list, and the combined status of a commit (Forgejo's rules). |
| ``store`` | Commit statuses in the table: a history per commit and one summary item per commit. |

| layer | modules |
|---|---|
| routes (thin handlers) | ``routes`` |
| records (Forgejo JSON) | ``records`` (CommitStatus, CombinedStatus) |
| rules | ``service`` (who may report, validation, the latest status per context, events) |
| storage | ``store`` (statuses and the per-commit summary item) |

Registered by ``chalicelib/areas.py``.  Pull requests read it (scheduled merges wait
on it: ``pulls/merging.py``, ``pulls/sync.py``) and the pull request page
shows it (``web/pull_view.py``).  It takes repositories, access and accounts from
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
