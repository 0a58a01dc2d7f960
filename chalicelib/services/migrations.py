"""Migrating a repository from another git server, once or as a pull mirror.

Outbound connections go only where ``netguard`` allows, to the address it checked
(no second DNS lookup, so a name cannot be re-pointed at an internal address between
check and connect), and never follow redirects.
"""
from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import dataclass

from chalicelib.services import accounts, events, netguard, pushes, repos
from chalicelib.services.errors import BadInput, InvalidInput, PermissionDenied
from chalicelib.store import accounts as account_store
from chalicelib.store import repos as repo_store
from chalicelib.store.table import Item, MirrorDue, Repo, keys

log = logging.getLogger("nimbus.migrations")
DEFAULT_INTERVAL = 8 * 3600
MIN_INTERVAL = 10 * 60
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(h|m|s|ms|us|µs|ns)")
_UNITS = {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
# A ref transaction holds at most 100 writes; larger mirrors are applied in chunks.
REF_CHUNK = 90
WANTED_PREFIXES = (b"refs/heads/", b"refs/tags/")


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


@dataclass(frozen=True)
class Remote:
    url: str                # as checked, without credentials
    username: str = ""
    password: str = ""

    def secrets(self) -> tuple[str, ...]:
        return tuple(s for s in (self.password,) if s)


class _PinnedPoolManager:
    """A urllib3 pool manager that dials only the checked addresses of one origin and
    refuses redirects (each hop would need its own check)."""

    def __new__(cls, target: netguard.Target):
        import urllib3

        class Pinned(urllib3.PoolManager):
            def connection_from_host(self, host=None, port=None, scheme="http",
                                     pool_kwargs=None):
                if (host or "").lower() != target.host.lower() or \
                        (port or target.port) != target.port:
                    raise urllib3.exceptions.HTTPError(
                        f"refusing to connect to {host}: not the checked migration host")
                extra = dict(pool_kwargs or {})
                if scheme == "https":
                    extra.update(server_hostname=target.host, assert_hostname=target.host)
                return super().connection_from_host(target.addresses[0], port=target.port,
                                                    scheme=scheme, pool_kwargs=extra)

            def urlopen(self, method, url, redirect=True, **kw):
                headers = dict(kw.pop("headers", None) or self.headers)
                default = {"http": 80, "https": 443}[target.scheme]
                headers["Host"] = target.host if target.port == default \
                    else f"{target.host}:{target.port}"
                return super().urlopen(method, url, redirect=False, headers=headers, **kw)

        return Pinned(timeout=urllib3.Timeout(connect=10, read=120), retries=False)


def _client(remote: Remote):
    from dulwich.client import Urllib3HttpGitClient

    target = netguard.check_target(remote.url, netguard.MIGRATION)
    if target.scheme not in ("http", "https"):
        raise InvalidInput("migration/cloning is supported over http and https only")
    return Urllib3HttpGitClient(remote.url, pool_manager=_PinnedPoolManager(target),
                                username=remote.username or None,
                                password=remote.password or None)


def _fetch(remote: Remote, git):
    """Fetch every branch and tag of the remote into ``git``'s object store."""
    from dulwich.errors import GitProtocolError, HangupException, NotGitRepository

    client = _client(remote)

    def wants(refs, depth=None):
        have = git.object_store
        return [sha for ref, sha in refs.items()
                if ref.startswith(WANTED_PREFIXES) and not ref.endswith(b"^{}")
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


def _mirror_refs(repo: Repo, git, result, *, actor_id: int | None) -> None:
    """Make our branches and tags equal the remote's (pruning what it deleted)."""
    from chalicelib.services.pushes import ZERO

    remote = {ref: sha for ref, sha in result.refs.items()
              if ref.startswith(WANTED_PREFIXES) and not ref.endswith(b"^{}") and sha}
    local = {ref: sha for ref, sha in git.get_refs().items() if ref.startswith(WANTED_PREFIXES)}
    updates = [(ref, local.get(ref, ZERO.encode()), sha) for ref, sha in remote.items()
               if local.get(ref) != sha]
    updates += [(ref, sha, ZERO.encode()) for ref, sha in local.items() if ref not in remote]
    for start in range(0, len(updates), REF_CHUNK):
        chunk = updates[start:start + REF_CHUNK]
        git.refs.commit_updates(chunk)
        pushes.after_update(repo, git, [tuple(v.decode() for v in u) for u in chunk],
                            actor_id=actor_id)
    head = (getattr(result, "symrefs", None) or {}).get(b"HEAD")
    if head and head.startswith(b"refs/heads/") and head in remote:
        branch = head[len(b"refs/heads/"):].decode()
        if branch != repo.default_branch:
            repo.update(actions=[Repo.default_branch.set(branch)])
            git.refs.set_symbolic_ref(b"HEAD", head)


def migrate(caller: repos.Caller, data: dict) -> repos.RepoView:
    """repoMigrate: create the repository and fetch the remote into it."""
    from chalicelib.gitstore import repo as gitrepo

    opt = accounts.optional
    clone_addr = (opt(data, "clone_addr", str) or "").strip()
    if not clone_addr:
        raise InvalidInput("[CloneAddr]: Required")
    name = repos.validate_name((opt(data, "repo_name", str) or "").strip())
    owner = _owner(caller, data)
    mirror = bool(opt(data, "mirror", bool))
    interval = parse_interval(opt(data, "mirror_interval", str)) if mirror else 0
    url = netguard.check_migration_url(clone_addr)
    token = opt(data, "auth_token", str) or ""
    remote = Remote(url=url, username=opt(data, "auth_username", str) or ("oauth2" if token else ""),
                    password=opt(data, "auth_password", str) or token)
    if not repos.can_create_in(caller.user, owner):
        raise PermissionDenied("Given user is not owner of organization.")
    repo = repos._new_repo(owner, name, description=opt(data, "description", str) or "",
                           private=bool(opt(data, "private", bool)))
    repo.original_url = url
    if mirror:
        repo.mirror, repo.mirror_interval = True, interval
        repo.mirror_auth = json.dumps({"u": remote.username, "p": remote.password}) \
            if remote.username or remote.password else ""
    repos._insert(repo)
    try:
        git = gitrepo.init_repo(int(repo.id), int(repo.pool_id), repo.default_branch)
        result = _fetch(remote, git)
        _mirror_refs(repo, git, result, actor_id=caller.user.id)
        if mirror:
            _schedule(repo, time.time())
    except BaseException:
        repos._remove(repo, parent=None)
        raise
    fresh = repo_store.get(owner.lower_name, repo.lower_name) or repo
    events.publish(events.RepositoryCreated(actor_id=caller.user.id, repo_id=repo.id))
    return repos.RepoView(fresh, owner, repos.Access.OWNER)


def _owner(caller: repos.Caller, data: dict):
    opt = accounts.optional
    if caller.user is None:
        raise PermissionDenied("token is required")
    name = opt(data, "repo_owner", str)
    uid = opt(data, "uid", int)
    owner = account_store.get_by_name(name) if name else \
        account_store.get_by_id(uid) if uid else caller.user
    if owner is None:
        raise InvalidInput(f"user does not exist [name: {name or uid}]")
    return owner


def _schedule(repo: Repo, synced_at: float) -> None:
    """Record when the mirror was synced and when it is due next."""
    due = int(synced_at + repo.mirror_interval) if repo.mirror_interval else 0
    repo.update(actions=[Repo.mirror_updated.set(int(synced_at)), Repo.mirror_next.set(due)])
    MirrorDue(*keys.mirror_due(int(repo.id)), repo_pk=repo.pk, due=due).save()


def sync(repo: Repo, *, actor_id: int | None = None) -> None:
    """Fetch the mirror's remote and bring branches and tags in line (repoMirrorSync)."""
    from chalicelib.gitstore import repo as gitrepo

    if not repo.mirror:
        raise InvalidInput("Repository is not a mirror")
    auth = json.loads(repo.mirror_auth) if repo.mirror_auth else {}
    remote = Remote(repo.original_url, auth.get("u", ""), auth.get("p", ""))
    git = gitrepo.open_repo(int(repo.id), int(repo.pool_id))
    started = time.time()
    result = _fetch(remote, git)
    _mirror_refs(repo, git, result, actor_id=actor_id)
    _schedule(repo, started)


def sync_requested(caller: repos.Caller, view: repos.RepoView) -> None:
    if not view.can_write:
        raise PermissionDenied("Must have write access")
    if not view.repo.mirror:
        raise BadInput("Repository is not a mirror")
    sync(view.repo, actor_id=caller.user.id if caller.user else None)


def due_mirrors(now: float) -> list[Repo]:
    """Mirrors whose next sync time has passed (one Query of the schedule)."""
    due = [item for item in Item.query(keys.MIRROR_SCHEDULE)
           if isinstance(item, MirrorDue) and item.due and item.due <= now]
    if not due:
        return []
    return [r for r in Item.batch_get([(d.repo_pk, "REPO") for d in due]) if isinstance(r, Repo)]


def sync_due(now: float | None = None) -> int:
    """The scheduled job: sync every due mirror; a failing one waits for its next turn."""
    now = time.time() if now is None else now
    synced = 0
    for repo in due_mirrors(now):
        try:
            sync(repo)
            synced += 1
        except Exception:  # noqa: BLE001 - one broken remote must not stop the rest
            log.exception("mirror sync of repository %s failed", repo.id)
            _schedule(repo, now)
    return synced


def forget(repo: Repo) -> None:
    MirrorDue(*keys.mirror_due(int(repo.id))).delete()
