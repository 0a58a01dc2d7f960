"""Avatars: an identicon for every user, organization and repository, drawn by Nimbus
itself (no outside service is asked), and pictures uploaded in their place, kept in S3
as PNGs this domain encoded and served at ``/avatars/<key>``.

Operations (``routes.py``): userUpdateAvatar, userDeleteAvatar, orgUpdateAvatar,
orgDeleteAvatar, repoUpdateAvatar, repoDeleteAvatar, getAvatar.

| module | what it holds |
|---|---|
| ``images`` | Pictures: the identicon drawn for a key, and an upload decoded and made a bounded PNG. |
| ``links`` | Where an avatar is served and stored: one key names it, from what a record already has. |
| ``object_store`` | Uploaded avatars in S3, under ``avatars/`` (``links.AvatarKey.object_key``). |
| ``options`` | The request bodies of the avatars domain, declared once: the edge checks them (``ApiRequest.option``) and … |
| ``routes`` | Avatars (Forgejo's ``user``, ``organization`` and ``repository`` tags): upload and delete a user's, an … |
| ``service`` | Avatars of users, organizations and repositories: upload, delete, and what a URL serves. |

| layer | modules |
|---|---|
| routes (thin handlers) | ``routes`` |
| rules | ``service`` (who may change which avatar, the upload's limits), ``images`` (identicons, decoding and re-encoding) |
| records | ``links`` (the URL and the S3 key of an avatar, from what a record has) |
| storage | ``object_store`` (the pictures in S3); the content hash lives on the account and repository items |

Registered by ``chalicelib/areas.py``.  The accounts, organizations and repositories
records take ``avatar_link`` for their ``avatar_url``; this domain takes the caller, the
organization and the repository from their faces, and writes the content hash through
``accounts.stage_save_account`` and ``repos.stage_repo_fields``.
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "ACCOUNT_AVATAR":     "links.ACCOUNT",
    "REPOSITORY_AVATAR":  "links.REPOSITORY",
    "avatar_link":        "links",
    # The profile settings page (chalicelib/web/settings_user): userUpdateAvatar's and
    # userDeleteAvatar's services.
    "UpdateUserAvatarOption": "options",
    "update_account_avatar":  "service",
    "delete_account_avatar":  "service",
    # generateRepo's ``avatar`` (chalicelib/repo_admin/generation.py).
    "copy_repo_avatar":       "service",
    "discard_repo_avatar":    "service",
    # The S3 key of the picture an item names (the dump checks it copied every one:
    # chalicelib/backup).
    "avatar_key":             "links",
})
