"""Git LFS straight to S3: the batch API answers with presigned URLs, so the bytes of
large files go between the client and S3 and never through Lambda (whose requests
carry at most 6 MB).

Operations (``routes.py``): lfsBatch, lfsVerify; (``lock_routes.py``): lfsListLocks,
lfsCreateLock, lfsVerifyLocks, lfsUnlock.

| module | what it holds |
|---|---|
| ``routes`` | The batch API and verify at ``/{owner}/{repo}.git/info/lfs/…`` (``[server] LFS_START_SERVER``), authorized as git over HTTP |
| ``records`` | The batch answer in Git LFS's JSON: each object's actions (``upload``, ``verify``, ``download``) or its error |
| ``service`` | The rules: object ids and sizes, the batch's size, ``LFS_MAX_FILE_SIZE``, what a pool holds, and verify against S3 |
| ``options`` | The request bodies (Git LFS's, not in the swagger document) |
| ``store`` | One item per object a pool holds (``POOL#<pool>`` / ``LFS#<oid>``), written by verify |
| ``imports`` | Objects fetched from another server (a migration or a mirror with ``lfs``): which to fetch, their bytes put as an upload, recorded as verify does |
| ``s3_objects`` | The bytes: ``lfs/<pool>/<oid[0:2]>/<oid[2:4]>/<oid>``, presigned PUT (one key, one size, one SHA-256) and GET, HeadObject |
| ``lock_routes`` | The File Locking API at ``/{owner}/{repo}.git/info/lfs/locks[/verify, /{id}/unlock]``, signed-in callers only |
| ``lock_records`` | A lock's JSON (``id``, ``path``, ``locked_at``, ``owner.name``), lists and verify's ``ours``/``theirs`` |
| ``locks`` | The locking rules: paths, pages (``LFS_LOCKS_PAGING_NUM``), unlock and force, and holding others to a lock in pushes (``push_refusal``) and contents API writes (``refuse_locked``) |
| ``lock_options`` | The locking API's request bodies |
| ``lock_store`` | A lock and its path's claim in the repository's partition (``LFSLOCK#<id>``, ``LFSPATH#<path>``), with ``Repo.lfs_locks`` |

Objects belong to the repository's object pool, so forks share their parent's, as
they share its packs; locks belong to the repository.  Not yet here (issue 28): LFS files in the raw, media,
contents and archive answers and the pages, quota (``size:git:lfs``), collecting
objects no ref needs.  Migrations and mirrors fetch objects with
``repo_admin.lfs_fetch`` (the remote's client) and store them here (``imports``).

Registered by ``chalicelib/areas.py``.
"""
