"""Values read from raw PynamoDB attributes, as plain Python values."""
from __future__ import annotations

from typing import Any

from pynamodb.attributes import MapAttribute


def plain(value: Any) -> Any:
    """A value read from a raw MapAttribute as plain dicts/lists/ints."""
    if isinstance(value, MapAttribute):
        value = value.as_dict()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
