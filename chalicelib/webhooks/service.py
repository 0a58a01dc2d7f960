"""Webhooks of repositories and organizations: the stored records and who gets what.

Delivery is a separate module; it asks :func:`matching_hooks` which active hooks of a
repository and of its owner want an event.  The rules follow Forgejo
(``routers/api/v1/utils/hook.go``, ``models/webhook``, ``services/webhook``):

* ``events`` on create and edit name subscriptions ("issues" means every issue event,
  "issues_only" just the base one, an empty list means push); they are stored as
  Forgejo's ``HookEvents`` flags with ``choose_events`` set, and read back as the
  fine-grained event types (``EventsArray``).
* An edit rewrites ``events``, ``branch_filter`` and ``authorization_header`` whatever
  was sent (omitted = reset), changes ``active`` only when given, and never the secret.
* ``branch_filter`` is a gobwas/glob pattern without separators (``*`` crosses ``/``);
  empty or ``*`` lets every branch through.
* The secret is write-only; ``authorization_header`` is read back in clear, as Forgejo does.

Creating, editing and deleting a hook are each one unit-of-work commit with a
``HookChanged`` event.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from chalicelib import accounts, clock, events, netguard
from chalicelib.errors import (BadInput, ConditionFailed, InvalidInput, NotFoundError,
                               PermissionDenied)
from chalicelib.http.options import UnsetType
from chalicelib.repos import can_see_account, is_org, is_org_owner
from chalicelib.store import ids, unit_of_work
from chalicelib.webhooks import store
from chalicelib.webhooks.branch_filters import branch_matches, compile_glob
from chalicelib.webhooks.options import CreateHookOption, EditHookOption

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.repos import Repo
    from chalicelib.webhooks.store import Hook

HOOK_TYPES = ("forgejo", "gitea", "gogs", "slack", "discord", "dingtalk", "telegram",
              "msteams", "feishu", "matrix", "wechatwork", "packagist", "sourcehut_builds")
CONTENT_TYPES = ("json", "form")
# Forgejo's per-type metadata for hooks made through the API: only slack's is ever
# filled in (from config); the others read back as their empty structures, and the
# default and simple chat types have none (null).
_EMPTY_METADATA = {
    "discord": {"username": "", "icon_url": ""},
    "telegram": {"bot_token": "", "chat_id": "", "thread_id": ""},
    "matrix": {"homeserver_url": "", "room_id": "", "message_type": 0},
    "packagist": {"username": "", "api_token": "", "package_url": ""},
    "sourcehut_builds": {"manifest_path": "", "visibility": "", "secrets": False},
}
SLACK_KEYS = ("channel", "username", "icon_url", "color")
_SLACK_CHANNEL = re.compile(r"^#?[a-z0-9_-]{1,80}$")

_ISSUE_FLAGS = ("issue_assign", "issue_label", "issue_milestone", "issue_comment")
_PULL_FLAGS = ("pull_request_assign", "pull_request_label", "pull_request_milestone",
               "pull_request_comment", "pull_request_review", "pull_request_review_request",
               "pull_request_sync")
_PLAIN_FLAGS = ("create", "delete", "fork", "push", "wiki", "repository", "release", "package",
                "action_run_failure", "action_run_recover", "action_run_success", "status")
# Forgejo's HookEvents flags, in the order they are stored.
FLAGS = ("create", "delete", "fork", "issues", *_ISSUE_FLAGS, "push", "pull_request",
         *_PULL_FLAGS, "wiki", "repository", "release", "package", "action_run_failure",
         "action_run_recover", "action_run_success",
         # Gitea's commit status event; Forgejo has none, so only hooks that name it get it.
         "status")

# Names accepted in ``events`` (case-insensitive) -> the flags they turn on.
SUBSCRIPTIONS: dict[str, tuple[str, ...]] = {
    **{name: (name,) for name in (*_PLAIN_FLAGS, *_ISSUE_FLAGS, *_PULL_FLAGS)},
    "issues": ("issues", *_ISSUE_FLAGS),
    "issues_only": ("issues",),
    "pull_request": ("pull_request", *_PULL_FLAGS),
    "pull_request_only": ("pull_request",),
    # Names only the events list shows: accepted so that sending back what was read
    # keeps the subscription (Forgejo silently drops them).
    "pull_request_review_approved": ("pull_request_review",),
    "pull_request_review_rejected": ("pull_request_review",),
    "pull_request_review_comment": ("pull_request_comment",),
}

# Event types (X-Forgejo-Event-Type), in Forgejo's EventCheckers order, and the flag
# each needs.  Review comments are checked against pull_request_comment: Forgejo's
# own quirk, kept so the events list and the deliveries are the ones Forgejo makes.
EVENT_FLAGS: tuple[tuple[str, str], ...] = (
    ("create", "create"), ("delete", "delete"), ("fork", "fork"), ("push", "push"),
    ("issues", "issues"), *((f, f) for f in _ISSUE_FLAGS),
    ("pull_request", "pull_request"), ("pull_request_assign", "pull_request_assign"),
    ("pull_request_label", "pull_request_label"),
    ("pull_request_milestone", "pull_request_milestone"),
    ("pull_request_comment", "pull_request_comment"),
    ("pull_request_review_approved", "pull_request_review"),
    ("pull_request_review_rejected", "pull_request_review"),
    ("pull_request_review_comment", "pull_request_comment"),
    ("pull_request_sync", "pull_request_sync"), ("wiki", "wiki"),
    ("repository", "repository"), ("release", "release"), ("package", "package"),
    ("pull_request_review_request", "pull_request_review_request"),
    ("action_run_failure", "action_run_failure"), ("action_run_recover", "action_run_recover"),
    ("action_run_success", "action_run_success"),
    ("status", "status"),
)
_FLAG_OF_EVENT = dict(EVENT_FLAGS)



# --- whose hooks ---------------------------------------------------------------------

@dataclass(frozen=True)
class Scope:
    """The owner of a set of hooks: a repository, an organization or a user (its
    partition), or the system."""
    kind: str        # "repo" | "org" | "user" | "system", as Hook.owner_kind
    owner_id: int


def repo_scope(view) -> Scope:
    """The hooks of a repository the caller sees (``repo_views.RepoView``): repo
    admins and site admins only."""
    if not view.is_admin:
        raise PermissionDenied("user should be an owner or a collaborator with admin write "
                               "of a repository")
    return Scope("repo", int(view.repo.id))


def org_scope(actor: Account | None, name: str) -> Scope:
    """The hooks of an organization: its owners and site admins; 404 when the caller
    cannot see it, 403 when they can but do not own it (Forgejo's reqOrgOwnership)."""
    org = accounts.account_by_name(name)
    if org is None or not is_org(org) or not can_see_account(actor, org):
        raise NotFoundError(f"organization does not exist [name: {name}]")
    if not is_org_owner(org, actor):
        raise PermissionDenied("Must be an organization owner")
    return Scope("org", int(org.id))


def user_scope(actor: Account) -> Scope:
    """The signed-in user's own hooks (``/user/hooks``; Forgejo's ListOwnerHooks with the
    doer): nobody reaches another user's, site admins neither (a hook id of someone
    else's is not found).  They live in the account's partition beside an organization's,
    so the owner's query of ``hooks_in_scope`` finds them for the user's repositories."""
    return Scope("user", int(actor.id))


def hook_keys(scope: Scope, hook_id: str) -> list[tuple[str, str]]:
    """The table key of ``scope``'s hook ``hook_id`` (a path parameter), for a request's
    second batched read; none when it is no number."""
    return [store.hook_key(scope.kind, scope.owner_id, int(hook_id))] if hook_id.isdigit() else []


SYSTEM = Scope("system", 0)


def system_scope(actor: Account | None) -> Scope:
    """System and default hooks (``/admin/hooks``): site admins only."""
    if actor is None or not actor.is_admin:
        raise PermissionDenied("Only site administrators may manage system hooks")
    return SYSTEM


# --- reading -------------------------------------------------------------------------

def list_hooks(scope: Scope) -> list[Hook]:
    """In id order; a hook just created is listed.  The admin list shows system hooks
    only (Forgejo's GetSystemWebhooks); default hooks are reached by id."""
    found = store.hooks_of(scope.kind, scope.owner_id)
    return [h for h in found if h.is_system] if scope.kind == "system" else found


def get_hook(scope: Scope, hook_id: int) -> Hook:
    hook = store.get(scope.kind, scope.owner_id, hook_id)
    if hook is None:
        raise NotFoundError(f"webhook does not exist [id: {hook_id}]")
    return hook


def events_array(hook: Hook) -> list[str]:
    """The event types the hook receives, as Forgejo lists them."""
    return [event for event, _ in EVENT_FLAGS if wants(hook, event)]


def metadata(hook: Hook) -> dict | None:
    if hook.hook_type == "slack":
        stored = json.loads(hook.config or "{}")
        return {k: stored.get(k, "") for k in SLACK_KEYS}
    empty = _EMPTY_METADATA.get(hook.hook_type)
    return dict(empty) if empty is not None else None


# --- matching (for delivery) ---------------------------------------------------------

def wants(hook: Hook, event: str) -> bool:
    """Whether the hook subscribes to ``event`` (Forgejo's Has*Event)."""
    flag = _FLAG_OF_EVENT.get(event)
    if flag is None:
        raise ValueError(f"unknown webhook event type {event!r}")
    if event == "push" and hook.push_only:
        return True
    return bool(hook.choose_events) and flag in (hook.events or ())


def matching_hooks(repo: Repo, owner: Account, event: str,
                   branch: str | None = None) -> list[Hook]:
    """The active hooks of ``repo``, then of its ``owner``, then the system hooks, that
    want ``event``.

    ``branch`` is the short branch name when the event concerns a branch (a push,
    create or delete of ``refs/heads/<branch>``); the hooks' branch filters apply
    to it.  Pass None for tags and for events without a branch: no filtering then.
    Delivery still decides what depends on the payload (Forgejo sends chat hooks no
    push without commits).
    """
    return select_hooks(hooks_in_scope(int(repo.id), int(owner.id)), event, branch)


def hooks_in_scope(repo_id: int, owner_id: int) -> list[Hook]:
    """The active hooks of a repository, then of its owner, then the system hooks: every
    hook that an event of the repository could reach (three consistent queries).  The
    owner's query reads the account's partition, where an organization's hooks and a
    user's (``user_scope``) both live: a user's repository costs no query more."""
    return [*active_hooks_of("repo", repo_id), *active_hooks_of("org", owner_id),
            *active_hooks_of("system", 0)]


def active_hooks_of(kind: str, owner_id: int) -> list[Hook]:
    """One of the three (``kind``: repo, org or system; ``org`` is the owner's account
    partition, which holds a user's hooks as well)."""
    found = store.hooks_of(kind, owner_id)
    return [h for h in found if h.active and (kind != "system" or h.is_system)]


def select_hooks(found: list[Hook], event: str, branch: str | None = None) -> list[Hook]:
    """Those of ``found`` that want ``event`` (on ``branch``: see ``matching_hooks``)."""
    if event not in _FLAG_OF_EVENT:
        raise ValueError(f"unknown webhook event type {event!r}")
    return [h for h in found
            if wants(h, event) and (branch is None or branch_matches(h.branch_filter, branch))]


# --- validation ----------------------------------------------------------------------

def _branch_filter(sent: str | None | UnsetType) -> str:
    value = sent or ""
    if value:
        try:
            compile_glob(value)
        except ValueError as exc:
            raise InvalidInput(f"[BranchFilter]: {exc}") from None
    return value


def _authorization_header(sent: str | None | UnsetType) -> str:
    value = sent or ""
    # Sent verbatim as a request header at delivery: line breaks would forge headers.
    if re.search(r"[\x00-\x1f\x7f]", value):
        raise InvalidInput("[AuthorizationHeader]: must not contain control characters")
    return value


def _flags(names: list[str]) -> list[str]:
    """Subscription names -> stored flags (an empty list subscribes to push)."""
    wanted: set[str] = set()
    for name in names or ["push"]:
        flags = SUBSCRIPTIONS.get(name.lower())
        if flags is None:
            raise InvalidInput(f"Invalid hook event: {name}")
        wanted.update(flags)
    return [f for f in FLAGS if f in wanted]


def _url(value: str) -> str:
    netguard.validate_webhook_url(value)   # raises "Invalid url"
    # Refused now when it resolves to an address [webhook] ALLOWED_HOST_LIST does not
    # allow (delivery checks again, at connect time).
    netguard.check_webhook_url(value, allow_unresolved=True)
    return value


def _is_system(scope: Scope, config: dict[str, str]) -> bool:
    """An admin hook's ``config.is_system_webhook`` (Go's ParseBool)."""
    value = config.get("is_system_webhook", "")
    if scope.kind != "system" or value == "":
        return False
    if value in ("1", "t", "T", "true", "TRUE", "True"):
        return True
    if value in ("0", "f", "F", "false", "FALSE", "False"):
        return False
    raise InvalidInput("Invalid is_system_webhook value")


def _content_type(value: str) -> str:
    if value not in CONTENT_TYPES:
        raise InvalidInput("Invalid content type")
    return value


def _slack_meta(config: dict[str, str]) -> str:
    channel = config["channel"].strip()
    if not _SLACK_CHANNEL.match(channel):
        raise BadInput("Invalid slack channel name")
    meta = {k: config.get(k, "") for k in SLACK_KEYS}
    meta["channel"] = channel
    return json.dumps(meta)


# --- writing -------------------------------------------------------------------------

def _changed(actor: Account, scope: Scope, hook: Hook, action: str) -> events.HookChanged:
    return events.HookChanged(actor_id=int(actor.id), actor=events.snapshot(actor),
                              owner_kind=scope.kind, owner_id=scope.owner_id,
                              hook_id=int(hook.id), action=action, hook=events.snapshot(hook))


def create_hook(actor: Account, scope: Scope, option: CreateHookOption) -> Hook:
    """repoCreateHook / orgCreateHook / adminCreateHook.  Checks run in Forgejo's order
    (binding, then checkCreateHookOption, then the slack channel)."""
    hook_type = option.type
    if not hook_type:
        raise InvalidInput("[Type]: Required")
    config = option.config
    if not config:
        raise InvalidInput("[Config]: Required")
    names = list(option.events or [])
    branch_filter = _branch_filter(option.branch_filter)
    authorization = _authorization_header(option.authorization_header)
    active = bool(option.active)
    if hook_type not in HOOK_TYPES:
        raise InvalidInput(f"Invalid hook type: {hook_type}")
    for name in ("url", "content_type"):
        if name not in config:
            raise InvalidInput(f"Missing config option: {name}")
    content_type = _content_type(config["content_type"])
    url = _url(config["url"])
    flags = _flags(names)
    is_system = _is_system(scope, config)
    extra = "{}"
    if hook_type == "slack":
        if "channel" not in config:
            raise InvalidInput("Missing config option: channel")
        extra = _slack_meta(config)
    hook_id = ids.next_id("hook")
    created = clock.seconds()
    hook = store.new(scope.kind, scope.owner_id, hook_id, hook_type=hook_type, url=url,
                     content_type=content_type, secret=config.get("secret", ""),
                     http_method="POST",   # the API always makes POST hooks
                     events=flags, push_only=False, choose_events=True,
                     branch_filter=branch_filter, authorization_header=authorization,
                     config=extra, active=active, created=created, updated=created,
                     is_system=is_system)
    with unit_of_work.writing() as uow:
        store.stage_create(hook)
        uow.raise_event(_changed(actor, scope, hook, "created"))
    return hook


def edit_hook(actor: Account, scope: Scope, hook_id: int, option: EditHookOption) -> Hook:
    """repoEditHook / orgEditHook / adminEditHook."""
    hook = get_hook(scope, hook_id)
    config = option.config or {}
    names = list(option.events or [])
    branch_filter = _branch_filter(option.branch_filter)
    authorization = _authorization_header(option.authorization_header)
    active = option.active
    # Everything is checked before the (request-cached) item changes.
    url = _url(config["url"]) if "url" in config else hook.url
    content_type = (_content_type(config["content_type"]) if "content_type" in config
                    else hook.content_type)
    extra = (_slack_meta(config) if hook.hook_type == "slack" and "channel" in config
             else hook.config)
    flags = _flags(names)
    hook.url, hook.content_type, hook.config = url, content_type, extra
    hook.events, hook.push_only, hook.choose_events = flags, False, True
    hook.branch_filter = branch_filter
    hook.authorization_header = authorization
    if isinstance(active, bool):      # left out or null: unchanged
        hook.active = active
    hook.updated = clock.seconds()
    _write_hook(actor, scope, hook, "edited", store.stage_save)
    return hook


def delete_hook(actor: Account, scope: Scope, hook_id: int) -> None:
    _write_hook(actor, scope, get_hook(scope, hook_id), "deleted", store.stage_delete)


def _write_hook(actor: Account, scope: Scope, hook: Hook, action: str,
                stage: Callable[[Hook], None]) -> None:
    """Edit or delete a stored hook with its event; 404 if it was deleted meanwhile."""
    try:
        with unit_of_work.writing() as uow:
            stage(hook)
            uow.raise_event(_changed(actor, scope, hook, action))
    except ConditionFailed as failed:
        if failed.label != store.HOOK:
            raise
        # The cached copy (perhaps changed by the caller) must not be served again.
        unit_of_work.forget(store.hook_key(scope.kind, scope.owner_id, int(hook.id)))
        raise NotFoundError(f"webhook does not exist [id: {hook.id}]") from None
