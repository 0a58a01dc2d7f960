"""A repository's language statistics: detection by path and content, kept in step by a
consumer of pushes.

Operations (``routes.py``): repoGetLanguages.

| module | what it holds |
|---|---|
| ``consumers`` | The internal consumer that keeps each repository's language statistics in step with its default branch … |
| ``detection`` | Which language a file of a repository counts towards, by its path and the repository's root … |
| ``models`` | The languages domain's items in the table: its models (and key layouts). |
| ``routes`` | A repository's language statistics (Forgejo's ``repoGetLanguages``, ``repository`` tag): bytes per … |
| ``service`` | A repository's language statistics (Forgejo's ``repoGetLanguages``): bytes per language on the default … |
| ``store`` | A repository's cached language statistics: one item in the repository's partition. |

Registered by ``chalicelib/areas.py``; the consumer by ``chalicelib/jobs/consumers.py``.
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "EVENT_TYPES":  "consumers",
    "on_event":     "consumers",
    "repo_languages":  "service.cached",
    "wants_event":  "consumers",
})
