"""``admin dump``: the whole instance in one archive (archive.py), consistent while
writes run (cut.py).

In order: the table, one consistent Scan page at a time (events not relayed yet kept
apart); the closing reads (allocators, object pools); every object of the bucket but
the left-out prefixes; then each object an item names that the copy did not find is
looked at again (the item read again, or the object copied late); the SSM parameters'
names, and values only with ``include_secrets``; the manifest.  A dump is an
operator's whole-instance job: the one place the table is read whole.
"""
from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from chalicelib import __version__
from chalicelib.backup import archive, items, objects, secrets
from chalicelib.backup.archive import ArchiveWriter
from chalicelib.backup.cut import OUTBOX_KIND, Cut, named_objects
from chalicelib.backup.items import Key, key_of, kind_of
from chalicelib.settings import get_settings

SCAN_MEMBER = "table/scan-{:06d}.jsonl"
CLOSING_MEMBER = "table/closing.jsonl"
OUTBOX_MEMBER = "table/outbox.jsonl"
SECRETS_MEMBER = "secrets.json"
# Rounds of reading again the items that name an object the copy did not find.
NAME_ROUNDS = 3
# What ``Cut.replaced`` is told a scanned item's fingerprint was when it was not kept.
_SCANNED = "scanned"


class DumpFailed(Exception):
    """The dump cannot be made (or would not restore); the message says why."""


@dataclass(frozen=True)
class DumpReport:
    path: Path
    items: int
    objects: int
    object_bytes: int
    changed: int                    # items a later read found changed: writes ran
    outbox: int                     # events raised and not relayed yet
    missing: list                   # objects items name that the bucket lacks
    secrets_included: bool
    seconds: float


def _lines(found: Iterable[dict]) -> bytes:
    return "".join(items.to_line(item) + "\n" for item in found).encode()


def dump(output: str | Path, *, include_secrets: bool = False, page_size: int | None = None,
         say: Callable[[str], None] = lambda line: None) -> DumpReport:
    """Write the instance to ``output`` (a new file: an existing one is never replaced)."""
    output = Path(output)
    if output.exists():
        raise DumpFailed(f"{output} exists: name a new file")
    writer = ArchiveWriter(output)
    try:
        return _write(writer, include_secrets, page_size, say)
    except BaseException:
        writer.abandon()
        raise


def _write(writer: ArchiveWriter, include_secrets: bool, page_size: int | None,
           say: Callable[[str], None]) -> DumpReport:
    started = time.time()
    writer.add_bytes(archive.FORMAT_MEMBER, archive.format_member())
    # Second, so a restore writes the keys before anything could make new ones.
    kept_secrets = secrets.read(include_secrets)
    writer.add_bytes(SECRETS_MEMBER, json.dumps(kept_secrets).encode())
    cut, outbox, scanned = Cut(), [], 0
    say("reading the table")
    for number, page in enumerate(items.scan_pages(page_size), 1):
        kept = []
        for item in page:
            if kind_of(item) == OUTBOX_KIND:
                outbox.append(item)
                continue
            cut.met(item)
            kept.append(item)
        scanned += len(kept)
        if kept:
            writer.add_bytes(SCAN_MEMBER.format(number), _lines(kept))
    say(f"read {scanned + len(outbox)} items; reading counters and object pools again")
    closing = _closing_reads(cut)
    say("copying objects")
    described: dict[str, dict] = {}
    for key in objects.listed():
        found = objects.copy_into(writer, key)
        if found is not None:
            described[key] = found
    missing = _copy_named(cut, closing, writer, described)
    writer.add_bytes(CLOSING_MEMBER, _lines(closing.values()))
    writer.add_bytes(OUTBOX_MEMBER, _lines(outbox))
    total = scanned - len(cut.superseded) + len(closing) + len(outbox)
    object_bytes = sum(int(d["size"]) for d in described.values())
    seconds = round(time.time() - started, 3)
    writer.finish({
        "format": archive.FORMAT, "version": archive.VERSION, "nimbus": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "seconds": seconds, "source": _source(),
        "counts": {"items": total, "scanned": scanned + len(outbox),
                   "read_again": len(closing), "superseded": len(cut.superseded),
                   "outbox": len(outbox), "objects": len(described),
                   "object_bytes": object_bytes, "objects_by_prefix": _by_prefix(described)},
        "changed_during_dump": cut.changed, "quiet": cut.changed == 0,
        "superseded": sorted(list(key) for key in cut.superseded),
        "objects": described, "missing_objects": missing,
        "left_out": objects.LEFT_OUT,
        "secrets": {"values_included": include_secrets,
                    "parameters": {role: said["name"] for role, said
                                   in kept_secrets["parameters"].items()}},
    })
    return DumpReport(writer.path, total, len(described), object_bytes, cut.changed,
                      len(outbox), missing, include_secrets, seconds)


def _source() -> dict:
    """The source's settings a restore (or an operator reading the manifest) needs."""
    settings = get_settings()
    return {"table": settings.aws.TABLE, "bucket": settings.aws.BUCKET,
            "region": settings.aws.REGION, "root_url": settings.server.ROOT_URL,
            "signing_key_parameter": settings.aws.SIGNING_KEY_PARAMETER,
            "signing_key": settings.signing.SIGNING_KEY,
            "local": bool(settings.aws.ENDPOINT_URL)}


def _by_prefix(described: dict[str, dict]) -> dict[str, int]:
    counted: dict[str, int] = {}
    for key in described:
        prefix = key.split("/", 1)[0] + "/"
        counted[prefix] = counted.get(prefix, 0) + 1
    return dict(sorted(counted.items()))


def _closing_reads(cut: Cut) -> dict[Key, dict]:
    """Allocators and object pools as they are now, after the scan (cut.py says why)."""
    closing: dict[Key, dict] = {}
    fresh = items.get_items(cut.allocators)
    for key in list(cut.allocators):
        if key in fresh:            # gone: its repository was deleted; keep what was read
            closing[key] = cut.count_on(key, fresh[key])
    for pool in sorted(cut.pools):
        now = {key_of(item): item for item in items.partition(pool)}
        scanned = cut.pool_items.get(pool, {})
        for key, before in scanned.items():
            cut.replaced(key, now.get(key), before)
        for key, item in now.items():
            if key not in scanned:
                cut.replaced(key, item, None)
            closing[key] = item
    return closing


def _copy_named(cut: Cut, closing: dict[Key, dict], writer: ArchiveWriter,
                described: dict[str, dict]) -> list[dict]:
    """Make every object an item of the dump names part of it: an object the listing
    missed is copied now (written since), else the items naming it are read again (they
    changed since: the new version goes in).  What the source itself lacks is listed."""
    missing: dict[str, list[Key]] = {}
    for _ in range(NAME_ROUNDS):
        absent = {key: named_by for key, named_by in cut.names().items()
                  if key not in described and key not in missing}
        for object_key in sorted(absent):
            found = None if objects.left_out(object_key) else objects.copy_into(writer, object_key)
            if found is not None:
                described[object_key] = found
                del absent[object_key]
        if not absent:
            return _listed(missing)
        naming = {key for named_by in absent.values() for key in named_by}
        for key in naming:
            if kind_of(closing.get(key, {})) == "gitpack":
                # Its objects are in no pack the dump holds: a restore would lose them.
                raise DumpFailed(
                    f"a file of the live pack {key[1]} ({key[0]}) is not in the bucket: it "
                    "was swept while the dump ran (the dump took longer than compaction's "
                    "grace period), or the bucket lost it; take the dump again")
        fresh = items.get_items(naming)
        for key in sorted(naming):
            item = fresh.get(key)
            still = [o for o in (named_objects(item) if item else []) if o in absent]
            if still:
                for object_key in still:
                    missing[object_key] = absent[object_key]
                continue
            scanned = key not in closing or key in cut.superseded
            cut.replaced(key, item, _SCANNED if scanned else None)
            if item is None:
                closing.pop(key, None)
            else:
                closing[key] = item
    return _listed(missing)


def _listed(missing: dict[str, list[Key]]) -> list[dict]:
    return [{"key": key, "named_by": [list(k) for k in named_by]}
            for key, named_by in sorted(missing.items())]
