"""The Git LFS objects of a migration or a pull mirror's sync, downloaded from the
remote's LFS server (Forgejo: ``StoreMissingLfsObjectsInRepository`` with its LFS
client).

Which objects: those the pointer blobs of the fetched packs name
(``object_store.lfs_pointers``), less those the pool holds and those above the
largest object this server takes (``lfs.imports.plan``).

Where: ``lfs_endpoint`` when given, else derived from the clone address as git-lfs
does (``<address>`` + ``.git`` unless it ends so + ``/info/lfs``; ``git://`` becomes
``https://``).  The batch API (``POST <endpoint>/objects/batch``, ``download``, the
``basic`` transfer, at most 100 objects a batch) is sent the migration's credentials
(Basic, as git sends them) only when the endpoint is on the clone address's origin;
each object is then read from its ``download`` action's ``href`` with that action's
``header`` only.

Every connection (the batch endpoint, each ``href``, each redirect, which is
followed up to ``MAX_REDIRECTS`` times and loses ``Authorization`` when it leaves the
origin) goes to an address ``netguard`` checked for that URL with the migration's
rules (``[migration] ALLOW_LOCALNETWORKS`` …), pinned (``remotes``).

Each object streams to a temporary file while it is hashed: one whose bytes do not
have the pointer's SHA-256 and size is not stored.  As Forgejo: an object the
server says it does not have (404) is skipped with a warning; any other failure of an
object is the fetch's failure (``FetchFailed``): the migration fails, a mirror's sync
keeps its git part and logs it.
"""
from __future__ import annotations

import hashlib
import json
import logging
import tempfile
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit, urlunsplit

from chalicelib import lfs, netguard
from chalicelib.errors import InvalidInput
from chalicelib.repo_admin import remotes
from chalicelib.repo_admin.remotes import Remote

log = logging.getLogger("nimbus.migrations")

MEDIA_TYPE = "application/vnd.git-lfs+json"
BATCH_SIZE = 100            # objects a batch names (the batch API's usual limit)
MAX_REDIRECTS = 10          # as Go's client, which Forgejo's LFS client is
MAX_ANSWER = 8 * 1024 ** 2  # a batch answer of 100 objects is a few hundred KB
CHUNK = 1024 * 1024
_REDIRECTS = (301, 302, 303, 307, 308)


class FetchFailed(Exception):
    """An object (or a batch) could not be fetched; the text names it, never the
    credentials."""


@dataclass
class Outcome:
    """``held``: objects the pool holds or now has the bytes of (oid -> size), of which
    ``stored``: those this fetch stored; ``missing``: objects the server does not have;
    ``skipped``: too large here."""
    held: dict[str, int] = field(default_factory=dict)
    stored: dict[str, int] = field(default_factory=dict)
    missing: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)


def endpoint(clone_addr: str, lfs_endpoint: str = "") -> str:
    """The LFS server's URL (without a trailing ``/``); InvalidInput when
    ``lfs_endpoint`` is no http(s) URL."""
    given = (lfs_endpoint or "").strip()
    parts = urlsplit(given or clone_addr)
    scheme = "https" if parts.scheme == "git" else parts.scheme
    if scheme not in ("http", "https") or not parts.netloc:
        raise InvalidInput("Invalid LFS endpoint: expected an http or https URL")
    path = parts.path.rstrip("/")
    if not given:
        path += "/info/lfs" if path.endswith(".git") else ".git/info/lfs"
    return urlunsplit((scheme, parts.netloc, path, parts.query, ""))


def check_endpoint(url: str) -> None:
    """A given ``lfs_endpoint`` is refused up front as a clone address would be."""
    netguard.check_migration_url(url)


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme, (parts.netloc.rpartition("@")[2]).lower()


def _open(method: str, url: str, headers: dict[str, str], body: bytes | None = None):
    """A response from ``url``, each hop checked and pinned; a redirect is followed
    (a POST only on 307/308, which keep it a POST) without credentials off its origin."""
    for _ in range(MAX_REDIRECTS + 1):
        target = netguard.check_target(url, netguard.MIGRATION)
        if target.scheme not in ("http", "https"):
            raise FetchFailed(f"{target.scheme}:// is not an http URL")
        response = remotes.pinned_pool_manager(target).request(
            method, url, headers=headers, body=body, preload_content=False)
        if response.status not in _REDIRECTS:
            return response
        location = response.headers.get("Location", "")
        response.release_conn()
        if not location or (method != "GET" and response.status not in (307, 308)):
            raise FetchFailed(f"the server answered {response.status}")
        following = urljoin(url, location)
        if _origin(following) != _origin(url):
            headers = {k: v for k, v in headers.items() if k.lower() != "authorization"}
        url = following
    raise FetchFailed(f"more than {MAX_REDIRECTS} redirects")


def _batch(remote: Remote, url: str, pointers: dict[str, int]) -> list[dict]:
    import urllib3

    headers = {"Accept": MEDIA_TYPE, "Content-Type": MEDIA_TYPE}
    if (remote.username or remote.password) and _origin(url) == _origin(remote.url):
        headers.update(urllib3.make_headers(
            basic_auth=f"{remote.username}:{remote.password}"))
    body = json.dumps({"operation": "download", "transfers": ["basic"],
                       "objects": [{"oid": oid, "size": size}
                                   for oid, size in pointers.items()]}).encode()
    response = _open("POST", f"{url}/objects/batch", headers, body)
    try:
        answer = response.read(MAX_ANSWER + 1)
    finally:
        response.release_conn()
    if response.status != 200:
        raise FetchFailed(f"the LFS batch API answered {response.status}")
    if len(answer) > MAX_ANSWER:
        raise FetchFailed("the LFS batch answer is too large")
    try:
        found = json.loads(answer)
        objects = found.get("objects")
        if found.get("transfer", "basic") != "basic" or not isinstance(objects, list):
            raise ValueError(found.get("transfer"))
    except (ValueError, AttributeError):
        raise FetchFailed("the LFS batch answer is not a basic transfer's JSON") from None
    return [obj for obj in objects if isinstance(obj, dict)]


def _download(action: dict, oid: str, size: int, into) -> None:
    """Stream the object into ``into``: FetchFailed unless it is ``size`` bytes whose
    SHA-256 is ``oid``."""
    href, header = action.get("href"), action.get("header") or {}
    if not isinstance(href, str) or not isinstance(header, dict):
        raise FetchFailed(f"LFS object {oid}: the download action has no href")
    response = _open("GET", href, {str(k): str(v) for k, v in header.items()})
    digest, read = hashlib.sha256(), 0
    try:
        if response.status != 200:
            raise FetchFailed(f"LFS object {oid}: the download answered {response.status}")
        while read <= size:
            chunk = response.read(CHUNK)
            if not chunk:
                break
            digest.update(chunk)
            into.write(chunk)
            read += len(chunk)
    finally:
        response.release_conn()
    if read != size or digest.hexdigest() != oid:
        raise FetchFailed(f"LFS object {oid}: the server sent other bytes than the "
                          f"pointer names ({size} bytes, this SHA-256)")


def _object(obj: dict, wanted: dict[str, int], pool_id: int,
            outcome: Outcome, record: bool) -> None:
    oid = obj.get("oid")
    if oid not in wanted:
        return                  # not asked for: nothing of it is stored
    size = wanted[oid]
    error = obj.get("error")
    if isinstance(error, dict):
        if error.get("code") == 404:
            log.warning("LFS object %s is missing on the remote: ignored", oid)
            outcome.missing[oid] = size
            return
        raise FetchFailed(f"LFS object {oid}: {str(error.get('message'))[:200]}")
    action = (obj.get("actions") or {}).get("download")
    if not isinstance(action, dict):
        raise FetchFailed(f"LFS object {oid}: the batch answer has no download action")
    with tempfile.TemporaryFile(prefix="lfs-import-") as into:
        _download(action, oid, size, into)
        if record:
            done = lfs.store_object(pool_id, oid, size, into)
            if done == lfs.POOL_GONE:
                raise FetchFailed("the repository was deleted meanwhile")
            if done == lfs.REFUSED:
                raise FetchFailed(f"LFS object {oid} is being removed here as unused: "
                                  "it is fetched again by a later sync")
        else:
            lfs.put_object(pool_id, oid, size, into)
    outcome.held[oid] = outcome.stored[oid] = size


def fetch(remote: Remote, url: str, pool_id: int, pointers: dict[str, int], *,
          record: bool) -> Outcome:
    """Download what the pool lacks of ``pointers`` from the LFS server at ``url`` and
    store it; ``record``: record each object too (its pool exists), else only put the
    bytes (a migration records them once the repository is written).  Raises
    FetchFailed (texts without the credentials)."""
    import urllib3

    planned = lfs.plan_import(pool_id, pointers)
    outcome = Outcome(held=dict(planned.held), skipped=dict(planned.too_large))
    todo = list(planned.fetch.items())
    try:
        for start in range(0, len(todo), BATCH_SIZE):
            wanted = dict(todo[start:start + BATCH_SIZE])
            for obj in _batch(remote, url, wanted):
                _object(obj, wanted, pool_id, outcome, record)
            for oid, size in wanted.items():
                if oid not in outcome.held and oid not in outcome.missing:
                    log.warning("LFS object %s: not in the batch answer: ignored", oid)
                    outcome.missing[oid] = size
    except FetchFailed as exc:
        raise FetchFailed(netguard.redact(str(exc), remote.secrets())) from None
    except (urllib3.exceptions.HTTPError, OSError, InvalidInput) as exc:
        raise FetchFailed(netguard.redact(str(exc), remote.secrets())) from None
    return outcome
