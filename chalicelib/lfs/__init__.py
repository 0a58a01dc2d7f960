"""Git LFS straight to S3: the batch API answers with presigned URLs, so the bytes of
large files go between the client and S3 and never through Lambda (whose requests
carry at most 6 MB).

Operations (``lock_routes.py``): lfsListLocks, lfsCreateLock, lfsVerifyLocks, lfsUnlock.
Operations (``routes.py``): lfsBatch, lfsVerify.

| module | what it holds |
|---|---|
| ``collect`` | The schedule that removes Git LFS objects no repository needs (``lfs_collect``). |
| ``consumers`` | The Git LFS consumer of repository events (``lfs-needs``, registered by ``chalicelib.jobs.consumers``): a … |
| ``gate`` | What a push must satisfy about Git LFS: every pointer its pack brings names an object the pool holds, … |
| ``imports`` | Git LFS objects that come from another server (a migration, a pull mirror's sync), stored as an upload … |
| ``lock_options`` | The request bodies of the Git LFS File Locking API … |
| ``lock_records`` | The File Locking API's JSON (git-lfs docs/api/locking.md, Forgejo's ``convert.ToLFSLock``): a lock is … |
| ``lock_routes`` | The Git LFS File Locking API at Forgejo's paths, ``/{owner}/{repo}.git/info/lfs/locks`` (``[server] … |
| ``lock_store`` | Git LFS locks in the table: two items per lock, in the repository's partition (the repository-cleanup … |
| ``locks`` | The rules of Git LFS file locking (Forgejo's services/lfs/locks.go and models/git/lfs_lock.go), and the … |
| ``media`` | Git LFS files where a repository's files show: which blobs are pointers to objects the pool holds, and … |
| ``models`` | The lfs domain's items in the table: its models (and key layouts). |
| ``need_store`` | Which repositories need which Git LFS objects, in the table. |
| ``needs`` | What each repository needs of its pool's Git LFS objects: recorded when a push (or a migration, a mirror … |
| ``options`` | The request bodies of the Git LFS batch API … |
| ``pointers`` | Git LFS pointer files, the small blobs git stores in place of files kept in LFS: |
| ``records`` | The Git LFS batch API's JSON (docs/api/batch.md of git-lfs): the batch answer, each object with its … |
| ``routes`` | Git LFS at Forgejo's paths, ``/{owner}/{repo}.git/info/lfs/…``, for the git-lfs client: the batch API and … |
| ``s3_objects`` | The bytes of Git LFS objects in S3: ``lfs/<pool id>/<oid[0:2]>/<oid[2:4]>/<oid>``, and uploads not yet … |
| ``service`` | The rules of the Git LFS batch API: which objects a batch may upload or download, and verify, which … |
| ``store`` | Git LFS objects in the table: one item per object a pool holds, written once verify found its bytes in S3 … |

Objects belong to the repository's object pool, so forks share their parent's, as
they share its packs; locks belong to the repository.  Migrations and mirrors fetch
objects with ``repo_admin.lfs_fetch`` (the remote's client) and store them here
(``imports``).

Registered by ``chalicelib/areas.py``.
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "collect_objects":     "collect.collect",
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
    # Where an object's bytes are (the dump checks it copied every one: chalicelib/backup).
    "object_key":          "s3_objects.key",
})
