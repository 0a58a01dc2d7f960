"""NIMBUS__* settings for a stretch of a test process: the settings are read once per
process, so the cache is dropped on the way in and out, and every variable is put back
as it was."""
from __future__ import annotations

import contextlib
import os
from typing import Iterator


@contextlib.contextmanager
def settings_env(values: dict[str, str]) -> Iterator[None]:
    from chalicelib.settings import reset_settings_cache

    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    reset_settings_cache()
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        reset_settings_cache()
