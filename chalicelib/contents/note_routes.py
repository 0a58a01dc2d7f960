"""Git notes written and removed (Forgejo's ``repository`` tag: repoSetNote,
repoRemoveNote), by the repository's writers (``notes``); the answer to a set note is
the Note record repoGetNote answers."""
from __future__ import annotations

from chalicelib import repos
from chalicelib.contents import commit_records, git_data, notes
from chalicelib.contents import commits as commit_views
from chalicelib.contents.notes import NoteOptions
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.repos import IN_REPO, caller, current_repo

WRITER = dict(IN_REPO, signed_in=True)
ERRORS = {403: "forbidden", 404: "notFound", 409: "conflict", 422: "validationError",
          423: "error"}


@route("POST", "/repos/{owner}/{repo}/git/notes/{sha}", "repoSetNote",
       summary="Set a note corresponding to a single commit from a repository",
       body="NoteOptions", responses={200: "Note", **ERRORS}, **WRITER)
def set_note(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    commit_id = notes.set_note(caller(req), view, req.params["sha"], req.option(NoteOptions))
    message, last, git = git_data.note(view.repo, commit_id)
    stats, files = commit_views.stats_and_files(git, last)
    commit = commit_records.commit(last, repos.repo_html_url(view),
                                   repos.repo_api_url(view.owner.login, view.repo.name),
                                   stats=stats, files=files,
                                   accounts=commit_views.linked_accounts([last]))
    return ApiResponse.json({"message": message.decode("utf-8", "replace"), "commit": commit})


@route("DELETE", "/repos/{owner}/{repo}/git/notes/{sha}", "repoRemoveNote",
       summary="Removes a note corresponding to a single commit from a repository",
       responses={204: "empty", **ERRORS}, **WRITER)
def remove_note(req: ApiRequest) -> ApiResponse:
    notes.remove_note(caller(req), current_repo(req), req.params["sha"])
    return ApiResponse.empty()
