"""The rules of the Git LFS batch API: which objects a batch may upload or download, and
verify, which records an object once S3 holds exactly its bytes.

Who may call is decided before (``repos.request.git_repo``, as for git over HTTP):
downloads need read access, uploads write access.  Here:

- an ``oid`` that is not 64 lower-case hex characters, or a negative size, is that
  object's error (422), never the batch's: the other objects go on;
- a batch names at most ``MAX_BATCH`` objects (413 above): so the objects it names are
  one BatchGetItem, and the batch stays within 3 AWS calls (bench/aws_calls.py);
- an upload above ``[server] LFS_MAX_FILE_SIZE`` (and S3's 5 GiB single PUT) is that
  object's error (422);
- an object the pool holds (recorded by verify) gets no upload action: the client has
  nothing to send; a download of one it does not hold is that object's 404;
- verify records an object only when S3 holds it with the size the client names and
  the SHA-256 that is its id (422 otherwise, and nothing is recorded).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from chalicelib import clock, quota
from chalicelib.errors import ConditionFailed, ConflictError, InvalidInput, NotFoundError, TooLarge
from chalicelib.lfs import s3_objects, store
from chalicelib.lfs.options import LfsBatchOption, LfsPointer, LfsVerifyOption
from chalicelib.repos import RepoView
from chalicelib.settings import get_settings
from chalicelib.store import unit_of_work

# git-lfs sends 100 objects a batch (lfs.transfer.batchSize); DynamoDB reads 100 keys a
# BatchGetItem.
MAX_BATCH = 100
TRANSFER = "basic"
HASH_ALGO = "sha256"
_OID = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class Link:
    """A presigned URL, the headers the client must send with it, and its lifetime."""
    href: str
    header: dict[str, str]
    expires_in: int


@dataclass(frozen=True)
class Answer:
    """One object of a batch's answer: its actions, or its error (code, message).
    ``verify``: the client must call verify after uploading."""
    oid: str
    size: int
    upload: Link | None = None
    download: Link | None = None
    verify: bool = False
    error: tuple[int, str] | None = None

    @property
    def has_actions(self) -> bool:
        return self.upload is not None or self.download is not None


def max_object_size() -> int:
    """The largest object an upload may have: the setting, within S3's single PUT."""
    configured = get_settings().server.LFS_MAX_FILE_SIZE
    return min(configured, s3_objects.S3_SINGLE_PUT_LIMIT) if configured \
        else s3_objects.S3_SINGLE_PUT_LIMIT


def pointer_error(pointer: LfsPointer) -> str | None:
    if not _OID.match(pointer.oid):
        return f"Object id {pointer.oid[:80]!r} is not a SHA-256 (64 lower-case hex characters)"
    if pointer.size < 0:
        return f"Object {pointer.oid} has a negative size ({pointer.size})"
    return None


def _check_batch(option: LfsBatchOption) -> None:
    if len(option.objects) > MAX_BATCH:
        raise TooLarge(f"a batch may name at most {MAX_BATCH} objects, this one names "
                       f"{len(option.objects)}: send them in several batches")
    if option.transfers and TRANSFER not in option.transfers:
        raise InvalidInput(f"[Transfers]: only the {TRANSFER!r} transfer is offered")
    if option.hash_algo and option.hash_algo != HASH_ALGO:
        # The batch API's answer to an unknown hash algorithm.
        raise ConflictError(f"unsupported hash algorithm {option.hash_algo!r}: objects are "
                            f"named by their {HASH_ALGO}")


def batch(view: RepoView, option: LfsBatchOption) -> list[Answer]:
    """Every object's answer, in the order the batch names them."""
    _check_batch(option)
    pool_id = int(view.repo.pool_id)
    checked = [(p, pointer_error(p)) for p in option.objects]
    items = store.known_items(pool_id, (p.oid for p, problem in checked if problem is None))
    if option.operation == "upload":
        items = _keep_named(pool_id, items)
        _check_quota(view, [p for p, problem in checked if problem is None and p.oid not in items])
    held = {oid: int(item.size) for oid, item in items.items()}
    decide = _upload if option.operation == "upload" else _download
    return [Answer(p.oid, p.size, error=(422, problem)) if problem
            else decide(pool_id, p, held.get(p.oid)) for p, problem in checked]


def _keep_named(pool_id: int, items: dict[str, store.LfsObject]) -> dict[str, store.LfsObject]:
    """An upload batch names objects the pool holds: the idle ones (nobody needs them
    yet) get a new idle date, so a collection that read the old one leaves them (its
    condition fails), and the push that follows finds them: one transaction for all of
    them (a batch stays within its budget), then one by one if any changed meanwhile.
    One being collected meanwhile is answered as absent: the client uploads it again."""
    now = clock.seconds()
    idle = [item for item in items.values() if item.gsi2pk == store.IDLE_INDEX]
    if not idle:
        return items
    try:
        with unit_of_work.writing():
            for item in idle:
                store.stage_touch(item, pool_id, now)
        return items
    except ConditionFailed:
        pass
    kept = dict(items)
    for item in idle:
        try:
            with unit_of_work.writing():
                store.stage_touch(item, pool_id, now)
        except ConditionFailed:
            if store.known_items(pool_id, [item.oid], consistent=True).get(item.oid) is None:
                kept.pop(item.oid)
    return kept


def _check_quota(view: RepoView, uploads: list[LfsPointer]) -> None:
    """Forgejo refuses an upload batch over the owner's ``size:git:lfs`` quota (413)."""
    adding = sum(max(0, p.size) for p in uploads)
    if adding:
        quota.ensure_within_quota(int(view.repo.owner_id), "size:git:lfs", adding=adding)


def _size_mismatch(pointer: LfsPointer, held: int) -> Answer:
    return Answer(pointer.oid, pointer.size, error=(
        422, f"Object {pointer.oid} has {held} bytes, not {pointer.size}"))


def _upload(pool_id: int, pointer: LfsPointer, held: int | None) -> Answer:
    if held is not None:
        return Answer(pointer.oid, held) if held == pointer.size \
            else _size_mismatch(pointer, held)
    limit = max_object_size()
    if pointer.size > limit:
        return Answer(pointer.oid, pointer.size, error=(
            422, f"Object {pointer.oid} has {pointer.size} bytes, more than the {limit} "
                 "an object may have here"))
    link = Link(s3_objects.upload_url(pool_id, pointer.oid, pointer.size),
                s3_objects.upload_headers(pointer.oid), s3_objects.UPLOAD_URL_SECONDS)
    return Answer(pointer.oid, pointer.size, upload=link, verify=True)


def _download(pool_id: int, pointer: LfsPointer, held: int | None) -> Answer:
    if held is None:
        return Answer(pointer.oid, pointer.size, error=(404, "Object does not exist"))
    if held != pointer.size:
        return _size_mismatch(pointer, held)
    link = Link(s3_objects.download_url(pool_id, pointer.oid), {},
                s3_objects.DOWNLOAD_URL_SECONDS)
    return Answer(pointer.oid, held, download=link)


def verify(view: RepoView, option: LfsVerifyOption) -> None:
    """Record the object once S3 holds it with the named size and its SHA-256 (moved
    from ``incoming/`` to its key); a repeated verify of a recorded object succeeds
    (the bytes are the same: the id is their hash)."""
    problem = pointer_error(option)
    if problem:
        raise InvalidInput(problem)
    pool_id = int(view.repo.pool_id)
    recorded = _recorded(pool_id, option.oid)
    if recorded is not None:
        if int(recorded.size) != option.size:
            raise InvalidInput(f"Object {option.oid} has {int(recorded.size)} bytes, "
                               f"not {option.size}")
        return
    stored = s3_objects.head(pool_id, option.oid, incoming=True)
    if stored is None:
        raise NotFoundError(f"Object {option.oid} was not uploaded")
    if stored.size != option.size:
        raise InvalidInput(f"Object {option.oid} has {stored.size} bytes in storage, "
                           f"not {option.size}")
    if stored.sha256 != s3_objects.sha256_header(option.oid):
        raise InvalidInput(f"Object {option.oid}: the stored bytes do not have this "
                           "SHA-256; upload them again through the batch API's URL")
    outcome = record_upload(pool_id, option.oid, option.size, absent=True)
    if outcome == POOL_GONE:
        raise NotFoundError("the repository was deleted")
    if outcome == REFUSED:
        _recorded(pool_id, option.oid)   # 409 while being collected
        raise InvalidInput(f"Object {option.oid} is recorded with another size")


RECORDED, REFUSED, POOL_GONE = "recorded", "refused", "pool gone"


def record_upload(pool_id: int, oid: str, size: int, *, absent: bool = False) -> str:
    """Record an upload whose bytes were checked (verify; an import): it moves from
    ``incoming/`` to the object's key and its item is written, idle until a push needs
    it.  ``RECORDED`` (or recorded already with this size: the bytes are the same, the
    id is their hash), ``REFUSED`` when the pool's object is being collected or has
    another size, ``POOL_GONE`` when the pool's repositories were deleted meanwhile.
    Only an upload that is recorded moves to the object's key.  ``absent``: the caller
    has just read that the pool has no such object (saves reading it again)."""
    pool_id = int(pool_id)
    item = None if absent else unit_of_work.get(store.LfsObject, store.object_key(pool_id, oid),
                                                consistent=True)
    if item is None:
        s3_objects.accept_incoming(pool_id, oid)
        try:
            with unit_of_work.writing():
                store.stage_record(pool_id, oid, int(size), clock.seconds())
            return RECORDED
        except ConditionFailed as failed:
            if failed.label == store.POOL:
                return POOL_GONE
            if failed.label != store.OBJECT:
                raise
            item = unit_of_work.get(store.LfsObject, store.object_key(pool_id, oid),
                                    consistent=True)
    else:
        s3_objects.delete_key(s3_objects.incoming_key(pool_id, oid))
    if item is None or not item.usable or int(item.size) != int(size):
        return REFUSED
    return RECORDED


def _recorded(pool_id: int, oid: str) -> store.LfsObject | None:
    """The object's item; 409 while a collection is removing it (the client tries again
    once it is gone, and uploads anew)."""
    item = unit_of_work.get(store.LfsObject, store.object_key(pool_id, oid), consistent=True)
    if item is not None and not item.usable:
        raise ConflictError(f"Object {oid} is being removed as unused; try again in a minute")
    return item
