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
