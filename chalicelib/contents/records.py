"""Records of the contents API: ContentsResponse, FileResponse, FileDeleteResponse,
FilesResponse (Forgejo's ``services/repository/files``)."""
from __future__ import annotations

import base64
from urllib.parse import quote

from chalicelib.contents import commit_records
from chalicelib.http import formats, schemas
from chalicelib.http.schema_types import I, S, T, nullable, ref

# The records' Swagger definitions: Forgejo's names, fields and types, published by
# /swagger.v1.json (``http.schemas``) and checked against what this module builds.
SCHEMAS = schemas.declare({
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
}, lists=("ContentsResponse",))


def _segments(path: str) -> str:
    return "/".join(quote(part, safe="") for part in path.split("/"))


def contents(entry, at, html_repo: str, api_repo: str) -> dict:
    """ContentsResponse of a service ``Entry`` at ``At`` (a ref as the caller named it)."""
    path = _segments(entry.path)
    self_url = f"{api_repo}/contents/{path}?ref={quote(at.ref, safe='')}"
    git_url = f"{api_repo}/git/{entry.object_type}s/{entry.sha}"
    html_url = None
    if entry.kind != "submodule":
        html_url = f"{html_repo}/src/{at.ref_type}/{_segments(at.ref)}/{path}"
    download_url = None
    if entry.kind in ("file", "symlink"):
        # A Git LFS pointer downloads as its object (the media path answers the pointer
        # itself when the object was never uploaded); ``size`` stays the blob's, as in
        # Forgejo, so it matches ``content``.
        kind = "media" if entry.lfs_pointer else "raw"
        download_url = f"{html_repo}/{kind}/{at.ref_type}/{_segments(at.ref)}/{path}"
    is_file = entry.content is not None
    return {
        "name": entry.name,
        "path": entry.path,
        "sha": entry.sha,
        "last_commit_sha": entry.last_commit_sha,
        "last_commit_when": formats.rfc3339_offset(entry.last_commit_time,
                                                   entry.last_commit_tz),
        "type": entry.kind,
        "size": entry.size,
        "encoding": "base64" if is_file else None,
        "content": base64.b64encode(entry.content).decode("ascii") if is_file else None,
        "target": entry.target,
        "url": self_url,
        "html_url": html_url,
        "git_url": git_url,
        "download_url": download_url,
        "submodule_git_url": entry.submodule_url,
        "_links": {"self": self_url, "git": git_url, "html": html_url},
    }


def _user(raw: bytes, when: int, tz: int) -> dict:
    text = raw.decode("utf-8", "replace")
    name, _, email = text.partition("<")
    return {"name": name.strip(), "email": email.rstrip(">").strip(),
            "date": formats.rfc3339_offset(when, tz)}


def file_commit(c, html_repo: str, api_repo: str) -> dict:
    """FileCommitResponse of a dulwich commit."""
    sha = c.id.decode()
    created = formats.rfc3339_offset(int(c.commit_time), int(c.commit_timezone))
    return {
        "url": f"{api_repo}/git/commits/{sha}",
        "sha": sha,
        "created": created,
        "html_url": f"{html_repo}/commit/{sha}",
        "author": _user(c.author, int(c.author_time), int(c.author_timezone)),
        "committer": _user(c.committer, int(c.commit_time), int(c.commit_timezone)),
        "parents": [{"url": f"{api_repo}/git/commits/{p.decode()}", "sha": p.decode(),
                     "created": created} for p in c.parents],
        "message": c.message.decode("utf-8", "replace"),
        "tree": {"url": f"{api_repo}/git/trees/{c.tree.decode()}", "sha": c.tree.decode(),
                 "created": created},
    }


def file_response(written, html_repo: str, api_repo: str) -> dict:
    """FileResponse (create/update) or FileDeleteResponse (content null)."""
    entry = written.files[0] if written.files else None
    return {
        "content": contents(entry, written.at, html_repo, api_repo) if entry else None,
        "commit": file_commit(written.commit, html_repo, api_repo),
        "verification": commit_records.verification(written.commit),
    }


def files_response(written, html_repo: str, api_repo: str) -> dict:
    """FilesResponse: a file deleted by the commit is null in ``files``."""
    return {
        "files": [contents(e, written.at, html_repo, api_repo) if e else None
                  for e in written.files],
        "commit": file_commit(written.commit, html_repo, api_repo),
        "verification": commit_records.verification(written.commit),
    }
