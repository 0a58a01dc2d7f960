"""Pack files in S3 and the live pack list of an object pool in DynamoDB (no dulwich).

Lifecycle of a pack (key layouts: ``models.py``):

1. upload ``.pack`` then ``.idx`` with ``If-None-Match: *`` (names are the pack
   checksum, so an existing object has identical bytes and 412 means done);
2. publish: one transaction puts ``PACK#<name>`` and deletes a tombstone of the same
   name unless the sweeper is deleting its files right now (then wait, upload again,
   retry) - readers only ever see packs whose two files exist;
3. retire (compaction): one transaction deletes ``PACK#`` items and writes
   ``RETIRED#`` tombstones with the time, together with publishing the replacement;
4. sweep: after a grace period, mark a tombstone ``deleting_since``, delete the S3
   files, delete the tombstone.  Files no item names (a push that crashed before
   publishing) get a tombstone in the same "deleting" state first, so a publisher racing
   the sweeper always notices.
"""
from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass, field
from typing import BinaryIO, Callable, Iterable, Iterator

from botocore.exceptions import ClientError
from pynamodb.exceptions import DeleteError, TransactWriteError, UpdateError
from pynamodb.transactions import TransactWrite

from chalicelib import aws, clock
from chalicelib.gitstore.errors import PackBeingDeleted, PackListChanged, PackNotFound
from chalicelib.gitstore.models import PackRecord, RetiredPack, gitkeys
from chalicelib.gitstore.pack_tips import Tips, from_attributes, to_attributes
from chalicelib.settings import get_settings
from chalicelib.store.table import connection

log = logging.getLogger(__name__)

MAX_TRANSACTION_ITEMS = 100
PUBLISH_ATTEMPTS = 5
EXTENSIONS = ("pack", "idx")
# Files that describe a pack (``.tips``: what a main pack holds, see pack_tips.py).
# Written after the pack and its index, deleted with them.
SIDECARS = ("tips",)


@dataclass(frozen=True)
class PackInfo:
    name: str            # "pack-<checksum hex>"
    pack_size: int
    idx_size: int
    created: float       # unix seconds
    role: str            # push | compacted | garbage
    # {repository id (text): bytes} charged for the pack (quota; docs/quota.md).
    charges: dict = field(default_factory=dict, compare=False)
    # A main pack's tips when its item carries them (pack_tips.py).
    tips: Tips | None = field(default=None, compare=False)


def _bucket() -> str:
    return get_settings().aws.BUCKET


def _now() -> float:
    return round(clock.now(), 3)


def _record(pool_id: object, info: PackInfo) -> PackRecord:
    tips, heads = to_attributes(info.tips)
    return PackRecord(*gitkeys.pack(pool_id, info.name), pack_size=info.pack_size,
                      idx_size=info.idx_size, created=info.created, role=info.role,
                      charges=dict(info.charges), tips=tips, heads=heads)


def _publish_actions(info: PackInfo) -> list:
    """Publishing as an update: a name published again (the same bytes) keeps the
    charges it has."""
    actions = [PackRecord.kind.set(PackRecord), PackRecord.pack_size.set(info.pack_size),
               PackRecord.idx_size.set(info.idx_size), PackRecord.created.set(info.created),
               PackRecord.role.set(info.role), PackRecord.charges.set(PackRecord.charges | {})]
    tips, heads = to_attributes(info.tips)
    if tips is not None:
        actions += [PackRecord.tips.set(tips), PackRecord.heads.set(heads)]
    return actions


def charges_of(item: PackRecord) -> dict[str, int]:
    raw = item.charges.as_dict() if item.charges is not None else {}
    return {str(repo): int(amount) for repo, amount in raw.items()}


def _reason_codes(exc: TransactWriteError) -> list[str | None]:
    return [reason.code if reason is not None else None
            for reason in (exc.cancellation_reasons or [])]


def _lost_race(exc: Exception) -> bool:
    """Whether a sweep's write failed because another writer got there first (its
    condition, a conflicting transaction), not for any other reason: a denied or
    throttled call is raised, never taken for "published meanwhile"."""
    if isinstance(exc, TransactWriteError):
        return any(code in ("ConditionalCheckFailed", "TransactionConflict")
                   for code in _reason_codes(exc))
    return getattr(exc, "cause_response_code", None) == "ConditionalCheckFailedException"


def _sweep_failed(pool_id: object, what: str, exc: Exception) -> None:
    log.error("sweep of pool %s: %s failed (%s)", pool_id, what,
              getattr(exc, "cause_response_code", None) or type(exc).__name__)


# -- the pack list ----------------------------------------------------------------------

def list_packs(pool_id: object) -> dict[str, PackInfo]:
    """The live packs of a pool: one consistent Query."""
    found = {}
    for item in PackRecord.query(gitkeys.pool_pk(pool_id),
                                 PackRecord.sk.startswith(gitkeys.PACK_PREFIX),
                                 consistent_read=True):
        name = item.sk[len(gitkeys.PACK_PREFIX):]
        found[name] = PackInfo(name, int(item.pack_size), int(item.idx_size),
                               float(item.created), item.role, charges_of(item),
                               from_attributes(item.tips, item.heads))
    return found


def list_retired(pool_id: object) -> list[RetiredPack]:
    return list(RetiredPack.query(gitkeys.pool_pk(pool_id),
                                  RetiredPack.sk.startswith(gitkeys.RETIRED_PREFIX),
                                  consistent_read=True))


# -- S3 files -----------------------------------------------------------------------------

def put_immutable(key: str, body: BinaryIO) -> None:
    """Create ``key`` unless it exists; an existing object has the same content."""
    s3 = aws.client("s3")
    for attempt in range(4):
        body.seek(0)
        try:
            s3.put_object(Bucket=_bucket(), Key=key, Body=body, IfNoneMatch="*")
            return
        except ClientError as exc:
            status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            code = exc.response.get("Error", {}).get("Code")
            if status == 412 or code == "PreconditionFailed":
                return
            # 409: another upload of the same key is in flight; its bytes equal ours.
            if (status == 409 or code == "ConditionalRequestConflict") and attempt < 3:
                time.sleep(0.1 * (attempt + 1))
                continue
            raise


def put_sidecar(pool_id: object, name: str, ext: str, body: bytes) -> None:
    """Write (or overwrite) a file describing a pack; see ``SIDECARS``."""
    aws.client("s3").put_object(Bucket=_bucket(), Key=gitkeys.s3_key(pool_id, name, ext),
                                Body=body)


def read_sidecar(pool_id: object, name: str, ext: str) -> bytes | None:
    try:
        resp = aws.client("s3").get_object(Bucket=_bucket(),
                                           Key=gitkeys.s3_key(pool_id, name, ext))
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
            return None
        raise
    return resp["Body"].read()


def upload_pack_files(pool_id: object, name: str, pack_path: str, idx_path: str, *,
                      exts: tuple[str, ...] = ("pack", "idx")) -> None:
    # The pack first, then its index: a name with an index always has its data.
    for ext, path in (("pack", pack_path), ("idx", idx_path)):
        if ext not in exts:
            continue
        with open(path, "rb") as f:
            put_immutable(gitkeys.s3_key(pool_id, name, ext), f)


def download(pool_id: object, name: str, ext: str, out: BinaryIO) -> None:
    """Copy a whole pack file into ``out``; FileNotFoundError if it is gone (so dulwich
    treats it as a pack that disappeared and rescans the list)."""
    for chunk in stream(pool_id, name, ext):
        out.write(chunk)


def stream(pool_id: object, name: str, ext: str, chunk_size: int = 1 << 20) -> Iterator[bytes]:
    """A whole pack file in chunks of at most ``chunk_size`` with one GET, holding one
    chunk at a time; FileNotFoundError (on the first ``next``) if it is gone."""
    try:
        resp = aws.client("s3").get_object(Bucket=_bucket(),
                                           Key=gitkeys.s3_key(pool_id, name, ext))
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
            raise FileNotFoundError(f"{name}.{ext} is not in S3") from None
        raise
    body, total = resp["Body"], 0
    try:
        for chunk in body.iter_chunks(chunk_size):
            total += len(chunk)
            yield chunk
    finally:
        body.close()
    expected = resp.get("ContentLength")
    if expected is not None and total != expected:
        raise OSError(f"short read of {name}.{ext}: {total} of {expected} bytes")


def read_range(pool_id: object, name: str, start: int, end: int) -> bytes:
    """Bytes ``[start, end)`` of a ``.pack`` with one ranged GET."""
    try:
        resp = aws.client("s3").get_object(Bucket=_bucket(),
                                           Key=gitkeys.s3_key(pool_id, name, "pack"),
                                           Range=f"bytes={start}-{end - 1}")
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
            raise FileNotFoundError(f"{name}.pack is not in S3") from None
        raise
    data = resp["Body"].read()
    if len(data) != end - start:
        raise OSError(f"short ranged read of {name}.pack at {start}")
    return data


def head_sizes(pool_id: object, name: str) -> tuple[int, int]:
    """(pack size, idx size); PackNotFound unless both files exist."""
    sizes = []
    for ext in EXTENSIONS:
        try:
            resp = aws.client("s3").head_object(Bucket=_bucket(),
                                                Key=gitkeys.s3_key(pool_id, name, ext))
        except ClientError as exc:
            if exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") == 404:
                raise PackNotFound(f"{name}.{ext} is not in S3") from None
            raise
        sizes.append(int(resp["ContentLength"]))
    return sizes[0], sizes[1]


def _delete_files(pool_id: object, name: str) -> None:
    s3 = aws.client("s3")
    # The index first: without it nobody can start reading the pack.
    for ext in ("idx", "pack", *SIDECARS):
        s3.delete_object(Bucket=_bucket(), Key=gitkeys.s3_key(pool_id, name, ext))


# -- publish, retire ---------------------------------------------------------------------

def publish_pack(pool_id: object, info: PackInfo, upload: Callable[[], None]) -> None:
    """Make an uploaded pack live.  ``upload`` re-uploads it (idempotent); it is called
    when the sweeper was deleting files of the same name, after it finished."""
    for attempt in range(PUBLISH_ATTEMPTS):
        try:
            with TransactWrite(connection=connection()) as tx:
                tx.delete(RetiredPack(*gitkeys.retired(pool_id, info.name)),
                          condition=RetiredPack.deleting_since.does_not_exist())
                tx.update(PackRecord(*gitkeys.pack(pool_id, info.name)), _publish_actions(info))
            return
        except TransactWriteError as exc:
            codes = _reason_codes(exc)
            if codes and codes[0] == "ConditionalCheckFailed":
                _wait_until_swept(pool_id, info.name)
                upload()
            elif "TransactionConflict" not in codes:
                raise
            time.sleep(random.uniform(0.05, 0.2) * (attempt + 1))
    raise PackBeingDeleted(f"{info.name} could not be published, try again")


def _wait_until_swept(pool_id: object, name: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            RetiredPack.get(*gitkeys.retired(pool_id, name), consistent_read=True)
        except RetiredPack.DoesNotExist:
            return
        time.sleep(0.2)
    raise PackBeingDeleted(f"{name} is being deleted, try again")


def retire_packs(pool_id: object, old_names: Iterable[str], new_name: str | None,
                 *, role: str = "compacted", charges: dict[str, int] | None = None,
                 tips: Tips | None = None) -> None:
    """Publish ``new_name`` (already uploaded) and retire ``old_names`` in one transaction.

    A transaction holds at most 100 actions: publishing takes 2 and each retired pack 2,
    so the first 49 old packs go with the publication and any more follow in further
    transactions, each conditional on the new pack being live.  That order is safe: the
    new pack holds every object the retired ones are needed for.  PackListChanged if an
    old pack was already retired (a concurrent compaction): then nothing of that
    transaction happened.  ``charges``: what the new pack is charged (those of the packs
    it replaces); ``tips``: what it was built from, for its item (pack_tips.py).
    """
    old = [name for name in dict.fromkeys(old_names) if name != new_name]
    if not old and not new_name:
        return
    now = _now()
    first_room = (MAX_TRANSACTION_ITEMS - 2) // 2 if new_name else MAX_TRANSACTION_ITEMS // 2
    batches = [old[:first_room]] + [old[i:i + 49] for i in range(first_room, len(old), 49)]
    new_info = None
    if new_name:
        pack_size, idx_size = head_sizes(pool_id, new_name)
        new_info = PackInfo(new_name, pack_size, idx_size, now, role, dict(charges or {}),
                            tips)
    for number, batch in enumerate(batches):
        try:
            with TransactWrite(connection=connection()) as tx:
                if new_info and number == 0:
                    tx.delete(RetiredPack(*gitkeys.retired(pool_id, new_name)),
                              condition=RetiredPack.deleting_since.does_not_exist())
                    tx.save(_record(pool_id, new_info))
                elif new_info:
                    tx.condition_check(PackRecord, *gitkeys.pack(pool_id, new_name),
                                       condition=PackRecord.pk.exists())
                for name in batch:
                    tx.delete(PackRecord(*gitkeys.pack(pool_id, name)),
                              condition=PackRecord.pk.exists())
                    tx.save(RetiredPack(*gitkeys.retired(pool_id, name), retired_at=now),
                            condition=RetiredPack.pk.does_not_exist())
        except TransactWriteError as exc:
            if "ConditionalCheckFailed" in _reason_codes(exc):
                raise PackListChanged(
                    f"packs of pool {pool_id} changed during compaction") from None
            raise


def retire(pool_id: object, names: Iterable[str]) -> None:
    """Retire packs without a replacement (the caller made sure nothing needs them)."""
    retire_packs(pool_id, names, None)


def stage_charge(uow, pool_id: object, name: str, repo_id: int, amount: int) -> None:
    """Stage charging a live pack's ``amount`` bytes to a repository, in the transaction
    that moves the repository's refs onto it (``ConditionFailed("pack")`` if the pack
    is no longer live)."""
    path = PackRecord.charges[str(int(repo_id))]
    uow.update(PackRecord(*gitkeys.pack(pool_id, name)), [path.set((path | 0) + int(amount))],
               label="pack", condition=PackRecord.pk.exists())


# -- deletion ----------------------------------------------------------------------------

def sweep_pool(pool_id: object, *, grace_seconds: float, now: float | None = None) -> list[str]:
    """Delete S3 files of packs retired more than ``grace_seconds`` ago, and of files no
    item names that are older than that; return the names deleted."""
    now = _now() if now is None else now
    cutoff = now - grace_seconds
    deleted = []
    tombstones = list_retired(pool_id)
    for tomb in tombstones:
        if tomb.deleting_since is None:
            if tomb.retired_at > cutoff:
                continue
            try:
                tomb.update(actions=[RetiredPack.deleting_since.set(now)],
                            condition=RetiredPack.pk.exists()
                            & RetiredPack.deleting_since.does_not_exist())
            except UpdateError as exc:
                if not _lost_race(exc):
                    _sweep_failed(pool_id, f"claiming {tomb.sk}", exc)
                    raise
                continue  # published again meanwhile: the tombstone is gone
        deleted.append(_finish_deletion(pool_id, tomb))
    known = set(list_packs(pool_id)) | {t.sk[len(gitkeys.RETIRED_PREFIX):] for t in tombstones}
    for name in _orphans(pool_id, known, cutoff):
        try:
            with TransactWrite(connection=connection()) as tx:
                tx.condition_check(PackRecord, *gitkeys.pack(pool_id, name),
                                   condition=PackRecord.pk.does_not_exist())
                tx.save(RetiredPack(*gitkeys.retired(pool_id, name), retired_at=now,
                                    deleting_since=now),
                        condition=RetiredPack.pk.does_not_exist())
        except TransactWriteError as exc:
            if not _lost_race(exc):
                _sweep_failed(pool_id, f"claiming orphan {name}", exc)
                raise
            continue  # published or claimed meanwhile
        deleted.append(_finish_deletion(
            pool_id, RetiredPack(*gitkeys.retired(pool_id, name), retired_at=now)))
    return deleted


def _finish_deletion(pool_id: object, tomb: RetiredPack) -> str:
    name = tomb.sk[len(gitkeys.RETIRED_PREFIX):]
    _delete_files(pool_id, name)
    try:
        tomb.delete(condition=RetiredPack.deleting_since.exists())
    except DeleteError as exc:
        if not _lost_race(exc):
            _sweep_failed(pool_id, f"removing tombstone {tomb.sk}", exc)
            raise
        # already gone
    return name


def _orphans(pool_id: object, known: set[str], cutoff: float) -> list[str]:
    """Names with files in S3, no item, and every file older than the cutoff."""
    newest: dict[str, float] = {}
    paginator = aws.client("s3").get_paginator("list_objects_v2")
    for page in paginator.paginate(Bucket=_bucket(), Prefix=gitkeys.s3_prefix(pool_id)):
        for obj in page.get("Contents", []):
            base = obj["Key"].rsplit("/", 1)[-1]
            name, _, ext = base.rpartition(".")
            if (ext in EXTENSIONS or ext in SIDECARS) and name not in known:
                stamp = obj["LastModified"].timestamp()
                newest[name] = max(stamp, newest.get(name, 0.0))
    return sorted(name for name, stamp in newest.items() if stamp <= cutoff)


def s3_pack_sizes(pool_id: object) -> dict[str, int]:
    """The ``.pack`` files of a pool in S3 with their sizes (the quota check compares
    them with the pack list; one listing per 1,000 files)."""
    found = {}
    paginator = aws.client("s3").get_paginator("list_objects_v2")
    for page in paginator.paginate(Bucket=_bucket(), Prefix=gitkeys.s3_prefix(pool_id)):
        for obj in page.get("Contents", []):
            base = obj["Key"].rsplit("/", 1)[-1]
            if base.endswith(".pack"):
                found[base[:-len(".pack")]] = int(obj["Size"])
    return found


def delete_pool(pool_id: object) -> None:
    """Remove every pack item, tombstone and S3 file of a pool (its last repo is gone)."""
    pk = gitkeys.pool_pk(pool_id)
    with PackRecord.batch_write() as batch:
        for item in PackRecord.query(pk, PackRecord.sk.startswith(gitkeys.PACK_PREFIX),
                                     consistent_read=True):
            batch.delete(item)
    with RetiredPack.batch_write() as batch:
        for item in list_retired(pool_id):
            batch.delete(item)
    paginator = aws.client("s3").get_paginator("list_objects_v2")
    for page in paginator.paginate(Bucket=_bucket(), Prefix=gitkeys.s3_prefix(pool_id)):
        aws.delete_objects(_bucket(), [obj["Key"] for obj in page.get("Contents", [])])
