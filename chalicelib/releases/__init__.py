"""Releases and their attachments.

Operations (``routes.py``): repoListReleases, repoCreateRelease, repoGetLatestRelease,
repoGetReleaseByTag, repoDeleteReleaseByTag, repoGetRelease, repoEditRelease,
repoDeleteRelease; (``asset_routes.py``) repoListReleaseAttachments,
repoCreateReleaseAttachment, repoGetReleaseAttachment, repoEditReleaseAttachment,
repoDeleteReleaseAttachment, repoCreateReleaseAttachmentUpload and
repoConfirmReleaseAttachmentUpload (presigned uploads of large attachments),
downloadAttachment (``/attachments/{uuid}``).

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
