"""The git storage engine: dulwich over S3 (packs) and DynamoDB (pack list, refs).

Modules (dulwich is imported only by the starred ones, so ``import chalicelib.gitstore``
and the data-only helpers stay cheap for the API Lambda's cold start):

* ``models``      - PynamoDB items and key layouts (the table of keys is in its docstring)
* ``errors``      - typed errors, each also a ``chalicelib.errors`` kind
* ``refdb``       - refs in DynamoDB: conditional writes, multi-ref transactions, and
                    the same compare-and-swaps staged in a caller's unit of work
* ``packdb``      - pack files in S3, the live pack list, retirement and sweeping
* ``cache``       - the bounded local-disk cache of pack files
* ``objects``*    - ``S3ObjectStore``
* ``ranged``*     - reading single objects of big packs with ranged GETs
* ``refs``*       - ``DynamoRefsContainer``
* ``repo``*       - ``NimbusRepo``, ``open_repo``, ``init_repo``
* ``object_sizes`` - object types and sizes from pack entry headers, without inflating
* ``smart_http``* - ``advertise``, ``upload_pack(_stream)``, ``receive_pack`` (v0/v1)
* ``protocol_v2``* - protocol v2: capabilities, ``ls-refs``, ``fetch``
* ``negotiation``* - when a fetch is ``ready``, where a shallow fetch cuts history
* ``pack_filter`` - partial clone filter specs
* ``upload_pack``* - ``build_pack``: the one place a fetch's pack is made
* ``pack_writer``* - that pack's bytes: stored entries copied in pieces
* ``pack_tips``   - what a main pack was built from (its tips and heads)
* ``pack_reuse``* - a clone from the main pack's bytes
* ``compaction``* - ``compact_pool`` (one main pack per repository, with its tips)

The names below are importable from the package; each loads its module on first use.
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "open_repo": "repo", "init_repo": "repo", "NimbusRepo": "repo",
    "delete_repo_refs": "refdb", "commit_updates": "refdb", "load_refs": "refdb",
    "S3ObjectStore": "objects", "DynamoRefsContainer": "refs",
    "retire_packs": "packdb", "delete_pool": "packdb", "sweep_pool": "packdb",
    "list_packs": "packdb",
    "advertise": "smart_http", "upload_pack": "smart_http", "receive_pack": "smart_http",
    "compact_pool": "compaction",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
