"""The route table with every area loaded: the one loader that the gateway, the swagger
builder's callers and the benchmark use.

Importing an area module (``chalicelib.api.areas``) registers its routes; the gateway
does it on the first request, off the cold-start import of ``app.py``.
"""
from __future__ import annotations

from chalicelib.api.router import TABLE, RouteTable


def load_routes() -> RouteTable:
    import chalicelib.api.areas  # noqa: F401 - registers every route

    return TABLE
