"""``admin restore``: a dump (dump.py) into an empty instance.

Nothing is written until the archive verified whole (archive.py: every member's
SHA-256 and size against the manifest, the format version) and the instance was
found empty: no item in its table, no object in its bucket.  Then, in the archive's
order: the signing material (when the dump carries it), the scanned items (those a
later read replaced left out) with BatchWriteItem, the objects, the items read again
after the scan, and last the events that were not relayed yet, so their consumers run
on a complete instance.

A dump taken while writes ran (its manifest says which items a later read found
changed) may hold derived records a little behind their sources: the quota usage is
recounted and the search index rebuilt after such a restore.  A dump of a quiet
instance restores exactly as it was read, and nothing is recomputed.

A restore that fails part-way leaves a partial instance behind: empty its table and
bucket (or make a new one) before restoring again.
"""
from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from chalicelib.backup import dump, items, objects, secrets
from chalicelib.backup.archive import OBJECTS_DIR, ArchiveRefused, verified
from chalicelib.settings import get_settings

_SCAN_PREFIX = dump.SCAN_MEMBER.split("{", 1)[0]
_NO_TABLE = ("ResourceNotFoundException",)
_NO_BUCKET = ("NoSuchBucket", "404")


class RestoreRefused(Exception):
    """The restore was refused before anything was written; the message says why."""


@dataclass
class RestoreReport:
    source: dict
    created: str
    items: int = 0
    objects: int = 0
    object_bytes: int = 0
    secrets_written: list = field(default_factory=list)
    rebuilt: list = field(default_factory=list)


def restore(path: str | Path, *, say: Callable[[str], None] = lambda line: None) -> RestoreReport:
    try:
        archive = verified(Path(path))
    except ArchiveRefused as exc:
        raise RestoreRefused(f"refused {path}: {exc}") from None
    _require_empty()
    manifest = archive.manifest
    report = RestoreReport(manifest.get("source", {}), manifest.get("created", "?"))
    superseded = {tuple(key) for key in manifest.get("superseded", [])}
    described = manifest.get("objects", {})
    writes = items.BatchPut()
    say("writing items and objects")
    for name, stream in archive.members():
        if name == dump.SECRETS_MEMBER:
            report.secrets_written = secrets.write(json.load(stream))
        elif name.startswith(_SCAN_PREFIX):
            for item in _read_items(stream):
                if items.key_of(item) not in superseded:
                    writes.put(item)
        elif name in (dump.CLOSING_MEMBER, dump.OUTBOX_MEMBER):
            writes.flush()          # after every scanned item: these come later
            for item in _read_items(stream):
                writes.put(item)
            writes.flush()
        elif name.startswith(OBJECTS_DIR):
            key = name[len(OBJECTS_DIR):]
            said = described.get(key) or {"size": manifest["members"][name]["size"]}
            objects.put_back(key, stream, said)
            report.objects += 1
            report.object_bytes += int(said["size"])
    writes.flush()
    report.items = writes.written
    if not manifest.get("quiet", False):
        say("the dump was taken while writes ran: recounting quota usage, indexing again")
        report.rebuilt = _rebuild_derived()
    return report


def _read_items(stream: IO[bytes]):
    for line in io.TextIOWrapper(stream, encoding="utf-8"):
        if line.strip():
            yield items.from_line(line)


def _require_empty() -> None:
    """RestoreRefused unless the table and the bucket exist and hold nothing."""
    settings, held = get_settings(), []
    try:
        if items.table_has_items():
            held.append(f"the table {settings.aws.TABLE} has items")
    except Exception as exc:
        if _code(exc) in _NO_TABLE:
            raise RestoreRefused(f"the table {settings.aws.TABLE} does not exist: deploy the "
                                 "instance (or start the local runtime) first") from None
        raise
    try:
        if objects.bucket_has_objects():
            held.append(f"the bucket {settings.aws.BUCKET} has objects")
    except Exception as exc:
        if _code(exc) in _NO_BUCKET:
            raise RestoreRefused(f"the bucket {settings.aws.BUCKET} does not exist: deploy the "
                                 "instance (or start the local runtime) first") from None
        raise
    if held:
        raise RestoreRefused("refused: this instance holds data (" + "; ".join(held) + "): "
                             "a dump is restored only into an empty instance")


def _code(exc: BaseException) -> str | None:
    response = getattr(exc, "response", None)
    return response.get("Error", {}).get("Code") if isinstance(response, dict) else None


def _rebuild_derived() -> list[str]:
    """What a dump taken under writes may have caught behind its sources, made again."""
    from chalicelib import quota, repos, search

    corrected = [c for c in quota.recount() if c.fixed]
    indexed = issues = 0
    for repo in repos.every_repo():
        search.index_repo(int(repo.id))
        issues += search.index_repo_issues(int(repo.id)) or 0
        indexed += 1
    return [f"quota usage: {len(corrected)} value(s) corrected",
            f"search index: {indexed} repositories and {issues} issues indexed"]
