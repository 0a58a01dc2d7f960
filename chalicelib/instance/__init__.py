"""The instance itself: its version and API settings.

Operations (``routes.py``): getVersion, getGeneralAPISettings, getGeneralUISettings,
getGeneralRepositorySettings, getGeneralAttachmentSettings, getNodeInfo.

| module | what it holds |
|---|---|
| ``records`` | The instance's records: its version and its settings (Forgejo's definitions). |
| ``routes`` | Instance-wide endpoints: version and the settings clients read (API, UI, repository and attachment … |

Registered by ``chalicelib/areas.py``.
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
# Nothing yet: the instance domain only answers its routes.
__all__, __getattr__, __dir__ = face(__name__, {})
