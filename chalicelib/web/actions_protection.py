"""Branch and tag protection in the browser, for repository admins:
``/{owner}/{repo}/settings/branches`` lists the branch rules and the tag rules with a
form for a new one of each, and the forms post to Forgejo's addresses for them
(``/settings/branches``, ``/settings/branches/delete``, ``/settings/tags``,
``/settings/tags/delete``).

Each calls ``protection.service`` with the API's option records
(repoListBranchProtection, repoCreateBranchProtection, repoDeleteBranchProtection,
repoListTagProtection, repoCreateTagProtection, repoDeleteTagProtection), so the
checks are the API's.  Unlike the API, which answers 403 to a reader, these pages are
the 404 page to everyone but the repository's admins: a settings page is a private
thing.  A refusal an admin can fix (an unknown user, a rule that exists already, a bad
pattern) is shown on the page with the service's message.
"""
from __future__ import annotations

import re

from chalicelib import errors, protection
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.protection import CreateBranchProtectionOption, CreateTagProtectionOption
from chalicelib.repos import caller
from chalicelib.web.actions_forms import checked, fixable_status, posted, posted_id, repo_values
from chalicelib.web.settings_common import admin_view, settings_url
from chalicelib.web.view import Web, page, redirect, render

TEMPLATE = "forms/protection.html"
PUSH_MODES = ("none", "all", "whitelist")
MAX_LINES = 100      # status check contexts a form may list
FLAGS = ("enable_status_check", "dismiss_stale_approvals", "block_on_rejected_reviews",
         "block_on_outdated_branch", "require_signed_commits", "apply_to_admins")


def _names(text: str) -> list[str]:
    return [n for n in re.split(r"[\s,]+", text or "") if n]


def _settings_path(view) -> str:
    return settings_url(view, "branches")


def _page(req: ApiRequest, web: Web, view, *, error: errors.ServiceError | None = None,
          branch_form: dict | None = None, tag_form: dict | None = None) -> ApiResponse:
    who = caller(req)
    branch_rules = protection.list_branch_rules(view, who)
    tag_rules = protection.list_tag_rules(view, who)
    names = protection.names_for(view, branch_rules, tag_rules)
    status, message = 200, ""
    if error is not None:
        status = fixable_status(error) or (403 if isinstance(error, errors.PermissionDenied)
                                           else 400)
        message = getattr(error, "message", "") or str(error) or "Not allowed."
    return render(web, TEMPLATE, status=status, title="Branch and tag protection",
                  branch_rules=[protection.branch_protection_record(r, names) for r in branch_rules],
                  tag_rules=[protection.tag_protection_record(r, names) for r in tag_rules],
                  error=message, error_in="tag" if tag_form is not None else "branch",
                  branch_form=branch_form or {"push": "none", "required_approvals": "0"},
                  tag_form=tag_form or {}, push_modes=PUSH_MODES, form_csrf=web.csrf,
                  settings_url=_settings_path(view), **repo_values(req, view, "settings"))


def _refusal(err: errors.ServiceError) -> bool:
    """Whether the form shows ``err``: fixable input, or the API's 403 for a rule that
    exists already (the caller is known to be an admin here)."""
    return fixable_status(err) is not None or isinstance(err, errors.PermissionDenied)


@page("GET", "/{owner}/{repo}/settings/branches", "webRepoSettingsBranches", in_repo=True)
def settings(req: ApiRequest, web: Web) -> ApiResponse:
    return _page(req, web, admin_view(req))


def _branch_option(form: dict) -> CreateBranchProtectionOption:
    push = form.get("push", "none")
    if push not in PUSH_MODES:
        raise errors.InvalidInput(f"[Push]: must be one of {', '.join(PUSH_MODES)}")
    approvals = form.get("required_approvals", "").strip() or "0"
    if not approvals.isdigit() or len(approvals) > 4:
        raise errors.InvalidInput("[RequiredApprovals]: must be a number")
    contexts = [c.strip() for c in form.get("status_check_contexts", "").splitlines()
                if c.strip()]
    if len(contexts) > MAX_LINES:
        raise errors.InvalidInput(f"[StatusCheckContexts]: at most {MAX_LINES} contexts")
    flags = {name: checked(form, name) for name in FLAGS}
    flags["enable_status_check"] = flags["enable_status_check"] or bool(contexts)
    return CreateBranchProtectionOption(
        rule_name=form.get("rule_name", "").strip(), enable_push=push != "none",
        enable_push_whitelist=push == "whitelist",
        push_whitelist_usernames=_names(form.get("push_whitelist_usernames", ""))
        if push == "whitelist" else [],
        required_approvals=int(approvals), status_check_contexts=contexts,
        protected_file_patterns=form.get("protected_file_patterns", "").strip(), **flags)


@page("POST", "/{owner}/{repo}/settings/branches", "webRepoBranchProtectionCreate",
      in_repo=True)
def create_branch_rule(req: ApiRequest, web: Web) -> ApiResponse:
    view = admin_view(req)
    form = posted(req)
    try:
        protection.create_branch_rule(view, caller(req), _branch_option(form))
    except errors.ServiceError as err:
        if not _refusal(err):
            raise
        return _page(req, web, view, error=err, branch_form=form)
    return redirect(_settings_path(view) + "#branch-rules")


@page("POST", "/{owner}/{repo}/settings/branches/delete", "webRepoBranchProtectionDelete",
      in_repo=True)
def delete_branch_rule(req: ApiRequest, web: Web) -> ApiResponse:
    view = admin_view(req)
    protection.delete_branch_rule(view, caller(req), posted(req).get("rule_name", ""))
    return redirect(_settings_path(view) + "#branch-rules")


@page("POST", "/{owner}/{repo}/settings/tags", "webRepoTagProtectionCreate", in_repo=True)
def create_tag_rule(req: ApiRequest, web: Web) -> ApiResponse:
    view = admin_view(req)
    form = posted(req)
    try:
        protection.create_tag_rule(view, caller(req), CreateTagProtectionOption(
            name_pattern=form.get("name_pattern", ""),
            whitelist_usernames=_names(form.get("whitelist_usernames", "")),
            whitelist_teams=_names(form.get("whitelist_teams", ""))))
    except errors.ServiceError as err:
        if not _refusal(err):
            raise
        return _page(req, web, view, error=err, tag_form=form)
    return redirect(_settings_path(view) + "#tag-rules")


@page("POST", "/{owner}/{repo}/settings/tags/delete", "webRepoTagProtectionDelete",
      in_repo=True)
def delete_tag_rule(req: ApiRequest, web: Web) -> ApiResponse:
    view = admin_view(req)
    protection.delete_tag_rule(view, caller(req), posted_id(req, "tag protection does not exist"))
    return redirect(_settings_path(view) + "#tag-rules")
