"""Migrating a repository from another git server, once or as a pull mirror.

Outbound connections go only where ``netguard`` allows, to the address it checked
(no second DNS lookup, so a name cannot be re-pointed at an internal address between
check and connect), and never follow redirects.

A migration fetches first, into the new repository's own object pool, and then writes
the repository with its refs, branch records and mirror schedule in one unit of work
with ``RepositoryMigrated`` (refs beyond one transaction go first, in chunks; the
repository record comes last), so the repository appears complete or not at all, and a
failure discards what was fetched.  A mirror sync moves refs like a push (``pushes``:
push events per ref) and ends with the schedule and ``RepositoryMirrorSynced`` in the
same write as its last refs.

With ``lfs`` (and ``[server] LFS_START_SERVER``), the Git LFS objects the fetched
pointers name are downloaded from the remote's LFS server (``lfs_fetch``).  A
migration does it before writing the repository (the bytes go under ``lfs/incoming/``;
they are recorded, and the repository's needs with them, once the repository and its
pool exist), and fails as Forgejo's does when an object cannot be stored; a pull mirror
keeps ``lfs`` and ``lfs_endpoint`` and fetches after each sync's refs moved, where a
failure is logged and never undoes the git part.  Bounds: everything runs within the
function's 15 minutes; each object is at most ``LFS_MAX_FILE_SIZE`` (and S3's 5 GiB
single PUT), streamed through one temporary file at a time; a read stalled for
``remotes.READ_SECONDS`` fails the fetch.
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib import accounts, aws, clock, contents, events, netguard, quota, repos
from chalicelib import lfs as git_lfs
from chalicelib.errors import (
    BadInput,
    ConditionFailed,
    ConflictError,
    InvalidInput,
    PermissionDenied,
)
from chalicelib.gitstore import refdb
from chalicelib.http.options import UNSET
from chalicelib.repo_admin import lfs_fetch, mirror_store, remotes, secrets
from chalicelib.repo_admin import lifecycle as repo_lifecycle
from chalicelib.repo_admin.options import MigrateRepoOptions
from chalicelib.repo_admin.remotes import Remote
from chalicelib.repos import Access, Caller, RepoView, can_create_in
from chalicelib.settings import get_settings
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.repos import Repo

log = logging.getLogger("nimbus.migrations")
DEFAULT_INTERVAL = 8 * 3600
MIN_INTERVAL = 10 * 60
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(h|m|s|ms|us|µs|ns)")
_UNITS = {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
# A ref transaction holds at most 100 refs; larger mirrors are applied in chunks.
REF_CHUNK = refdb.MAX_REF_UPDATES
WANTED_PREFIXES = (b"refs/heads/", b"refs/tags/")
PULL_PREFIX = b"refs/pull/"     # a project migration's pull request heads


def parse_interval(text: str | None) -> int:
    """A Go duration ("8h", "1h30m", "10m0s"); empty means the default, "0" disables."""
    text = (text or "").strip()
    if not text:
        return DEFAULT_INTERVAL
    if text == "0":
        return 0
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise InvalidInput(f"[MirrorInterval]: invalid duration {text!r}")
    seconds = int(sum(float(n) * _UNITS[u] for n, u in parts))
    if seconds and seconds < MIN_INTERVAL:
        raise InvalidInput(f"interval {text} is set below Minimum Interval of 10m0s")
    return seconds


def fetch_refs(remote: Remote, git, prefixes: tuple[bytes, ...] = WANTED_PREFIXES):
    """Fetch every branch and tag of the remote (every ref under ``prefixes``) into
    ``git``'s object store."""
    from dulwich.errors import GitProtocolError, HangupException, NotGitRepository

    client = remotes.git_client(remote)

    def wants(refs, depth=None):
        have = git.object_store
        return [sha for ref, sha in refs.items()
                if ref.startswith(prefixes) and not ref.endswith(b"^{}")
                and sha not in have]

    try:
        return client.fetch("", git, determine_wants=wants, protocol_version=0)
    except NotGitRepository:
        raise InvalidInput("Migration failed: the remote is not a git repository.") from None
    except (GitProtocolError, HangupException, OSError) as exc:
        text = netguard.redact(str(exc), remote.secrets())
        if "401" in text or "Authentication" in text or "credentials" in text:
            raise InvalidInput(f"Authentication failed: {text}.") from None
        raise InvalidInput(f"Migration failed: {text}.") from None


def remote_changes(git, result, prefixes: tuple[bytes, ...] = WANTED_PREFIXES
                    ) -> tuple[list[contents.Update], str | None]:
    """The ref changes that make our branches and tags equal the remote's (pruning what
    it deleted), and the remote's default branch (None if unknown)."""
    remote = {ref: sha for ref, sha in result.refs.items()
              if ref.startswith(prefixes) and not ref.endswith(b"^{}") and sha
              and (not ref.startswith(PULL_PREFIX) or ref.endswith(b"/head"))}
    local = {ref: sha for ref, sha in git.get_refs().items() if ref.startswith(prefixes)}
    zero = contents.ZERO.encode()
    updates = [(ref, local.get(ref, zero), sha) for ref, sha in remote.items()
               if local.get(ref) != sha]
    updates += [(ref, sha, zero) for ref, sha in local.items() if ref not in remote]
    head = (getattr(result, "symrefs", None) or {}).get(b"HEAD")
    branch = head[len(b"refs/heads/"):].decode() \
        if head and head.startswith(b"refs/heads/") and head in remote else None
    return [tuple(v.decode() for v in u) for u in updates], branch


def ref_chunks(updates: list) -> list[list]:
    return [updates[i:i + REF_CHUNK] for i in range(0, len(updates), REF_CHUNK)] or [[]]


def _stage_head(change: contents.RefChange, repo: Repo, branch: str) -> None:
    change.also(1, lambda uow: refdb.stage_symref(uow, repo.id, "HEAD", f"refs/heads/{branch}"))


def _stage_schedule(change: contents.RefChange, repo: Repo, synced_at: float) -> None:
    """The sync time and the next one, on the record and in the schedule."""
    due = int(synced_at + repo.mirror_interval) if repo.mirror_interval else 0
    change.set_repo_fields(mirror_updated=int(synced_at), mirror_next=due)
    change.also(1, lambda uow: mirror_store.stage_schedule(repo, due))


def _interval_text(value) -> str | None:
    """A mirror's interval as sent (read only for a mirror): a text, else refused."""
    if value is None or value is UNSET:
        return None
    if not isinstance(value, str):
        raise InvalidInput("[MirrorInterval]: expected a string")
    return value or None


@dataclass
class Plan:
    """A migration checked and ready to fetch: nothing is written yet."""
    owner: Account
    repo: Repo                  # the new record (id and pool taken), not yet written
    remote: Remote
    lfs: bool
    lfs_url: str
    mirror: bool


def plan(caller: Caller, option: MigrateRepoOptions) -> Plan:
    """Every check of repoMigrate before anything is fetched or written (4xx)."""
    clone_addr = (option.clone_addr or "").strip()
    if not clone_addr:
        raise InvalidInput("[CloneAddr]: Required")
    name = repo_lifecycle.validate_name((option.repo_name or "").strip())
    owner = _owner(caller, option)
    quota.ensure_within_quota(int(owner.id), "size:repos:all")   # Forgejo: before permissions
    mirror = bool(option.mirror)
    interval = parse_interval(_interval_text(option.mirror_interval)) if mirror else 0
    lfs, lfs_endpoint = _lfs_options(option)
    url = netguard.check_migration_url(clone_addr)
    lfs_url = _lfs_url(url, lfs_endpoint) if lfs else ""
    token = option.auth_token or ""
    username = option.auth_username or ("oauth2" if token else "")
    remote = Remote(url=url, username=username, password=option.auth_password or token)
    if not can_create_in(caller.user, owner):
        raise PermissionDenied("Given user is not owner of organization.")
    if repos.repo_by_name(owner.lower_name, name) is not None:   # before fetching anything
        raise ConflictError(repo_lifecycle.NAME_TAKEN)
    repo = repo_lifecycle.new_record(owner, name, description=option.description or "",
                                     private=bool(option.private))
    repo.original_url = url
    if mirror:
        repo.mirror, repo.mirror_interval = True, interval
        repo.mirror_auth = secrets.seal(remote.username, remote.password)
        repo.mirror_lfs, repo.mirror_lfs_endpoint = lfs, lfs_endpoint
    return Plan(owner, repo, remote, lfs, lfs_url, mirror)


def migrate(caller: Caller, option: MigrateRepoOptions) -> RepoView:
    """repoMigrate of the git part alone: fetch the remote into a new repository."""
    from chalicelib.gitstore import repo as gitrepo

    planned = plan(caller, option)
    repo, remote, lfs, mirror = planned.repo, planned.remote, planned.lfs, planned.mirror
    git = gitrepo.open_repo(int(repo.id), int(repo.pool_id))
    fetched = None
    try:
        started = clock.now()
        updates, head = remote_changes(git, fetch_refs(remote, git))
        if lfs:     # before the repository is written: it appears with its objects
            fetched = fetch_lfs_objects(remote, planned.lfs_url, repo, git)
        repo.default_branch = head or repo.default_branch
        chunks = ref_chunks(updates)
        for chunk in chunks[:-1]:      # the packs are charged with the creation, last
            contents.commit_ref_changes(contents.prepare_ref_changes(repo, git, chunk, actor=caller.user, announce=False,
                                         creates_repo=True, charge=False))
        last = contents.prepare_ref_changes(repo, git, chunks[-1], actor=caller.user, announce=False,
                              creates_repo=True)
        _stage_head(last, repo, repo.default_branch)
        if mirror:
            _stage_schedule(last, repo, started)
        last.also(repo_lifecycle.creation_size(fork=False),
                  lambda uow: repo_lifecycle.stage_creation(repo))
        last.events.append(events.RepositoryMigrated(**last.event_fields(caller.user),
                                                     mirror=mirror))
        contents.commit_ref_changes(last)
    except BaseException as exc:
        repo_lifecycle.discard_git_side(repo, pool_too=True)
        if lfs:
            git_lfs.discard_pool(int(repo.pool_id))
        if isinstance(exc, ConditionFailed):
            raise repo_lifecycle.creation_error(exc) from None
        raise
    if fetched is not None and record_lfs(repo, fetched):
        add_needs(repo, fetched.held)
    return RepoView(repo, planned.owner, Access.OWNER)


def _lfs_options(option: MigrateRepoOptions) -> tuple[bool, str]:
    """``lfs`` and ``lfs_endpoint`` as sent; ``lfs`` only while this server runs Git LFS
    (Forgejo: ``LFS && [server] LFS_START_SERVER``)."""
    lfs, endpoint = option.lfs, option.lfs_endpoint
    if lfs is not UNSET and lfs is not None and not isinstance(lfs, bool):
        raise InvalidInput("[LFS]: expected true or false")
    if lfs is not True or not get_settings().server.LFS_START_SERVER:
        return False, ""    # the endpoint is read only with lfs
    if endpoint is not UNSET and endpoint is not None and not isinstance(endpoint, str):
        raise InvalidInput("[LFSEndpoint]: expected a string")
    return True, (endpoint or "").strip()


def _lfs_url(clone_url: str, lfs_endpoint: str) -> str:
    """The LFS server's URL; a given one is checked as the clone address was (Forgejo:
    ``IsMigrateURLAllowed`` on it)."""
    url = lfs_fetch.endpoint(clone_url, lfs_endpoint)
    if lfs_endpoint:
        lfs_fetch.check_endpoint(url)
    return url


def fetch_lfs_objects(remote: Remote, url: str, repo: Repo, git) -> lfs_fetch.Outcome:
    """The objects the fetched pointers name, their bytes put (not yet recorded: the
    pool's item is written with the repository).  As Forgejo, a failure fails the
    migration."""
    try:
        return lfs_fetch.fetch(remote, url, int(repo.pool_id),
                               dict(git.object_store.lfs_pointers), record=False)
    except lfs_fetch.FetchFailed as exc:
        raise InvalidInput(f"Migration failed: {exc}.") from None


def record_lfs(repo: Repo, fetched: lfs_fetch.Outcome) -> bool:
    """Record the migrated objects now that their pool exists; False when it is gone
    again (the repository was deleted meanwhile: nothing is left to record)."""
    for oid, size in fetched.stored.items():
        if git_lfs.record_object(int(repo.pool_id), oid, size) == git_lfs.POOL_GONE:
            return False
    return True


def add_needs(repo: Repo, held: dict[str, int]) -> None:
    """The repository needs the objects it points at (its quota counts them; nothing
    collects them): after its refs, as nothing collects an object recorded so lately."""
    from chalicelib import lfs as git_lfs

    missing = git_lfs.add_needs(repo, held) if held else []
    if missing:
        log.warning("repository %s: %d LFS objects not held after all: %s", repo.id,
                    len(missing), ", ".join(missing[:5]))


def _owner(caller: Caller, option: MigrateRepoOptions) -> Account:
    """``repo_owner`` by name, else ``uid``, else the caller."""
    if caller.user is None:
        raise PermissionDenied("token is required")
    name = option.repo_owner
    uid = option.uid
    owner = accounts.account_by_name(name) if name else \
        accounts.account_by_id(uid) if uid else caller.user
    if owner is None:
        raise InvalidInput(f"user does not exist [name: {name or uid}]")
    return owner


def sync(repo: Repo, *, actor: Account | None = None) -> None:
    """Fetch the mirror's remote and bring branches and tags in line (repoMirrorSync)."""
    from chalicelib.gitstore import repo as gitrepo

    if not repo.mirror:
        raise InvalidInput("Repository is not a mirror")
    remote = Remote(repo.original_url, *secrets.stored_credentials(repo.mirror_auth))
    git = gitrepo.open_repo(int(repo.id), int(repo.pool_id))
    started = clock.now()
    updates, head = remote_changes(git, fetch_refs(remote, git))
    chunks = ref_chunks(updates)
    # The remote is the mirror's truth: no protection rule holds it back (a mirror takes
    # no pushes, so its rules only matter once it is converted).
    for chunk in chunks[:-1]:
        contents.commit_ref_changes(contents.prepare_unguarded_ref_changes(repo, git, chunk, actor=actor))
    last = contents.prepare_unguarded_ref_changes(repo, git, chunks[-1], actor=actor)
    if head and head != repo.default_branch:
        last.set_repo_fields(default_branch=head)
        _stage_head(last, repo, head)
    _stage_schedule(last, repo, started)
    last.events.append(events.RepositoryMirrorSynced(**last.event_fields(actor)))
    contents.commit_ref_changes(last)
    if repo.mirror_lfs and get_settings().server.LFS_START_SERVER:
        _sync_lfs(repo, remote, git)


def _sync_lfs(repo: Repo, remote: Remote, git) -> None:
    """A mirror's new LFS objects, once its refs moved: a failure is logged and never
    undoes the git part (Forgejo logs it too).  What could not be fetched (missing on
    the server, or the fetch failed) is asked for again by the next sync."""
    pending = mirror_store.lfs_pending(int(repo.id))
    pointers = {**pending, **git.object_store.lfs_pointers}
    if not pointers:
        return
    left = pointers
    try:
        url = lfs_fetch.endpoint(repo.original_url, repo.mirror_lfs_endpoint)
        fetched = lfs_fetch.fetch(remote, url, int(repo.pool_id), pointers, record=True)
    except (lfs_fetch.FetchFailed, InvalidInput) as exc:
        log.error("mirror sync of repository %s: LFS objects not fetched: %s", repo.id, exc)
    else:
        add_needs(repo, fetched.held)
        left = {oid: size for oid, size in pointers.items()
                if oid not in fetched.held and oid not in fetched.skipped}
    if left != pending:
        if len(left) > mirror_store.LFS_PENDING_MAX:
            log.warning("mirror %s: %d LFS objects not fetched, %d kept for the next sync",
                        repo.id, len(left), mirror_store.LFS_PENDING_MAX)
        with unit_of_work.writing():
            mirror_store.stage_lfs_pending(int(repo.id), left)


def sync_requested(caller: Caller, view: RepoView) -> None:
    if not view.can_write:
        raise PermissionDenied("Must have write access")
    if not view.repo.mirror:
        raise BadInput("Repository is not a mirror")
    quota.ensure_within_quota(int(view.repo.owner_id), "size:git:all")
    sync(view.repo, actor=caller.user)


def _reschedule(repo: Repo, at: float) -> None:
    """After a failed sync: try again one interval later (bookkeeping, no event)."""
    due = int(at + repo.mirror_interval) if repo.mirror_interval else 0
    try:
        with unit_of_work.writing():
            repos.stage_repo_fields(repo, {"mirror_updated": int(at), "mirror_next": due})
            mirror_store.stage_schedule(repo, due)
    except ConditionFailed:
        pass    # deleted meanwhile: its cleanup drops the schedule


def sync_due(now: float | None = None) -> int:
    """The scheduled job: sync every due mirror; a failing one waits for its next turn
    (and a call AWS refused fails the run, after the others)."""
    now = clock.now() if now is None else now
    synced, denied = 0, None
    for repo in mirror_store.due_repos(now):
        if not quota.quota_allows(int(repo.owner_id), "size:repos:all"):
            log.info("mirror sync of repository %s skipped: its owner is over quota", repo.id)
            _reschedule(repo, now)    # Forgejo skips it silently; try again next interval
            continue
        try:
            sync(repo)
            synced += 1
        except Exception as exc:
            log.exception("mirror sync of repository %s failed", repo.id)
            _reschedule(repo, now)
            # A call AWS refused to the role is no broken remote: fail the run once the
            # others are done, so the function's error metric shows it.
            if aws.is_access_denied(exc):
                denied = denied or exc
    if denied is not None:
        raise denied
    return synced


def unschedule(repo_id: int) -> None:
    """Drop a pull mirror's sync schedule (the repository was deleted)."""
    with unit_of_work.writing():
        mirror_store.stage_unschedule(int(repo_id))
