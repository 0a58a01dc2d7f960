"""The instance itself: its version and API settings.

Operations (``routes.py``): getVersion, getGeneralAPISettings.

| module | what it holds |
|---|---|
| ``records`` | The instance's records: its version and its API settings (Forgejo's definitions). |
| ``routes`` | Instance-wide endpoints: version and API settings. |

Registered by ``chalicelib/areas.py``.
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
# Nothing yet: the instance domain only answers its routes.
__all__, __getattr__, __dir__ = face(__name__, {})
