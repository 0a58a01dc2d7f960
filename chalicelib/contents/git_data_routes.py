"""The git data API (Forgejo's ``repository`` tag): a tree (paged, optionally
recursive), a blob, the refs (all, or those under a prefix), an annotated tag object
and a commit's note, read from the object store (services/git_trees,
services/git_data).  Token scope: ``repository``.

Route order: ``repoListGitRefs`` takes the rest of the path (``heads/feature/x``).
"""
from __future__ import annotations

import base64
from urllib.parse import quote

from chalicelib import repos, signing
from chalicelib.contents import commit_records, git_data, git_trees
from chalicelib.contents import commits as commit_views
from chalicelib.http import formats
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.repos import IN_REPO, current_repo
from chalicelib.settings import get_settings


def _api_url(view) -> str:
    return repos.repo_api_url(view.owner.login, view.repo.name)


def _int_arg(req: ApiRequest, name: str) -> int:
    """Forgejo's FormInt: junk reads as 0 (then the defaults apply)."""
    try:
        return int(req.arg(name) or 0)
    except ValueError:
        return 0


def _flag(req: ApiRequest, name: str, default: bool) -> bool:
    raw = (req.arg(name) or "").strip().lower()
    if not raw:
        return default
    return raw in ("1", "t", "true")


def _commit_user(raw: bytes, when: int, tz: int) -> dict:
    name, _, email = raw.decode("utf-8", "replace").partition("<")
    return {"name": name.strip(), "email": email.rstrip(">").strip(),
            "date": formats.rfc3339_offset(when, tz)}


def _tag_verification(tag) -> dict | None:
    """The verification of a signed tag's own signature (the tagger stands for the
    committer); None when the tag is not signed."""
    if not tag.signature:
        return None
    tagger = (tag.tagger or b"").decode("utf-8", "replace")
    email = tagger.partition("<")[2].partition(">")[0].strip()
    return signing.verify_commit(tag.signature.decode("ascii", "replace"),
                                 tag.raw_without_sig().decode("utf-8", "replace"), email)


def _entry(api: str, e: git_trees.TreeEntry) -> dict:
    if e.kind == "tree":
        url = f"{api}/git/trees/{e.sha}"
    elif e.kind == "commit":
        url = ""      # a submodule's entry has no url (as GitHub's API)
    else:
        url = f"{api}/git/blobs/{e.sha}"
    return {"path": e.path, "mode": f"{e.mode:06o}", "type": e.kind, "size": e.size,
            "sha": e.sha, "url": url}


@route("GET", "/repos/{owner}/{repo}/git/trees/{sha}", "GetTree",
       summary="Gets the tree of a repository.",
       query=(Param("recursive", "boolean", "show all directories and files"),
              Param("page", "integer", "page number; the 'truncated' field in the response "
                                       "will be true if there are still more items after "
                                       "this page, false if the last page"),
              Param("per_page", "integer", "number of items per page")),
       responses={200: "GitTreeResponse", 400: "error", 404: "notFound"}, **IN_REPO)
def get_tree(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    found = git_trees.tree_page(
        view.repo, req.params["sha"], recursive=_flag(req, "recursive", False),
        page=_int_arg(req, "page"), per_page=_int_arg(req, "per_page"),
        max_per_page=get_settings().api.DEFAULT_GIT_TREES_PER_PAGE)
    api = _api_url(view)
    body = {"sha": found.sha, "url": f"{api}/git/trees/{quote(found.sha)}",
            # Forgejo leaves the list null on a page past the end.
            "tree": [_entry(api, e) for e in found.entries] if found.entries else None,
            "truncated": found.truncated, "page": found.page, "total_count": found.total}
    resp = ApiResponse.json(body)
    resp.headers["X-Total-Count"] = str(found.total)
    resp.expose("X-Total-Count")
    return resp


@route("GET", "/repos/{owner}/{repo}/git/blobs/{sha}", "GetBlob",
       summary="Gets the blob of a repository.",
       responses={200: "GitBlob", 400: "error", 404: "notFound"}, **IN_REPO)
def get_blob(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    found = git_data.blob(view.repo, req.params["sha"], get_settings().api.DEFAULT_MAX_BLOB_SIZE)
    content = base64.b64encode(found.content).decode() if found.content is not None else ""
    return ApiResponse.json({"content": content, "encoding": "base64",
                             "url": f"{_api_url(view)}/git/blobs/{found.sha}",
                             "sha": found.sha, "size": found.size})


def _refs(req: ApiRequest, prefix: str) -> ApiResponse:
    view = current_repo(req)
    api = _api_url(view)
    body = [{"ref": r.name, "url": f"{api}/git/{quote(r.name)}",
             "object": {"type": r.kind, "sha": r.sha, "url": f"{api}/git/{r.kind}s/{r.sha}"}}
            for r in git_data.list_refs(view.repo, prefix)]
    return ApiResponse.json(body)


@route("GET", "/repos/{owner}/{repo}/git/refs", "repoListAllGitRefs",
       summary="Get specified ref or filtered repository's refs",
       responses={200: "ReferenceList", 404: "notFound"}, **IN_REPO)
def list_all_refs(req: ApiRequest) -> ApiResponse:
    return _refs(req, "")


@route("GET", "/repos/{owner}/{repo}/git/refs/{ref:path}", "repoListGitRefs",
       summary="Get specified ref or filtered repository's refs",
       responses={200: "ReferenceList", 404: "notFound"}, **IN_REPO)
def list_refs(req: ApiRequest) -> ApiResponse:
    return _refs(req, req.params["ref"])


@route("GET", "/repos/{owner}/{repo}/git/tags/{sha}", "GetAnnotatedTag",
       summary="Gets the tag object of an annotated tag (not lightweight tags)",
       responses={200: "AnnotatedTag", 400: "error", 404: "notFound"}, **IN_REPO)
def get_annotated_tag(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    tag, commit = git_data.annotated_tag(view.repo, req.params["sha"])
    api = _api_url(view)
    sha, target = tag.id.decode(), commit.id.decode()
    tagger = None
    if tag.tagger:
        tagger = _commit_user(tag.tagger, int(tag.tag_time or 0), int(tag.tag_timezone or 0))
    verification = _tag_verification(tag) or commit_records.verification(commit)
    return ApiResponse.json({
        "tag": tag.name.decode("utf-8", "replace"), "sha": sha,
        "url": f"{api}/git/tags/{sha}",
        "message": (tag.message or b"").decode("utf-8", "replace"),
        "tagger": tagger,
        "object": {"type": "commit", "url": f"{api}/git/commits/{target}", "sha": target},
        "verification": verification,
        # Forgejo leaves the download counts of an annotated tag unset.
        "archive_download_count": None,
    })


@route("GET", "/repos/{owner}/{repo}/git/notes/{sha}", "repoGetNote",
       summary="Get a note corresponding to a single commit from a repository",
       query=(Param("verification", "boolean", "include verification for every commit "
                                               "(disable for speedup, default 'true')"),
              Param("files", "boolean", "include a list of affected files for every commit "
                                        "(disable for speedup, default 'true')")),
       responses={200: "Note", 404: "notFound", 422: "validationError"}, **IN_REPO)
def get_note(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    message, last, git = git_data.note(view.repo, req.params["sha"])
    stats, files = commit_views.stats_and_files(git, last)
    commit = commit_records.commit(last, repos.repo_html_url(view), _api_url(view),
                                 stats=stats, files=files if _flag(req, "files", True) else None,
                                 accounts=commit_views.linked_accounts([last]))
    return ApiResponse.json({"message": message.decode("utf-8", "replace"), "commit": commit})
