"""Packs built for fetches (``gitstore/pack_writer.py``): stored entries copied as they
are, a stored delta kept only when the client will have its base (sent in the same
pack, or known to it for a thin pack), otherwise its object sent whole; every pack
checked by C git (``index-pack --strict``, then ``fsck --strict``).

The history is stored by hand so that the stored form is known: ``file.txt`` changes
between two commits and its newer version is stored as a delta against the older one
(as an OFS_DELTA or a REF_DELTA), next to filler files that do not change.
"""
from __future__ import annotations

import io
import os
import subprocess
from dataclasses import dataclass

import pytest

from tests.git_transport.test_git_http import git, git_env  # noqa: F401 - git_env: a fixture

OLD_TEXT = b"".join(b"line %d of the file\n" % i for i in range(20000))
NEW_TEXT = OLD_TEXT + b"one more line\n"
FILLERS = 40


@dataclass
class History:
    repo: object
    old_blob: str
    new_blob: str
    first: str       # commit with OLD_TEXT
    second: str      # its child, with NEW_TEXT


def store_history(repo_id: int, stored_as: str) -> History:
    from dulwich.objects import Blob, Commit, Tree
    from dulwich.pack import (REF_DELTA, UnpackedObject, create_delta, full_unpacked_object,
                              write_pack_data)

    from chalicelib.gitstore.repo import open_repo

    repo = open_repo(repo_id, repo_id)
    store = repo.object_store
    old, new = Blob.from_string(OLD_TEXT), Blob.from_string(NEW_TEXT)
    fillers = [Blob.from_string(b"filler %d\n" % i) for i in range(FILLERS)]
    others, commits = list(fillers), []
    for i, blob in enumerate((old, new)):
        tree = Tree()
        tree.add(b"file.txt", 0o100644, blob.id)
        for n, filler in enumerate(fillers):
            tree.add(b"filler-%d.txt" % n, 0o100644, filler.id)
        commit = Commit()
        commit.tree = tree.id
        commit.parents = [c.id for c in commits]
        commit.author = commit.committer = b"T <t@example.com>"
        commit.author_time = commit.commit_time = 1_700_000_000 + i
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = b"version %d\n" % i
        others += [tree, commit]
        commits.append(commit)
    delta = UnpackedObject(REF_DELTA, sha=new.sha().digest(), delta_base=old.sha().digest(),
                           decomp_chunks=[b"".join(create_delta(OLD_TEXT, NEW_TEXT))])
    # dulwich writes an OFS_DELTA when the base came first, else a REF_DELTA.
    pair = ([full_unpacked_object(old), delta] if stored_as == "ofs"
            else [delta, full_unpacked_object(old)])
    records = pair + [full_unpacked_object(obj) for obj in others]
    buf = io.BytesIO()
    write_pack_data(buf.write, iter(records), num_records=len(records),
                    object_format=store.object_format)
    store.add_thin_pack(io.BytesIO(buf.getvalue()).read, None)
    (pack,) = store.packs
    stored = pack.data.get_unpacked_object_at(pack.index.object_offset(new.sha().digest()))
    assert stored.pack_type_num == {"ofs": 6, "ref": 7}[stored_as]
    return History(repo, old.id.decode(), new.id.decode(), commits[0].id.decode(),
                   commits[1].id.decode())


def built(repo, wants, haves=(), **options) -> bytes:
    from chalicelib.gitstore.upload_pack import build_pack

    return b"".join(build_pack(repo, [w.encode() for w in wants],
                               [h.encode() for h in haves], **options))


def entries(pack: bytes, tmp_path) -> list[tuple[int, str]]:
    """(entry type, the object id of a whole entry or the base id of a delta), in pack
    order; the header's count must be the number of entries."""
    from dulwich.objects import sha_to_hex
    from dulwich.pack import OFS_DELTA, REF_DELTA, PackData

    from chalicelib.gitstore.repo import get_object_format

    path = tmp_path / "answer.pack"
    path.write_bytes(pack)
    out, whole_at = [], {}
    with PackData(str(path), object_format=get_object_format("sha1")) as data:
        for unpacked in data.iter_unpacked():
            if unpacked.pack_type_num == REF_DELTA:
                out.append((REF_DELTA, sha_to_hex(unpacked.delta_base).decode()))
            elif unpacked.pack_type_num == OFS_DELTA:
                out.append((OFS_DELTA, whole_at[unpacked.offset - unpacked.delta_base]))
            else:
                out.append((unpacked.pack_type_num, unpacked.sha_file().id.decode()))
                whole_at[unpacked.offset] = out[-1][1]
        assert len(data) == len(out)
        assert data.calculate_checksum() == data.get_stored_checksum()
    return out


def client_repo(env, tmp_path, name="client"):
    path = tmp_path / name
    git(env, "init", "-q", "--bare", str(path))
    return path


def index(env, repo, pack: bytes, *, strict: bool = True, thin: bool = False) -> None:
    """``strict``: every link of the objects must resolve; ``thin``: ``--fix-thin``."""
    options = ["--strict"] * strict + ["--fix-thin"] * thin
    done = subprocess.run(["git", "--git-dir", str(repo), "index-pack", "--stdin", *options],
                          input=pack, env=env, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()


def check(env, repo, tip: str, *, shallow: bool = False) -> None:
    if shallow:
        (repo / "shallow").write_text(tip + "\n")
    git(env, "--git-dir", str(repo), "update-ref", "refs/heads/main", tip)
    git(env, "--git-dir", str(repo), "fsck", "--strict", "--no-dangling")
    shown = subprocess.run(["git", "--git-dir", str(repo), "show", f"{tip}:file.txt"],
                           env=env, capture_output=True, timeout=60)
    assert shown.stdout == NEW_TEXT


@pytest.fixture
def cache(aws, tmp_path, monkeypatch):
    monkeypatch.setenv("NIMBUS_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize("stored_as", ["ofs", "ref"])
def test_a_delta_goes_with_its_base(cache, git_env, tmp_path, stored_as):  # noqa: F811
    h = store_history(1, stored_as)
    pack = built(h.repo, [h.second])
    found = entries(pack, tmp_path)
    assert len(found) == 2 + 2 + 1 + 1 + FILLERS
    # The stored delta is copied, moved after its base (the walk meets the new version
    # first) to be an OFS_DELTA.
    assert found.index((6, h.old_blob)) == found.index((3, h.old_blob)) + 1
    assert (3, h.new_blob) not in found
    repo = client_repo(git_env, tmp_path)
    index(git_env, repo, pack)
    check(git_env, repo, h.second)


@pytest.mark.parametrize("ofs_delta", [True, False])
def test_a_delta_goes_after_its_base_as_an_ofs_delta_for_clients_that_take_them(
        cache, git_env, tmp_path, ofs_delta):  # noqa: F811
    h = store_history(6, "ref")
    pack = built(h.repo, [h.new_blob, h.old_blob], ofs_delta=ofs_delta)
    assert entries(pack, tmp_path) == [(3, h.old_blob), (6 if ofs_delta else 7, h.old_blob)]
    repo = client_repo(git_env, tmp_path)
    index(git_env, repo, pack)
    shown = subprocess.run(["git", "--git-dir", str(repo), "cat-file", "blob", h.new_blob],
                           env=git_env, capture_output=True, timeout=60)
    assert shown.stdout == NEW_TEXT


@pytest.mark.parametrize("stored_as", ["ofs", "ref"])
def test_a_thin_fetch_sends_a_delta_against_what_the_client_has(cache, git_env, tmp_path,  # noqa: F811
                                                                stored_as):
    h = store_history(2, stored_as)
    repo = client_repo(git_env, tmp_path)
    index(git_env, repo, built(h.repo, [h.first]))
    pack = built(h.repo, [h.second], [h.first], thin=True)
    found = entries(pack, tmp_path)
    # The commit, its tree, and the changed file as a delta against the client's copy.
    tree = h.repo.object_store[h.second.encode()].tree.decode()
    assert sorted(found) == [(1, h.second), (2, tree), (7, h.old_blob)]
    assert len(pack) < 2000
    index(git_env, repo, pack, thin=True)
    check(git_env, repo, h.second)


@pytest.mark.parametrize("stored_as", ["ofs", "ref"])
def test_a_delta_whose_base_is_not_sent_goes_whole(cache, git_env, tmp_path, stored_as):  # noqa: F811
    h = store_history(3, stored_as)
    repo = client_repo(git_env, tmp_path)
    index(git_env, repo, built(h.repo, [h.first]))
    # Not thin: the client has the base, but the pack must not rely on it.
    pack = built(h.repo, [h.second], [h.first])
    assert (3, h.new_blob) in entries(pack, tmp_path)
    assert [kind for kind, _ in entries(pack, tmp_path)] == [1, 2, 3]
    index(git_env, repo, pack)
    check(git_env, repo, h.second)
    # Shallow: the base is in no commit sent.
    shallow = built(h.repo, [h.second], shallow=[h.second.encode()])
    found = entries(shallow, tmp_path)
    assert (3, h.new_blob) in found and (3, h.old_blob) not in found
    assert all(kind != 7 for kind, _ in found)
    alone = client_repo(git_env, tmp_path, "shallow-client")
    # Not strict, which would want the parent: fsck checks it with the shallow file.
    index(git_env, alone, shallow, strict=False)
    check(git_env, alone, h.second, shallow=True)


def test_packs_read_by_ranges_give_the_same_answers(cache, git_env, tmp_path,  # noqa: F811
                                                   monkeypatch):
    from chalicelib.gitstore.ranged import RangedPackData
    from chalicelib.gitstore.repo import open_repo

    h = store_history(4, "ofs")
    expected_thin = built(h.repo, [h.second], [h.first], thin=True)
    expected_full = built(h.repo, [h.second])
    monkeypatch.setenv("NIMBUS_CACHE_DIR", str(tmp_path / "cold-cache"))
    monkeypatch.setenv("NIMBUS_PACK_RANGED_MIN_BYTES", "0")
    cold = open_repo(4, 4)
    (pack,) = cold.object_store.packs
    assert isinstance(pack.data, RangedPackData)
    # Three objects of 46: read by ranges, the pack not downloaded.
    assert built(cold, [h.second], [h.first], thin=True) == expected_thin
    assert not pack.data.materialized
    # Most of the store: downloaded once, then read from the copy.
    assert built(cold, [h.second]) == expected_full
    assert pack.data.materialized


def test_pieces_cut_chunks_of_any_size_into_frames():
    from chalicelib.gitstore.protocol_v2 import pieces

    chunks = [b"ab", b"", b"cdefghij", b"k", b"lmnopqrstuvwxyz0123", b"4"]
    cut = [bytes(piece) for piece in pieces(iter(chunks), 5)]
    assert b"".join(cut) == b"".join(chunks)
    assert [len(piece) for piece in cut] == [5] * 6 + [1]
    assert list(pieces(iter([]), 5)) == []


@pytest.mark.parametrize("protocol", ["0", "2"])
def test_a_built_pack_never_holds_a_big_blob_whole(cache, git_env, tmp_path,  # noqa: F811
                                                   protocol):
    """A clone without a main pack to reuse: the pack is built, its 10 MB blob copied from
    the stored pack in pieces and framed piece by piece; the traced peak of the whole
    answer (negotiation, pack, framing) stays far below the blob.  Then C git takes the
    pack."""
    import tracemalloc

    from chalicelib.gitstore import pack_reuse
    from chalicelib.gitstore.protocol_v2 import pkt
    from chalicelib.gitstore.repo import open_repo
    from chalicelib.gitstore.smart_http import upload_pack_stream
    from tests.test_gitstore_unit import make_commit

    size = 10_000_000
    blob = os.urandom(size)
    repo = open_repo(5, 5)
    tip = make_commit(repo.object_store, {b"big.bin": blob, b"small.txt": b"small\n"}).id
    assert pack_reuse.main_pack(repo.object_store) is None
    if protocol == "2":
        body = (pkt(b"command=fetch\n") + b"0001" + pkt(b"want %s\n" % tip)
                + pkt(b"ofs-delta\n") + pkt(b"done\n") + b"0000")
    else:
        body = (pkt(b"want %s side-band-64k ofs-delta thin-pack\n" % tip) + b"0000"
                + pkt(b"done\n"))
    answer = tmp_path / "answer"
    tracemalloc.start()
    try:
        with open(answer, "wb") as f:
            for chunk in upload_pack_stream(repo, body, f"version={protocol}"):
                f.write(chunk)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # About one piece (pack_writer.PIECE, 1 MiB) and a few frames; building the entry
    # from the object, as dulwich did, held the blob twice (inflated, then deflated).
    assert peak < size // 4, f"peak {peak} bytes while serving a {size}-byte blob"
    pack = sideband_data(answer.read_bytes())
    client = client_repo(git_env, tmp_path)
    index(git_env, client, pack)
    git(git_env, "--git-dir", str(client), "update-ref", "refs/heads/main", tip.decode())
    git(git_env, "--git-dir", str(client), "fsck", "--strict", "--no-dangling")
    shown = subprocess.run(["git", "--git-dir", str(client), "show", "main:big.bin"],
                           env=git_env, capture_output=True, timeout=60)
    assert shown.stdout == blob


def sideband_data(answer: bytes) -> bytes:
    """The pack in an upload-pack answer: the data of its side-band channel 1."""
    pack, pos = [], 0
    while pos < len(answer):
        size = int(answer[pos:pos + 4], 16)
        payload = answer[pos + 4:pos + size] if size > 4 else b""
        pos += max(size, 4)
        if payload[:1] == b"\x01":
            pack.append(payload[1:])
    return b"".join(pack)
