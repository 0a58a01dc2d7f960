"""Values read from raw PynamoDB attributes, as plain Python values."""
from __future__ import annotations

from typing import Any, Mapping

from pynamodb.attributes import MapAttribute, NumberSetAttribute, UnicodeSetAttribute


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


def values_for(model, snapshot: Mapping[str, Any] | None) -> dict:
    """The attributes of ``model`` found in ``snapshot`` (a record's stored values as an
    event carried them: sets arrived as lists), keys and discriminator left out, so a
    record can be rebuilt from them (never saved)."""
    attributes = model.get_attributes()
    out = {}
    for name, value in (snapshot or {}).items():
        attribute = attributes.get(name)
        if attribute is None or name in ("pk", "sk", "kind"):
            continue
        if isinstance(attribute, (NumberSetAttribute, UnicodeSetAttribute)):
            value = set(value) if value else None
        out[name] = value
    return out
