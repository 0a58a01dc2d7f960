"""Git LFS's rules, on the in-memory twin (the fast layer): pointer files parsed strictly,
the batch API's answer for each object (held, missing, malformed), verify recording only
the exact bytes, locks (one per path, unlocked by their owner or a forcing admin, held
against other writers), and what repositories need counted once per owner."""
from __future__ import annotations

import base64
import hashlib

import pytest

from chalicelib import aws, lfs, repos
from chalicelib.errors import (ConflictError, InvalidInput, NotFoundError, PermissionDenied,
                               TooLarge)
from chalicelib.lfs import locks, needs, pointers, s3_objects, service
from chalicelib.lfs.options import LfsBatchOption, LfsPointer, LfsVerifyOption
from chalicelib.quota import store as quota_store
from chalicelib.repos import access
from chalicelib.repos.options import AddCollaboratorOption
from chalicelib.settings import get_settings
from tests import memory_scene as scene

DATA = b"large file bytes\n" * 64
OID = hashlib.sha256(DATA).hexdigest()
OTHER = "ab" * 32                      # a well-formed id of bytes nobody uploaded


def pointer_text(oid: str = OID, size: int = len(DATA)) -> bytes:
    return f"version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {size}\n".encode()


def upload(view, data: bytes = DATA) -> None:
    """What git-lfs does with an upload action: the bytes at the key the URL names, with
    the checksum the URL is signed for."""
    aws.client("s3").put_object(
        Bucket=get_settings().aws.BUCKET,
        Key=s3_objects.incoming_key(int(view.repo.pool_id), hashlib.sha256(data).hexdigest()),
        Body=data, ChecksumAlgorithm="SHA256",
        ChecksumSHA256=base64.b64encode(hashlib.sha256(data).digest()).decode())


def batch(view, operation: str, *objects: tuple[str, int], **fields):
    option = LfsBatchOption(operation=operation,
                            objects=[LfsPointer(oid=o, size=s) for o, s in objects], **fields)
    return service.batch(view, option)


@pytest.fixture
def people(memory):
    return {"alice": scene.user("alice"), "bob": scene.user("bob"),
            "carol": scene.user("carol")}


@pytest.fixture
def shared(people):
    """alice's ``proj``, to which bob writes and carol is an admin."""
    view = scene.repo(people["alice"], "proj")
    access.add_collaborator(people["alice"], view, "bob", AddCollaboratorOption(permission="write"))
    access.add_collaborator(people["alice"], view, "carol",
                            AddCollaboratorOption(permission="admin"))
    return view


def seen_by(account, view):
    """The repository as ``account`` sees it in a request of its own."""
    fresh = repos.repo_by_id(int(view.repo.id))
    return repos.view_of(fresh, scene.caller(account))


@pytest.mark.fast          # a rule on bytes alone: no AWS, twin or otherwise
def test_a_pointer_is_what_the_spec_spells_and_nothing_looser():
    assert lfs.parse_pointer(pointer_text()) == (OID, len(DATA))
    extension = pointer_text().replace(b"oid", b"ext-0-foo sha256:" + b"0" * 64 + b"\noid")
    assert lfs.parse_pointer(extension) == (OID, len(DATA))
    for near_miss in (
        pointer_text().rstrip(b"\n"),                         # no final newline
        pointer_text().replace(b"\n", b"\r\n"),               # CRLF
        pointer_text(OID.upper()),                            # upper-case hex
        pointer_text(OID[:63]),                               # 63 characters
        pointer_text(size=-1),                                # not digits
        pointer_text().replace(b"size ", b"size  "),          # two spaces
        b"version https://git-lfs.github.com/spec/v1\nsize 1\noid sha256:" + OID.encode()
        + b"\n",                                              # keys out of order
        b"see version https://git-lfs.github.com/spec/v1 for pointers\n",
    ):
        assert lfs.parse_pointer(near_miss) is None, near_miss
    # A blob of 1024 bytes or more is never read as a pointer.
    assert (pointers.maybe(1023), pointers.maybe(1024), pointers.maybe(0)) == (True, False, False)


def test_a_batch_answers_each_object_on_its_own(shared):
    bad, missing, new = batch(shared, "download", ("XYZ", 1), (OTHER, 5), (OID, -1))
    assert bad.error[0] == 422 and "is not a SHA-256" in bad.error[1]
    assert (missing.error, missing.has_actions) == ((404, "Object does not exist"), False)
    assert new.error == (422, f"Object {OID} has a negative size (-1)")
    [wanted] = batch(shared, "upload", (OID, len(DATA)))
    assert wanted.error is None and wanted.verify and wanted.download is None
    assert s3_objects.incoming_key(int(shared.repo.pool_id), OID) in wanted.upload.href
    assert wanted.upload.header["x-amz-checksum-sha256"] == s3_objects.sha256_header(OID)


def test_a_batch_names_at_most_100_objects_by_sha256(shared):
    with pytest.raises(TooLarge, match="at most 100 objects, this one names 101"):
        batch(shared, "download", *[(f"{n:064x}", 1) for n in range(101)])
    with pytest.raises(ConflictError, match="unsupported hash algorithm 'sha512'"):
        batch(shared, "download", (OID, 1), hash_algo="sha512")
    with pytest.raises(InvalidInput, match="only the 'basic' transfer"):
        batch(shared, "download", (OID, 1), transfers=["tus"])


def test_verify_records_only_the_exact_bytes_and_the_batch_then_knows_them(shared):
    size = len(DATA)
    with pytest.raises(NotFoundError, match="was not uploaded"):
        service.verify(shared, LfsVerifyOption(oid=OID, size=size))
    upload(shared)
    with pytest.raises(InvalidInput, match=f"has {size} bytes in storage, not {size + 1}"):
        service.verify(shared, LfsVerifyOption(oid=OID, size=size + 1))
    service.verify(shared, LfsVerifyOption(oid=OID, size=size))
    service.verify(shared, LfsVerifyOption(oid=OID, size=size))      # again: the same bytes
    pool = int(shared.repo.pool_id)
    assert s3_objects.read(pool, OID) == DATA
    assert s3_objects.head(pool, OID, incoming=True) is None          # moved, not copied
    held, other_size = batch(shared, "upload", (OID, size), (OID, size + 1))
    assert (held.has_actions, held.error, held.size) == (False, None, size)   # nothing to send
    assert other_size.error == (422, f"Object {OID} has {size} bytes, not {size + 1}")
    [download] = batch(shared, "download", (OID, size))
    assert download.download is not None and download.upload is None


def test_one_lock_per_path_whatever_its_case_or_spelling(people, shared):
    alice, bob = people["alice"], people["bob"]
    first = locks.create(seen_by(alice, shared), alice, "/assets/../Art/Logo.PSD")
    assert first.path == "Art/Logo.PSD"                               # cleaned as Forgejo does
    with pytest.raises(locks.LockExists) as taken:
        locks.create(seen_by(bob, shared), bob, "art/logo.psd")
    assert (taken.value.lock.id, taken.value.lock.owner_name) == (first.id, "alice")
    for empty in ("", "/", "a/.."):
        with pytest.raises(InvalidInput, match=r"\[Path\]: Required"):
            locks.create(seen_by(bob, shared), bob, empty)
    assert repos.repo_by_id(int(shared.repo.id)).lfs_locks == 1
    ours, theirs, _ = locks.verify(seen_by(bob, shared), bob, None, None)
    assert (ours, [lock.path for lock in theirs]) == ([], ["Art/Logo.PSD"])


def test_only_the_owner_or_a_forcing_admin_unlocks(people, shared):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    held = str(int(locks.create(seen_by(bob, shared), bob, "a.bin").id))
    with pytest.raises(PermissionDenied, match="force flag is not set"):
        locks.unlock(seen_by(carol, shared), carol, held, force=False)
    locks.create(seen_by(alice, shared), alice, "b.bin")
    forced = str(int(locks.find(seen_by(bob, shared), path="B.BIN")[0][0].id))
    with pytest.raises(PermissionDenied, match="only an administrator"):
        locks.unlock(seen_by(bob, shared), bob, forced, force=True)   # a writer may not force
    assert locks.unlock(seen_by(carol, shared), carol, forced, force=True).path == "b.bin"
    assert locks.unlock(seen_by(bob, shared), bob, held, force=False).path == "a.bin"
    with pytest.raises(NotFoundError, match="lock does not exist"):
        locks.unlock(seen_by(bob, shared), bob, held, force=False)    # only once
    assert repos.repo_by_id(int(shared.repo.id)).lfs_locks == 0


def test_a_locked_path_may_be_written_by_its_locker_only(people, shared):
    alice, bob = people["alice"], people["bob"]
    lfs.refuse_locked(shared.repo, bob, ["a.bin"])                   # no lock: nothing read
    locks.create(seen_by(alice, shared), alice, "a.bin")
    repo = repos.repo_by_id(int(shared.repo.id))
    with pytest.raises(PermissionDenied, match="locked by: alice, path: a.bin"):
        lfs.refuse_locked(repo, bob, ["README.md", "a.bin"])
    lfs.refuse_locked(repo, alice, ["a.bin"])
    lfs.refuse_locked(repo, bob, ["A.bin", "b.bin"])                  # exact paths only


def test_an_object_needed_by_a_repository_and_its_fork_is_counted_once(people, shared):
    from chalicelib.repo_admin import service as repo_service
    from chalicelib.repo_admin.options import CreateForkOption

    alice = people["alice"]
    upload(shared)
    service.verify(shared, LfsVerifyOption(oid=OID, size=len(DATA)))
    fork = repo_service.fork_repo(scene.caller(alice), shared, CreateForkOption(name="copy"))
    assert int(fork.repo.pool_id) == int(shared.repo.pool_id)
    assert needs.add(shared.repo, {OID: len(DATA), OTHER: 7}) == [OTHER]   # not held
    assert needs.add(shared.repo, {OID: len(DATA)}) == []                  # again: no change
    assert needs.add(repos.repo_by_id(int(fork.repo.id)), {OID: len(DATA)}) == []
    usage = quota_store.get_usage(int(alice.id), consistent=True).counts["git_lfs"]
    sizes = [repos.repo_by_id(int(v.repo.id)).lfs_size for v in (shared, fork)]
    assert (usage, sizes) == (len(DATA), [len(DATA), len(DATA)])
