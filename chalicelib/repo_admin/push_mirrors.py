"""Push mirrors of a repository (Forgejo's repoListPushMirrors, repoAddPushMirror,
repoGetPushMirrorByRemoteName, repoDeletePushMirror, repoPushMirrorSync): the rules.

As Forgejo's router: repository admins only (403; an invisible repository is 404),
every operation answers 400 while ``[mirror] ENABLED`` is off, adding, deleting and
syncing are refused on an archived repository (423).  ``DISABLE_NEW_PUSH`` refuses new
mirrors only (Forgejo's settings page does so; its API did not).

A new mirror gets the name ``remote_mirror_<10 random letters and digits>``; its address
is checked as a migration's clone address (``netguard``: local networks only with
``[migrations] ALLOW_LOCALNETWORKS``) and stored without credentials; the username and
password (given apart, or as the address's userinfo) are stored encrypted
(``secrets``) and never answered.  ``interval`` is a Go duration, at least 10m, or 0:
only on commit.  A mirror with an interval is due at once (Forgejo's first sync comes
with the next run of its scheduler), then ``interval`` after each sync.
"""
from __future__ import annotations

import secrets as random
import string
from collections.abc import Mapping
from typing import ClassVar
from urllib.parse import unquote, urlsplit, urlunsplit

from chalicelib import clock, netguard
from chalicelib.errors import (
    ArchivedRepository,
    BadInput,
    ConditionFailed,
    ConflictError,
    InvalidInput,
    NotFoundError,
    PermissionDenied,
)
from chalicelib.http.options import UNSET, Option, UnsetType
from chalicelib.repo_admin import push_mirror_store as store
from chalicelib.repo_admin import push_mirror_sync, secrets
from chalicelib.repo_admin.migrations import parse_interval
from chalicelib.repos import RepoView
from chalicelib.settings import get_settings
from chalicelib.store import unit_of_work

DISABLED = "Mirror feature is disabled"
NAME_ALPHABET = string.ascii_letters + string.digits


class CreatePushMirrorOption(Option):
    """repoAddPushMirror."""
    max_lengths: ClassVar[Mapping[str, int]] = {"remote_address": 2048, "remote_username": 255,
                                                "remote_password": 255, "interval": 64,
                                                "branch_filter": 2048}
    single_line: ClassVar[frozenset[str]] = frozenset({"remote_address", "remote_username",
                                                       "interval", "branch_filter"})

    remote_address: str | None | UnsetType = UNSET
    remote_username: str | None | UnsetType = UNSET
    remote_password: str | None | UnsetType = UNSET
    interval: str | None | UnsetType = UNSET
    sync_on_commit: bool | None | UnsetType = UNSET
    use_ssh: bool | None | UnsetType = UNSET
    branch_filter: str | None | UnsetType = UNSET


def _text(value) -> str:
    return "" if value is None or value is UNSET else str(value)


def _enabled() -> None:
    if not get_settings().mirror.ENABLED:
        raise BadInput(DISABLED)


def _admin(view: RepoView, *, writes: bool = False) -> None:
    _enabled()
    if not view.is_admin:
        raise PermissionDenied("user should be an owner or a collaborator with admin write "
                               "of a repository")
    if writes and view.repo.archived:
        raise ArchivedRepository("repository is archived")


def list_mirrors(view: RepoView) -> list:
    _admin(view)
    return store.list_mirrors(int(view.repo.id))


def get_mirror(view: RepoView, remote_name: str):
    _admin(view)
    item = store.get_mirror(int(view.repo.id), remote_name)
    if item is None:
        raise NotFoundError(f"push mirror does not exist [name: {remote_name}]")
    return item


def _interval(text: str) -> int:
    """Go's time.ParseDuration, then at least 10m unless 0 (Forgejo answers 400)."""
    if not text.strip():
        raise BadInput('time: invalid duration ""')
    try:
        return parse_interval(text.strip())
    except InvalidInput as exc:
        raise BadInput(exc.message) from None


def split_address(address: str, username: str, password: str) -> tuple[str, str, str]:
    """The address without userinfo, and the credentials: the given ones, else the
    address's userinfo (Forgejo's ParseRemoteAddr).  Only http(s) is taken."""
    address = address.strip()
    if not address:
        raise BadInput("[RemoteAddress]: Required")
    try:
        parts = urlsplit(address)
        host = parts.hostname
    except ValueError:
        raise BadInput("Invalid Url ") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise BadInput("Invalid mirror protocol")
    if not host:
        raise BadInput("Invalid Url ")
    if not username and not password and (parts.username or parts.password):
        username, password = unquote(parts.username or ""), unquote(parts.password or "")
    netloc = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, "")), username, password


def add_mirror(view: RepoView, option: CreatePushMirrorOption):
    """repoAddPushMirror: the new mirror (not yet synced)."""
    _admin(view, writes=True)
    if get_settings().mirror.DISABLE_NEW_PUSH:
        raise BadInput("push mirrors are disabled on this instance")
    interval = _interval(_text(option.interval))
    username, password = _text(option.remote_username), _text(option.remote_password)
    if option.use_ssh is True:
        if username or password:
            raise BadInput("'use_ssh' is mutually exclusive with 'remote_username' and "
                           "'remote_passoword'")
        raise BadInput("SSH authentication not available.")
    address, username, password = split_address(_text(option.remote_address), username,
                                                 password)
    try:
        address = netguard.check_migration_url(address)
    except InvalidInput as exc:
        raise BadInput(netguard.redact(exc.message, (password,))) from None
    now = int(clock.now())
    item = store.new_mirror(
        int(view.repo.id), "remote_mirror_" + "".join(random.choice(NAME_ALPHABET)
                                                      for _ in range(10)),
        remote_address=address, credentials=secrets.seal(username, password),
        interval=interval, sync_on_commit=option.sync_on_commit is True,
        branch_filter=_text(option.branch_filter).strip(), created=now, last_update=0,
        last_error="", due=now if interval else 0)
    try:
        with unit_of_work.writing():
            store.stage_create(view.repo, item)
    except ConditionFailed as failed:
        if failed.label == store.COUNT:
            raise NotFoundError("repository does not exist") from None
        raise ConflictError("a push mirror of that name exists; try again") from None
    return item


def delete_mirror(view: RepoView, remote_name: str) -> None:
    """repoDeletePushMirror: as Forgejo, a name no mirror has is no error."""
    _admin(view, writes=True)
    item = store.get_mirror(int(view.repo.id), remote_name)
    if item is None:
        return
    try:
        with unit_of_work.writing():
            store.stage_delete(view.repo, item)
    except ConditionFailed:
        # Deleted, or synced (its schedule moved), meanwhile: read it again once.
        again = store.get_mirror(int(view.repo.id), remote_name)
        if again is None:
            return
        with unit_of_work.writing():
            store.stage_delete(view.repo, again)


def sync_requested(view: RepoView) -> list[tuple[str, str]]:
    """repoPushMirrorSync: push to every mirror now; (remote name, error) of each."""
    _admin(view, writes=True)
    return push_mirror_sync.sync_all(view.repo)
