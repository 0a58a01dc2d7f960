"""Git smart HTTP for a repository's wiki at ``/{owner}/{repo}.wiki.git/…`` (the
Repository record's ``wiki_clone_url``): clone, fetch and push with the git CLI.

The repository's own git code path serves it (``git_transport``'s answers and rule):
the same credentials, the same refusals, readers fetch, writers with
``write:repository`` push.  Only the git differs: the wiki's (``gitrepo``), whose
pushes move refs by compare-and-swap beside the repository's ``has_wiki_contents``
(``service.push_ref_changes``).  A wiki switched off answers 404.  Registered before
the repository's ``/{owner}/{repo}/…`` git routes, which would read ``x.wiki.git`` as a
repository's name.
"""
from __future__ import annotations

from chalicelib import git_transport
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.wiki import gitrepo, service

GIT = git_transport.GIT_ROUTE


def _wiki(req: ApiRequest, push: bool) -> git_transport.GitTarget:
    view = git_transport.authorize_git(req, push=push)
    if not getattr(view.repo, "has_wiki", True):
        raise git_transport.git_plain_error(404, "Repository not found")
    repo = view.repo
    return git_transport.GitTarget(
        view, open=lambda: gitrepo.open_wiki_git(repo),
        commit_refs=lambda git, updates, actor: service.push_ref_changes(repo, updates))


@route("GET", "/{owner}/{repo}.wiki.git/info/refs", "gitWikiInfoRefs", **GIT)
def info_refs(req: ApiRequest) -> ApiResponse:
    return git_transport.serve_info_refs(req, _wiki)


@route("POST", "/{owner}/{repo}.wiki.git/git-upload-pack", "gitWikiUploadPack", **GIT)
def upload_pack(req: ApiRequest) -> ApiResponse:
    return git_transport.serve_upload_pack(req, _wiki)


@route("POST", "/{owner}/{repo}.wiki.git/git-receive-pack", "gitWikiReceivePack", **GIT)
def receive_pack(req: ApiRequest) -> ApiResponse:
    return git_transport.serve_receive_pack(req, _wiki)
