"""A repository's cached language statistics: one item in the repository's partition.

| item | pk | sk | attributes |
|---|---|---|---|
| language stats | ``R#<repo>`` | ``LANGUAGES`` | ``commit`` (the tree the figures describe), ``sizes`` (JSON: {language: bytes}), ``version`` (1, 2, …), ``computed`` (epoch seconds) |

The events worker computes the figures after a push to the default branch and writes
them with a compare-and-swap on ``version``: absent before the first write, otherwise
the version it read.  A computation that started from older figures (a redelivered or
late event, two pushes handled at once) loses the swap instead of overwriting newer
figures; the worker then re-reads and starts again from what won.  The API reads the
item and nothing else; deleting the repository's partition removes it.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from chalicelib import clock
from chalicelib.languages.models import LanguageStatsItem
from chalicelib.store import unit_of_work

STATS = "language-stats"     # ConditionFailed label: someone else wrote the figures first


def stats_key(repo_id: int) -> tuple[str, str]:
    return f"R#{int(repo_id)}", "LANGUAGES"


@dataclass(frozen=True)
class Stats:
    """The cached figures as plain data; ``version`` 0 means none were computed yet."""
    commit: str = ""
    version: int = 0
    sizes: dict[str, int] = field(default_factory=dict)


def get(repo_id: int, *, consistent: bool = False) -> Stats:
    item = unit_of_work.get(LanguageStatsItem, stats_key(repo_id), consistent=consistent)
    if item is None:
        return Stats()
    sizes = {str(name): int(size) for name, size in json.loads(item.sizes or "{}").items()}
    return Stats(commit=item.commit or "", version=int(item.version or 0), sizes=sizes)


def save(repo_id: int, read: Stats, commit: str, sizes: dict[str, int]) -> Stats:
    """Replace the figures read as ``read`` by those of ``commit``; raises
    ``ConditionFailed(STATS)`` when they changed since."""
    pk, sk = stats_key(repo_id)
    written = Stats(commit=commit, version=read.version + 1,
                    sizes={name: int(size) for name, size in sizes.items() if size > 0})
    item = LanguageStatsItem(pk, sk, commit=commit, version=written.version,
                             sizes=json.dumps(written.sizes, sort_keys=True,
                                              separators=(",", ":")),
                             computed=clock.seconds())
    with unit_of_work.writing() as uow:
        if read.version:
            uow.put(item, label=STATS, condition=LanguageStatsItem.version == read.version)
        else:
            uow.put(item, label=STATS, must_not_exist=True)
    return written
