"""Swagger definitions of the records we send, gathered from the domains.

Each domain declares its records' definitions beside the code that builds them (its
``records`` modules: ``SCHEMAS = schemas.declare({...}, lists=(...))``), with Forgejo's
field names and types; ``swagger.py`` publishes them and tests check that what a route
answers has exactly those fields.  The bodies we accept are declared as typed options
in each domain's ``options.py`` (``http.options``).

The kernel knows no domain: the tables here fill as the records modules are imported.
Reading them (``RECORDS``, ``LISTS`` …) first loads every API area, so a reader sees
every definition whatever it imported before.
"""
from __future__ import annotations

from typing import Iterator, Mapping, Sequence

from chalicelib.http.schema_types import EMAIL, STRINGS, B, I, S, T, nullable, ref  # noqa: F401

Schemas = dict[str, dict[str, dict]]

_records: Schemas = {
    # The kernel's own: every error answer.
    "APIError": {"message": S, "url": S},
}
_lists: list[str] = []
_extension_records: Schemas = {}
_extension_lists: list[str] = []


def declare(records: Schemas, *, lists: tuple[str, ...] = ()) -> Schemas:
    """Register Forgejo records (name -> field schemas); ``lists``: those also answered
    as arrays (responses named ``<Record>List``).  Returns ``records``."""
    _add(_records, records)
    _lists.extend(name for name in lists if name not in _lists)
    return records


def declare_extension(records: Schemas, *, lists: tuple[str, ...] = ()) -> Schemas:
    """Register records of ours that Forgejo lacks (published apart from its own)."""
    _add(_extension_records, records)
    _extension_lists.extend(name for name in lists if name not in _extension_lists)
    return records


def _add(table: Schemas, records: Schemas) -> None:
    for name, fields in records.items():
        if table.get(name, fields) is not fields:
            raise ValueError(f"record {name!r} is declared twice")
        table[name] = fields


def _loaded() -> None:
    # Every records module is imported by a routes module; loading the areas imports them.
    from chalicelib.http.routes import load_routes

    load_routes()


class _Loaded(Mapping):
    """A table that loads every area before it is read; in name order, whatever order
    the areas were imported in."""

    def __init__(self, table):
        self._table = table

    def __getitem__(self, name):
        _loaded()
        return self._table[name]

    def __iter__(self) -> Iterator:
        _loaded()
        return iter(sorted(self._table))

    def __len__(self) -> int:
        _loaded()
        return len(self._table)


class _LoadedList(Sequence):
    """A list that loads every area before it is read."""

    def __init__(self, items):
        self._items = items

    def __getitem__(self, index):
        _loaded()
        return sorted(self._items)[index]

    def __len__(self) -> int:
        _loaded()
        return len(self._items)


RECORDS: Mapping[str, dict[str, dict]] = _Loaded(_records)
LISTS = _LoadedList(_lists)
EXTENSION_RECORDS: Mapping[str, dict[str, dict]] = _Loaded(_extension_records)
EXTENSION_LISTS = _LoadedList(_extension_lists)
