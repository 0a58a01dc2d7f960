"""NIMBUS__* settings for a stretch of a test process (``chalicelib.settings.overridden``:
the settings are read once per process, so the cache is dropped on the way in and out,
and every variable is put back as it was)."""
from __future__ import annotations

from chalicelib.settings import overridden as settings_env  # noqa: F401 - the tests' name
