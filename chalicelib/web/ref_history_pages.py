"""A repository's ref history in the browser (a Nimbus extension, docs/extensions.md
"Ref history and undo"): ``/{owner}/{repo}/activity/refs`` lists the moves of its
branches and tags newest first (``ref`` and ``forced`` filters, a page at a time), and
a writer's Restore button per move posts to ``…/activity/refs/{id}/restore``, which
puts the ref back to that move's old tip and comes back to the list saying what it did.

Both call the services ``repoListRefActivity`` and ``repoRestoreRef`` call
(``ref_history.list_ref_activity``, ``ref_history.restore_ref``): whoever may read the
repository reads its history (a stranger of a private repository gets the 404 page);
only a writer may restore (a reader's POST is the 403 page, the button is not shown to
them), with the branch and tag protection rules applied.  A refusal (a protection rule,
the ref moved meanwhile, an archived repository) shows the list again with the message
and the API's status code; nothing was written.
"""
from __future__ import annotations

import dataclasses
import re
from urllib.parse import urlencode

from chalicelib import errors, ref_history
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.repos import caller, current_repo
from chalicelib.settings import get_settings
from chalicelib.web.actions_forms import fixable_status, posted, repo_values
from chalicelib.web.code_view import stamp
from chalicelib.web.view import Web, page, pager, path_url, redirect, render

TEMPLATE = "ref_history.html"
ZERO = "0" * 40
HEADS = "refs/heads/"
# The filters the list's address carries, kept when a restore comes back to it.
KEPT = ("ref", "forced", "page")
FORCED = {"": None, "true": True, "false": False}
SHA = re.compile(r"^[0-9a-f]{7,64}$")
# The notice's ref comes from the address: only a ref-like name is shown, so a crafted
# link cannot put a sentence of its own on the page.
REF_NAME = re.compile(r"^[A-Za-z0-9._/+-]{1,200}$")


def _forced(raw: str) -> bool | None:
    """The ``forced`` filter as the API reads it (true/false, 1/0, t/f; 422 otherwise)."""
    value = raw.strip().lower()
    aliases = {"1": "true", "t": "true", "0": "false", "f": "false"}
    value = aliases.get(value, value)
    if value not in FORCED:
        raise errors.InvalidInput("[forced]: must be true or false")
    return FORCED[value]


def _may_restore(web: Web, view) -> bool:
    """Whether the Restore buttons are shown: the service's test (a signed-in writer, not
    archived, not a mirror), which the POST makes again."""
    return web.user is not None and bool(view.can_write) and not view.repo.archived \
        and not view.repo.mirror


def _row(entry, movers: dict, base: str) -> dict:
    kind = "branch" if entry.ref.startswith(HEADS) else "tag"
    mover = movers.get(int(entry.actor_id or 0))

    def commit(sha: str) -> dict | None:
        return None if sha == ZERO else {"short": sha[:10], "url": f"{base}/commit/{sha}"}
    return {"id": int(entry.id), "name": ref_history.ref_short_name(entry.ref), "kind": kind,
            "action": entry.action, "forced": bool(entry.forced), "via": entry.via or "",
            "old": commit(entry.old), "new": commit(entry.new),
            "who": mover.login if mover is not None else "",
            "who_then": entry.actor_login or "", "when": stamp(entry.created),
            "restorable": entry.old != ZERO}


def _flash(req: ApiRequest) -> str:
    """What a restore that came back here did (its address carries the ref and tip)."""
    ref, tip = (req.arg("restored") or "").strip(), (req.arg("tip") or "").strip()
    if not REF_NAME.match(ref) or not SHA.match(tip):
        return ""
    if req.arg("unchanged") == "1":
        return f"{ref} was at {tip[:10]} already: nothing changed."
    return f"Restored {ref} to {tip[:10]}."


def _show(req: ApiRequest, web: Web, view, *, status: int = 200,
          error: str = "") -> ApiResponse:
    query = ref_history.RefFilter(ref=(req.arg("ref") or "").strip() or None,
                                  forced=_forced(req.arg("forced") or ""))
    page_ = paging.page_of(req)
    shown, movers, seen = ref_history.list_ref_activity(view, query, offset=page_.offset,
                                                        limit=page_.limit)
    values = repo_values(req, view, "branches")
    restorer = _may_restore(web, view)
    return render(web, TEMPLATE, status=status, title=f"Ref history · {view.repo.name}",
                  rows=[_row(e, movers, values["base"]) for e in shown],
                  pager=pager(req, seen), ref_filter=query.ref or "",
                  forced_filter=(req.arg("forced") or "").strip().lower(),
                  filtered=bool(query.ref) or query.forced is not None,
                  may_restore=restorer, form_csrf=web.csrf if restorer else "",
                  kept={k: (req.arg(k) or "") for k in KEPT}, notice=_flash(req),
                  error=error, list_req=req,
                  history_days=max(int(get_settings().repository.REF_HISTORY_DAYS or 0), 1),
                  **values)


@page("GET", "/{owner}/{repo}/activity/refs", "webRepoRefHistory", in_repo=True)
def history(req: ApiRequest, web: Web) -> ApiResponse:
    return _show(req, web, current_repo(req))


@page("POST", "/{owner}/{repo}/activity/refs/{id}/restore", "webRepoRefRestore",
      in_repo=True, signed_in=True)
def restore(req: ApiRequest, web: Web) -> ApiResponse:
    """repoRestoreRef; back to the list (its filters kept) saying what moved."""
    view = current_repo(req)
    raw = req.params["id"]
    form = posted(req)
    try:
        done = ref_history.restore_ref(caller(req), view, int(raw) if raw.isdigit() else 0)
    except errors.ServiceError as err:
        status = fixable_status(err) or (403 if isinstance(err, errors.PermissionDenied)
                                         else None)
        if status is None or (status == 403 and not _may_restore(web, view)):
            raise           # no such entry: 404; a reader's POST: the 403 page
        message = getattr(err, "message", "") or str(err)
        return _show(_listing_request(req, form), web, view, status=status, error=message)
    kept = [(k, form.get(k, "")) for k in KEPT if form.get(k, "")]
    flash = [("restored", ref_history.ref_short_name(done.ref)), ("tip", done.new)]
    if not done.changed:
        flash.append(("unchanged", "1"))
    base = path_url(view.owner.login, view.repo.name, "activity", "refs")
    return redirect(base + "?" + urlencode(kept + flash))


def _listing_request(req: ApiRequest, form: dict) -> ApiRequest:
    """The request as the list reads it: the filters the form carried as its query."""
    query = {k: [form[k]] for k in KEPT if form.get(k)}
    view = current_repo(req)
    listing = path_url(view.owner.login, view.repo.name, "activity", "refs")
    return dataclasses.replace(req, query=query, raw_path=listing)
