"""Releases and their attachments.

Operations (``asset_routes.py``): repoListReleaseAttachments, repoCreateReleaseAttachment,
repoCreateReleaseAttachmentUpload, repoConfirmReleaseAttachmentUpload,
repoGetReleaseAttachment, repoEditReleaseAttachment, repoDeleteReleaseAttachment,
downloadAttachment.
Operations (``routes.py``): repoListReleases, repoCreateRelease, repoGetLatestRelease,
repoGetReleaseByTag, repoDeleteReleaseByTag, repoGetRelease, repoEditRelease,
repoDeleteRelease.

| module | what it holds |
|---|---|
| ``asset_routes`` | Release attachments (Forgejo's ``repository`` tag): list, upload, get, edit, delete; the presigned upload … |
| ``assets`` | Release attachments: uploads (direct, external, presigned), edits, deletions, downloads. |
| ``import_store`` | Releases brought in by a project migration (``chalicelib.migrations``): each with its tag, title, notes, … |
| ``models`` | The releases domain's items in the table: its models (and key layouts). |
| ``options`` | The request bodies of the releases domain, declared once: the edge checks them (``ApiRequest.option``) … |
| ``records`` | Releases and their attachments -> Forgejo's Release and Attachment records, field for field … |
| ``request`` | What every release route and page reads from its request: the repository's releases as this caller sees … |
| ``routes`` | Releases (Forgejo's ``repository`` tag, release routes): list, create, get, edit, delete, latest, by tag. … |
| ``s3_objects`` | The bytes of release attachments in S3: ``attachments/<repo id>/<uuid>``. |
| ``service`` | Releases (Forgejo's rules): list, create, get, edit, delete, latest, by tag. |
| ``store`` | Releases and their attachments in the table. |
| ``usage`` | Release attachments as quota sees them: the owner's list (``/user/quota/attachments``, … |

| layer | modules |
|---|---|
| routes (thin handlers) | ``routes``, ``asset_routes`` |
| records (Forgejo JSON) | ``records`` (Release, Attachment) |
| rules | ``assets`` (attachments: uploads, links, downloads, quota), ``service`` (releases, their tags by compare-and-swap, drafts, events) |
| bytes and usage | ``s3_objects`` (attachments' objects in S3, presigned URLs), ``usage`` (what counts toward quota) |
| storage | ``store`` (releases, assets, tag claims) |

Registered by ``chalicelib/areas.py``; the web's release pages and form call the
same services.  It takes repositories, access, accounts, quota and pushes (a release's
tag) from ``services``, and ``services.quota`` reads its ``usage``.
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "imported_release":           "import_store.existing",
    "imported_asset_uuid":        "import_store.asset_uuid",
    "imported_published_count":   "import_store.published_count",
    "stage_imported_asset":       "import_store.stage_asset",
    "stage_imported_release":     "import_store.stage_release",
    "store_imported_asset_bytes": "import_store.store_bytes",
    "forget_repo_assets":         "assets.forget_repo",
    "CreateReleaseOption":        "options",
    "release_record":             "records.release",
    "release_ctx_of":             "request.ctx_of",
    "render_release":             "request.render",
    "UPLOAD_URL_SECONDS":         "s3_objects",
    "remove_upload":              "s3_objects.remove",
    "upload_size":                "s3_objects.size_of",
    "upload_url":                 "s3_objects",
    "check_tag_name":             "service",
    "count_archive_download":     "service",
    "create_release":             "service",
    "list_releases":              "service",
    "release_by_tag":             "service.by_tag",
    "release_context":            "service.context",
    "release_preload_more_keys":  "service.preload_more_keys",
    "require_release_writer":     "service.require_writer",
    "RELEASE_TAG_TAKEN":          "store.TAG",
    "release_item":               "store.get",
    "release_key":                "store",
    "release_tag_key":            "store.tag_key",
    "release_tag_owner":          "store.tag_owner",
    "stage_tag_unclaimed":        "store.stage_check_unclaimed",
    "valid_release_tag_key":      "store.valid_tag_key",
    "owner_release_attachments":  "usage.owner_attachments",
    "release_attachment_totals":  "usage.totals",
})
