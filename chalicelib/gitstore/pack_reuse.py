"""Clones served by copying the pool's main pack verbatim (pack reuse).

Building a clone's pack object by object in Python costs seconds per 10 MB; a clone
wants everything, and compaction already wrote everything into one deltified pack.
``reuse_stream`` sends that pack's entries byte for byte (after a new 12-byte header,
so OFS_DELTA offsets, relative to each entry, stay valid), then the objects pushed
since compaction, then a trailer hashed as the bytes stream by.  Memory holds a few
chunks of ``CHUNK_SIZE``, whatever the pack's size: the pack comes from the local disk
cache or from one streaming S3 GET that fills the cache on the way.

The main pack is the newest live ``compacted`` pack with a tips record
(``pack_tips.py``): the ref values the pack was built from and ``heads``, those of them
no other recorded tip reaches.  Compaction writes one; so does a push into an empty
pool when its pack holds exactly what the pushed refs reach, so a repository is cloned
this way from its first push on.  The pack is closed: it holds exactly what its tips
reach, so anything reachable from an object in it is in it, and "what the wants need
beyond the pack" is a walk from the wants that stops at the first object the pack
holds.  That walk is proportional to what was pushed since, unlike dulwich's
``MissingObjectFinder`` with the tips as haves, which walks the whole history of the
haves and every tree of the commits it meets there.  When nothing was pushed since,
the stored pack is the answer byte for byte, its own header and trailer included.

Extra objects: git accepts objects it did not ask for, but the pack may hold objects
this client must not get - a fork's branches (forks share the pool), a branch deleted
or force-pushed away since compaction (someone may have removed a leaked secret).  So
sending objects that are no longer reachable is not acceptable, and reuse never does:
it applies only when every recorded head is reached by the wants (the walk met it: a
head reaches no other head, so it is in the wants' closure exactly when the walk stops
on it) or is a current ref of this repository (its objects are readable by anyone who
may clone, e.g. ``refs/pull/<n>/head``).  Otherwise reuse declines and the caller
builds the pack as before, until the next compaction (which rewrites a main pack whose
tips are not the refs any more) catches up.  The price of the rule: a clone of one
branch gets the whole main pack, the other branches' objects included.  Serving exact
subsets from a pack would take reachability bitmaps (dulwich has ``dulwich.bitmap``,
EWAH bitmaps in git's format); full clones are the expensive case, so not yet.
"""
from __future__ import annotations

import os
import struct
import zlib
from dataclasses import dataclass
from typing import Iterable, Iterator

from dulwich.errors import ChecksumMismatch
from dulwich.object_store import peel_sha
from dulwich.objects import Commit, Tag, hex_to_sha
from dulwich.pack import REF_DELTA, Pack, pack_object_header

from chalicelib.gitstore import packdb
from chalicelib.gitstore.objects import S3ObjectStore, references
from chalicelib.gitstore.pack_tips import TIPS_EXT, Tips, decode, encode, heads_of
from chalicelib.gitstore.pack_writer import HashedChunks
from chalicelib.gitstore.repo import NimbusRepo

__all__ = ["reuse_stream", "plan_clone", "record_tips", "read_tips", "main_pack", "MainPack",
           "CHUNK_SIZE"]

CHUNK_SIZE = 1 << 20
MAIN_ROLE = "compacted"
_HEADER = 12


@dataclass(frozen=True)
class MainPack:
    name: str
    size: int
    tips: frozenset[bytes]    # hex: ref values the pack was built from
    heads: frozenset[bytes]   # hex: the tips no other tip reaches


# -- the .tips record ---------------------------------------------------------------------

def record_tips(store: S3ObjectStore, name: str, tips: Iterable[bytes]) -> Tips:
    """Write the ``.tips`` file of an uploaded pack that holds exactly the objects
    ``tips`` reach, keep a copy in the local cache, and return the record (for the
    pack's item: ``packdb.retire_packs(..., tips=)``).

    A pack written again with the same bytes from other tips (a branch created at an
    existing commit) gets the new record: any tip set whose closure is the pack is a
    correct record, so a reader holding the older one is still right."""
    record = heads_of(tips, lambda sha: _history_links(store, sha))
    body = encode(record)
    packdb.put_sidecar(store.pool_id, name, TIPS_EXT, body)
    tmp = store.cache.new_temp_file("tips-")
    try:
        with tmp:
            tmp.write(body)
        store.cache.adopt(_key(store, name, TIPS_EXT), tmp.name)
    finally:
        _unlink(tmp.name)
    return record


def read_tips(store: S3ObjectStore, name: str, *, cached: bool = True) -> Tips | None:
    """The ``.tips`` file of a pack, None if it has none.  ``cached=False`` reads S3
    (compaction compares the record with the refs of now)."""
    if cached:
        try:
            body = store.cache.open(
                _key(store, name, TIPS_EXT),
                fill=lambda f: packdb.download(store.pool_id, name, TIPS_EXT, f),
                opener=_read_bytes)
        except FileNotFoundError:
            return None
    else:
        body = packdb.read_sidecar(store.pool_id, name, TIPS_EXT)
        if body is None:
            return None
    return decode(body)


def _history_links(store: S3ObjectStore, sha: bytes) -> list[bytes]:
    try:
        obj = store[sha]
    except KeyError:
        return []
    if isinstance(obj, Commit):
        return list(obj.parents)
    if isinstance(obj, Tag):
        return [obj.object[1]]
    return []


def main_pack(store: S3ObjectStore) -> MainPack | None:
    """The newest live compacted pack of the pool, if it has a tips record (from its
    item when it carries one, else from its ``.tips`` file)."""
    infos = [info for info in store.pack_infos().values() if info.role == MAIN_ROLE]
    if not infos:
        return None
    newest = max(infos, key=lambda info: (info.created, info.name))
    recorded = newest.tips or read_tips(store, newest.name)
    if recorded is None:
        return None
    return MainPack(newest.name, newest.pack_size, recorded.tips, recorded.heads)


# -- serving a clone --------------------------------------------------------------------

def reuse_stream(repo: NimbusRepo, wants: set[bytes], haves: set[bytes], *, shallow: bool,
                 filtered: bool, include_tag: bool, ofs_delta: bool) -> Iterator[bytes] | None:
    """The bytes of a complete pack for a clone of ``wants`` (hex ids) made from the
    main pack, or None when reuse does not apply and the caller must build the pack:
    haves (a fetch), shallow or filtered requests, clients without ofs-delta (the main
    pack's deltas are OFS_DELTA), no main pack, or a main pack holding objects this
    clone may not get (module docstring).  Wants must already be validated by the
    negotiation; one that is missing also makes reuse decline."""
    if haves or shallow or filtered or not ofs_delta or not wants:
        return None
    planned = plan_clone(repo, wants, include_tag=include_tag)
    if planned is None:
        return None
    main, pack, plan = planned
    return _stream(repo.object_store, main, pack, plan.extras)


def plan_clone(repo: NimbusRepo, wants: set[bytes], *,
               include_tag: bool) -> tuple[MainPack, Pack, _Plan] | None:
    """(the main pack, its Pack, what the wants need beyond it) when a clone of
    ``wants`` may be served from the main pack (module docstring), else None."""
    store = repo.object_store
    main = main_pack(store)
    if main is None:
        return None
    pack = store.pack_by_name(main.name)
    plan = _Plan(store, pack, main.tips)
    if not plan.walk(wants):
        return None
    if include_tag:
        _add_tags(repo, plan)
    # A clone wants every head, so the refs are usually not needed to allow it.
    if not main.heads <= plan.boundary:
        allowed = plan.boundary | set(repo.refs.as_dict().values())
        if not main.heads <= allowed:
            return None
    return main, pack, plan


class _Plan:
    """The objects the wants reach that the main pack lacks, in walk order.  The pack's
    recorded tips are known to be in it: a clone's wants, which are usually just those,
    need no look at the pack's index."""

    def __init__(self, store: S3ObjectStore, pack: Pack, tips: frozenset[bytes]):
        self.store = store
        self.pack = pack
        self.tips = tips
        self.extras: list[bytes] = []
        self.extra_set: set[bytes] = set()
        self.boundary: set[bytes] = set()   # objects of the pack the walk stopped at
        self.seen: set[bytes] = set()
        self.kinds: dict[bytes, int] = {}    # type number of each extra

    def in_pack(self, sha: bytes) -> bool:
        return sha in self.tips or sha in self.pack

    def has(self, sha: bytes) -> bool:
        return sha in self.extra_set or self.in_pack(sha)

    def walk(self, roots: Iterable[bytes]) -> bool:
        stack = list(roots)
        while stack:
            sha = stack.pop()
            if sha in self.seen:
                continue
            self.seen.add(sha)
            if self.in_pack(sha):
                self.boundary.add(sha)
                continue
            try:
                obj = self.store[sha]
            except KeyError:
                return False
            self.extras.append(sha)
            self.extra_set.add(sha)
            self.kinds[sha] = obj.type_num
            stack.extend(references(obj))
        return True


def _add_tags(repo: NimbusRepo, plan: _Plan) -> None:
    """include-tag: annotated tags of the repository that point at what is sent."""
    for name, sha in repo.refs.as_dict(b"refs/tags").items():
        if plan.has(sha):
            continue
        peeled = repo.refs.get_peeled(b"refs/tags/" + name)
        if peeled is None:
            try:
                peeled = peel_sha(repo.object_store, sha)[1].id
            except KeyError:
                continue
        if peeled != sha and plan.has(peeled):
            plan.walk([sha])


def _stream(store: S3ObjectStore, main: MainPack, pack: Pack,
            extras: list[bytes]) -> Iterator[bytes]:
    if not extras:
        # The stored pack is the answer, header and trailer included.
        return _verbatim(store, main)
    count = len(pack.index)
    out = HashedChunks(store.object_format.hash_func(), CHUNK_SIZE)

    def generate() -> Iterator[bytes]:
        yield from out.put(b"PACK" + struct.pack(">LL", 2, count + len(extras)))
        entries = _pack_entries(store, main, count)
        try:
            for chunk in entries:
                yield from out.put(chunk)
        finally:
            entries.close()  # an abandoned stream drops its partial cache copy now
        others = [p for name, p in live_packs(store) if name != main.name]
        sent = set()
        for sha in extras:
            yield from out.put(entry_for(store, pack, others, sent, sha))
            sent.add(hex_to_sha(sha))
        yield from out.flush()
        yield out.hasher.digest()

    return generate()


def _verbatim(store: S3ObjectStore, main: MainPack) -> Iterator[bytes]:
    """The main pack's bytes as stored, unhashed: git checks the trailer.  Only a copy
    the disk cache is to keep is hashed on the way, and kept if the trailer holds."""
    chunks, copy = _pack_source(store, main)
    if copy is None:
        yield from chunks
        return
    trailer = store.object_format.oid_length
    hasher = store.object_format.hash_func()
    tail = b""
    try:
        for chunk in chunks:
            data = tail + chunk if tail else chunk
            hasher.update(data[:-trailer])
            tail = data[-trailer:]
            yield chunk
        if hasher.digest() != tail:
            raise ChecksumMismatch(hasher.digest(), tail)
        copy.close()
        store.cache.adopt(_key(store, main.name, "pack"), copy.name)
    finally:
        chunks.close()
        copy.close()
        _unlink(copy.name)


def live_packs(store: S3ObjectStore) -> list[tuple[str, Pack]]:
    return [(name, store.pack_by_name(name)) for name in sorted(store.pack_infos())]


def entry_for(store: S3ObjectStore, main: Pack, others: list[Pack], sent: set[bytes],
           sha: bytes) -> bytes:
    """One pack entry for an object pushed after compaction: its stored compressed
    bytes when it is a whole object or a delta against something already sent (as a
    REF_DELTA), else the whole object compressed afresh."""
    fmt = store.object_format
    for pack in others:
        if sha not in pack:
            continue
        unpacked = pack.get_unpacked_object(sha, include_comp=True, convert_ofs_delta=True)
        comp = b"".join(unpacked.comp_chunks or ())
        if unpacked.pack_type_num == REF_DELTA:
            base = unpacked.delta_base
            if base in sent or base in main:
                return bytes(pack_object_header(REF_DELTA, base, unpacked.decomp_len, fmt)) + comp
            break
        return bytes(pack_object_header(unpacked.pack_type_num, None, unpacked.decomp_len,
                                        fmt)) + comp
    type_num, raw = store.get_raw(sha)
    return bytes(pack_object_header(type_num, None, len(raw), fmt)) + zlib.compress(raw)


def _pack_entries(store: S3ObjectStore, main: MainPack, count: int) -> Iterator[bytes]:
    """The main pack's bytes between its header and its trailer, checking both: the
    header's count must match the index, the trailer the bytes read."""
    trailer = store.object_format.oid_length
    hasher = store.object_format.hash_func()
    tail = b""
    started = False
    chunks, copy = _pack_source(store, main)
    try:
        for chunk in chunks:
            data = tail + chunk if tail else chunk
            if not started:
                if len(data) < _HEADER + trailer:
                    tail = data
                    continue
                header = data[:_HEADER]
                if header[:4] != b"PACK" or struct.unpack(">L", header[8:12])[0] != count:
                    raise ChecksumMismatch(f"{main.name}.pack does not match its index", header)
                hasher.update(header)
                data = data[_HEADER:]
                started = True
            body, tail = data[:-trailer], data[-trailer:]
            hasher.update(body)
            if body:
                yield body
        if not started or hasher.digest() != tail:
            raise ChecksumMismatch(hasher.digest(), tail)
        if copy is not None:
            copy.close()
            store.cache.adopt(_key(store, main.name, "pack"), copy.name)
    finally:
        chunks.close()
        if copy is not None:
            copy.close()
            _unlink(copy.name)


def _pack_source(store: S3ObjectStore, main: MainPack):
    """(chunks of the main pack, None) from the disk cache, or (chunks streamed from S3,
    the cache file they are copied into as they pass)."""
    cached = store.cache.open_cached(_key(store, main.name, "pack"),
                                     lambda path: open(path, "rb"))
    if cached is not None:
        return _file_chunks(cached), None
    # A pack that would push most of the cache out is streamed without keeping it.
    copy = (store.cache.new_temp_file("reuse-") if main.size <= store.cache.max_bytes // 2
            else None)

    def from_s3() -> Iterator[bytes]:
        for chunk in packdb.stream(store.pool_id, main.name, "pack", CHUNK_SIZE):
            if copy is not None:
                copy.write(chunk)
            yield chunk

    return from_s3(), copy


def _file_chunks(f) -> Iterator[bytes]:
    with f:
        yield from iter(lambda: f.read(CHUNK_SIZE), b"")


def _key(store: S3ObjectStore, name: str, ext: str) -> str:
    return f"{store.pool_id}/{name}.{ext}"


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass

