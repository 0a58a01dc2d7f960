"""Object types and sizes from pack entry headers (gitstore/object_sizes): against the
real git CLI's own packs (offset and ref deltas) read from local files, against a
pushed pack read by S3 ranges (not downloaded), and on entries that do not parse or
delta chains that do not end (measured whole)."""
from __future__ import annotations

import subprocess
import zlib
from pathlib import Path

import pytest
from dulwich.object_format import get_object_format
from dulwich.pack import pack_object_header

from chalicelib.gitstore import object_sizes
from chalicelib.gitstore.object_sizes import (BLOB, COMMIT, OFS_DELTA, REF_DELTA, TAG, TREE,
                                              ObjectSizes, delta_result_size, entry_header)
from tests.repos.test_events_repos import ZERO
from tests.git_transport.test_git_http import git, git_env  # noqa: F401 - git_env: a fixture

SHA1 = get_object_format("sha1")
TYPES = {"commit": COMMIT, "tree": TREE, "blob": BLOB, "tag": TAG}


def history(env, work: Path) -> dict[bytes, tuple[int, int]]:
    """A small history made by git (an edited big file, so deltas, and an annotated
    tag); {object id: (type, size)} as ``git cat-file`` reports them."""
    git(env, "init", "-q", str(work))
    lines = [f"line {i} of the big file\n" for i in range(3000)]
    (work / "big.txt").write_text("".join(lines))
    (work / "dir").mkdir()
    (work / "dir" / "small.txt").write_text("small\n")
    git(env, "add", "-A", cwd=work)
    git(env, "commit", "-q", "-m", "first", cwd=work)
    for n in (700, 1500, 2200):
        lines[n] = f"line {n}, edited\n"
        (work / "big.txt").write_text("".join(lines))
        git(env, "commit", "-q", "-am", f"edit {n}", cwd=work)
    git(env, "tag", "-a", "v1", "-m", "one", "HEAD~2", cwd=work)
    listed = git(env, "cat-file", "--batch-all-objects", "--batch-check", cwd=work).stdout
    found = {}
    for line in listed.splitlines():
        sha, kind, size = line.split()
        found[sha.encode()] = (TYPES[kind], int(size))
    return found


def pack_of(env, work: Path, dest: Path, *, ofs: bool) -> Path:
    """All objects in one pack made by git (offset or ref deltas) in ``dest``/pack."""
    (dest / "pack").mkdir(parents=True)
    args = ["pack-objects", "--all", "--revs", "--window=10", "--depth=50"]
    subprocess.run(["git", *args, *(["--delta-base-offset"] if ofs else []),
                    str(dest / "pack" / "pack")], cwd=work, env=env, input=b"",
                   capture_output=True, check=True)
    return dest


def kinds_in(store, expected) -> set[int]:
    kinds = set()
    for sha in expected:
        for pack in store.packs:
            try:
                offset = pack.index.object_offset(sha)
            except KeyError:
                continue
            if hasattr(pack.data, "read_range"):
                read = pack.data.read_range
            else:
                read = reader(Path(pack.data.path).read_bytes())
            kinds.add(entry_header(read, offset, 20).kind)
    return kinds


def no_whole_reads(monkeypatch, store) -> list:
    """Whole-object reads of ``store`` are recorded (and still answered)."""
    reads = []
    real = store.get_raw
    monkeypatch.setattr(store, "get_raw", lambda sha: reads.append(sha) or real(sha))
    return reads


@pytest.mark.parametrize("ofs", [True, False], ids=["offset-deltas", "ref-deltas"])
def test_local_git_packs(git_env, tmp_path, monkeypatch, ofs):  # noqa: F811
    from dulwich.object_store import DiskObjectStore

    work = tmp_path / "work"
    expected = history(git_env, work)
    store = DiskObjectStore(str(pack_of(git_env, work, tmp_path / "objects", ofs=ofs)))
    assert kinds_in(store, expected) >= {OFS_DELTA if ofs else REF_DELTA, TAG}
    reads = no_whole_reads(monkeypatch, store)
    with ObjectSizes(store) as sizes:
        assert {sha: sizes.info(sha) for sha in expected} == expected
        assert {sha: sizes.size(sha) for sha in expected} == \
            {sha: size for sha, (_, size) in expected.items()}
        assert sizes.info(b"0" * 40) is None and sizes.size(b"0" * 40) is None
        opened = [f for _, _, f in sizes._readers.values()]
        assert opened and not any(f.closed for f in opened)
    assert all(f.closed for f in opened)       # the block closed the pack files
    assert reads == []


def test_pushed_pack_read_by_ranges_is_not_downloaded(api, git_env, tmp_path,  # noqa: F811
                                                      monkeypatch):
    """A pack read by S3 ranges: every type and size from the entries' own bytes (delta
    chains followed by ranges), no whole-object read, the pack never downloaded."""
    from dulwich.protocol import pkt_line

    from chalicelib.gitstore.cache import DiskCache
    from chalicelib.gitstore.objects import S3ObjectStore
    from chalicelib.gitstore.ranged import RangedPackData
    from chalicelib.repos import store as repo_store

    work = tmp_path / "work"
    expected = history(git_env, work)
    refs = [line.split() for line in git(git_env, "for-each-ref", "--format=%(objectname) "
                                         "%(refname)", cwd=work).stdout.splitlines()]
    pack = subprocess.run(["git", "pack-objects", "--stdout", "--all", "--revs",
                           "--delta-base-offset"], cwd=work, env=git_env, input=b"",
                          capture_output=True, check=True).stdout
    token = (api.create_user("alice"), api.create_token("alice"))[1]
    assert api.post("/user/repos", token=token, json={"name": "sizes"}).status == 201
    body = b"".join(pkt_line(f"{ZERO} {sha} {name}".encode() +
                             (b"\x00report-status" if i == 0 else b"") + b"\n")
                    for i, (sha, name) in enumerate(refs)) + b"0000" + pack
    r = api.post("/alice/sizes.git/git-receive-pack", body=body, token=token, raw=True,
                 headers={"Content-Type": "application/x-git-receive-pack-request"})
    assert r.status == 200 and r.body.count(b"ok refs/") == len(refs), r

    pool = int(repo_store.get("alice", "sizes").pool_id)
    ranged = S3ObjectStore(pool, cache=DiskCache(str(tmp_path / "cache"), 1 << 30),
                           ranged_min_bytes=0)
    assert all(isinstance(p.data, RangedPackData) for p in ranged.packs)
    assert OFS_DELTA in kinds_in(ranged, expected)
    reads = no_whole_reads(monkeypatch, ranged)
    with ObjectSizes(ranged) as sizes:
        assert {sha: sizes.info(sha) for sha in expected} == expected
    assert reads == []
    assert not any(p.data.materialized for p in ranged.packs)

    # Entries that cannot be read in place are read whole (by ranges too), still right.
    monkeypatch.setattr(RangedPackData, "read_range", lambda self, start, end: b"")
    with ObjectSizes(ranged) as sizes:
        assert {sha: sizes.info(sha) for sha in expected} == expected
    assert sorted(reads) == sorted(expected)
    assert not any(p.data.materialized for p in ranged.packs)


# Entries that do not parse, chains that do not end --------------------------------------

def reader(data: bytes):
    return lambda start, end: data[start:end]


def entry(kind: int, body: bytes, size: int | None = None, base=None) -> bytes:
    return bytes(pack_object_header(kind, base, len(body) if size is None else size, SHA1)) \
        + zlib.compress(body)


def delta(base_size: int, result_size: int) -> bytes:
    """A delta's header (its two sizes) and one insert instruction."""
    def varint(n: int) -> bytes:
        out = bytearray()
        while True:
            out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
            n >>= 7
            if not n:
                return bytes(out)
    return varint(base_size) + varint(result_size) + b"\x01x"


def test_headers_that_do_not_parse():
    whole = entry(BLOB, b"hello")
    assert entry_header(reader(whole), 0, 20) == object_sizes.EntryHeader(
        BLOB, 5, None, 1)
    big = entry(BLOB, b"", size=1 << 40)
    assert entry_header(reader(big), 0, 20).size == 1 << 40
    assert entry_header(reader(b""), 0, 20) is None
    assert entry_header(reader(big[:2]), 0, 20) is None           # size runs off the end
    assert entry_header(reader(bytes([0x50, 0])), 0, 20) is None  # type 5 is no type
    assert entry_header(reader(bytes([0x00, 0])), 0, 20) is None
    ref = entry(REF_DELTA, delta(3, 70_000), base=b"\x11" * 20)
    assert entry_header(reader(ref[:12]), 0, 20) is None          # a cut base id
    head = entry_header(reader(ref), 0, 20)
    assert head.kind == REF_DELTA and head.base == b"\x11" * 20 and head.data_offset == 21
    assert delta_result_size(reader(ref), head.data_offset) == 70_000
    # An offset delta whose base would lie before the pack's start.
    padding = b"\0" * 10
    ofs = padding + entry(OFS_DELTA, delta(3, 4), base=50)
    assert entry_header(reader(ofs), 10, 20) is None
    ofs = padding + entry(OFS_DELTA, delta(3, 4), base=10)
    assert entry_header(reader(ofs), 10, 20).base == 0
    # Deltas whose data is not a zlib stream, or too short to hold two sizes.
    assert delta_result_size(reader(b"\x00garbage" * 10), 0) is None
    assert delta_result_size(reader(zlib.compress(b"\x05")), 0) is None
    assert delta_result_size(reader(b""), 0) is None


class FakePack:
    def __init__(self, path: Path, offsets: dict[bytes, int]):
        self.offsets = offsets
        self.data = type("Data", (), {"path": str(path)})()
        self.index = self

    def object_offset(self, sha: bytes) -> int:
        return self.offsets[sha]


class FakeStore:
    """One pack file of hand-made entries; whole reads answer ``whole``."""
    object_format = SHA1

    def __init__(self, path: Path, entries: list[tuple[bytes, bytes]], whole):
        data, offsets = b"PACK\0\0\0\2\0\0\0\0", {}
        for sha, raw in entries:
            offsets[sha] = len(data)
            data += raw
        path.write_bytes(data)
        self.packs = [FakePack(path, offsets)]
        self.whole, self.reads = whole, []

    def get_raw(self, sha: bytes):
        self.reads.append(sha)
        if sha not in self.whole:
            raise KeyError(sha)
        return self.whole[sha]


def test_delta_chains_are_bounded(tmp_path):
    a, b = b"\xaa" * 20, b"\xbb" * 20
    # A REF delta that is its own base, and one whose base is nowhere.
    store = FakeStore(tmp_path / "loop.pack",
                      [(a, entry(REF_DELTA, delta(1, 9), base=a)),
                       (b, entry(REF_DELTA, delta(1, 7), base=b"\xcc" * 20))],
                      {a: (BLOB, b"x" * 9), b: (TREE, b"t" * 7)})
    with ObjectSizes(store) as sizes:
        assert sizes.size(a) == 9 and sizes.size(b) == 7 and store.reads == []
        assert sizes.info(a) == (BLOB, 9) and sizes.info(b) == (TREE, 7)
    assert store.reads == [a, b]

    # Offset chains: one within the bound ends at its base, one past it is read whole.
    def chain(length: int, path: Path) -> FakeStore:
        raw, sha = entry(COMMIT, b"c" * 5), b"\x01" * 20
        items = [(sha, raw)]
        for i in range(length):
            prev = items[-1][1]
            items.append(((i + 2).to_bytes(20, "big"),
                          entry(OFS_DELTA, delta(5, 100 + i), base=len(prev))))
        return FakeStore(path, items, {items[-1][0]: (COMMIT, b"w" * 100)})

    short = chain(3, tmp_path / "short.pack")
    with ObjectSizes(short) as sizes:
        assert sizes.info((4).to_bytes(20, "big")) == (COMMIT, 102) and short.reads == []
    long = chain(object_sizes.MAX_DELTA_DEPTH + 5, tmp_path / "long.pack")
    last = (object_sizes.MAX_DELTA_DEPTH + 6).to_bytes(20, "big")
    with ObjectSizes(long) as sizes:
        assert sizes.size(last) == 100 + object_sizes.MAX_DELTA_DEPTH + 4
        assert long.reads == []
        assert sizes.info(last) == (COMMIT, 100) and long.reads == [last]


def test_a_store_without_packs_is_read_whole():
    from dulwich.object_store import MemoryObjectStore
    from dulwich.objects import Blob

    store = MemoryObjectStore()
    blob = Blob.from_string(b"in memory\n")
    store.add_object(blob)
    with ObjectSizes(store) as sizes:
        assert sizes.info(blob.id) == (BLOB, 10) and sizes.size(blob.id) == 10
        assert sizes.info(b"1" * 40) is None
