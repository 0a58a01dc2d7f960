"""The remote of a migration, a pull or a push mirror: its address and credentials, and the
only HTTP client that may talk to it (or to the Git LFS server it names).

Every connection goes to an address ``netguard`` checked for that one URL, is pinned to
it (no second DNS lookup, so a name cannot be re-pointed at an internal address
between check and connect), and never follows a redirect by itself: a caller that
follows one checks the new URL again and connects with a new pinned pool
(``lfs_fetch``); the git fetch refuses them.
"""
from __future__ import annotations

from dataclasses import dataclass

from chalicelib import netguard
from chalicelib.errors import InvalidInput

# Connecting may wait on a slow handshake; a read waits at most this long between
# chunks (a stalled server fails the fetch instead of holding the Lambda to its end).
CONNECT_SECONDS = 10
READ_SECONDS = 120


@dataclass(frozen=True)
class Remote:
    url: str                # as checked, without credentials
    username: str = ""
    password: str = ""

    def secrets(self) -> tuple[str, ...]:
        return tuple(s for s in (self.password,) if s)


def pinned_pool_manager(target: netguard.Target):
    """A urllib3 pool manager that dials only the checked addresses of ``target``'s
    origin and refuses redirects (each hop would need its own check)."""
    import urllib3

    if not target.addresses:
        raise InvalidInput(f"dial tcp: lookup {target.host}: no such host")

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

    return Pinned(timeout=urllib3.Timeout(connect=CONNECT_SECONDS, read=READ_SECONDS),
                  retries=False)


def git_client(remote: Remote, *, what: str = "migration/cloning"):
    """A smart-HTTP git client for ``remote`` (fetch or push), its connections pinned to
    the addresses the migration policy allows for that URL, checked now."""
    from dulwich.client import Urllib3HttpGitClient

    target = netguard.check_target(remote.url, netguard.MIGRATION)
    if target.scheme not in ("http", "https"):
        raise InvalidInput(f"{what} is supported over http and https only")
    return Urllib3HttpGitClient(remote.url, pool_manager=pinned_pool_manager(target),
                                username=remote.username or None,
                                password=remote.password or None)
