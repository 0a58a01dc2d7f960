"""``S3ObjectStore``: a dulwich pack-only object store over S3, listed from DynamoDB.

* Packs live in S3 under ``packs/<pool>/pack-<checksum>.{pack,idx}`` and are listed by
  their ``PACK#`` items (``packdb``), never by an S3 listing.  A pool is shared by a
  repository and its forks, so the store knows pools, not repositories.
* ``.idx`` files are downloaded whole into the local disk cache (``cache.py``).  A
  ``.pack`` smaller than ``NIMBUS_PACK_RANGED_MIN_BYTES`` (default 8 MiB) is too;
  a bigger one is read object by object with ranged GETs until something scans it
  whole (``ranged.py``).  Packs we write ourselves go into the cache as we upload them.
* Incoming packs (pushes: thin; in-process writes: ``add_objects``) are indexed with
  their external delta bases resolved from the store (a push's in one pass,
  ``pack_index.py``), completed with those bases (``extend_pack``), every object
  parsed, checked for references to objects that exist nowhere, uploaded, then
  published.
"""
from __future__ import annotations

import os
import time
import weakref
from dataclasses import dataclass, replace
from typing import BinaryIO, Callable, Iterable

from dulwich.object_store import BucketBasedObjectStore, _bound_read_callables
from dulwich.objects import S_ISGITLINK, Commit, Tag, Tree
from dulwich.pack import (Pack, PackData, PackIndexer, PackInflater, extend_pack, load_pack_index,
                          write_pack_index)

from chalicelib import clock
from chalicelib.gitstore import packdb
from chalicelib.gitstore.cache import DiskCache, default_cache
from chalicelib.gitstore.errors import MissingObjects
from chalicelib.gitstore.models import check_id
from chalicelib.gitstore.pack_index import COPY_CHUNK, index_pack, write_index_v2
from chalicelib.gitstore.pack_links import PackLinks
from chalicelib.gitstore.pack_tips import TIPS_EXT, encode
from chalicelib.gitstore.pack_upload import EarlyUpload
from chalicelib.gitstore.packdb import PackInfo, delete_pool, retire_packs
from chalicelib.gitstore.ranged import RangedPackData, RangeReader

__all__ = ["S3ObjectStore", "PackInfo", "retire_packs", "delete_pool"]

DEFAULT_RANGED_MIN_BYTES = 8 << 20


class S3ObjectStore(BucketBasedObjectStore):
    def __init__(self, pool_id: object, *, object_format=None, cache: DiskCache | None = None,
                 rescan_interval: float = 2.0, ranged_min_bytes: int | None = None,
                 verify_connectivity: bool = True):
        """``rescan_interval``: a lookup miss re-queries the pack list at most this often
        (misses are common: fetch negotiation asks about objects we do not have).
        ``verify_connectivity``: refuse received packs that refer to absent objects
        (turn off only to ingest a shallow fetch)."""
        super().__init__(object_format=object_format)
        self.pool_id = check_id(pool_id, "pool id")
        self.cache = cache or default_cache()
        self.rescan_interval = rescan_interval
        if ranged_min_bytes is None:
            ranged_min_bytes = int(os.environ.get("NIMBUS_PACK_RANGED_MIN_BYTES")
                                   or DEFAULT_RANGED_MIN_BYTES)
        self.ranged_min_bytes = ranged_min_bytes
        self.verify_connectivity = verify_connectivity
        self._infos: dict[str, PackInfo] = {}
        self._listed_at: float | None = None
        # Packs published through this store, in order: the ref change that makes them
        # reachable charges them to its repository (quota/charges.py).
        self.added: list[PackInfo] = []
        # Git LFS objects the pointer blobs of those packs name (oid -> size): what a
        # push or a fetch points at (lfs_pointers.py).
        self.lfs_pointers: dict[str, int] = {}

    def __repr__(self) -> str:
        return f"S3ObjectStore({self.pool_id!r})"

    # -- the pack list ------------------------------------------------------------------
    def _iter_pack_names(self):
        now = time.monotonic()
        if self._listed_at is None or now - self._listed_at >= self.rescan_interval:
            self._infos = packdb.list_packs(self.pool_id)
            self._listed_at = now
        return iter(list(self._infos))

    def refresh(self) -> None:
        """Re-read the pack list now (after another writer published or retired packs)."""
        self._listed_at = None
        self._update_pack_cache()

    def pack_infos(self) -> dict[str, PackInfo]:
        self._iter_pack_names()
        return dict(self._infos)

    def get_reachability_provider(self, prefer_bitmaps: bool = True):
        # No pack here has a bitmap; asking would download every pack's index, even
        # for a v0 refs advertisement.
        return super().get_reachability_provider(prefer_bitmaps=False)

    def contains_packed(self, sha) -> bool:
        # A main pack's recorded tips are in it: a clone's wants are found without
        # downloading an index.
        # Runs for every lookup: the list is read as dulwich's lookups read it (at most
        # once per rescan interval), and not copied.
        self._iter_pack_names()
        if len(sha) == 40 and any(info.tips is not None and sha in info.tips.tips
                                  for info in self._infos.values()):
            return True
        return super().contains_packed(sha)

    # -- reading packs ------------------------------------------------------------------
    def _key(self, name: str, ext: str) -> str:
        return f"{self.pool_id}/{name}.{ext}"

    def _get_pack(self, name: str) -> Pack:
        info = self._infos[name]
        pack = Pack(self.cache.path(f"{self.pool_id}/{name}"), object_format=self.object_format,
                    delta_base_cache_limit=self.delta_base_cache_limit)
        # Both load lazily: listing a pool costs no S3 call, a lookup costs the .idx.
        # The loaders hold neither this store (which holds the pack) nor the pack itself
        # (weakly): either would make a cycle, and a store dropped unclosed would keep
        # every pack file it opened (two descriptors a pack) until the garbage collector
        # came by; a busy process ran out of descriptors first.
        files, held = PackFiles.of(self), weakref.ref(pack)
        pack._idx_load = lambda: files.load_index(name)
        pack._data_load = lambda: files.load_data(name, info, held())
        return pack

    def _open_data(self, path: str) -> PackData:
        return PackFiles.of(self).open_data(path)

    # -- writing packs ------------------------------------------------------------------
    def add_thin_pack(self, read_all: Callable[[int], bytes],
                      read_some: Callable[[int], bytes] | None, progress=None,
                      *, max_input_size: int | None = None,
                      closed_over: Iterable[bytes] | None = None) -> Pack | None:
        """Receive a (possibly thin) pack from the wire, complete it, store it.

        ``closed_over``: the ids a push sets its refs to, when it creates every ref it
        names.  If the pool has no pack yet and this one holds exactly what they reach,
        it is stored as a main pack with that tips record (pack_tips.py), so clones
        copy it as it is (pack_reuse.py) without waiting for compaction."""
        if max_input_size:
            read_all, read_some = _bound_read_callables(read_all, read_some, max_input_size)
        f = self.cache.new_temp_file("incoming-")
        early = None
        try:
            _copy_input(read_all, read_some, f)
            if closed_over is not None and not self.pack_infos():
                # Nothing in the pool: the pack cannot rest on stored objects, so it is
                # stored as received, and its upload runs while it is indexed.
                early = EarlyUpload(self.pool_id, f.name)
            parsed = PackLinks(keep_history=closed_over is not None)
            pack_sha, entries, ext_refs = index_pack(
                f, self.object_format, get_raw=self.get_raw, parsed=parsed,
                on_checked=early.start if early is not None else None)
            f.seek(0, 2)
            return self._store_pack(f, entries, set(ext_refs),
                                    verify=self.verify_connectivity, progress=progress,
                                    closed_over=closed_over, parsed=parsed, pack_sha=pack_sha,
                                    early=early)
        finally:
            if early is not None:
                early.wait(raise_error=False)   # never leave it reading a deleted file
            _discard(f)

    def add_pack(self) -> tuple[BinaryIO, Callable[[], Pack | None], Callable[[], None]]:
        """A file to write a pack into, a commit function and an abort function (used by
        ``add_objects``/``add_pack_data`` and dulwich's fetch)."""
        f = self.cache.new_temp_file("incoming-")

        def commit() -> Pack | None:
            try:
                f.flush()
                if f.tell() == 0:
                    return None
                f.seek(0)
                with PackData(f.name, file=f, object_format=self.object_format) as data:
                    indexer = PackIndexer.for_pack_data(data, resolve_ext_ref=self.get_raw)
                    entries = list(indexer)
                    ext_refs = set(indexer.ext_refs())
                return self._store_pack(f, entries, ext_refs, verify=False)
            finally:
                _discard(f)

        return f, commit, lambda: _discard(f)

    def add_object(self, obj) -> None:
        """One object, one pack: use ``add_objects`` for several."""
        self.add_objects([(obj, None)])

    def _store_pack(self, f, entries: list, ext_refs: set, *, verify: bool,
                    progress=None, role: str = "push", pack_sha: bytes | None = None,
                    closed_over: Iterable[bytes] | None = None,
                    parsed: "PackLinks | None" = None,
                    early: "EarlyUpload | None" = None) -> Pack | None:
        """Complete the pack in ``f`` with its external bases, check it, upload it,
        publish it, and keep the files in the local cache.  ``parsed``: what indexing
        the pack already parsed (else the pack is read again to parse it);
        ``pack_sha``: its checksum, when indexing checked it (a complete pack is then
        not hashed again); ``early``: the upload of the pack as received, if started."""
        checked = pack_sha is not None and not ext_refs and parsed is not None
        if ext_refs or pack_sha is None:
            pack_sha, extra = extend_pack(f, ext_refs, get_raw=self.get_raw,
                                          object_format=self.object_format,
                                          compression_level=self.pack_compression_level,
                                          progress=progress)
            f.flush()
            entries.extend(extra)
        if not entries:
            return None  # e.g. a push that only creates a branch at an existing commit
        entries.sort()
        in_pack = {sha for sha, _, _ in entries}
        parsed = self._check_pack(f.name, pack_sha, entries, in_pack, verify, parsed,
                                  reread=not checked)
        self.lfs_pointers.update(parsed.lfs_pointers)
        # A pack holding an object twice is never sent as it is.
        tips = (parsed.closed_over(closed_over, in_pack)
                if closed_over is not None and not ext_refs and len(in_pack) == len(entries)
                else None)
        if tips is not None and self.pack_infos():
            tips = None   # not the pool's only pack: compaction makes the main pack
        idx_file = self.cache.new_temp_file("incoming-idx-")
        try:
            with idx_file:
                if self.pack_index_version in (None, 2):
                    write_index_v2(idx_file, entries, pack_sha, self.object_format.hash_func)
                else:
                    write_pack_index(idx_file, entries, pack_sha,
                                     version=self.pack_index_version)
            sent = early.wait() if early is not None else None
            info = self.upload(f.name, idx_file.name, pack_sha.hex(),
                               role=role if tips is None else "compacted",
                               pack_sent=sent == f"pack-{pack_sha.hex()}")
            if tips is not None:
                # Before publishing, as compaction does: readers of the pack list may
                # look for the file as soon as the pack is live.
                packdb.put_sidecar(self.pool_id, info.name, TIPS_EXT, encode(tips))
                info = replace(info, tips=tips)
            return self.publish(info, f.name, idx_file.name)
        finally:
            _discard(idx_file)

    def upload(self, pack_path: str, idx_path: str, checksum_hex: str, *,
               role: str = "push", pack_sent: bool = False) -> PackInfo:
        """Upload a finished pack and its index; readers do not see it until published.
        ``pack_sent``: the pack file is up already (``EarlyUpload``), only the index."""
        name = f"pack-{checksum_hex}"
        packdb.upload_pack_files(self.pool_id, name, pack_path, idx_path,
                                 exts=("idx",) if pack_sent else ("pack", "idx"))
        return PackInfo(name, os.path.getsize(pack_path), os.path.getsize(idx_path),
                        round(clock.now(), 3), role)

    def publish(self, info: PackInfo, pack_path: str, idx_path: str) -> Pack:
        """Make an uploaded pack live, move its local files into the cache, and return
        it, readable through this store.  Publishing a name that is already live is
        harmless (same bytes), and never skipped: our view of the list may be stale."""
        packdb.publish_pack(self.pool_id, info, lambda: packdb.upload_pack_files(
            self.pool_id, info.name, pack_path, idx_path))
        self.added.append(info)
        self.keep_local(info, pack_path, idx_path)
        return self.pack_by_name(info.name)

    def keep_local(self, info: PackInfo, pack_path: str, idx_path: str) -> None:
        """Move a pack's local files into the disk cache (saves downloading our own
        writes) and let this store list it."""
        self.cache.adopt(self._key(info.name, "pack"), pack_path)
        self.cache.adopt(self._key(info.name, "idx"), idx_path)
        self._infos.setdefault(info.name, info)

    def pack_by_name(self, name: str) -> Pack:
        """A live (or just uploaded) pack of this pool, loaded lazily."""
        pack = self._pack_cache.get(name)
        if pack is None:
            pack = self._get_pack(name)
            self._add_cached_pack(name, pack)
        return pack

    def _check_pack(self, pack_path: str, pack_sha: bytes, entries: list, in_pack: set[bytes],
                    verify_refs: bool, parsed: "PackLinks | None", *,
                    reread: bool = True) -> "PackLinks":
        """Check the completed pack against its entries (``reread``: unless indexing
        read it as it is, checksum and count); parse every object unless indexing did
        (malformed trees or commits are refused, as dulwich's disk store does); for
        pushes, refuse references to objects that exist neither in the pack nor in the
        store."""
        if reread or parsed is None:
            parsed = self._reread(pack_path, pack_sha, entries, parsed)
        if verify_refs:
            missing = [ref.decode("ascii") for ref in parsed.outside(in_pack)
                       if ref not in self]
            if missing:
                raise MissingObjects(sorted(missing))
        return parsed

    def _reread(self, pack_path: str, pack_sha: bytes, entries: list,
                parsed: "PackLinks | None") -> "PackLinks":
        with self._open_data(pack_path) as data:
            # A pack may hold an object twice: count entries, not ids.
            if data.get_stored_checksum() != pack_sha or len(data) != len(entries):
                raise AssertionError("completed pack does not match its entries")
            if parsed is None:
                parsed = PackLinks(keep_history=False)
                for obj in PackInflater.for_pack_data(data):
                    parsed.add(obj)
        return parsed

    def _remove_pack(self, pack: Pack) -> None:
        self._remove_pack_by_name(os.path.basename(pack._basename))

    def _remove_pack_by_name(self, name: str) -> None:
        """Retire (tombstone) a pack; its files go after the sweeper's grace period."""
        packdb.retire(self.pool_id, [name])
        self._infos.pop(name, None)
        pack = self._pack_cache.pop(name, None)
        if pack is not None:
            pack.close()


def _copy_input(read_all: Callable[[int], bytes], read_some: Callable[[int], bytes] | None,
                f) -> None:
    """Everything the client sends after its commands (the pack) into ``f``."""
    read = read_some or read_all
    while True:
        chunk = read(COPY_CHUNK)
        if not chunk:
            return
        f.write(chunk)
        if read_some is None and len(chunk) < COPY_CHUNK:
            return


def references(obj) -> list[bytes]:
    """Objects ``obj`` points at (submodule commits excepted: they live elsewhere)."""
    if isinstance(obj, Commit):
        return [obj.tree, *obj.parents]
    if isinstance(obj, Tree):
        return [sha for _, mode, sha in obj.iteritems() if not S_ISGITLINK(mode)]
    if isinstance(obj, Tag):
        return [obj.object[1]]
    return []


def _discard(f) -> None:
    try:
        f.close()
    except OSError:
        pass
    try:
        os.unlink(f.name)
    except FileNotFoundError:
        pass


@dataclass(frozen=True)
class PackFiles:
    """How a pool's pack files are opened: its index and data from the local cache,
    downloaded once, or a large pack's data by ranged reads."""
    pool_id: object
    cache: object
    object_format: object
    delta_base_cache_limit: int | None
    ranged_min_bytes: int

    @classmethod
    def of(cls, store: S3ObjectStore) -> PackFiles:
        return cls(store.pool_id, store.cache, store.object_format,
                   store.delta_base_cache_limit, store.ranged_min_bytes)

    def _key(self, name: str, ext: str) -> str:
        return f"{self.pool_id}/{name}.{ext}"

    def load_index(self, name: str):
        return self.cache.open(
            self._key(name, "idx"),
            fill=lambda f: packdb.download(self.pool_id, name, "idx", f),
            opener=lambda path: load_pack_index(path, self.object_format))

    def open_data(self, path: str) -> PackData:
        return PackData(path, object_format=self.object_format,
                        delta_base_cache_limit=self.delta_base_cache_limit)

    def load_data(self, name: str, info: PackInfo, pack: Pack) -> PackData:
        key = self._key(name, "pack")
        cached = self.cache.open_cached(key, self.open_data)
        if cached is not None:
            return cached

        def whole() -> PackData:
            return self.cache.open(
                key, fill=lambda f: packdb.download(self.pool_id, name, "pack", f),
                opener=self.open_data)

        if info.pack_size < self.ranged_min_bytes:
            return whole()
        index = pack.index
        reader = RangeReader(lambda start, end: packdb.read_range(self.pool_id, name, start, end),
                             info.pack_size)
        return RangedPackData(key, self.object_format, size=info.pack_size,
                              num_objects=len(index), checksum=index.get_pack_checksum(),
                              reader=reader, materialize=whole)
