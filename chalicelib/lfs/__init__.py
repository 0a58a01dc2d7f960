"""Git LFS straight to S3: the batch API answers with presigned URLs, so the bytes of
large files go between the client and S3 and never through Lambda (whose requests
carry at most 6 MB).

Operations (``routes.py``): lfsBatch, lfsVerify; (``lock_routes.py``): lfsListLocks,
lfsCreateLock, lfsVerifyLocks, lfsUnlock.  The media answers (``repoGetRawFileOrLFS``
and the pages' ``/media/…``) are routed in ``chalicelib.contents`` and
``chalicelib.web`` and read their objects here (``media``).

| module | what it holds |
|---|---|
| ``routes`` | The batch API and verify at ``/{owner}/{repo}.git/info/lfs/…`` (``[server] LFS_START_SERVER``), authorized as git over HTTP |
| ``lock_routes`` | The File Locking API at ``/{owner}/{repo}.git/info/lfs/locks[/verify, /{id}/unlock]``, signed-in callers only |
| ``records`` | The batch answer in Git LFS's JSON: each object's actions (``upload``, ``verify``, ``download``) or its error |
| ``lock_records`` | A lock's JSON (``id``, ``path``, ``locked_at``, ``owner.name``), lists and verify's ``ours``/``theirs`` |
| ``gate`` | What a push must satisfy: every pointer its pack brings names an object the pool holds (a pre-receive refusal otherwise), its needs recorded |
| ``consumers`` | The ``lfs-needs`` consumer: a new fork needs what its parent needed; a deleted repository's needs released (called by the repository cleanup) |
| ``collect`` | The ``lfs_collect`` schedule: objects idle past ``LFS_GRACE_PERIOD`` and uploads never verified, removed by conditional steps |
| ``imports`` | Objects fetched from another server (a migration or a mirror with ``lfs``): which to fetch, their bytes put as an upload, recorded as verify does |
| ``service`` | The batch and verify rules: object ids and sizes, the batch's size, ``LFS_MAX_FILE_SIZE``, the owner's ``size:git:lfs`` quota, what a pool holds, verify against S3 |
| ``needs`` | What each repository needs of its pool's objects: added by pushes, migrations, mirror syncs and forks, released by deletion; counted once per owner |
| ``locks`` | The locking rules: paths, pages (``LFS_LOCKS_PAGING_NUM``), unlock and force, and holding others to a lock in pushes (``push_refusal``) and contents API writes (``refuse_locked``) |
| ``media`` | Which blobs are pointers to objects the pool holds (one BatchGetItem for any number), their bytes for media answers, archives and pages, and how large an answer may carry them |
| ``store`` | One item per object a pool holds (``POOL#<pool>`` / ``LFS#<oid>``), who needs it, and the idle listing the collection reads |
| ``need_store`` | The repository's and the owner's need items, and the idempotent steps that release them |
| ``lock_store`` | A lock and its path's claim in the repository's partition (``LFSLOCK#<id>``, ``LFSPATH#<path>``), with ``Repo.lfs_locks`` |
| ``s3_objects`` | The bytes: ``lfs/<pool>/<oid[0:2]>/<oid[2:4]>/<oid>`` and uploads under ``lfs/incoming/``; presigned PUT (one key, one size, one SHA-256) and GET, HeadObject, GetObject (whole or in chunks), the move verify makes |
| ``options``, ``lock_options`` | The request bodies (Git LFS's, not in the swagger document) |
| ``pointers`` | Pointer files (the parser is git storage's, ``gitstore.lfs_pointers``) |

Objects belong to the repository's object pool, so forks share their parent's, as
they share its packs; locks belong to the repository.  Migrations and mirrors fetch
objects with ``repo_admin.lfs_fetch`` (the remote's client) and store them here
(``imports``).

Registered by ``chalicelib/areas.py``.
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "collect":             "collect",
    "EVENT_TYPES":         "consumers",
    "on_event":            "consumers",
    "release_needs":       "consumers.release",
    "admit_pointers":      "gate.admit",
    "POOL_GONE":           "imports",
    "REFUSED":             "imports",
    "discard_pool":        "imports",
    "plan_import":         "imports.plan",
    "put_object":          "imports.put",
    "record_object":       "imports.record",
    "store_object":        "imports",
    "locks_push_refusal":  "locks.push_refusal",
    "refuse_locked":       "locks",
    "chunks":              "media",
    "held":                "media",
    "held_many":           "media",
    "inline_limit":        "media",
    "object_url":          "media.url",
    "read_object":         "media.read",
    "add_needs":           "needs.add",
    "parse_pointer":       "pointers.parse",
})
