"""Unit tests of chalicelib.gitstore under moto: packs, the cache, refs, retirement."""
from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
import time

import pytest


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    path = tmp_path / "cache"
    monkeypatch.setenv("NIMBUS_CACHE_DIR", str(path))
    monkeypatch.setenv("NIMBUS_CACHE_MAX_BYTES", str(64 << 20))
    return path


@pytest.fixture
def s3_calls(aws):
    """Names of S3 operations made, e.g. ["GetObject", ...], with Range noted."""
    from chalicelib import aws as aws_clients

    calls: list[str] = []

    def hook(model, params, **_):
        calls.append(model.name + ("(range)" if params.get("Range") else ""))

    # before-parameter-build sees the call's own parameters (Range included).
    client = aws_clients.client("s3")
    client.meta.events.register("before-parameter-build.s3", hook)
    yield calls
    client.meta.events.unregister("before-parameter-build.s3", hook)


def make_commit(store, files: dict[bytes, bytes], parents=(), message=b"m"):
    from dulwich.objects import Blob, Commit, Tree

    tree = Tree()
    objects = []
    for name, data in files.items():
        blob = Blob.from_string(data)
        objects.append((blob, None))
        tree.add(name, 0o100644, blob.id)
    commit = Commit()
    commit.tree = tree.id
    commit.parents = list(parents)
    commit.author = commit.committer = b"T <t@example.com>"
    commit.author_time = commit.commit_time = 1700000000
    commit.author_timezone = commit.commit_timezone = 0
    commit.message = message
    store.add_objects(objects + [(tree, None), (commit, None)])
    return commit


def new_store(pool="pool1", **kw):
    from chalicelib.gitstore.cache import default_cache
    from chalicelib.gitstore.objects import S3ObjectStore

    return S3ObjectStore(pool, cache=kw.pop("cache", None) or default_cache(), **kw)


# -- packs ------------------------------------------------------------------------------

def test_pack_publish_list_and_read_back(aws, cache_dir):
    from chalicelib import aws as aws_clients
    from chalicelib.gitstore import packdb
    from chalicelib.gitstore.cache import DiskCache

    store = new_store()
    commit = make_commit(store, {b"a.txt": b"hello\n"})
    packs = packdb.list_packs("pool1")
    assert len(packs) == 1
    (name, info), = packs.items()
    assert name.startswith("pack-") and info.role == "push" and info.pack_size > 0
    keys = {o["Key"] for o in aws_clients.client("s3").list_objects_v2(
        Bucket="nimbus-data", Prefix="packs/pool1/")["Contents"]}
    assert keys == {f"packs/pool1/{name}.pack", f"packs/pool1/{name}.idx"}

    # A fresh process (empty cache) reads the objects back from S3.
    other = new_store(cache=DiskCache(str(cache_dir) + "-other", 1 << 30))
    assert other[commit.id].tree == commit.tree
    assert other[commit.tree][b"a.txt"][1] in other
    # Another pool sees nothing: pools are separate namespaces.
    assert commit.id not in new_store("pool2")


def test_identical_pack_uploaded_twice_is_one_pack(aws, cache_dir):
    from chalicelib.gitstore import packdb

    make_commit(new_store(), {b"a": b"1"})
    make_commit(new_store(), {b"a": b"1"})  # same objects, same bytes: S3 answers 412
    assert len(packdb.list_packs("pool1")) == 1


def test_idx_cache_hit_avoids_s3_get(aws, cache_dir, s3_calls):
    from chalicelib.gitstore.cache import DiskCache

    writer = new_store()
    commit = make_commit(writer, {b"a.txt": b"x" * 1000})
    s3_calls.clear()
    # Same process, new request: files we uploaded were kept in the cache.
    assert new_store()[commit.id].id == commit.id
    assert [c for c in s3_calls if c.startswith("GetObject")] == []

    cold = DiskCache(str(cache_dir) + "-cold", 1 << 30)
    assert new_store(cache=cold)[commit.id].id == commit.id
    assert sorted(c for c in s3_calls if c.startswith("GetObject")) == ["GetObject", "GetObject"]
    s3_calls.clear()
    assert new_store(cache=cold)[commit.tree].id == commit.tree  # warm: idx and pack cached
    assert s3_calls == []
    assert cold.hits >= 2


def test_big_pack_single_object_reads_use_ranges(aws, cache_dir, s3_calls):
    from chalicelib.gitstore.cache import DiskCache

    writer = new_store()
    files = {f"f{i}".encode(): os.urandom(20000) for i in range(30)}
    commit = make_commit(writer, files)
    cold = DiskCache(str(cache_dir) + "-ranged", 1 << 30)
    s3_calls.clear()
    store = new_store(cache=cold, ranged_min_bytes=0)
    blob_id = store[commit.tree][b"f7"][1]
    assert store[blob_id].data == files[b"f7"]
    gets = [c for c in s3_calls if c.startswith("GetObject")]
    assert gets.count("GetObject") == 1          # the .idx
    assert 1 <= gets.count("GetObject(range)") <= 4
    pack_name = os.path.basename(store.packs[0]._basename)
    assert not os.path.exists(cold.path(f"pool1/{pack_name}.pack"))   # not downloaded
    # A whole-pack scan downloads the pack once and then serves from the mapping.
    assert len(list(store.packs[0].iterobjects())) == 32
    assert s3_calls.count("GetObject") == 2


def test_add_thin_pack_completes_external_bases(aws, cache_dir):
    from dulwich.objects import Blob
    from dulwich.pack import REF_DELTA, UnpackedObject, create_delta, write_pack_data

    from chalicelib.gitstore import packdb

    store = new_store()
    base = Blob.from_string(b"line\n" * 2000)
    store.add_objects([(base, None)])
    newer = Blob.from_string(b"line\n" * 2000 + b"one more\n")
    delta = b"".join(create_delta(base.as_raw_string(), newer.as_raw_string()))
    buf = io.BytesIO()
    write_pack_data(buf.write, iter([UnpackedObject(
        REF_DELTA, sha=newer.sha().digest(), delta_base=base.sha().digest(),
        decomp_chunks=[delta])]), num_records=1, object_format=store.object_format)
    thin = buf.getvalue()

    pack = new_store().add_thin_pack(io.BytesIO(thin).read, None)
    assert newer.id in pack and base.id in pack  # completed: the base was appended
    assert len(packdb.list_packs("pool1")) == 2
    assert new_store()[newer.id].data == newer.data


def test_pack_with_dangling_reference_is_refused(aws, cache_dir):
    from dulwich.objects import Commit, Tree
    from dulwich.pack import write_pack_objects

    from chalicelib.gitstore import packdb
    from chalicelib.gitstore.errors import MissingObjects

    tree = Tree()
    commit = Commit()
    commit.tree = tree.id
    commit.parents = [b"1" * 40]  # nobody has it
    commit.author = commit.committer = b"T <t@example.com>"
    commit.author_time = commit.commit_time = 0
    commit.author_timezone = commit.commit_timezone = 0
    commit.message = b"m"
    buf = io.BytesIO()
    write_pack_objects(buf.write, [(tree, None), (commit, None)],
                       object_format=new_store().object_format)
    with pytest.raises(MissingObjects):
        new_store().add_thin_pack(io.BytesIO(buf.getvalue()).read, None)
    assert packdb.list_packs("pool1") == {}


# -- the cache ------------------------------------------------------------------------

def test_disk_cache_is_lru_bounded_and_fills_once(tmp_path):
    from chalicelib.gitstore.cache import DiskCache

    cache = DiskCache(str(tmp_path / "c"), max_bytes=250)
    fills = []

    def filler(data):
        def fill(f):
            fills.append(data)
            time.sleep(0.05)
            f.write(data)
        return fill

    def read(path):
        with open(path, "rb") as f:
            return f.read()

    results = []
    threads = [threading.Thread(target=lambda: results.append(
        cache.open("p/a", filler(b"a" * 100), read))) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [b"a" * 100] * 5 and len(fills) == 1
    cache.open("p/b", filler(b"b" * 100), read)
    cache.open("p/a", filler(b"a" * 100), read)   # touch a: b is now the oldest
    cache.open("p/c", filler(b"c" * 100), read)   # over 250 bytes: evicts b
    assert cache.open_cached("p/b", read) is None
    assert cache.open_cached("p/a", read) == b"a" * 100
    assert cache.total_bytes <= 250
    # A new process finds the files left behind.
    assert DiskCache(str(tmp_path / "c"), 250).open_cached("p/c", read) == b"c" * 100


# -- refs -------------------------------------------------------------------------------

A, B, C = b"a" * 40, b"b" * 40, b"c" * 40
ZERO = b"0" * 40


def test_refs_compare_and_swap(aws):
    from chalicelib.gitstore.refs import DynamoRefsContainer

    refs = DynamoRefsContainer("r1")
    refs.set_symbolic_ref(b"HEAD", b"refs/heads/main")
    assert refs.add_if_new(b"refs/heads/main", A)
    assert not refs.add_if_new(b"refs/heads/main", B)
    assert refs.set_if_equals(b"refs/heads/main", A, B)
    assert not refs.set_if_equals(b"refs/heads/main", A, C)       # stale old value
    other = DynamoRefsContainer("r1")                              # another request
    assert other[b"HEAD"] == B and other.get_symrefs() == {b"HEAD": b"refs/heads/main"}
    assert other.set_if_equals(b"HEAD", B, C)                      # follows the symref
    assert not refs.set_if_equals(b"refs/heads/main", B, A)        # refs' snapshot is stale
    assert not refs.remove_if_equals(b"refs/heads/main", B)
    assert refs.remove_if_equals(b"refs/heads/main", C)
    refs.refresh()
    assert refs.as_dict() == {} and refs.read_ref(b"HEAD") == b"ref: refs/heads/main"
    assert DynamoRefsContainer("r2").allkeys() == set()


def test_commit_updates_all_or_nothing(aws):
    from chalicelib.gitstore import refdb
    from chalicelib.gitstore.errors import StaleRefs
    from chalicelib.gitstore.refs import DynamoRefsContainer

    refs = DynamoRefsContainer("r1")
    refs.commit_updates([(b"refs/heads/main", ZERO, A), (b"refs/heads/dev", ZERO, A),
                         (b"refs/tags/v1", ZERO, B)])
    before = refdb.load_refs("r1")
    with pytest.raises(StaleRefs) as err:
        # The stale ones are a put and a delete, listed after good ones: reasons come
        # back in PynamoDB's grouped order (deletes, then puts), not ours.
        refs.commit_updates([(b"refs/heads/main", A, C), (b"refs/heads/new", ZERO, C),
                             (b"refs/heads/dev", B, C), (b"refs/tags/v1", A, ZERO)])
    assert sorted(err.value.refs) == ["refs/heads/dev", "refs/tags/v1"]
    assert refdb.load_refs("r1") == before
    refs.commit_updates([(b"refs/heads/main", A, C), (b"refs/tags/v1", B, ZERO)])
    assert DynamoRefsContainer("r1").as_dict() == {b"refs/heads/main": C, b"refs/heads/dev": A}


def test_commit_updates_refuses_more_than_a_transaction_holds(aws):
    from chalicelib.gitstore import refdb
    from chalicelib.gitstore.errors import TooManyRefUpdates

    with pytest.raises(TooManyRefUpdates):
        refdb.commit_updates("r1", [(f"refs/tags/t{i}", ZERO, A) for i in range(101)])
    refdb.commit_updates("r1", [(f"refs/tags/t{i}", ZERO, A) for i in range(100)])
    assert len(refdb.load_refs("r1")) == 100
    assert refdb.delete_repo_refs("r1") == 100 and refdb.load_refs("r1") == {}


def test_init_repo_sets_head_and_is_idempotent(aws, cache_dir):
    from chalicelib.gitstore.errors import InvalidName
    from chalicelib.gitstore.repo import init_repo

    repo = init_repo(7, 7, "main")
    assert repo.refs.read_ref(b"HEAD") == b"ref: refs/heads/main"
    init_repo(7, 7, "main")
    with pytest.raises(InvalidName):
        init_repo(7, 7, "trunk")
    with pytest.raises(InvalidName):
        init_repo("bad/id", 7, "main")


def test_package_import_does_not_load_dulwich():
    code = ("import sys, chalicelib.gitstore as g; g.delete_repo_refs; g.sweep_pool; "
            "g.list_packs; print('dulwich' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.dirname(__file__)), timeout=60)
    assert out.stdout.strip() == "False", out.stderr


# -- retirement and sweeping ------------------------------------------------------------

def _s3_names(pool="pool1"):
    from chalicelib import aws as aws_clients

    listing = aws_clients.client("s3").list_objects_v2(Bucket="nimbus-data",
                                                       Prefix=f"packs/{pool}/")
    return {o["Key"].rsplit("/", 1)[-1].rsplit(".", 1)[0] for o in listing.get("Contents", [])}


def test_retire_then_sweep_after_grace(aws, cache_dir):
    from chalicelib.gitstore import packdb

    store = new_store()
    c1 = make_commit(store, {b"a": b"1"})
    make_commit(store, {b"a": b"2"}, parents=[c1.id])
    old = sorted(packdb.list_packs("pool1"))
    # A third pack stands in for a compacted one: uploaded, then swapped in atomically.
    make_commit(new_store("scratch"), {b"a": b"3"})
    (new,) = packdb.list_packs("scratch")
    for ext in ("pack", "idx"):
        body = io.BytesIO()
        packdb.download("scratch", new, ext, body)
        packdb.put_immutable(f"packs/pool1/{new}.{ext}", body)
    packdb.retire_packs("pool1", old, new)
    assert sorted(packdb.list_packs("pool1")) == [new]
    assert {t.sk for t in packdb.list_retired("pool1")} == {f"RETIRED#{n}" for n in old}

    assert packdb.sweep_pool("pool1", grace_seconds=3600) == []      # within grace
    assert _s3_names() == set(old) | {new}
    later = time.time() + 3601
    assert sorted(packdb.sweep_pool("pool1", grace_seconds=3600, now=later)) == old
    assert _s3_names() == {new} and packdb.list_retired("pool1") == []


def test_retiring_more_packs_than_one_transaction_holds(aws, cache_dir):
    from chalicelib.gitstore import packdb
    from chalicelib.gitstore.models import PackRecord, gitkeys

    old = [f"pack-{i:040x}" for i in range(120)]
    with PackRecord.batch_write() as batch:
        for name in old:
            batch.save(PackRecord(*gitkeys.pack("pool1", name), pack_size=1, idx_size=1,
                                  created=0))
    for ext in ("pack", "idx"):
        packdb.put_immutable(f"packs/pool1/pack-new.{ext}", io.BytesIO(b"x"))
    packdb.retire_packs("pool1", old, "pack-new")        # 3 transactions: 49 + 49 + 22
    assert list(packdb.list_packs("pool1")) == ["pack-new"]
    assert len(packdb.list_retired("pool1")) == 120


def test_republishing_a_retired_pack_cancels_its_deletion(aws, cache_dir):
    from chalicelib.gitstore import packdb

    make_commit(new_store(), {b"a": b"1"})
    (name,) = packdb.list_packs("pool1")
    packdb.retire("pool1", [name])
    assert packdb.list_packs("pool1") == {}
    make_commit(new_store(), {b"a": b"1"})   # the same objects pushed again
    assert list(packdb.list_packs("pool1")) == [name]
    assert packdb.list_retired("pool1") == []
    assert packdb.sweep_pool("pool1", grace_seconds=0, now=time.time() + 10) == []
    assert _s3_names() == {name}


def test_unpublished_files_are_swept_after_grace(aws, cache_dir):
    from chalicelib.gitstore import packdb

    packdb.put_immutable("packs/pool1/pack-dead.pack", io.BytesIO(b"x"))
    packdb.put_immutable("packs/pool1/pack-dead.idx", io.BytesIO(b"x"))
    assert packdb.sweep_pool("pool1", grace_seconds=3600) == []
    assert packdb.sweep_pool("pool1", grace_seconds=3600, now=time.time() + 3601) == ["pack-dead"]
    assert _s3_names() == set() and packdb.list_retired("pool1") == []


def test_delete_pool(aws, cache_dir):
    from chalicelib.gitstore import packdb

    make_commit(new_store(), {b"a": b"1"})
    packdb.put_immutable("packs/pool1/pack-orphan.pack", io.BytesIO(b"x"))
    packdb.delete_pool("pool1")
    assert packdb.list_packs("pool1") == {} and _s3_names() == set()


def test_protocol_errors_are_typed(aws, cache_dir):
    from chalicelib.gitstore.errors import ProtocolError
    from chalicelib.gitstore.repo import init_repo
    from chalicelib.gitstore.smart_http import advertise, upload_pack

    with init_repo("p1", "p1", "main") as repo:
        with pytest.raises(ProtocolError):
            advertise(repo, "git-upload-archive")
        # A want of an object the repository lacks is git's "not our ref": an ERR
        # pkt-line, which git shows as "remote error: ...", not a server failure.
        answer = upload_pack(repo, b"0032want " + b"1" * 40 + b"\n0000")
        assert answer[4:].startswith(b"ERR ") and b"not our ref" in answer, answer
        assert advertise(repo, "git-receive-pack").startswith(
            b"001f# service=git-receive-pack\n0000")


def test_a_store_dropped_unclosed_keeps_no_pack_file_open(fast_api):
    """A repository opened and dropped without ``close`` (as many reads do) lets go of
    the pack files its lookups opened at once, not when the garbage collector comes by:
    a process serving a repository of hundreds of packs otherwise ran out of file
    descriptors ("Too many open files") within a few hundred requests."""
    import base64
    import gc

    from chalicelib import repos
    from chalicelib.gitstore import repo as gitrepo

    api = fast_api
    api.create_user("alice")
    token = api.create_token("alice")
    assert api.post("/user/repos", token=token, json={"name": "p", "auto_init": True}).status == 201
    for n in range(8):      # a pack each
        assert api.post(f"/repos/alice/p/contents/f{n}.txt", token=token, json={
            "content": base64.b64encode(b"x").decode()}).status == 201
    repo = repos.repo_by_name("alice", "p")
    gc.collect()
    gc.disable()            # what the collector would free is not what this is about
    try:
        before = len(os.listdir("/proc/self/fd"))
        for _ in range(3):
            git = gitrepo.open_repo(int(repo.id), int(repo.pool_id))
            assert (b"0" * 40) not in git.object_store      # a miss opens every index
            del git
        assert len(os.listdir("/proc/self/fd")) == before
    finally:
        gc.enable()
