"""What a repository's home page shows of its lifecycle beside the code: a pending
transfer's offer to its recipient, and the migrating page of a repository that a
project migration is still bringing over.

This module registers no routes: ``pages.repo_home`` calls it.

- The offer: Forgejo's banner "X wants to transfer this repository to you" with Accept
  and Decline, shown to whoever may answer it (``repo_admin.may_accept_transfer``: the
  recipient user, or anyone who may create repositories in the recipient organization).
  Reading it costs nothing unless a transfer is pending.
- The migrating page: a migrated repository is 404 until its last step writes it
  (``chalicelib/migrations/service.py``), so Forgejo's "Migrating from …" page is served
  at ``/{owner}/{repo}`` when no repository answers there but a migration task does, to
  those the task's status is for (its doer and whoever may create repositories in the
  owner: ``migrations.migration_task``); everyone else gets the 404 page as before.
  It reloads itself every few seconds while the migration runs (``nimbus.js``, asked
  by ``data-reload-after``: a ``meta`` refresh would give nobody a way to stop it first;
  ``?refresh=off`` stops it; without scripts a link reloads) and, once failed, shows the redacted error with
  Retry and Delete (``migrate_pages``).
"""
from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from chalicelib import accounts, errors, migrations, repo_admin
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.repos import caller
from chalicelib.web.view import Web, path_url, render

REFRESH_SECONDS = 5
# What each step brings, in the words the page uses (steps without counts say nothing).
STEP_NAMES = {"git": "Git data", "wiki": "Wiki", "labels": "Labels",
              "milestones": "Milestones", "issues": "Issues", "pulls": "Pull requests",
              "releases": "Releases", "finish": "Finishing"}


def transfer_offer(web: Web, record: dict) -> dict | None:
    """The pending transfer's banner values for the signed-in visitor who may answer it:
    ``doer`` and ``recipient`` (User records), else None."""
    pending = record.get("repo_transfer")
    if not pending or web.user is None or not pending.get("recipient"):
        return None
    recipient_record = pending["recipient"]
    if int(recipient_record["id"]) == int(web.user.id):
        recipient = web.user
    else:
        recipient = accounts.account_by_id(int(recipient_record["id"]))
    if recipient is None or not repo_admin.may_accept_transfer(web.user, recipient):
        return None
    return {"doer": pending.get("doer"), "recipient": recipient_record}


def shown_address(url: str) -> str:
    """A clone address without any user name or password written into it."""
    parts = urlsplit(url or "")
    if not parts.netloc or "@" not in parts.netloc:
        return url or ""
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def migration_values(status: dict) -> dict:
    """The page's view of ``migrations.migration_status``: each step with its state."""
    steps, reached = [], False
    current = status["step"]
    for step in status["steps"]:
        if status["status"] == "done":
            state = "done"
        elif step == current:
            reached = True
            # A queued task's step waits for a worker; only a running task's runs.
            state = {"failed": "failed", "queued": "waiting"}.get(status["status"], "running")
        else:
            state = "waiting" if reached else "done"
        steps.append({"name": STEP_NAMES.get(step, step), "state": state,
                      "count": status["counts"].get(step)})
    return {"steps": steps, "address": shown_address(status["clone_addr"])}


def migrating_page(req: ApiRequest, web: Web) -> ApiResponse | None:
    """The migrating page for ``/{owner}/{repo}``, or None (the caller answers 404)."""
    if web.user is None:
        return None
    owner, name = req.params["owner"], req.params["repo"]
    try:
        task = migrations.migration_task(caller(req), owner, name)
    except errors.NotFoundError:
        return None
    status = migrations.migration_status(task)
    if status["status"] == "done":
        return None     # done, yet no repository: it was deleted since
    failed = status["status"] == "failed"
    refresh = not failed and req.arg("refresh") != "off"
    full_name = status["repository"]
    return render(web, "lifecycle/migrating.html", title=f"Migrating {full_name}",
                  migration=status, failed=failed, full_name=full_name,
                  base=path_url(*full_name.split("/", 1)), form_csrf=web.csrf,
                  refresh_seconds=REFRESH_SECONDS if refresh else 0,
                  **migration_values(status))
