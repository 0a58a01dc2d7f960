"""Pushing a repository to its push mirrors: on request (repoPushMirrorSync), after a
push (queued work: the ``push-mirrors`` consumer takes ``RepositoryPushed`` of a
repository with a mirror that syncs on commit) and on schedule (the ``mirror_sync`` job
reads the due entries only).

A sync makes the remote's branches and tags equal ours, as ``git push --mirror`` does
for them: every branch and tag is pushed with force, and a branch or tag the remote has
and we do not is deleted there (with a ``branch_filter``, only the branches it matches
are pushed and pruned; tags always are).  The connection goes through the network
guard (``remotes.git_client``: the migrations' policy, checked at connect time, pinned
address, no redirects).  Its outcome is recorded on the mirror: ``last_update`` (when it
started), ``last_error`` ("" on success; credentials masked), and the next scheduled
time (``interval`` after the start; none for interval 0).
"""
from __future__ import annotations

import fnmatch
import logging
from typing import TYPE_CHECKING

from chalicelib import aws, clock, netguard, repos
from chalicelib import events as domain_events
from chalicelib.errors import ConditionFailed
from chalicelib.repo_admin import push_mirror_store as store
from chalicelib.repo_admin import remotes, secrets
from chalicelib.repo_admin.remotes import Remote
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.repo_admin.models import PushMirror
    from chalicelib.repos import Repo

log = logging.getLogger("nimbus.push_mirrors")
HEADS, TAGS = b"refs/heads/", b"refs/tags/"
ZERO = b"0" * 40


def _in_scope(ref: bytes, patterns: list[str]) -> bool:
    if ref.startswith(TAGS):
        return True
    if not ref.startswith(HEADS):
        return False
    branch = ref[len(HEADS):].decode("utf-8", "replace")
    return not patterns or any(fnmatch.fnmatchcase(branch, p) for p in patterns)


def branch_patterns(text: str) -> list[str]:
    """A branch filter's globs (comma-separated, as Forgejo's); none: every branch."""
    return [p.strip() for p in (text or "").split(",") if p.strip()]


def wanted_refs(local: dict[bytes, bytes], remote: dict[bytes, bytes],
                patterns: list[str]) -> dict[bytes, bytes]:
    """What the remote's refs should become: ours in scope, and the remote's in-scope
    refs we do not have deleted (zeros)."""
    wanted = {ref: sha for ref, sha in local.items() if _in_scope(ref, patterns)}
    for ref in remote:
        if ref.endswith(b"^{}") or ref in wanted or not _in_scope(ref, patterns):
            continue
        wanted[ref] = ZERO
    return wanted


def push(repo: Repo, item: PushMirror) -> str:
    """Push ``repo`` to the mirror's remote; the error ("" on success), credentials
    masked and URLs without userinfo."""
    from dulwich.errors import NotGitRepository

    from chalicelib.gitstore import repo as gitrepo

    secret: tuple[str, ...] = ()
    try:
        username, password = secrets.unseal(item.credentials)
        remote = Remote(item.remote_address, username, password)
        secret = remote.secrets()
        client = remotes.git_client(remote, what="push mirroring")
        git = gitrepo.open_repo(int(repo.id), int(repo.pool_id))
        local = dict(git.get_refs())
        patterns = branch_patterns(item.branch_filter)
        result = client.send_pack("", lambda refs: wanted_refs(local, refs, patterns),
                                  generate_pack_data=git.generate_pack_data)
    except NotGitRepository:
        return "the remote is not a git repository"
    except Exception as exc:
        if aws.is_access_denied(exc):
            raise       # our role lacks a right: no remote's fault (the job fails)
        text = str(getattr(exc, "message", "") or exc) or type(exc).__name__
        return netguard.redact(text, secret)
    refused = {ref.decode("utf-8", "replace"): status
               for ref, status in (getattr(result, "ref_status", None) or {}).items() if status}
    if refused:
        return netguard.redact("; ".join(f"{ref}: {status}" for ref, status in
                                         sorted(refused.items())), secret)
    return ""


def sync_mirror(repo: Repo, item: PushMirror) -> str:
    """Push and record the outcome; the error ("" on success).  A mirror deleted, or
    synced by someone else, meanwhile keeps their record."""
    started = int(clock.now())
    error = push(repo, item)
    if error:
        log.warning("push mirror %s of repository %s failed: %s",
                    store.remote_name_of(item), repo.id, error)
    due = started + int(item.interval) if item.interval else 0
    try:
        with unit_of_work.writing():
            store.stage_synced(repo.pk, item, at=started, error=error, due=due)
    except ConditionFailed:
        pass
    item.last_update, item.last_error, item.due = started, error, due
    return error


def sync_all(repo: Repo) -> list[tuple[str, str]]:
    """Sync every push mirror of ``repo``; (remote name, error) of each."""
    return [(store.remote_name_of(item), sync_mirror(repo, item))
            for item in store.list_mirrors(int(repo.id))]


# --- after a push ---------------------------------------------------------------------

def wants_event(event: domain_events.Event) -> bool:
    """Only pushes to a repository with a mirror that syncs on commit (its snapshot
    counts them): every other push costs this consumer nothing."""
    return isinstance(event, domain_events.RepositoryPushed) and \
        int((event.repo or {}).get("push_mirrors_on_commit") or 0) > 0


def on_pushed(event: domain_events.Event) -> None:
    """Sync the mirrors that sync on commit; one whose last sync started in a later
    second than this push was raised already pushed it (a push of several refs raises
    one event per ref)."""
    assert isinstance(event, domain_events.RepositoryPushed)
    repo = repos.repo_by_id(int(event.repo_id))
    if repo is None:
        return
    for item in store.list_mirrors(int(repo.id)):
        if item.sync_on_commit and int(item.last_update or 0) <= event.occurred_at:
            sync_mirror(repo, item)


# --- on schedule ----------------------------------------------------------------------

def sync_due(now: float | None = None) -> int:
    """The scheduled job: sync every mirror whose time has passed (their entries only:
    one Query); entries of mirrors or repositories that are gone are dropped.  A call
    AWS refused fails the run once the others are done."""
    now = clock.now() if now is None else now
    entries = store.due_entries(now)
    if not entries:
        return 0
    found = {int(r.id): r for r in repos.repos_by_link(
        sorted({(e.repo_id, e.repo_pk) for e in entries}))}
    synced, denied = 0, None
    for entry in entries:
        repo = found.get(entry.repo_id)
        item = store.get_mirror(entry.repo_id, entry.remote_name) if repo else None
        if item is None or int(item.due or 0) != entry.due:
            with unit_of_work.writing():
                store.stage_unschedule(entry)
            continue
        try:
            sync_mirror(repo, item)
            synced += 1
        except Exception as exc:
            log.exception("push mirror %s of repository %s failed", entry.remote_name,
                          entry.repo_id)
            if aws.is_access_denied(exc):
                denied = denied or exc
    if denied is not None:
        raise denied
    return synced


def forget_repo(repo_id: int) -> None:
    """A deleted repository's schedule entries (its mirrors go with its partition)."""
    items = store.list_mirrors(int(repo_id))
    if items:
        with unit_of_work.writing():
            store.stage_forget_schedule(int(repo_id), items)
