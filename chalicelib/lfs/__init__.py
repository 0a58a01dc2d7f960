"""Git LFS straight to S3: the batch API answers with presigned URLs, so the bytes of
large files go between the client and S3 and never through Lambda (whose requests
carry at most 6 MB).

Operations (``routes.py``): lfsBatch, lfsVerify.

| module | what it holds |
|---|---|
| ``routes`` | The batch API and verify at ``/{owner}/{repo}.git/info/lfs/…`` (``[server] LFS_START_SERVER``), authorized as git over HTTP |
| ``records`` | The batch answer in Git LFS's JSON: each object's actions (``upload``, ``verify``, ``download``) or its error |
| ``service`` | The rules: object ids and sizes, the batch's size, ``LFS_MAX_FILE_SIZE``, what a pool holds, and verify against S3 |
| ``options`` | The request bodies (Git LFS's, not in the swagger document) |
| ``pointers`` | Git LFS pointer files, parsed strictly as git-lfs's spec has them (no AWS, no git) |
| ``media`` | Which blobs are pointers to objects the pool holds (one BatchGetItem for any number), their bytes for media answers, archives and pages, and how large an answer may carry them |
| ``store`` | One item per object a pool holds (``POOL#<pool>`` / ``LFS#<oid>``), written by verify |
| ``s3_objects`` | The bytes: ``lfs/<pool>/<oid[0:2]>/<oid[2:4]>/<oid>``, presigned PUT (one key, one size, one SHA-256) and GET, HeadObject, GetObject (whole or in chunks) |

Objects belong to the repository's object pool, so forks share their parent's, as
they share its packs.  LFS files where files show (``pointers``, ``media``): the media
answers (``repoGetRawFileOrLFS`` and the pages' ``/media/…``, routed in
``chalicelib.contents`` and ``chalicelib.web``), the contents API's ``download_url``,
archives and the file page.  Not yet here (issue 28): locks, quota (``size:git:lfs``),
collecting objects no ref needs, and LFS in migrations and mirrors.

Registered by ``chalicelib/areas.py``.
"""
