"""Pack compaction of an object pool (the scheduled job calls ``compact_pool``).

Pushes add one pack each, usually with the client's deltas but sometimes without, and
in-process writes add undeltified packs.  Compaction rewrites everything reachable from
the refs of every repository sharing the pool into one deltified pack, publishes it
and retires the old packs in one DynamoDB transaction (``packdb.retire_packs``), then
lets the sweeper delete retired files after a grace period.

Races it is built around (JGit's DFS garbage collector takes the same approach):

* a push uploads and publishes its pack before it moves refs, so a young pack may hold
  objects that no ref reaches *yet*: packs younger than ``min_age_seconds`` (longer
  than any push can take; a Lambda runs at most 15 minutes) are left alone;
* an object that just became unreachable (branch deleted, force push) may be named
  again by a push based on an old advertisement: unreachable objects of retired packs
  go to a "garbage" pack that lives for ``grace_seconds`` more before it is dropped;
* a reader that listed packs before the swap keeps reading the retired files, which
  stay in S3 for ``grace_seconds`` after retirement.

The compacted pack is the pool's main pack: before publishing it, compaction records
the ref values it was built from in a ``.tips`` file next to it, which lets clones copy
it verbatim (``pack_reuse.py``).  A lone compacted pack is compacted again when the
refs are no longer those it recorded and no young push is waiting (a branch deleted or
rewritten without a new pack) or when it has no record (compacted by older code).

Kept tips (the ref history, ``chalicelib/ref_history``): old tips a repository may be
put back to are roots too, but apart from the refs: what only they reach goes into a
``history`` pack of its own, so the main pack stays closed over the refs (clones may
copy it, and must not get dropped commits).  The history pack records the tips it was
built for in its ``.tips`` file; a lone main pack that is up to date is left alone as
long as the kept tips outside it are those recorded, so a pool is repacked once when a
force push or a deletion adds a tip and once when its history entry expires (its
objects then go the way of any garbage).  The walk from the kept tips stops at the
first object the refs reach: it costs what only the history holds.

Deltas: dulwich's own deltifier tries every pair in a window and its Rust
``create_delta`` is quadratic on dissimilar inputs (minutes on a 20 MB repository), so
candidates are pre-filtered by shared lines (blobs) or entries (trees), as cheap set
intersections; chains stop at ``max_depth`` like git's ``--depth``.
"""
from __future__ import annotations

import logging
import os
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from dulwich.object_format import get_object_format
from dulwich.object_store import MissingObjectFinder
from dulwich.objects import S_ISGITLINK, Blob, Commit, Tag, Tree, hex_to_sha
from dulwich.pack import UnpackedObject, write_pack_data, write_pack_index

from chalicelib import clock
from chalicelib.gitstore import pack_reuse, packdb, refdb
from chalicelib.gitstore.objects import S3ObjectStore
from chalicelib.gitstore.pack_tips import TIPS_EXT, Tips, decode, encode

try:
    from dulwich._pack import create_delta as _create_delta  # the Rust extension
except ImportError:  # pragma: no cover - pure-Python dulwich: same deltas, slower
    from dulwich.pack import create_delta as _create_delta_chunks

    def _create_delta(base: bytes, target: bytes) -> bytes:
        return b"".join(_create_delta_chunks(base, target))

logger = logging.getLogger(__name__)

DEFAULT_GRACE_SECONDS = 3600
DEFAULT_MIN_AGE_SECONDS = 900
# The role of the pack of what only kept tips reach (see the module docstring).
HISTORY_ROLE = "history"
_NO_RANGES = 1 << 62  # compaction reads every object: download packs whole


@dataclass
class CompactionResult:
    pool_id: str
    new_pack: str | None = None
    garbage_pack: str | None = None
    history_pack: str | None = None
    retired: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    objects: int = 0
    deltas: int = 0
    garbage_objects: int = 0
    history_objects: int = 0
    dropped_objects: int = 0
    pack_bytes: int = 0
    deleted: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def __bool__(self) -> bool:
        """True when packs were swapped (the scheduled job counts compacted pools)."""
        return bool(self.retired or self.new_pack)


def compact_pool(pool_id: object, repo_ids_sharing_pool: list[object], *,
                 grace_seconds: float = DEFAULT_GRACE_SECONDS,
                 min_age_seconds: float = DEFAULT_MIN_AGE_SECONDS,
                 object_format: str = "sha1", window: int = 10, max_depth: int = 50,
                 now: float | None = None, kept_tips: Iterable[str | bytes] = ()
                 ) -> CompactionResult:
    """Repack everything reachable from the repositories' refs into one deltified pack,
    retire the packs it replaces, sweep files retired more than ``grace_seconds`` ago.

    ``repo_ids_sharing_pool`` must name every repository whose refs live on this pool
    (the parent and all its forks): objects only they reach would otherwise count as
    garbage.  ``kept_tips`` (hex): more roots, whose objects go to the history pack
    (see the module docstring).  Raises PackListChanged if another compaction swapped
    packs meanwhile.
    """
    started = time.monotonic()
    now = clock.now() if now is None else now
    store = S3ObjectStore(pool_id, object_format=get_object_format(object_format),
                          ranged_min_bytes=_NO_RANGES, rescan_interval=3600)
    result = CompactionResult(store.pool_id)
    try:
        # Refs first, packs second: a push publishes its pack before it moves refs, so
        # every object these refs reach is in a pack of the listing that follows.
        ref_shas = _ref_shas(repo_ids_sharing_pool)
        history = {tip if isinstance(tip, bytes) else tip.encode("ascii")
                   for tip in kept_tips} - set(ref_shas)
        infos = store.pack_infos()
        retire = sorted(name for name, info in infos.items() if _retirable(info, now, grace_seconds,
                                                                           min_age_seconds))
        result.kept = sorted(set(infos) - set(retire))
        main = [name for name in retire if infos[name].role != HISTORY_ROLE]
        lone = len(main) == 1 and infos[main[0]].role == "compacted"
        if retire and not (lone and _up_to_date(store, main[0], ref_shas, result.kept, infos)
                           and _history_settled(store, main[0], history, retire, infos)):
            _compact(store, infos, retire, ref_shas, result, window, max_depth, history)
    finally:
        store.close()
    result.deleted = packdb.sweep_pool(pool_id, grace_seconds=grace_seconds, now=now)
    result.seconds = round(time.monotonic() - started, 3)
    logger.info("compacted pool %s: %s", pool_id, result)
    return result


def _up_to_date(store: S3ObjectStore, name: str, ref_shas: dict[bytes, str],
                kept: list[str], infos: dict) -> bool:
    """Whether a lone compacted pack is as good as it gets: it records its tips (for
    clones to reuse it; packs compacted before that record existed are written again,
    once) and either young pushes will be folded in once they age, or the refs are
    those it was built from (else a deleted or rewritten branch left objects in it
    that clones may not get, pack_reuse.py)."""
    recorded = pack_reuse.read_tips(store, name, cached=False)
    if recorded is None:
        return False
    if any(infos[other].role != "garbage" for other in kept):
        return True
    current = frozenset(ref_shas)
    if recorded.tips == current:
        return True
    # A ref naming a missing object (logged by _compact) is never recorded: no change.
    return recorded.tips < current and not any(sha in store for sha in current - recorded.tips)


def _history_settled(store: S3ObjectStore, main: str, history: set[bytes],
                     retire: list[str], infos: dict) -> bool:
    """Whether the history packs hold what the kept tips need beyond the main pack (an
    up-to-date main pack is closed over the refs): the kept tips that are stored and
    not in it are those the history packs were built for."""
    pack = store.pack_by_name(main)
    wanted = {sha for sha in history if sha not in pack and sha in store}
    recorded: set[bytes] = set()
    for name in retire:
        if infos[name].role == HISTORY_ROLE:
            body = packdb.read_sidecar(store.pool_id, name, TIPS_EXT)
            if body is None:
                return False
            recorded |= decode(body).tips
    return wanted == recorded


def _retirable(info: packdb.PackInfo, now: float, grace: float, min_age: float) -> bool:
    if info.role == HISTORY_ROLE:
        return True     # written whole by a compaction, rewritten by the next one
    if info.role == "garbage":
        return info.created <= now - grace
    return info.created <= now - min_age


def _compact(store: S3ObjectStore, infos: dict, retire: list[str], ref_shas: dict[bytes, str],
             result: CompactionResult, window: int, max_depth: int,
             history: set[bytes] = frozenset()) -> None:
    tips = []
    for sha, where in sorted(ref_shas.items()):
        if sha in store:
            tips.append(sha)
        else:
            logger.error("%s points at missing object %s", where, sha.decode())
    reachable = list(MissingObjectFinder(store, haves=[], wants=tips)) if tips else []
    reachable_ids = {sha for sha, _ in reachable}
    result.objects = len(reachable)
    history_tips = sorted(sha for sha in history if sha not in reachable_ids and sha in store)
    history_ids = _history_objects(store, history_tips, reachable_ids)

    kept_packs = [store.pack_by_name(name) for name in result.kept]
    garbage, kept_history, dropped = set(), set(), 0
    for name in retire:
        for sha in store.pack_by_name(name):
            if sha in reachable_ids or any(sha in pack for pack in kept_packs):
                continue
            if sha in history_ids:
                kept_history.add(sha)
            elif infos[name].role == "garbage":
                dropped += 1  # unreachable for a whole grace period: let it go
            else:
                garbage.add(sha)
    result.garbage_objects, result.dropped_objects = len(garbage), dropped

    if garbage:
        # Published before the swap, so a crash in between loses nothing.
        records = (_full_record(store, sha) for sha in sorted(garbage))
        info, paths = _write_pack(store, records, len(garbage), role="garbage")
        store.publish(info, *paths)
        result.garbage_pack = info.name
        # Same objects, same bytes as a pack we meant to retire: that one stays.
        retire = [name for name in retire if name != info.name]

    if kept_history:
        # Also published before the swap, with the tips it was built for.
        records, _ = _delta_records(store, [(sha, None) for sha in sorted(kept_history)],
                                    window, max_depth)
        info, paths = _write_pack(store, records, len(kept_history), role=HISTORY_ROLE)
        packdb.put_sidecar(store.pool_id, info.name, TIPS_EXT,
                           encode(Tips(frozenset(history_tips), frozenset(history_tips))))
        store.publish(info, *paths)
        result.history_pack, result.history_objects = info.name, len(kept_history)
        retire = [name for name in retire if name != info.name]

    new_name = None
    if reachable:
        records, stats = _delta_records(store, reachable, window, max_depth)
        info, paths = _write_pack(store, records, len(reachable), role="compacted")
        result.deltas = stats["deltas"]
        result.pack_bytes = info.pack_size
        new_name = info.name
        try:
            # Recorded before publishing: clones take a compacted pack for their main
            # pack only with its record, so a crash in between costs reuse, nothing else.
            recorded = pack_reuse.record_tips(store, new_name, tips)
            # Charges follow the objects: the compacted pack carries those of the packs
            # it replaces (a ledger of bytes received; docs/quota.md).
            packdb.retire_packs(store.pool_id, retire, new_name,
                                charges=merged_charges(infos[name] for name in retire),
                                tips=recorded)
        except BaseException:
            _unlink(*paths)  # the uploaded files are an orphan now: the sweeper's job
            raise
        store.keep_local(info, *paths)
    else:
        packdb.retire(store.pool_id, retire)
    result.new_pack = new_name
    result.retired = [name for name in retire if name != new_name]


def merged_charges(infos) -> dict[str, int]:
    """The charges of several packs, summed per repository."""
    total: dict[str, int] = {}
    for info in infos:
        for repo, amount in info.charges.items():
            total[repo] = total.get(repo, 0) + int(amount)
    return total


def _ref_shas(repo_ids: list[object]) -> dict[bytes, str]:
    """Every object a ref of these repositories names -> one ref naming it."""
    shas = {}
    for repo_id in repo_ids:
        for name, value in refdb.load_refs(repo_id).items():
            if value.sha and not refdb.is_zero(value.sha):
                shas.setdefault(value.sha.encode("ascii"), f"ref {name} of repo {repo_id}")
    return shas


def _history_objects(store: S3ObjectStore, tips: list[bytes], reachable: set[bytes]) -> set[bytes]:
    """What the kept tips reach and the refs do not: a walk that stops at every object
    the refs reach (their closure is closed), so it costs what only the history holds.
    Blobs are only looked up, never read."""
    found: set[bytes] = set()
    stack = list(tips)
    while stack:
        sha = stack.pop()
        if sha in found or sha in reachable:
            continue
        try:
            obj = store[sha]
        except KeyError:
            logger.error("kept tip's object %s is missing", sha.decode())
            continue
        found.add(sha)
        if isinstance(obj, Commit):
            stack.append(obj.tree)
            stack.extend(obj.parents)
        elif isinstance(obj, Tag):
            stack.append(obj.object[1])
        elif isinstance(obj, Tree):
            for entry in obj.iteritems():
                if S_ISGITLINK(entry.mode) or entry.sha in found or entry.sha in reachable:
                    continue
                if entry.mode & 0o40000:
                    stack.append(entry.sha)
                elif entry.sha in store:
                    found.add(entry.sha)
    return found


def _full_record(store: S3ObjectStore, sha: bytes) -> UnpackedObject:
    type_num, raw = store.get_raw(sha)
    return UnpackedObject(type_num, sha=hex_to_sha(sha), decomp_chunks=[raw])


def _write_pack(store: S3ObjectStore, records, count: int, *, role: str):
    """Write records to a local pack + index, upload both (unpublished)."""
    pack_file = store.cache.new_temp_file("compact-")
    idx_file = store.cache.new_temp_file("compact-idx-")
    try:
        with pack_file:
            entries, checksum = write_pack_data(pack_file.write, records, num_records=count,
                                                object_format=store.object_format)
        with idx_file:
            index_entries = sorted((sha, off, crc) for sha, (off, crc) in entries.items())
            write_pack_index(idx_file, index_entries, checksum, version=store.pack_index_version)
        info = store.upload(pack_file.name, idx_file.name, checksum.hex(), role=role)
    except BaseException:
        _unlink(pack_file.name, idx_file.name)
        raise
    return info, (pack_file.name, idx_file.name)


def _unlink(*paths: str) -> None:
    for path in paths:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


def _tokens(type_num: int, raw: bytes) -> set[bytes] | None:
    """What two versions of an object share when they are worth a delta."""
    if type_num == Blob.type_num:
        tokens = set(raw.split(b"\n"))
    elif type_num == Tree.type_num:
        tokens = set(raw.split(b"\0"))
    else:
        return None  # commits and tags: small, and rarely alike
    return tokens if len(tokens) >= 4 else None


def _delta_records(store: S3ObjectStore, objects, window: int, max_depth: int):
    """UnpackedObjects for ``(sha, hint)`` pairs, deltified against earlier objects of
    the same kind.  Order as git: by type, path name, size descending, so newer (usually
    bigger) versions come first and older ones become deltas against them."""
    keys = []
    for sha, hint in objects:
        type_num, raw = store.get_raw(sha)
        path = hint[1] if hint and hint[1] else b""
        keys.append((type_num, path, -len(raw), sha))
    keys.sort()
    stats = {"deltas": 0}

    def generate():
        recent: deque = deque(maxlen=window)  # (raw sha, raw, tokens, depth)
        depth: dict[bytes, int] = {}
        for type_num, _, _, sha in keys:
            _, raw = store.get_raw(sha)
            raw_sha = hex_to_sha(sha)
            tokens = _tokens(type_num, raw)
            best, best_base = None, None
            limit = len(raw) // 2 - 20  # git's bar for a first delta: half the size
            if tokens is not None and limit > 0:
                for base_sha, base_raw, base_tokens, base_type in recent:
                    if (base_type != type_num or depth.get(base_sha, 0) >= max_depth
                            or not 2 * len(base_raw) >= len(raw) >= len(base_raw) // 2
                            or 2 * len(tokens & base_tokens) < len(tokens)):
                        continue
                    delta = _create_delta(base_raw, raw)
                    if len(delta) < limit and (best is None or len(delta) < len(best)):
                        best, best_base = delta, base_sha
            if best is not None:
                depth[raw_sha] = depth.get(best_base, 0) + 1
                stats["deltas"] += 1
                # The object's type goes in the first argument; a bytes delta_base makes
                # the pack writer emit an OFS/REF delta.
                yield UnpackedObject(type_num, sha=raw_sha, delta_base=best_base,
                                     decomp_chunks=[best])
            else:
                yield UnpackedObject(type_num, sha=raw_sha, decomp_chunks=[raw])
            if tokens is not None:
                recent.appendleft((raw_sha, raw, tokens, type_num))

    return generate(), stats
