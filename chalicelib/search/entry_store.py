"""How every index of the search domain writes one item's entries: all the entries it
should have are put (so an indexing that follows a crash restores what a half-written
one left out), the ones its last indexing wrote that it no longer has are deleted, and
its document — the list of its entries — is written first, on condition of the version
read, so two indexings of one item never interleave (the loser reads again).
"""
from __future__ import annotations

import json
import logging
from typing import Callable

from chalicelib.errors import ConditionFailed
from chalicelib.store import unit_of_work
from chalicelib.store.table import Item


log = logging.getLogger("nimbus.search")

# Indexings of one item tried before giving up (each loss means another indexing of it
# committed: the next event brings it current again).
ATTEMPTS = 5


def until_current(label: str, index_once: Callable[[], None], what: str) -> None:
    """Run ``index_once`` (a read of the item as it is now, then its staged entries in
    one unit of work) again each time another indexing's document write (``label``)
    won the race, up to ``ATTEMPTS``."""
    for _ in range(ATTEMPTS):
        try:
            index_once()
            return
        except ConditionFailed as failed:
            if failed.label != label:
                raise
    log.warning("search index: %s changed during every attempt", what)


def written(doc) -> set[tuple[str, str]]:
    """The (pk, sk) of the entries a document lists (none without one)."""
    return {tuple(key) for key in json.loads(doc.entries)} if doc is not None else set()


def stage_entries(new_doc, read_doc, entries: list[Item], entry_model: type[Item], *,
                  label: str, entry_label: str) -> None:
    """Stage ``entries`` in place of what ``read_doc`` lists, with ``new_doc`` (its
    ``entries`` and ``version`` filled here) written first on condition of the version
    read (``label``)."""
    wanted = {(entry.pk, entry.sk) for entry in entries}
    version = int(read_doc.version) if read_doc is not None else 0
    new_doc.entries = json.dumps(sorted(wanted))
    new_doc.version = version + 1
    uow = unit_of_work.current()
    if read_doc is None:
        uow.put(new_doc, label=label, must_not_exist=True)
    else:
        uow.put(new_doc, label=label, condition=type(read_doc).version == version)
    for entry in entries:
        uow.put(entry, label=entry_label)
    for pk, sk in sorted(written(read_doc) - wanted):
        uow.delete(entry_model(pk, sk), label=entry_label)


def stage_removal(read_doc, entry_model: type[Item], *, label: str, entry_label: str) -> None:
    """The document and every entry it lists leave the index."""
    uow = unit_of_work.current()
    uow.delete(read_doc, label=label, condition=type(read_doc).version == int(read_doc.version))
    for pk, sk in sorted(written(read_doc)):
        uow.delete(entry_model(pk, sk), label=entry_label)
