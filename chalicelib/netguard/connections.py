"""Connections that dial only the addresses a check approved, sending the host name in
``Host``, SNI and the certificate check (no second DNS lookup)."""
from __future__ import annotations

import http.client
import socket
import ssl
from dataclasses import dataclass
from typing import Iterable

from chalicelib.errors import InvalidInput


@dataclass(frozen=True)
class Target:
    """A URL that passed the checks, with the addresses that were checked.

    ``addresses`` is empty only for a migration host that ALLOWED_DOMAINS names but that
    does not resolve (Forgejo lets those through for proxy-only setups); connecting to
    such a target fails.
    """
    url: str
    scheme: str
    host: str
    port: int
    addresses: tuple[str, ...]
    request_path: str

    def open_connection(self, *, timeout: float = 10.0,
                        ssl_context: ssl.SSLContext | None = None) -> http.client.HTTPConnection:
        """An unconnected http.client connection that dials only ``addresses``.

        The response to a request is final: redirects are not followed.
        """
        if not self.addresses:
            raise InvalidInput(f"dial tcp: lookup {self.host}: no such host")
        if self.scheme == "https":
            return PinnedHTTPSConnection(self.host, self.port, addresses=self.addresses,
                                         timeout=timeout,
                                         context=ssl_context or ssl.create_default_context())
        if self.scheme == "http":
            return PinnedHTTPConnection(self.host, self.port, addresses=self.addresses,
                                        timeout=timeout)
        raise ValueError(f"{self.scheme}:// is not an HTTP URL")


# --- pinned http.client connections -----------------------------------------------

class _PinnedMixin:
    """Dial the checked addresses (in order) instead of resolving ``host``; ``host``
    still names the server in the Host header, SNI and certificate verification."""

    def __init__(self, host: str, port: int | None = None, *, addresses: Iterable[str],
                 **kwargs):
        super().__init__(host, port, **kwargs)
        self._pinned = tuple(addresses)
        if not self._pinned:
            raise ValueError("no addresses to connect to")
        # http.client opens its socket through this attribute (3.11 and later).
        self._create_connection = self._dial_pinned

    def _dial_pinned(self, address, timeout=socket._GLOBAL_DEFAULT_TIMEOUT,
                     source_address=None):
        port = address[1]
        error: OSError | None = None
        for ip in self._pinned:
            try:
                return socket.create_connection((ip, port), timeout, source_address)
            except OSError as exc:
                error = exc
        raise error

    def set_tunnel(self, *args, **kwargs):
        raise NotImplementedError("pinned connections do not go through proxies")


class PinnedHTTPConnection(_PinnedMixin, http.client.HTTPConnection):
    pass


class PinnedHTTPSConnection(_PinnedMixin, http.client.HTTPSConnection):
    pass
