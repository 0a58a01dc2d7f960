"""New migration in the browser, at Forgejo's URLs: ``/repo/migrate`` lists the services
a repository can come from (Git, GitHub, Gitea, GitLab, Gogs, Forgejo), each opening
its form at ``/repo/migrate?service_type=N`` (Forgejo's ``GitServiceType`` numbers),
which posts to ``/repo/migrate``; and a project migration's Retry and Delete buttons on
its migrating page (``/{owner}/{repo}/settings/migrate/retry`` and ``…/cancel``, as
Forgejo's).

The form posts what the API's MigrateRepoOptions carries (clone address, username,
password or token, owner, name, description, private; a mirror for plain git; the
items: wiki, labels, milestones, issues, pull requests, releases, Git LFS) and does what
``repoMigrate`` does with it: a project migration (a project service and any item
beyond git) is checked and run by ``migrations.start_migration`` for its first turn in
the request (``[migrations] INLINE_SECONDS``), the rest as queued work; anything else is
the synchronous git migration ``repo_admin.migrate_repo``.  Either way the answer is
``/{owner}/{repo}``: the new repository, or while a project migration goes on its
migrating page (``lifecycle_view``).  A project migration that failed for good in the
request left nothing behind and is shown on the form, as the API answers it.  Every check is the API's (the network guard on the address, the owner's
permission, the name, the quota), made before anything is written; a refusal is shown
beside its field with the typed values kept (the password and token are not sent back).

Retry and Delete call ``migrations.retry_migration`` and ``discard_migration``, the
services behind ``POST`` and ``DELETE /repos/{owner}/{repo}/migration``: the task's
doer and whoever may create repositories in its owner; everyone else gets the 404 page.
"""
from __future__ import annotations

from chalicelib import errors, migrations, repo_admin
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.repos import caller
from chalicelib.web.actions_forms import checked, fixable_status, posted
from chalicelib.web.settings_common import edge_option, shown_error
from chalicelib.web.view import Web, page, path_url, redirect, render

TEMPLATE = "lifecycle/migrate.html"
# Forgejo's GitServiceType numbers (modules/structs/repo.go) of the services Nimbus
# reads, in the order its choice page lists them: (number, service, label).
SERVICES = ((1, "git", "Git"), (2, "github", "GitHub"), (3, "gitea", "Gitea"),
            (4, "gitlab", "GitLab"), (5, "gogs", "Gogs"), (9, "forgejo", "Forgejo"))
BY_NUMBER = {str(number): (service, label) for number, service, label in SERVICES}
BY_SERVICE = {service: (str(number), label) for number, service, label in SERVICES}
ITEMS = (("wiki", "Wiki"), ("labels", "Labels"), ("milestones", "Milestones"),
         ("issues", "Issues"), ("pull_requests", "Pull requests"), ("releases", "Releases"),
         ("lfs", "Git LFS files"))
TEXTS = ("clone_addr", "auth_username", "repo_owner", "repo_name", "description")
# Words of the service's refusals -> the field they are about (checked in this order);
# any other refusal of the input is about the address (the network guard, the remote).
FIELDS = {"authentication": "auth_token", "user does not exist": "repo_owner",
          "organization": "repo_owner", "description": "description", "[name]": "repo_name",
          "same name": "repo_name", "name is reserved": "repo_name",
          "name pattern": "repo_name", "interval": "mirror"}


def _service(raw: str) -> tuple[str, str] | None:
    """(service, label) of a ``service_type`` number, or None."""
    return BY_NUMBER.get((raw or "").strip())


def _show(req: ApiRequest, web: Web, service: str, values: dict, *,
          error: errors.ServiceError | None = None) -> ApiResponse:
    status, field_errors, message = shown_error(error, FIELDS)
    if message and status != 413:
        field_errors, message = {"clone_addr": message}, ""
    number, label = BY_SERVICE[service]
    return render(web, TEMPLATE, status=status, form_csrf=web.csrf,
                  title=f"New migration from {label}", service=service, service_label=label,
                  service_number=number, values=values, field_errors=field_errors,
                  error=message, items=ITEMS if service != "git" else ITEMS[-1:],
                  project=service in migrations.PROJECT_SERVICES)


@page("GET", "/repo/migrate", "webRepoMigrateForm", signed_in=True)
def migrate_form(req: ApiRequest, web: Web) -> ApiResponse:
    """The choice of service, or with ``service_type`` that service's form."""
    chosen = _service(req.arg("service_type") or "")
    if chosen is None:
        return render(web, "lifecycle/migrate_choose.html", title="New migration",
                      services=SERVICES)
    service = chosen[0]
    values = {**{name: "" for name in TEXTS}, "repo_owner": web.user.login,
              "private": False, "mirror": False,
              **{name: service != "git" and name != "lfs" for name, _ in ITEMS}}
    return _show(req, web, service, values)


def _typed(form: dict, service: str) -> dict:
    values = {name: form.get(name, "").strip() for name in TEXTS}
    values["description"] = form.get("description", "")
    values.update(private=checked(form, "private"),
                  mirror=service == "git" and checked(form, "mirror"))
    values.update({name: checked(form, name) for name, _ in ITEMS})
    return values


def _refusal(err: errors.ServiceError) -> errors.ServiceError | None:
    """``err`` as the form shows it, or None when it is not the form's to show: an owner
    the doer may not create in is about the owner field (the API's 403)."""
    if isinstance(err, errors.PermissionDenied) and "organization" in str(err):
        return err
    return err if fixable_status(err) is not None else None


@page("POST", "/repo/migrate", "webRepoMigrate", signed_in=True)
def migrate(req: ApiRequest, web: Web) -> ApiResponse:
    form = posted(req)
    chosen = BY_SERVICE.get(form.get("service", "").strip().lower())
    if chosen is None:
        raise errors.NotFoundError("unknown migration service")
    service = form["service"].strip().lower()
    values = _typed(form, service)
    body = {"clone_addr": values["clone_addr"], "repo_name": values["repo_name"],
            "repo_owner": values["repo_owner"] or web.user.login,
            "description": values["description"], "private": values["private"],
            "service": service, "mirror": values["mirror"],
            **{name: values[name] for name, _ in ITEMS}}
    for secret in ("auth_username", "auth_password", "auth_token"):
        if form.get(secret):
            body[secret] = form[secret]
    try:
        option = edge_option(repo_admin.MigrateRepoOptions, body)
        if migrations.wanted_parts(option):
            view = migrations.start_migration(caller(req), option)
        else:
            view = repo_admin.migrate_repo(caller(req), option)
    except errors.ServiceError as err:
        shown = _refusal(err)
        if shown is None:
            raise
        return _show(req, web, service, values, error=shown)
    # A project migration's address is its migrating page until the last step is done.
    return redirect(path_url(view.owner.login, view.repo.name))


@page("POST", "/{owner}/{repo}/settings/migrate/retry", "webRepoMigrationRetry",
      signed_in=True)
def retry(req: ApiRequest, web: Web) -> ApiResponse:
    owner, name = req.params["owner"], req.params["repo"]
    migrations.retry_migration(caller(req), owner, name)
    return redirect(path_url(owner, name))


@page("POST", "/{owner}/{repo}/settings/migrate/cancel", "webRepoMigrationDelete",
      signed_in=True)
def delete(req: ApiRequest, web: Web) -> ApiResponse:
    owner, name = req.params["owner"], req.params["repo"]
    migrations.discard_migration(caller(req), owner, name)
    return redirect(path_url(owner))
