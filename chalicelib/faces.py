"""A domain's face: the one door through which other packages use it.

Each domain's ``__init__.py`` names, in one table, the functions, types, errors and
constants that other domains, the pages, the jobs and the CLI may import::

    __all__, __getattr__, __dir__ = face(__name__, {
        "current_repo": "request",            # chalicelib.repos.request.current_repo
        "repo_by_id": "store.get_by_id",      # another name inside the domain
    })

and everything else in the package is the domain's own (``.importlinter``'s generated
``protected`` contracts fail a build that imports it from outside).

Why a table read on first use rather than ``from .request import current_repo`` lines:
importing a face must cost what importing the one module behind a name costs.  The
first request of a Lambda imports 57 of the package's modules; a face that imported
everything it names would pull whole domains into every cold start, and two domains
that each name the other's functions would import each other half-initialized.  Here
``from chalicelib.repos import current_repo`` imports ``chalicelib.repos.request`` and
nothing else, exactly as the direct import did.

``tests/test_structure.py`` reads the tables (``TABLES``) to see through faces when it
looks for import cycles, and checks that no face name hides a module of its package.
"""
from __future__ import annotations

import importlib
import sys
from typing import Any, Callable, Mapping

__all__ = ["face", "TABLES"]

# package -> {face name: (module, attribute)}, for the structure tests.
TABLES: dict[str, dict[str, tuple[str, str]]] = {}


def face(package: str, table: Mapping[str, str]) -> tuple[list[str], Callable[[str], Any],
                                                       Callable[[], list[str]]]:
    """``__all__``, ``__getattr__`` and ``__dir__`` for the package ``package``, whose face
    is ``table``: face name -> ``"module"`` (same name inside it) or ``"module.name"``."""
    resolved: dict[str, tuple[str, str]] = {}
    for name, where in table.items():
        module, _, inner = where.partition(".")
        resolved[name] = (f"{package}.{module}", inner or name)
    TABLES[package] = resolved

    def __getattr__(name: str) -> Any:
        try:
            module, inner = resolved[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r} "
                                 f"(its face is the table in {package}/__init__.py)") from None
        value = getattr(importlib.import_module(module), inner)
        # Later lookups find the attribute itself and skip this function.
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(resolved)

    return sorted(resolved), __getattr__, __dir__
