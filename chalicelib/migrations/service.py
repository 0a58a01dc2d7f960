"""Project migrations (repoMigrate with a service and more than git): start, status,
retry, discard.

A migration that brings more than the git part runs as queued work
(``steps.py``), because a real project outlives API Gateway's 29 seconds.  The request
checks everything first (the form, the owner, the name, the network guard, and that the
source answers with these credentials: 4xx and nothing written), then writes the task
(``models.MigrationTask``) with ``MigrationStepDue`` in one transaction and answers 201
with the repository record it will write.

Being migrated: the repository record (and with it the name in every list, search and
read) is written by the last step, in one transaction with the task's ``done``; until
then the repository's refs, tracker and releases sit in its own partition, which no
read reaches (``GET /repos/{owner}/{repo}`` answers 404).  So a repository is never
half visible: it appears complete or not at all.  The task holds the name meanwhile
(another migration to it is refused); a repository created under that name meanwhile
makes the migration fail cleanly at its end.  Where it stands:
``GET /repos/{owner}/{repo}/migration`` (its doer and the owner's admins);
``POST`` there retries a failed one from where it stopped; ``DELETE`` discards a failed
one with everything it wrote.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from chalicelib import accounts, clock, events, repo_admin, repos
from chalicelib.errors import (
    ConditionFailed,
    ConflictError,
    InvalidInput,
    NotFoundError,
)
from chalicelib.http.options import UNSET
from chalicelib.migrations import store
from chalicelib.repos import Access, Caller, RepoView
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.migrations.models import MigrationTask

PROJECT_SERVICES = ("gitea", "forgejo", "gogs", "github", "gitlab")
PARTS = ("labels", "milestones", "issues", "pull_requests", "releases", "wiki")
NAME_TAKEN = "The repository with the same name already exists."
# The worker holds a task this long per turn (a step yields well before: steps.TURN).
LEASE_SECONDS = 180

ORDER = ("git", "wiki", "labels", "milestones", "issues", "pulls", "releases", "finish")
NEEDS = {"wiki": "wiki", "labels": "labels", "milestones": "milestones", "issues": "issues",
         "pulls": "pull_requests", "releases": "releases"}



def steps_of(task: MigrationTask) -> list[str]:
    wanted = set(json.loads(task.wanted or "[]"))
    return [s for s in ORDER if s not in NEEDS or NEEDS[s] in wanted]



# Where a migration reads its source: ``sources.open_source`` (tests put a fake here).
SourceOpener = Callable[..., object]
_opener: list[SourceOpener] = []


def open_source(service: str, clone_addr: str, *, token: str, username: str, password: str,
                pull_offset: int | None = None):
    """``pull_offset``: what a GitLab reader raised merge request numbers by in this
    migration's earlier turns (None: its first turn finds it)."""
    if _opener:
        return _opener[0](service, clone_addr, token=token, username=username,
                          password=password, pull_offset=pull_offset)
    from chalicelib.migrations import sources

    return sources.open_source(service, clone_addr, token=token, username=username,
                               password=password, pull_offset=pull_offset)


def use_source_opener(opener: SourceOpener | None) -> None:
    """Read sources through ``opener`` (None: the real readers again)."""
    _opener.clear()
    if opener is not None:
        _opener.append(opener)


def _flag(value) -> bool:
    return value is not UNSET and bool(value)


def wanted_parts(option) -> list[str]:
    """The parts beyond git the form asks for, when its service can give them (a pull
    mirror takes none, as in Forgejo)."""
    service = str(option.service or "git").strip().lower() \
        if isinstance(option.service, str) else "git"
    if service not in PROJECT_SERVICES or _flag(option.mirror):
        return []
    return [part for part in PARTS if _flag(getattr(option, part))]


def start(caller: Caller, option) -> RepoView:
    """repoMigrate of a project, checked, recorded and queued (its first turn a queued
    one: ``inline.migrate`` runs it in the request instead)."""
    return record(caller, option, queue=True)[0]


def record(caller: Caller, option, *, queue: bool) -> tuple[RepoView, MigrationTask]:
    """Check the form, the owner, the name, the network guard and the source (4xx and
    nothing written), then write the task, with its first ``MigrationStepDue`` when
    ``queue``: the view of the repository it will write, and the task as written."""
    parts = wanted_parts(option)
    planned = repo_admin.plan_migration(caller, option)
    owner, repo, remote = planned.owner, planned.repo, planned.remote
    existing = store.get(owner.login, repo.name)
    if existing is not None and existing.status != "done":
        raise ConflictError(NAME_TAKEN)
    token = option.auth_token or "" if option.auth_token is not UNSET else ""
    username = option.auth_username or "" if option.auth_username is not UNSET else ""
    password = option.auth_password or "" if option.auth_password is not UNSET else ""
    source = open_source(str(option.service).strip().lower(), remote.url, token=token,
                         username=username, password=password)
    source.repository()     # the source answers, with these credentials (4xx otherwise)
    now = clock.seconds()
    task = store.new_task(
        owner.login, repo.name, repo_id=int(repo.id), pool_id=int(repo.pool_id),
        owner_id=int(owner.id), doer_id=int(caller.user.id), description=repo.description,
        private=bool(repo.private), created=int(repo.created),
        service=str(option.service).strip().lower(), clone_addr=remote.url,
        lfs_url=planned.lfs_url, wanted=json.dumps(parts),
        credentials=repo_admin.seal_migration_credentials(
            username, json.dumps({"p": password, "t": token})) if token or password or username
        else "", status="queued", step="git", started=now, updated=now,
        lease_until=now + LEASE_SECONDS, version=1)
    try:
        with unit_of_work.writing() as uow:
            store.stage_create(task, replacing=existing)
            if queue:
                uow.raise_event(step_event(task))
    except ConditionFailed:
        raise ConflictError(NAME_TAKEN) from None
    return RepoView(repo, owner, Access.OWNER), task


def step_event(task: MigrationTask) -> events.Event:
    return events.MigrationStepDue(actor_id=int(task.doer_id), repo_id=int(task.repo_id),
                                   owner_login=owner_login_of(task),
                                   repo_name=task.repo_name, version=int(task.version))


def owner_login_of(task: MigrationTask) -> str:
    return str(task.pk).split("#", 1)[1].split("/", 1)[0]


def credentials(task: MigrationTask) -> tuple[str, str, str]:
    """(username, password, token) as the form gave them."""
    if not task.credentials:
        return "", "", ""
    try:
        username, packed = repo_admin.unseal_migration_credentials(task.credentials)
    except InvalidInput:
        raise InvalidInput("the migration's credentials cannot be decrypted any more: "
                           "delete it and migrate again") from None
    secret = json.loads(packed or "{}")
    return username, str(secret.get("p", "")), str(secret.get("t", ""))


# Status, retry, discard ----------------------------------------------------------------------

def task_for(caller: Caller, owner_name: str, repo_name: str) -> MigrationTask:
    """The task, for its doer and whoever may create repositories in its owner (404 to
    everyone else, as for a repository they cannot see)."""
    task = store.get(owner_name, repo_name)
    user = caller.user
    if task is None or user is None:
        raise NotFoundError("no migration of this repository")
    if int(user.id) != int(task.doer_id) and not user.is_admin:
        owner = accounts.account_by_id(int(task.owner_id))
        if owner is None or not repos.can_create_in(user, owner):
            raise NotFoundError("no migration of this repository")
    return task


def status_record(task: MigrationTask) -> dict:
    from chalicelib.http.formats import rfc3339

    return {
        "repository": f"{owner_login_of(task)}/{task.repo_name}",
        "repo_id": int(task.repo_id),
        "service": task.service,
        "clone_addr": task.clone_addr,
        "status": task.status,
        "step": task.step if task.status != "done" else "",
        "steps": steps_of(task),
        "counts": store.loads(task.counts),
        "error": task.error or "",
        "attempts": int(task.attempts or 0),
        "started_at": rfc3339(int(task.started or 0)),
        "updated_at": rfc3339(int(task.updated or 0)),
        "finished_at": rfc3339(int(task.finished)) if task.finished else None,
    }


def retry(caller: Caller, owner_name: str, repo_name: str) -> MigrationTask:
    """A failed migration runs again from where it stopped."""
    task = task_for(caller, owner_name, repo_name)
    if task.status != "failed":
        raise ConflictError(f"the migration is {task.status}, not failed")
    now = clock.seconds()
    try:
        with unit_of_work.writing() as uow:
            task = store.stage_change(task, status="queued", error="", attempts=0,
                                      updated=now, lease_until=now + LEASE_SECONDS)
            uow.raise_event(step_event(task))
    except ConditionFailed:
        raise ConflictError("the migration changed meanwhile; try again") from None
    return task


def discard(caller: Caller, owner_name: str, repo_name: str) -> None:
    """A failed migration's repository data, git side and task, removed."""
    task = task_for(caller, owner_name, repo_name)
    if task.status != "failed":
        raise ConflictError(f"the migration is {task.status}; only a failed one is deleted")
    discard_written(task)
    try:
        with unit_of_work.writing():
            store.stage_delete(task)
    except ConditionFailed:
        raise ConflictError("the migration changed meanwhile; try again") from None


def discard_written(task: MigrationTask) -> None:
    """What an unfinished migration wrote, step by step: git (refs, branch records,
    ``refs/pull/*/head``, the pool's packs and the quota they were charged, the Git LFS
    uploads, never recorded before the repository exists), wiki (its refs and its own
    pool), tracker, pull requests, reviews and releases (all in the ``R#<id>``
    partition), the release attachments (download links, bytes, the owner's usage).
    Refused once the repository record is written (a migration failed while recording
    its Git LFS objects: the repository is there, a retry finishes it)."""
    from chalicelib import releases, wiki

    if store.loads(task.state).get("repo_written"):
        raise ConflictError("the repository was written; retry the migration to finish it")
    repo = unwritten_repo(task)
    repo.quota_size = int(store.loads(task.state).get("quota_size", 0))
    repo_admin.discard_import(repo)
    wiki.delete_wiki(int(task.repo_id))
    releases.forget_repo_assets(int(task.repo_id), int(task.owner_id))
    with unit_of_work.writing():
        repos.stage_purge_partition(int(task.repo_id))


def unwritten_repo(task: MigrationTask, owner=None):
    """The repository record the migration will write (not read from the table)."""
    owner = owner or accounts.account_by_id(int(task.owner_id))
    if owner is None:
        raise NotFoundError("the owner does not exist")
    state = store.loads(task.state)
    from chalicelib.settings import get_settings

    repo = repos.new_repo_record(
        int(task.repo_id), owner, task.repo_name, created=int(task.created),
        description=task.description or "", private=bool(task.private),
        default_branch=state.get("default_branch") or
        get_settings().repository.DEFAULT_BRANCH)
    repo.pool_id = int(task.pool_id)
    repo.original_url = task.clone_addr
    return repo
