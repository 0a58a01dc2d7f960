"""The route table with every area loaded: the one loader that swagger, 404/405 answers,
the CLI, the benchmarks and the tests use.

Importing an area module (``chalicelib.areas``) registers its routes.  A request
that matches a route imports only that route's module (``chalicelib.http.route_index``);
when some modules came in that way first, the table is put back in the order one
import of every area gives, so precedence never depends on which request came first.
"""
from __future__ import annotations

import importlib

from chalicelib.http import route_index_data
from chalicelib.http.router import TABLE, RouteTable

# How many routes the table held when it was last put in order (a cheap "nothing
# changed" test: this runs on every streamed request).
ARRANGED = {"count": -1}


def load_routes() -> RouteTable:
    # The kernel names the areas, it does not import them: they stand above it.
    importlib.import_module(route_index_data.EVERY_AREA)     # registers every route

    if ARRANGED["count"] != len(TABLE.routes):
        TABLE.arrange(route_index_data.ORDER)
        ARRANGED["count"] = len(TABLE.routes)
    return TABLE
