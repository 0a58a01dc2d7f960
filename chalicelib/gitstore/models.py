"""DynamoDB items of the git storage engine, in the single table of ``store/table.py``.

Key layouts (copy into docs/data-model.md):

| item | pk | sk | attributes | written with |
|---|---|---|---|---|
| git ref (`gitref`) | `REFS#<repo id>` | the ref name: `HEAD`, `refs/heads/<b>`, `refs/tags/<t>` | `sha` (hex) or `symref` (target ref name); `peeled` (hex, the object after peeling tags, when known) | create: `attribute_not_exists(pk)`; update/delete: `sha = :old`; a push's changes in one `TransactWriteItems` |
| live pack (`gitpack`) | `POOL#<pool id>` | `PACK#pack-<checksum hex>` | `pack_size`, `idx_size`, `created` (unix s), `role` (`push`, `compacted`, `garbage`), `charges` ({repository id: bytes} charged for it, see docs/quota.md), `tips` and `heads` (a main pack's, space-separated hex, at most 64 tips; pack_tips.py) | `TransactWriteItems` with a delete of the same name's tombstone, conditional on `attribute_not_exists(deleting_since)` |
| retired pack tombstone (`gitpackretired`) | `POOL#<pool id>` | `RETIRED#pack-<checksum hex>` | `retired_at` (unix s), `deleting_since` (set while the sweeper deletes its S3 files) | written in the transaction that deletes the `PACK#` item; marked with a conditional `UpdateItem`; deleted after its S3 files |

S3 (bucket ``[aws] BUCKET``): ``packs/<pool id>/pack-<checksum hex>.pack`` and ``.idx``
(and ``.tips`` for a main pack),
immutable, created with ``If-None-Match: *``.  The pack list is the ``PACK#`` items, never an
S3 listing; only the sweeper lists S3 (to find files no item names).

Access patterns: all refs of a repository = 1 consistent ``Query`` on ``REFS#<repo>``;
live packs of a pool = 1 consistent ``Query`` on ``POOL#<pool>`` with
``begins_with(sk, "PACK#")``.  Forks share their parent's pool, so repo ids and pool ids
are different things.

Invariant kept by every writer: for one pack name, a ``PACK#`` item and a ``RETIRED#``
item never exist together (publishing deletes the tombstone, retiring deletes the
``PACK#`` item, each in one transaction).
"""
from __future__ import annotations

import re

from pynamodb.attributes import MapAttribute, NumberAttribute, UnicodeAttribute

from chalicelib.gitstore.errors import InvalidName
from chalicelib.store.table import Item

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def check_id(value: object, what: str) -> str:
    """Repo and pool ids become parts of keys and S3 paths: keep them unambiguous."""
    text = str(value)
    if not _ID.match(text):
        raise InvalidName(f"invalid {what} {text!r}")
    return text


class GitRef(Item, discriminator="gitref"):
    sha = UnicodeAttribute(null=True)
    symref = UnicodeAttribute(null=True)
    peeled = UnicodeAttribute(null=True)


class PackRecord(Item, discriminator="gitpack"):
    pack_size = NumberAttribute()
    idx_size = NumberAttribute()
    created = NumberAttribute()
    role = UnicodeAttribute(default="push")
    # {repository id: bytes}: who is charged for the pack (quota); a compacted pack takes
    # over the charges of the packs it replaces.
    charges = MapAttribute(default=dict)
    # A main pack's tips and heads, space-separated hex ids, when there are few of them
    # (pack_tips.py); otherwise only its ``.tips`` file in S3 has them.
    tips = UnicodeAttribute(null=True)
    heads = UnicodeAttribute(null=True)


class RetiredPack(Item, discriminator="gitpackretired"):
    retired_at = NumberAttribute()
    deleting_since = NumberAttribute(null=True)


class gitkeys:  # noqa: N801 - a namespace of key builders, like store.keys.keys
    PACK_PREFIX = "PACK#"
    RETIRED_PREFIX = "RETIRED#"

    @staticmethod
    def refs_pk(repo_id: object) -> str:
        return f"REFS#{check_id(repo_id, 'repository id')}"

    @staticmethod
    def pool_pk(pool_id: object) -> str:
        return f"POOL#{check_id(pool_id, 'pool id')}"

    @staticmethod
    def pack(pool_id: object, name: str) -> tuple[str, str]:
        return gitkeys.pool_pk(pool_id), gitkeys.PACK_PREFIX + name

    @staticmethod
    def retired(pool_id: object, name: str) -> tuple[str, str]:
        return gitkeys.pool_pk(pool_id), gitkeys.RETIRED_PREFIX + name

    @staticmethod
    def s3_key(pool_id: object, name: str, ext: str) -> str:
        return f"{gitkeys.s3_prefix(pool_id)}{name}.{ext}"

    @staticmethod
    def s3_prefix(pool_id: object) -> str:
        return f"packs/{check_id(pool_id, 'pool id')}/"
