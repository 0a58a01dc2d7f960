"""What a main pack was built from: its tips and heads.

A pack is *closed* over a set of tips when it holds exactly the objects they reach.
Such a pack can be sent verbatim to a client that may see everything the tips reach
(``pack_reuse.py``).  Two writers make one: compaction, and a push into an empty pool
whose pack turns out closed over the refs it sets (``objects.S3ObjectStore``).

The record lives in two places:

- the ``.tips`` file next to the pack in S3 (JSON: ``format``, ``tips``, ``heads``),
  always, written before the pack is published: compaction reads it back to decide
  whether a pack is up to date, and it has room for any number of refs;
- the pack's own DynamoDB item, when there are at most ``IN_RECORD_MAX`` tips: the pack
  listing every clone reads anyway then carries it, so a clone spends no S3 GET on it.

``heads``: the tips no other tip reaches through parents and tag targets.  A clone may
take the pack only if each head is one of its wants or a current ref (pack_reuse.py).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable, Iterable

__all__ = ["Tips", "TIPS_EXT", "IN_RECORD_MAX", "heads_of", "encode", "decode",
           "to_attributes", "from_attributes"]

TIPS_EXT = "tips"
IN_RECORD_MAX = 64
FORMAT = 1


@dataclass(frozen=True)
class Tips:
    tips: frozenset[bytes]    # hex ids: ref values the pack was built from
    heads: frozenset[bytes]   # hex ids: the tips no other tip reaches


def heads_of(tips: Iterable[bytes], links: Callable[[bytes], Iterable[bytes]]) -> Tips:
    """The tips with their heads, ``links(sha)`` giving a commit's parents or a tag's
    target (nothing for trees and blobs: a tip naming one simply counts as a head)."""
    tips = frozenset(tips)
    reached: set[bytes] = set()
    stack = [link for tip in tips for link in links(tip)]
    while stack:
        sha = stack.pop()
        if sha in reached:
            continue
        reached.add(sha)
        stack.extend(links(sha))
    return Tips(tips, frozenset(tip for tip in tips if tip not in reached))


def encode(record: Tips) -> bytes:
    return json.dumps({"format": FORMAT, "tips": sorted(t.decode() for t in record.tips),
                       "heads": sorted(h.decode() for h in record.heads)},
                      separators=(",", ":")).encode()


def decode(body: bytes) -> Tips:
    data = json.loads(body)
    return Tips(frozenset(t.encode() for t in data["tips"]),
                frozenset(h.encode() for h in data["heads"]))


def to_attributes(record: Tips | None) -> tuple[str | None, str | None]:
    """(tips, heads) as the pack item keeps them: space-separated hex ids, or both None
    when there is no record or it is too big for the item (then only S3 has it)."""
    if record is None or len(record.tips) > IN_RECORD_MAX:
        return None, None
    return (" ".join(sorted(t.decode() for t in record.tips)),
            " ".join(sorted(h.decode() for h in record.heads)))


def from_attributes(tips: str | None, heads: str | None) -> Tips | None:
    if tips is None or heads is None:
        return None
    return Tips(frozenset(t.encode() for t in tips.split()),
                frozenset(h.encode() for h in heads.split()))
