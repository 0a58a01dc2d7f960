"""A repository's webhooks copied to another repository: ``generateRepo``'s ``webhooks``
(fj:services/repository/generate.go GenerateWebhooks).

Every hook of the template is copied with its settings: type, URL, HTTP method, content
type, secret, subscribed events, branch filter, active flag, the slack metadata, and
the authorization header.  Two choices differ from Forgejo, both so that a copy never
hands anyone a credential they could not read before:

* only a caller who administers the template (who may list its hooks already) may copy
  them; Forgejo lets any reader copy, secret and all;
* the authorization header is copied, where Forgejo drops it (its copy leaves the
  encrypted column out): the caller could read it on the template anyway, and a copy
  without it would fail at an endpoint that wants it.

The URL is copied as it is, without the network guard's creation check that
``service.create_hook`` makes: the template's hook passed it when it was made, a copy
must not fail because a host's address changed since, and every delivery is checked at
connect time regardless.  The copies are staged into the caller's unit of work, each
with its ``HookChanged`` (action ``created``), so they land with whatever else the
caller commits there.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib import clock, events
from chalicelib.errors import PermissionDenied
from chalicelib.store import ids, unit_of_work
from chalicelib.webhooks import store

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.repos import RepoView
    from chalicelib.webhooks.store import Hook

# What a copy takes from its hook, besides the owner, the id and the times.
COPIED = ("hook_type", "url", "content_type", "secret", "http_method", "events", "push_only",
          "choose_events", "branch_filter", "authorization_header", "config", "active")


def hooks_to_copy(view: RepoView) -> list[Hook]:
    """The repository's own hooks, in id order, for a caller who administers it."""
    if not view.is_admin:
        raise PermissionDenied("copying a template's webhooks needs admin access to the "
                               "template: they carry its secrets")
    return store.hooks_of("repo", int(view.repo.id))


def stage_hook_copies(actor: Account, hooks: list[Hook], repo_id: int) -> list[Hook]:
    """A copy of each of ``hooks`` for repository ``repo_id``, staged (with its event)
    into the current unit of work; the copies, in the same order."""
    uow = unit_of_work.current()
    now = clock.seconds()
    copies = []
    for hook in hooks:
        fields = {name: getattr(hook, name) for name in COPIED}
        fields["events"] = list(fields["events"] or ())
        copy = store.new("repo", int(repo_id), ids.next_id("hook"), created=now, updated=now,
                         is_system=False, **fields)
        store.stage_create(copy)
        uow.raise_event(events.HookChanged(
            actor_id=int(actor.id), actor=events.snapshot(actor), owner_kind="repo",
            owner_id=int(repo_id), hook_id=int(copy.id), action="created",
            hook=events.snapshot(copy)))
        copies.append(copy)
    return copies
