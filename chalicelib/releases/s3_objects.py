"""The bytes of release attachments in S3: ``attachments/<repo id>/<uuid>``.

Kept apart from the rules (``release_files``) so that deleting a release
(``releases``) and an attachment share one way to drop objects without importing each
other.  The objects themselves are handled by ``chalicelib.store.attachment_objects``,
which issue and comment attachments use too.
"""
from __future__ import annotations

from chalicelib.store.attachment_objects import (  # noqa: F401 - this module's names
    DOWNLOAD_URL_SECONDS, UPLOAD_URL_SECONDS, content_disposition, download_url, key, put,
    read, read_head, remove, remove_repo, size_of, upload_url)
