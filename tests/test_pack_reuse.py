"""Clones served from the compacted main pack (chalicelib/gitstore/pack_reuse.py).

Repositories get their history with the real git CLI through the smart-HTTP test
server of tests/test_gitstore_git.py; the packs ``reuse_stream`` produces are checked
by C git: ``index-pack --stdin --strict`` in a fresh bare repository, the refs set,
``fsck --strict``, and the objects compared with ``rev-list --objects`` of the source.

``measure_reuse`` times reuse against ``git pack-objects --all --stdout`` and dulwich's
object-by-object pack on one repository (``python -m tests.test_pack_reuse`` runs it on
bench/git_transfer.py's 20 MB repository).
"""
from __future__ import annotations

import os
import struct
import subprocess
import time
import tracemalloc
from pathlib import Path

from tests.test_gitstore_git import (commit, git, remote_refs, serial_aws,  # noqa: F401 - fixtures
                                     server, source_text)

ZERO = "0" * 40


def reuse(repo, wants, haves=(), *, shallow=False, filtered=False, include_tag=True,
          ofs_delta=True):
    from chalicelib.gitstore.pack_reuse import reuse_stream

    return reuse_stream(repo, {w if isinstance(w, bytes) else w.encode() for w in wants},
                        set(haves), shallow=shallow, filtered=filtered,
                        include_tag=include_tag, ofs_delta=ofs_delta)


def clone_wants(refs: dict[str, str]) -> set[str]:
    """What ``git clone`` asks for: every branch and tag."""
    return {sha for name, sha in refs.items()
            if name.startswith(("refs/heads/", "refs/tags/")) and not name.endswith("^{}")}


def run_git(*args, cwd=None, data: bytes | None = None) -> bytes:
    proc = subprocess.run(["git", *args], cwd=cwd, input=data, capture_output=True,
                          timeout=120, env={"PATH": os.environ["PATH"], "HOME": "/nonexistent",
                                            "GIT_CONFIG_NOSYSTEM": "1"})
    assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr.decode()}"
    return proc.stdout


def load_pack(tmp_path, data: bytes, refs: dict[str, str], name: str) -> set[str]:
    """Index the pack in a fresh bare repository, set the refs, fsck; its objects."""
    dest = tmp_path / name
    run_git("init", "-q", "--bare", str(dest))
    run_git("index-pack", "--stdin", "--strict", cwd=dest, data=data)
    for ref, sha in refs.items():
        run_git("update-ref", ref, sha, cwd=dest)
    run_git("fsck", "--strict", "--no-dangling", cwd=dest)
    out = run_git("cat-file", "--batch-all-objects", "--batch-check=%(objectname)", cwd=dest)
    return set(out.decode().split())


def closure(work, shas) -> set[str]:
    out = run_git("rev-list", "--objects", *sorted(shas), cwd=work)
    return {line.split()[0] for line in out.decode().splitlines()}


def main_body(pool: str) -> bytes:
    """The live main pack's entries (between header and trailer), read from S3."""
    from chalicelib import aws
    from chalicelib.gitstore import packdb
    from chalicelib.settings import get_settings

    (name,) = [n for n, i in packdb.list_packs(pool).items() if i.role == "compacted"]
    body = aws.client("s3").get_object(Bucket=get_settings().aws.BUCKET,
                                       Key=f"packs/{pool}/{name}.pack")["Body"].read()
    return body[12:-20]


def compact(pool, repos=None, **kw):
    from chalicelib.gitstore.compaction import compact_pool

    return compact_pool(pool, repos or [pool], min_age_seconds=kw.pop("min_age_seconds", 0),
                        grace_seconds=kw.pop("grace_seconds", 600), **kw)


def make_history(run, work, url, *, one_push: bool = True) -> None:
    """main (4 commits), topic, tag v1; in one push, or main first then the rest (so
    the pool holds two push packs and no main pack)."""
    run("init", "-q", work)
    for i in range(4):
        commit(run, work, "src/big.py", source_text(1) + f"# revision {i}\n" * (i + 1))
        commit(run, work, f"src/mod{i}.py", source_text(i))
    run("tag", "-a", "v1", "-m", "release one", cwd=work)
    run("checkout", "-q", "-b", "topic", cwd=work)
    commit(run, work, "topic.txt", "topic\n")
    run("checkout", "-q", "main", cwd=work)
    if not one_push:
        run("push", "-q", url, "main", cwd=work)
    run("push", "-q", url, "main", "topic", "v1", cwd=work)


def test_clone_pack_is_the_main_pack_verbatim_plus_what_came_later(server, git,  # noqa: F811
                                                                   tmp_path):
    from chalicelib.gitstore import pack_reuse

    url, work = server.url("demo"), str(tmp_path / "work")
    make_history(git, work, url, one_push=False)
    refs = remote_refs(git, url)
    with server.open("demo") as repo:
        # The first push (main alone) made the main pack; the second pack adds to it.
        roles = sorted(info.role for info in repo.object_store.pack_infos().values())
        first = pack_reuse.main_pack(repo.object_store)
        assert roles == ["compacted", "push"] and first.tips == {refs["refs/heads/main"].encode()}
        data = b"".join(reuse(repo, clone_wants(refs)))
    assert load_pack(tmp_path, data, {r: s for r, s in refs.items() if r != "HEAD"
                                      and not r.endswith("^{}")}, "zeroth") == closure(
        work, clone_wants(refs))
    result = compact("demo")
    assert result.new_pack and result.deltas > 0

    refs = remote_refs(git, url)
    wants = clone_wants(refs)
    with server.open("demo") as repo:
        main = pack_reuse.main_pack(repo.object_store)
        assert main.name == result.new_pack
        # Few tips: the pack's item carries them, so a clone reads no .tips file.
        assert repo.object_store.pack_infos()[main.name].tips.tips == main.tips
        assert main.tips == {sha.encode() for sha in wants}
        # v1 (a tag object) and topic reach main's head; only they are heads.
        assert main.heads == {refs["refs/tags/v1"].encode(), refs["refs/heads/topic"].encode()}
        chunks = list(reuse(repo, wants))
    data = b"".join(chunks)
    body = main_body("demo")
    assert data[12:12 + len(body)] == body and len(data) == 12 + len(body) + 20
    assert load_pack(tmp_path, data, {r: s for r, s in refs.items() if r != "HEAD"
                                      and not r.endswith("^{}")}, "first") == closure(work, wants)

    # After compaction: a small change to a big file (git sends a delta), a new branch,
    # a new annotated tag on the new commit.
    with open(os.path.join(work, "src/big.py"), "a") as f:
        f.write("# after compaction\n")
    git("commit", "-qam", "after compaction", cwd=work)
    commit(git, work, "new/file.txt", "brand new\n")
    git("branch", "later", "HEAD~1", cwd=work)
    git("tag", "-a", "v2", "-m", "release two", cwd=work)
    git("push", "-q", url, "main", "later", "v2", cwd=work)
    refs = remote_refs(git, url)
    wants = clone_wants(refs)
    with server.open("demo") as repo:
        data = b"".join(reuse(repo, wants))
    expected = closure(work, wants)
    extra = expected - closure(work, {s.decode() for s in main.tips})
    assert data[12:12 + len(body)] == body
    assert struct.unpack(">L", data[8:12])[0] == len(expected)
    got = load_pack(tmp_path, data, {r: s for r, s in refs.items() if r != "HEAD"
                                     and not r.endswith("^{}")}, "second")
    assert got == expected and extra <= got and len(extra) >= 6
    # The new blob went out as the delta git pushed (its base is in the main pack).
    idx = next((tmp_path / "second" / "objects" / "pack").glob("*.idx"))
    listing = run_git("verify-pack", "-v", str(idx)).decode().splitlines()
    deltas_after_main = [line for line in listing if len(line.split()) == 7
                         and int(line.split()[4]) >= 12 + len(body)]
    assert deltas_after_main

    # Wanting one branch: the rest of the main pack goes too (current refs of the
    # repository), and include-tag adds v2, whose target goes out but which was not asked.
    main_only = {refs["refs/heads/main"]}
    with server.open("demo") as repo:
        plain = load_pack(tmp_path, b"".join(reuse(repo, main_only, include_tag=False)),
                          {}, "third")
        tagged = load_pack(tmp_path, b"".join(reuse(repo, main_only)), {}, "fourth")
    assert tagged - plain == {refs["refs/tags/v2"]}
    assert closure(work, main_only) | closure(work, {refs["refs/tags/v1"]}) <= plain


def test_reuse_declines_what_it_cannot_serve(server, git, tmp_path):  # noqa: F811
    url, work = server.url("proj"), str(tmp_path / "work")
    server.repos["fork"] = ("fork", "proj")            # a fork shares the parent's pool
    make_history(git, work, url)
    compact("proj", ["proj", "fork"])
    refs = remote_refs(git, url)
    wants = clone_wants(refs)
    head = refs["refs/heads/main"].encode()
    with server.open("proj") as repo:
        assert reuse(repo, wants) is not None
        assert reuse(repo, wants, haves={head}) is None
        assert reuse(repo, wants, shallow=True) is None
        assert reuse(repo, wants, filtered=True) is None
        assert reuse(repo, wants, ofs_delta=False) is None
        assert reuse(repo, {"1" * 40}) is None        # unknown: the normal path answers

    # A branch deleted after compaction: its objects may not go out with a clone.
    git("checkout", "-q", "-b", "secret", cwd=work)
    commit(git, work, "secret.txt", "oops\n")
    git("push", "-q", url, "secret", cwd=work)
    compact("proj", ["proj", "fork"])
    git("push", "-q", url, ":secret", cwd=work)
    with server.open("proj") as repo:
        assert reuse(repo, clone_wants(remote_refs(git, url))) is None
    compact("proj", ["proj", "fork"])                # the next compaction catches up
    with server.open("proj") as repo:
        assert reuse(repo, clone_wants(remote_refs(git, url))) is not None

    # A fork's own branch is in the shared pack: the parent's clones must not get it.
    git("checkout", "-q", "-b", "forked", "main", cwd=work)
    commit(git, work, "fork.txt", "only in the fork\n")
    git("push", "-q", server.url("fork"), "forked", cwd=work)
    compact("proj", ["proj", "fork"])
    with server.open("proj") as repo:
        assert reuse(repo, clone_wants(remote_refs(git, url))) is None
    fork_refs = remote_refs(git, server.url("fork"))
    assert set(fork_refs) == {"refs/heads/forked"}
    with server.open("fork") as fork:
        assert reuse(fork, clone_wants(fork_refs)) is None   # parent's topic, v1


def test_streams_in_bounded_chunks_from_cache_or_s3(server, git,  # noqa: F811
                                                    tmp_path, monkeypatch):
    from chalicelib.gitstore import pack_reuse
    from chalicelib.gitstore.pack_reuse import CHUNK_SIZE

    url, work = server.url("big"), str(tmp_path / "work")
    git("init", "-q", work)
    for i in range(6):
        Path(work, f"blob{i}.bin").write_bytes(os.urandom(1 << 20))
    git("add", ".", cwd=work)
    git("commit", "-qm", "six megabytes", cwd=work)
    git("push", "-q", url, "main", cwd=work)
    compact("big")
    wants = clone_wants(remote_refs(git, url))
    body = main_body("big")
    assert len(body) > 6 << 20

    # Cold cache: one streaming GET of the pack, copied into the cache on the way.
    monkeypatch.setenv("NIMBUS_CACHE_DIR", str(tmp_path / "cold"))
    with server.open("big") as repo:
        sizes = [len(chunk) for chunk in reuse(repo, wants)]
    assert max(sizes) <= CHUNK_SIZE and sum(sizes) == 12 + len(body) + 20
    assert list((tmp_path / "cold" / "files" / "big").glob("*.pack"))
    # Warm: read from the cache file; memory follows the chunk size, not the pack's.
    monkeypatch.setattr(pack_reuse, "CHUNK_SIZE", 64 << 10)
    with server.open("big") as repo:
        stream = reuse(repo, wants)
        tracemalloc.start()
        try:
            sizes = [len(chunk) for chunk in stream]
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert sum(sizes) == 12 + len(body) + 20 and max(sizes) <= 64 << 10
    assert peak < 1 << 20

    # An abandoned cold stream leaves no partial file in the cache.
    monkeypatch.setenv("NIMBUS_CACHE_DIR", str(tmp_path / "cold2"))
    with server.open("big") as repo:
        stream = reuse(repo, wants)
        next(stream)
        next(stream)
        stream.close()
    assert not list((tmp_path / "cold2").rglob("*.pack"))
    assert not [p for p in (tmp_path / "cold2" / "tmp").iterdir() if p.name.startswith("reuse-")]


def test_compaction_records_tips_idempotently_and_races_with_a_push(server, git,  # noqa: F811
                                                                     tmp_path, monkeypatch):
    from chalicelib import aws
    from chalicelib.gitstore import pack_reuse, packdb
    from chalicelib.gitstore.models import PackRecord, gitkeys
    from chalicelib.settings import get_settings

    url, work = server.url("race"), str(tmp_path / "work")
    make_history(git, work, url, one_push=False)
    first = compact("race")
    assert first.new_pack
    assert not compact("race")                              # nothing new: nothing to do
    assert set(packdb.list_packs("race")) == {first.new_pack}

    # A pool compacted before tips were recorded is compacted again, once.
    aws.client("s3").delete_object(Bucket=get_settings().aws.BUCKET,
                                   Key=f"packs/race/{first.new_pack}.tips")
    PackRecord(*gitkeys.pack("race", first.new_pack)).update(
        actions=[PackRecord.tips.remove(), PackRecord.heads.remove()])
    monkeypatch.setenv("NIMBUS_CACHE_DIR", str(tmp_path / "fresh"))
    with server.open("race") as repo:
        assert pack_reuse.main_pack(repo.object_store) is None
    again = compact("race")
    assert again.new_pack == first.new_pack                # same objects, same bytes
    assert not compact("race")
    with server.open("race") as repo:
        assert pack_reuse.main_pack(repo.object_store).name == first.new_pack

    # A push lands while compaction runs (after it read refs and listed packs): its pack
    # stays live, and clones take the new main pack plus the pushed objects.
    with open(os.path.join(work, "src/big.py"), "a") as f:
        f.write("# pushed during compaction\n")
    git("commit", "-qam", "during compaction", cwd=work)
    original = pack_reuse.record_tips

    def push_meanwhile(store, name, tips):
        git("push", "-q", url, "main", cwd=work)
        return original(store, name, tips)

    commit(git, work, "more.txt", "more\n")
    git("push", "-q", url, "HEAD~1:refs/heads/main", cwd=work)  # something to compact
    monkeypatch.setattr(pack_reuse, "record_tips", push_meanwhile)
    racing = compact("race")
    monkeypatch.setattr(pack_reuse, "record_tips", original)
    live = packdb.list_packs("race")
    assert racing.new_pack in live and {i.role for i in live.values()} == {"compacted", "push"}
    refs = remote_refs(git, url)
    assert refs["refs/heads/main"] == git("rev-parse", "HEAD", cwd=work).stdout.strip()
    wants = clone_wants(refs)
    with server.open("race") as repo:
        data = b"".join(reuse(repo, wants))
    named = {r: s for r, s in refs.items() if r != "HEAD" and not r.endswith("^{}")}
    assert load_pack(tmp_path, data, named, "raced") == closure(work, wants)
    later = compact("race")                                 # the pushed pack is folded in
    assert later.new_pack and set(packdb.list_packs("race")) == {later.new_pack}
    with server.open("race") as repo:
        data = b"".join(reuse(repo, wants))
    assert load_pack(tmp_path, data, named, "folded") == closure(work, wants)

    # The sweeper deletes a retired pack's record with its files.
    packdb.sweep_pool("race", grace_seconds=600, now=time.time() + 601)
    listed = aws.client("s3").list_objects_v2(Bucket=get_settings().aws.BUCKET,
                                              Prefix="packs/race/")["Contents"]
    assert sorted(o["Key"].rsplit("/", 1)[1] for o in listed) == [
        f"{later.new_pack}.{ext}" for ext in ("idx", "pack", "tips")]


# -- measurement ------------------------------------------------------------------------

def measure_reuse(src: Path, pool: str = "bench", *, workdir: Path) -> dict:
    """Seconds to produce a clone's pack of the git repository ``src`` three ways, in one
    run: ``reuse_stream`` (cold and warm pack cache), dulwich's object-by-object pack
    (what upload-pack builds without reuse), ``git pack-objects --all --stdout``.
    AWS (moto) must be set up; the pool is filled from ``src`` and compacted."""
    from dulwich.pack import write_pack_data

    from chalicelib.gitstore.cache import DiskCache
    from chalicelib.gitstore.compaction import compact_pool
    from chalicelib.gitstore.repo import init_repo, open_repo

    pack = run_git("pack-objects", "--all", "--stdout", cwd=src, data=b"")
    refs = {}
    for line in run_git("for-each-ref", "--format=%(objectname) %(refname)",
                        cwd=src).decode().splitlines():
        sha, name = line.split()
        refs[name] = sha
    with init_repo(pool, pool, "main") as repo:
        f, commit_pack, _ = repo.object_store.add_pack()
        f.write(pack)
        commit_pack()
        repo.refs.commit_updates([(name, ZERO, sha) for name, sha in refs.items()])
    compacted = compact_pool(pool, [pool], min_age_seconds=0)
    wants = {sha.encode() for sha in refs.values()}
    result = {"pack_bytes_git": len(pack), "pack_bytes_compacted": compacted.pack_bytes,
              "compaction_s": compacted.seconds}

    def timed(label, produce):
        start = time.perf_counter()
        size = produce()
        result[label + "_s"] = round(time.perf_counter() - start, 3)
        result[label + "_bytes"] = size

    def reused(cache_dir):
        with open_repo(pool, pool) as repo:
            repo.object_store.cache = DiskCache(str(cache_dir), 1 << 30)
            return sum(len(chunk) for chunk in reuse(repo, wants))

    def dulwich_pack():
        with open_repo(pool, pool) as repo:
            count, records = repo.object_store.generate_pack_data([], wants, ofs_delta=True)
            sink = _Counter()
            write_pack_data(sink.write, records, num_records=count,
                            object_format=repo.object_store.object_format)
            return sink.size

    def git_pack_objects():
        proc = subprocess.run(["git", "pack-objects", "--all", "--stdout"], cwd=src,
                              input=b"", stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              check=True)
        return len(proc.stdout)

    cache = workdir / "measure-cache"
    timed("reuse_cold_cache", lambda: reused(cache))   # tips, idx, one streaming GET
    timed("reuse_warm_cache", lambda: reused(cache))
    timed("dulwich_pack_warm_cache", dulwich_pack)
    # make_source leaves loose objects (git compresses and searches deltas); a pushed
    # repository, what http-backend serves, has one pack (git reuses it).
    timed("git_pack_objects_loose", git_pack_objects)
    run_git("repack", "-a", "-d", "-q", cwd=src)
    timed("git_pack_objects_packed", git_pack_objects)
    return result


class _Counter:
    size = 0

    def write(self, data):
        self.size += len(data)
        return len(data)


def test_measure_reuse_small(aws, tmp_path, monkeypatch):
    from bench.git_transfer import make_source

    monkeypatch.setenv("NIMBUS_CACHE_DIR", str(tmp_path / "cache"))
    result = measure_reuse(make_source(tmp_path, 1), workdir=tmp_path)
    assert result["reuse_warm_cache_bytes"] == result["reuse_cold_cache_bytes"]
    assert result["reuse_warm_cache_bytes"] == result["pack_bytes_compacted"]
    assert result["git_pack_objects_packed_bytes"] > 500_000
    assert result["dulwich_pack_warm_cache_bytes"] > 500_000


if __name__ == "__main__":  # pragma: no cover - a measurement, not a test
    import argparse
    import json
    import sys
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    parser = argparse.ArgumentParser()
    parser.add_argument("--megabytes", type=int, default=20)
    args = parser.parse_args()
    from _harness import use_repo

    tmp = Path(tempfile.mkdtemp(prefix="nimbus-reuse-"))
    use_repo({"NIMBUS_CACHE_DIR": str(tmp / "cache"), "NIMBUS_LOG_LEVEL": "ERROR"})
    from moto import mock_aws

    from bench.git_transfer import make_source
    from chalicelib.local.aws_requests import serialized_mock_aws

    with mock_aws(), serialized_mock_aws():
        from chalicelib import aws as aws_clients
        from chalicelib.store import table
        from infra.bootstrap import ensure_resources

        aws_clients.reset_clients()
        table.configure()
        ensure_resources()
        print(json.dumps(measure_reuse(make_source(tmp, args.megabytes), workdir=tmp),
                         indent=2))


def test_a_first_push_is_the_main_pack_and_a_cold_clone_reads_it_once(server, git,  # noqa: F811
                                                                       tmp_path, monkeypatch):
    from chalicelib import aws

    url, work = server.url("first"), str(tmp_path / "work")
    make_history(git, work, url)
    with server.open("first") as repo:
        (info,) = repo.object_store.pack_infos().values()
    assert info.role == "compacted" and info.tips is not None
    assert len(info.tips.heads) == 2                     # topic and the tag v1
    assert not compact("first").new_pack                 # already what compaction makes

    gets: list[str] = []
    counting = [True]

    def hook(model, params, **_):
        if counting[0] and model.name == "GetObject":
            gets.append(params["url_path"].rsplit("/", 1)[-1])

    aws.add_call_hook(hook)
    monkeypatch.setenv("NIMBUS_CACHE_DIR", str(tmp_path / "cold"))
    try:
        git("clone", "-q", url, str(tmp_path / "clone"))
    finally:
        counting[0] = False
    assert gets == [f"{info.name}.pack"]                 # no index, no .tips file
    git("fsck", "--strict", cwd=str(tmp_path / "clone"))
    assert set(git("rev-list", "--all", "--objects", cwd=str(tmp_path / "clone")).stdout.split()
               ) >= closure(work, clone_wants(remote_refs(git, url)))


def test_a_first_push_holding_more_than_its_refs_reach_is_no_main_pack(server, tmp_path):  # noqa: F811
    from io import BytesIO

    from dulwich.object_format import DEFAULT_OBJECT_FORMAT
    from dulwich.objects import Blob, Commit, Tree
    from dulwich.pack import write_pack_objects

    blob, stray = Blob.from_string(b"kept\n"), Blob.from_string(b"unreachable secret\n")
    tree = Tree()
    tree.add(b"a.txt", 0o100644, blob.id)
    head = Commit()
    head.tree, head.message = tree.id, b"one\n"
    head.author = head.committer = b"T <t@example.com>"
    head.author_time = head.commit_time = 1_700_000_000
    head.author_timezone = head.commit_timezone = 0

    def pack_of(*objects) -> BytesIO:
        out = BytesIO()
        write_pack_objects(out.write, [(o, None) for o in objects], DEFAULT_OBJECT_FORMAT)
        out.seek(0)
        return out

    with server.open("stray") as repo:
        repo.object_store.add_thin_pack(pack_of(head, tree, blob, stray).read, None,
                                        closed_over=[head.id])
        (info,) = repo.object_store.pack_infos().values()
        assert info.role == "push" and info.tips is None
    with server.open("exact") as repo:
        repo.object_store.add_thin_pack(pack_of(head, tree, blob).read, None,
                                        closed_over=[head.id])
        (info,) = repo.object_store.pack_infos().values()
        assert info.role == "compacted" and info.tips.tips == {head.id}
        # A second pool-opening push is not a main pack: the pool is not empty any more.
        other = Blob.from_string(b"other\n")
        repo.object_store.add_thin_pack(pack_of(other).read, None, closed_over=[other.id])
        roles = sorted(i.role for i in repo.object_store.pack_infos().values())
        assert roles == ["compacted", "push"]


def test_a_first_push_with_a_submodule_is_the_main_pack(server, tmp_path):  # noqa: F811
    from io import BytesIO

    from dulwich.object_format import DEFAULT_OBJECT_FORMAT
    from dulwich.objects import Blob, Commit, Tree
    from dulwich.pack import write_pack_objects

    # A submodule entry names a commit of another repository: not part of what the
    # push's refs reach, so the pack is still exactly their closure.
    blob = Blob.from_string(b"kept\n")
    tree = Tree()
    tree.add(b"a.txt", 0o100644, blob.id)
    tree.add(b"lib", 0o160000, b"1" * 40)
    head = Commit()
    head.tree, head.message = tree.id, b"with a submodule\n"
    head.author = head.committer = b"T <t@example.com>"
    head.author_time = head.commit_time = 1_700_000_000
    head.author_timezone = head.commit_timezone = 0
    out = BytesIO()
    write_pack_objects(out.write, [(o, None) for o in (head, tree, blob)], DEFAULT_OBJECT_FORMAT)
    out.seek(0)
    with server.open("submodule") as repo:
        repo.object_store.add_thin_pack(out.read, None, closed_over=[head.id])
        (info,) = repo.object_store.pack_infos().values()
        assert info.role == "compacted" and info.tips.tips == {head.id}


def test_a_blobless_clone_is_cut_from_the_main_pack(server, git, tmp_path):  # noqa: F811
    from chalicelib.gitstore.pack_filter import parse_filter
    from chalicelib.gitstore.pack_subset import blobless_stream

    url, work = server.url("blobless"), str(tmp_path / "work")
    make_history(git, work, url)
    # Pushed after the main pack: a changed big file (a delta against a blob of the main
    # pack, left out) and a new file.
    with open(os.path.join(work, "src/big.py"), "a") as f:
        f.write("# later\n")
    git("commit", "-qam", "later", cwd=work)
    commit(git, work, "new/file.txt", "brand new\n")
    git("push", "-q", url, "main", cwd=work)
    refs = remote_refs(git, url)
    wants = clone_wants(refs)

    def subset(want, spec="blob:none", **kw):
        with server.open("blobless") as repo:
            stream = blobless_stream(repo, {w.encode() for w in want}, set(), shallow=False,
                                     filter_spec=parse_filter(spec), include_tag=True,
                                     ofs_delta=True, **kw)
            return None if stream is None else b"".join(stream)

    data = subset(wants)
    dest = tmp_path / "partial"
    run_git("init", "-q", "--bare", str(dest))
    # Not --strict: that would ask for the blobs left out.
    run_git("index-pack", "--stdin", cwd=dest, data=data)
    got = set(run_git("cat-file", "--batch-all-objects", "--batch-check=%(objectname)",
                      cwd=dest).decode().split())
    expected = run_git("rev-list", "--objects", "--filter=blob:none", *sorted(wants), cwd=work)
    assert got == {line.split()[0] for line in expected.decode().splitlines()}
    # A wanted blob (a lazy fetch), another filter: built by walking, not cut.
    blob = run_git("rev-parse", "HEAD:src/big.py", cwd=work).decode().strip()
    assert subset({blob}) is None
    assert subset(wants, "blob:limit=1k") is None
