"""The Tag record (fj:services/convert/convert.go ToTag), field for field."""
from __future__ import annotations

from urllib.parse import quote

from chalicelib import repos
from chalicelib.contents import tags
from chalicelib.http import formats, schemas
from chalicelib.http.schema_types import B, I, S, nullable, ref

# The records' Swagger definitions: Forgejo's names, fields and types, published by
# /swagger.v1.json (``http.schemas``) and checked against what this module builds.
SCHEMAS = schemas.declare({
    "Tag": {"name": S, "message": S, "id": S, "commit": ref("CommitMeta"),
                  "zipball_url": S, "tarball_url": S,
                  "archive_download_count": ref("TagArchiveDownloadCount")},
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
}, lists=("Tag", "Reference", "GitBlob"))


def tag_record(found: tags.TagView, view) -> dict:
    """A Tag (Forgejo's ``convert.ToTag``): ``id`` is the ref's value (the tag object of
    an annotated tag), ``commit.sha`` the commit it names and ``commit.url`` built from
    ``id`` as Forgejo builds it; the archive links point at the API's archive route, as
    the Release record's do."""
    info = found.info
    api_url = repos.repo_api_url(view.owner.login, view.repo.name)
    name = quote(info.name, safe="/")
    created = (formats.rfc3339_offset(info.when, info.timezone) if info.when is not None
               else formats.GO_ZERO_TIME)
    return {
        "name": info.name,
        "message": info.message,
        "id": info.id,
        "commit": {"url": f"{api_url}/git/commits/{info.id}", "sha": info.object,
                   "created": created},
        "zipball_url": f"{api_url}/archive/{name}.zip",
        "tarball_url": f"{api_url}/archive/{name}.tar.gz",
        "archive_download_count": {"zip": found.archive_zip, "tar_gz": found.archive_tar_gz},
    }
