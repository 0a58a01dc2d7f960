"""Whole-table passes for operator maintenance (``chalicelib.repair``).

The only module that scans the table: a request never does.  Records come back as
their model instances (every store module is imported so each kind is known) and
their attributes as plain values; a fix is staged in the current unit of work as an
update of just the changed attributes, conditional on the item still existing.
"""
from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Iterator

from chalicelib.store import unit_of_work
from chalicelib.store.attributes import plain
from chalicelib.store.table import Item

# Key and index attributes identify the item: a repair never rewrites them.
KEY_ATTRIBUTES = frozenset({"pk", "sk", "kind", "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk"})


def _register_every_kind() -> None:
    import chalicelib.store as package

    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")


def scan_records(page_size: int = 100) -> Iterator[Item]:
    """Every item of the table, page by page."""
    _register_every_kind()
    yield from Item.scan(page_size=page_size)


def kind_of(record: Item) -> str:
    """The record's discriminator ("issue", "issuetracker", ...)."""
    return str(Item.kind.get_discriminator(type(record)))


def key_of(record: Item) -> tuple[str, str]:
    return record.pk, record.sk


def attributes(record: Item) -> dict[str, Any]:
    """The record's non-key attributes as plain values (maps as dicts)."""
    return {name: plain(value) for name, value in record.attribute_values.items()
            if name not in KEY_ATTRIBUTES}


def stage_fix(record: Item, changes: dict[str, Any], *, label: str = "repair") -> None:
    """Set ``changes`` (attribute name -> new plain value) on the stored record."""
    model = type(record)
    actions = [getattr(model, name).set(value) for name, value in changes.items()]
    if "version" in model.get_attributes():
        # Versioned records are written conditionally: an edit racing the repair fails
        # instead of writing the old text back.
        actions.append(model.version.add(1))
    unit_of_work.current().update(record, actions, label=label, condition=model.pk.exists())
