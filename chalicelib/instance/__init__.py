"""The instance itself: its version and API settings.

Operations (``routes.py``): getVersion, getGeneralAPISettings.

| module | what it holds |
|---|---|
| ``routes`` | Instance-wide endpoints: version and API settings. |

Registered by ``chalicelib/areas.py``.
"""
