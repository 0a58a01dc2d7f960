"""Swagger definitions of the repository content records: contents, commits, compare,
branches, tags and git data (Forgejo's names and fields).  ``schemas`` merges them."""
from __future__ import annotations

from chalicelib.http.schema_types import B, I, S, T, nullable, ref

RECORDS: dict[str, dict[str, dict]] = {}
LISTS: tuple[str, ...] = ()

# The contents API (contents/routes.py; appended).
RECORDS.update({
    "FileLinksResponse": {"self": nullable(S), "git": nullable(S), "html": nullable(S)},
    "ContentsResponse": {
        "name": S, "path": S, "sha": S, "last_commit_sha": S, "last_commit_when": T,
        "type": S, "size": I, "encoding": nullable(S), "content": nullable(S),
        "target": nullable(S), "url": S, "html_url": nullable(S), "git_url": nullable(S),
        "download_url": nullable(S), "submodule_git_url": nullable(S),
        "_links": ref("FileLinksResponse"),
    },
    "FileCommitResponse": {"url": S, "sha": S, "created": T, "html_url": S,
                           "author": ref("CommitUser"), "committer": ref("CommitUser"),
                           "parents": {"type": "array", "items": ref("CommitMeta")},
                           "message": S, "tree": ref("CommitMeta")},
    "FileResponse": {"content": nullable(ref("ContentsResponse")),
                     "commit": ref("FileCommitResponse"),
                     "verification": ref("PayloadCommitVerification")},
    "FileDeleteResponse": {"content": nullable(ref("ContentsResponse")),
                           "commit": ref("FileCommitResponse"),
                           "verification": ref("PayloadCommitVerification")},
    "FilesResponse": {"files": {"type": "array", "items": nullable(ref("ContentsResponse"))},
                      "commit": ref("FileCommitResponse"),
                      "verification": ref("PayloadCommitVerification")},
})
LISTS += ("ContentsResponse",)

# Commits (contents/commit_routes.py; appended).
RECORDS["Compare"] = {"total_commits": I, "commits": {"type": "array", "items": ref("Commit")},
                      "files": {"type": "array", "items": ref("CommitAffectedFiles")}}

# Tags (contents/tag_routes.py; appended).
RECORDS["Tag"] = {"name": S, "message": S, "id": S, "commit": ref("CommitMeta"),
                  "zipball_url": S, "tarball_url": S,
                  "archive_download_count": ref("TagArchiveDownloadCount")}
LISTS += ("Tag",)

# The git data API (contents/git_data_routes.py; appended).
RECORDS.update({
    "GitEntry": {"path": S, "mode": S, "type": S, "size": I, "sha": S, "url": S},
    "GitTreeResponse": {"sha": S, "url": S, "tree": nullable({"type": "array",
                                                              "items": ref("GitEntry")}),
                        "truncated": B, "page": I, "total_count": I},
    "GitBlob": {"content": S, "encoding": S, "url": S, "sha": S, "size": I},
    "GitObject": {"type": S, "sha": S, "url": S},
    "Reference": {"ref": S, "url": S, "object": ref("GitObject")},
    "AnnotatedTagObject": {"type": S, "url": S, "sha": S},
    "AnnotatedTag": {"tag": S, "sha": S, "url": S, "message": S,
                     "tagger": nullable(ref("CommitUser")),
                     "object": ref("AnnotatedTagObject"),
                     "verification": ref("PayloadCommitVerification"),
                     "archive_download_count": nullable(ref("TagArchiveDownloadCount"))},
    "Note": {"message": S, "commit": ref("Commit")},
})
LISTS += ("Reference",)
