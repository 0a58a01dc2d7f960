"""The blame page, at Forgejo's URL ``/{owner}/{repo}/blame/{branch,tag,commit}/{ref}/{path}``:
each line of a file with the commit that last changed it, grouped by hunk.

The lines and their commits come from ``contents.blame_file`` (a bounded walk of the
history, from packs the request has loaded); the ref and path resolve as ``/src``
resolves them.  A file too large to blame, or not text, answers a page that says so.
"""
from __future__ import annotations

from chalicelib import contents
from chalicelib.errors import NotFoundError
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.repos import current_repo
from chalicelib.web import code_view, present
from chalicelib.web.actions_forms import repo_values
from chalicelib.web.pages import source_values
from chalicelib.web.view import Web, page, render


@page("GET", "/{owner}/{repo}/blame/{kind}/{rest:path}", "webRepoBlame", in_repo=True)
def blame(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    kind = req.params["kind"]
    git = contents.open_git(view.repo)
    at, found, ref, path = present.resolve_src(view, kind, req.params["rest"], git)
    if isinstance(found, list) or found.kind != "file":
        raise NotFoundError(f"not a file: {path}")
    values = dict(entry=found, **source_values(git, kind, ref, path, at.commit_id),
                  **repo_values(req, view, "code"))
    message = ""
    hunks, complete = [], True
    if found.lfs_pointer or present.as_text(found.content or b"") is None:
        message = "Blame is not shown for binary files."
    else:
        try:
            result = contents.blame_file(git, at.commit_id, path)
            hunks, complete = _shown(found.name, result.hunks), result.complete
        except contents.BlameTooLarge:
            limits = contents.BLAME_LIMITS
            message = (f"This file is too large to blame ({found.size} bytes; blame shows "
                       f"files of at most {limits['bytes']} bytes and {limits['lines']} "
                       "lines).")
    return render(web, "blame.html", title=f"Blame · {path}", hunks=hunks,
                  complete=complete, message=message, stamp=code_view.stamp,
                  history_limit=contents.BLAME_LIMITS["commits"], **values)


def _shown(name: str, hunks) -> list[dict]:
    """Each hunk's commit and its lines, numbered and highlighted (the whole file as one
    text, so a string or comment spanning lines keeps its colour)."""
    texts = [line.decode("utf-8", "replace").rstrip("\r\n") for h in hunks for line in h.lines]
    html = present.highlight_lines(name, texts)
    shown, at = [], 0
    for h in hunks:
        count = len(h.lines)
        shown.append({"commit": h.commit, "lines": list(zip(range(h.start, h.start + count),
                                                            html[at:at + count]))})
        at += count
    return shown
