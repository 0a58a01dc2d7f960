"""A repository's webhooks in the browser, for its admins (Forgejo's addresses):

    /{owner}/{repo}/settings/hooks                      the hooks
    /{owner}/{repo}/settings/hooks/new?type=forgejo     the form for a new one (POST: create)
    /{owner}/{repo}/settings/hooks/{id}                 edit, with its recent deliveries
    /{owner}/{repo}/settings/hooks/{id}/delete          POST
    /{owner}/{repo}/settings/hooks/{id}/test            POST: a test delivery
    /{owner}/{repo}/settings/hooks/{id}/replay/{delivery}   POST: redeliver

Each calls the service the API's route calls (repoListHooks, repoCreateHook,
repoEditHook, repoDeleteHook, repoTestHook, repoListHookDeliveries,
repoRedeliverHookDelivery) with the API's option records built by the API's
``hook_option`` after the edge's text checks, so the URL rules and the network guard
(``[webhook] ALLOWED_HOST_LIST``) are the API's; a refusal is shown beside the field
it is about.  The form offers Forgejo's and Gitea's hook types, whose bodies are the
same.  As in the API, an edit keeps the secret (it cannot be read back or changed).
"""
from __future__ import annotations

import json

from chalicelib import errors, webhooks
from chalicelib.http import formats, input_rules
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.web.actions_forms import checked, fixable_status, posted
from chalicelib.web.settings_common import admin_view, settings_url, show, shown_error
from chalicelib.web.view import Web, page, redirect

LIST = "settings/hooks.html"
FORM = "settings/hook.html"
HOOK_TYPES = (("forgejo", "Forgejo"), ("gitea", "Gitea"))
CONTENT_TYPES = (("json", "application/json"), ("form", "application/x-www-form-urlencoded"))
# The events a hook may choose, as Forgejo's form groups them: (subscription, label).
EVENT_CHOICES = (
    ("create", "Create: a branch or tag is created"),
    ("delete", "Delete: a branch or tag is deleted"),
    ("fork", "Fork"), ("push", "Push"), ("repository", "Repository: created or deleted"),
    ("release", "Release"), ("wiki", "Wiki"),
    ("issues", "Issues: opened, closed, reopened, edited"),
    ("issue_assign", "Issue assigned"), ("issue_label", "Issue labeled"),
    ("issue_milestone", "Issue milestoned"), ("issue_comment", "Issue comment"),
    ("pull_request", "Pull request: opened, closed, reopened, edited"),
    ("pull_request_assign", "Pull request assigned"),
    ("pull_request_label", "Pull request labeled"),
    ("pull_request_milestone", "Pull request milestoned"),
    ("pull_request_comment", "Pull request comment"),
    ("pull_request_review", "Pull request reviewed"),
    ("pull_request_review_request", "Review requested"),
    ("pull_request_sync", "Pull request synchronized"),
)
EVENT_NAMES = tuple(name for name, _ in EVENT_CHOICES)
MODES = ("push", "all", "choose")
RECENT_DELIVERIES = 20
# Words of the service's messages -> the form field they are about (first match wins).
HOOK_FIELDS = {"branchfilter": "branch_filter", "authorizationheader": "authorization_header",
               "content type": "content_type", "contenttype": "content_type",
               "content_type": "content_type", "secret": "secret", "url": "url",
               "allowed_host_list": "url", "host": "url", "address": "url",
               "event": "events", "type": "type"}


def _hook_id(req: ApiRequest) -> int:
    raw = req.params["id"]
    if not raw.isdigit():
        raise errors.NotFoundError(f"webhook does not exist [id: {raw}]")
    return int(raw)


def _chosen(events: list[str]) -> list[str]:
    """The form's event boxes a hook's event types tick (a review's verdicts are one box)."""
    found = set(events)
    if found & {"pull_request_review_approved", "pull_request_review_rejected"}:
        found.add("pull_request_review")
    return [name for name in EVENT_NAMES if name in found]


def _values(record: dict) -> dict:
    """The form's values from a Hook record."""
    chosen = _chosen(record["events"])
    mode = ("push" if chosen == ["push"] else "all" if len(chosen) == len(EVENT_NAMES)
            else "choose")
    return {"type": record["type"], "url": record["url"], "content_type": record["content_type"],
            "secret": "", "mode": mode, "events": chosen, "branch_filter": record["branch_filter"],
            "authorization_header": record["authorization_header"], "active": record["active"]}


def _typed(form: dict, events: list[str], hook_type: str = "") -> dict:
    mode = form.get("mode", "push")
    return {"type": hook_type or form.get("type", "forgejo"), "url": form.get("url", "").strip(),
            "content_type": form.get("content_type", "json"), "secret": form.get("secret", ""),
            "mode": mode if mode in MODES else "push", "events": events,
            "branch_filter": form.get("branch_filter", "").strip(),
            "authorization_header": form.get("authorization_header", "").strip(),
            "active": checked(form, "active")}


def _body(values: dict, *, creating: bool) -> dict:
    """The API's JSON body for the form's values."""
    events = {"push": ["push"], "all": list(EVENT_NAMES)}.get(values["mode"], values["events"])
    config = {"url": values["url"], "content_type": values["content_type"]}
    body = {"config": config, "events": events, "branch_filter": values["branch_filter"],
            "authorization_header": values["authorization_header"], "active": values["active"]}
    if creating:
        config["secret"] = values["secret"]
        body["type"] = values["type"]
    return body


def _option(cls, body: dict):
    input_rules.check_body(body, cls.__name__)
    return webhooks.hook_option(cls, body)


def _time(unix) -> str:
    return formats.rfc3339(unix) if unix else ""


def _pretty(text: str) -> str:
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        return text


def _delivery(d) -> dict:
    """What the hook page shows of a delivery: its state and its latest attempt."""
    attempts = json.loads(d.attempts or "[]")
    last = attempts[-1] if attempts else {}
    return {"id": int(d.id), "guid": d.guid, "event": d.event_type or d.event,
            "state": d.state, "status": d.status or "pending",
            "status_code": int(d.status_code or 0), "redelivery": bool(d.redelivery),
            "at": _time(d.delivered_at or d.created), "attempts": int(d.attempt_count or 0),
            "request_headers": last.get("request_headers", {}), "payload": _pretty(d.payload_text),
            "response_headers": last.get("response_headers", {}),
            "response_body": last.get("response_body") or last.get("error") or ""}


def _form_page(req: ApiRequest, web: Web, view, values: dict, *, hook: dict | None = None,
               error: errors.ServiceError | None = None) -> ApiResponse:
    status, field_errors, message = shown_error(error, HOOK_FIELDS)
    deliveries = []
    if hook is not None:
        found = webhooks.list_deliveries(webhooks.repo_hook_scope(view), hook["id"],
                                         limit=RECENT_DELIVERIES, cursor=None)
        deliveries = [_delivery(d) for d in found.deliveries]
    action = settings_url(view, "hooks", str(hook["id"]) if hook else "new")
    return show(req, web, view, FORM, "hooks", status=status,
                title="Edit webhook" if hook else "Add webhook", hook=hook, values=values,
                action=action, deliveries=deliveries, hook_types=HOOK_TYPES,
                content_types=CONTENT_TYPES, event_choices=EVENT_CHOICES,
                field_errors=field_errors, error=message)


@page("GET", "/{owner}/{repo}/settings/hooks", "webRepoSettingsHooks", in_repo=True)
def hooks(req: ApiRequest, web: Web) -> ApiResponse:
    view = admin_view(req)
    found = webhooks.list_hooks(webhooks.repo_hook_scope(view))
    return show(req, web, view, LIST, "hooks", title="Webhooks",
                hooks=[webhooks.hook_record(h) for h in found],
                hooks_url=settings_url(view, "hooks"), hook_types=HOOK_TYPES)


@page("GET", "/{owner}/{repo}/settings/hooks/new", "webRepoSettingsHookNew", in_repo=True)
def new_form(req: ApiRequest, web: Web) -> ApiResponse:
    view = admin_view(req)
    hook_type = req.arg("type") if req.arg("type") in dict(HOOK_TYPES) else "forgejo"
    values = _typed({"type": hook_type, "active": "on"}, ["push"])
    return _form_page(req, web, view, values)


@page("POST", "/{owner}/{repo}/settings/hooks/new", "webRepoSettingsHookCreate", in_repo=True)
def create(req: ApiRequest, web: Web) -> ApiResponse:
    view = admin_view(req)
    form = posted(req)
    values = _typed(form, req.form().get("events", []))
    try:
        if values["type"] not in dict(HOOK_TYPES):
            raise errors.InvalidInput(f"Invalid hook type: {values['type']}")
        option = _option(webhooks.CreateHookOption, _body(values, creating=True))
        made = webhooks.create_hook(req.actor, webhooks.repo_hook_scope(view), option)
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return _form_page(req, web, view, values, error=err)
    return redirect(settings_url(view, "hooks", str(int(made.id))))


@page("GET", "/{owner}/{repo}/settings/hooks/{id}", "webRepoSettingsHook", in_repo=True)
def edit_form(req: ApiRequest, web: Web) -> ApiResponse:
    view = admin_view(req)
    hook = webhooks.hook_record(webhooks.get_hook(webhooks.repo_hook_scope(view), _hook_id(req)))
    return _form_page(req, web, view, _values(hook), hook=hook)


@page("POST", "/{owner}/{repo}/settings/hooks/{id}", "webRepoSettingsHookEdit", in_repo=True)
def edit(req: ApiRequest, web: Web) -> ApiResponse:
    view = admin_view(req)
    scope = webhooks.repo_hook_scope(view)
    hook = webhooks.hook_record(webhooks.get_hook(scope, _hook_id(req)))
    values = _typed(posted(req), req.form().get("events", []), hook["type"])
    try:
        option = _option(webhooks.EditHookOption, _body(values, creating=False))
        webhooks.edit_hook(req.actor, scope, hook["id"], option)
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return _form_page(req, web, view, values, hook=hook, error=err)
    return redirect(settings_url(view, "hooks", str(hook["id"])))


@page("POST", "/{owner}/{repo}/settings/hooks/{id}/delete", "webRepoSettingsHookDelete",
      in_repo=True)
def delete(req: ApiRequest, web: Web) -> ApiResponse:
    view = admin_view(req)
    webhooks.delete_hook(req.actor, webhooks.repo_hook_scope(view), _hook_id(req))
    return redirect(settings_url(view, "hooks"))


@page("POST", "/{owner}/{repo}/settings/hooks/{id}/test", "webRepoSettingsHookTest",
      in_repo=True)
def test(req: ApiRequest, web: Web) -> ApiResponse:
    """A push of the default branch's head commit, queued like any delivery (repoTestHook);
    an empty repository has nothing to send: the API's 404."""
    view = admin_view(req)
    hook_id = _hook_id(req)
    webhooks.send_test_push(webhooks.repo_hook_scope(view), view, req.actor, hook_id, None)
    return redirect(settings_url(view, "hooks", str(hook_id)) + "#deliveries")


@page("POST", "/{owner}/{repo}/settings/hooks/{id}/replay/{delivery}",
      "webRepoSettingsHookRedeliver", in_repo=True)
def redeliver(req: ApiRequest, web: Web) -> ApiResponse:
    view = admin_view(req)
    hook_id, raw = _hook_id(req), req.params["delivery"]
    if not raw.isdigit():
        raise errors.NotFoundError(f"webhook delivery does not exist [id: {raw}]")
    webhooks.redeliver(webhooks.repo_hook_scope(view), hook_id, int(raw))
    return redirect(settings_url(view, "hooks", str(hook_id)) + "#deliveries")
