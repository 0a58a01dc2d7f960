"""Which user-supplied URLs the service may open a connection to.

Every outbound connection to an address a user gave us (migration clone addresses,
LFS endpoints, webhook targets) goes through this module, so the rules live in one
place:

* **Form.** Migrations take ``http``, ``https`` and ``git`` URLs only: ``ssh`` and
  scp-style ``user@host:path`` addresses, ``file:`` URLs and bare paths are refused,
  and so is a URL carrying ``user:password@`` (credentials travel in the separate
  ``auth_*`` fields and are added with :func:`add_credentials`).  Webhooks take
  ``http`` and ``https``.  Control characters (raw, or ``%0d``/``%0a``) are refused
  everywhere, because Python's ``urlsplit`` silently deletes CR/LF/TAB.
* **Host.** The host name is resolved and every address it resolves to must pass:
  migrations use ``[migrations] ALLOWED_DOMAINS`` / ``BLOCKED_DOMAINS`` /
  ``ALLOW_LOCALNETWORKS``; webhooks use ``[webhook] ALLOWED_HOST_LIST``.  Without an
  explicit allow list only *external* addresses are reachable (see
  :func:`is_external`).  A host name that an allow-list pattern names explicitly is
  trusted whatever it resolves to, as in Forgejo, so operators can allow a private
  server by name.
* **Always refused**, whatever the settings say (even ``*``): the cloud credential
  endpoints (EC2/ECS/EKS metadata addresses) and the Lambda runtime API endpoint
  named by ``AWS_LAMBDA_RUNTIME_API``.

Differences from Forgejo, on purpose: Forgejo accepts a host if *any* resolved
address is allowed; here *every* resolved address must be, so a name answering with
one public and one private address is refused.  Forgejo leaves IPv4 ``0.0.0.0/8``,
CGNAT, documentation and benchmark ranges in "external"; here they are not.

Callers that connect (the duties this module cannot do for them):

1. **Connect to the checked address, never re-resolve the name** (DNS rebinding: a
   second lookup can answer differently).  Use :func:`check_target` and
   ``Target.open_connection()`` (``http.client`` connections that dial the checked
   IPs but send the host name in ``Host``, SNI and certificate checks), or take
   ``(ip, port)`` from :func:`pinned_connection_target` for other clients.  With
   urllib3 that is ``HTTPSConnectionPool(ip, port, server_hostname=host,
   assert_hostname=host)`` plus a ``Host`` header.
2. **Do not follow redirects automatically.**  ``http.client`` never does; other
   clients must be configured not to.  A migration treats any 3xx as a failure (Forgejo
   clones with redirects prohibited).  A webhook that wants to follow a redirect must
   pass the ``Location`` (joined to the request URL) through :func:`check_target`
   again and connect to the new pinned address; at most 10 hops, like Go's client.
3. **Do not use proxies** with pinned connections (the proxy would resolve the name).
4. **Pass error texts through** :func:`redact` before logging or returning them.
"""
from __future__ import annotations

import fnmatch
import http.client
import ipaddress
import os
import re
import socket
import ssl
from dataclasses import dataclass, field
from typing import Callable, Iterable, Union
from urllib.parse import quote, urlsplit, urlunsplit

from chalicelib.errors import InvalidInput
from chalicelib.settings import Settings, get_settings

IPAddress = Union[ipaddress.IPv4Address, ipaddress.IPv6Address]
Resolver = Callable[[str], Iterable[object]]

MIGRATION = "migration"
WEBHOOK = "webhook"

# Forgejo's texts (models/error.go, routers/api/v1/repo/migrate.go, hostmatcher).
DISALLOWED_HOSTS = "You can not import from disallowed hosts."
LOCAL_IMPORT_REFUSED = "You are not allowed to import local repositories."
URL_HAS_CREDENTIALS = "The URL contains credentials."
INVALID_WEBHOOK_URL = "Invalid url"

_DEFAULT_PORTS = {"http": 80, "https": 443, "git": 9418}
_MIGRATION_SCHEMES = ("http", "https", "git")
_WEBHOOK_SCHEMES = ("http", "https")

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_ENCODED_CRLF = re.compile(r"%0[ad]", re.IGNORECASE)
_SCP = re.compile(r"^(?:[^@/:]+@)?(?P<host>[^@/:]+):")
_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]{0,62})$")
_NUMERIC_LABEL = re.compile(r"^(?:[0-9]+|0x[0-9a-f]*)$")
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^\s/?#]*@")


def _nets(*cidrs: str) -> tuple:
    return tuple(ipaddress.ip_network(c) for c in cidrs)


_LOOPBACK = _nets("127.0.0.0/8", "::1/128")
_PRIVATE = _nets("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")
# IPv4 special-purpose ranges that are not reachable "on the Internet" (IANA registry):
# this-network, private, CGNAT, loopback, link-local, protocol assignments,
# documentation, 6to4 relay, benchmarking, multicast, reserved and broadcast.
_NOT_EXTERNAL_V4 = _nets("0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8",
                         "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24",
                         "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15",
                         "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4")
# IPv6 must be global unicast (2000::/3); inside it these are still special: protocol
# assignments (Teredo, ORCHID, benchmarking), documentation, 6to4 (wraps any IPv4).
_GLOBAL_UNICAST_V6 = ipaddress.ip_network("2000::/3")
_NOT_EXTERNAL_V6 = _nets("2001::/23", "2001:db8::/32", "2002::/16", "3fff::/20")
# Credential endpoints: never reachable, whatever the settings say.
_ALWAYS_DENIED = frozenset(ipaddress.ip_address(a) for a in (
    "169.254.169.254",   # EC2 instance metadata (also GCP/Azure)
    "169.254.170.2",     # ECS task credentials
    "169.254.170.23",    # EKS pod identity
    "fd00:ec2::254",     # EC2 instance metadata over IPv6
    "fd00:ec2::23",      # EKS pod identity over IPv6
))


# --- address classes --------------------------------------------------------------

def _canonical(ip: IPAddress) -> IPAddress:
    """IPv4-mapped IPv6 (::ffff:a.b.c.d) is the IPv4 address it carries."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def _in(ip: IPAddress, networks: tuple) -> bool:
    return any(ip.version == n.version and ip in n for n in networks)


def is_loopback(ip: IPAddress) -> bool:
    return _in(_canonical(ip), _LOOPBACK)


def is_private(ip: IPAddress) -> bool:
    """RFC 1918 and IPv6 unique-local (fc00::/7), as Forgejo's "private"."""
    return _in(_canonical(ip), _PRIVATE)


def is_external(ip: IPAddress) -> bool:
    """Public unicast: not private, loopback, link-local, CGNAT, multicast, unspecified,
    documentation or reserved (IPv4-mapped addresses are judged as IPv4)."""
    ip = _canonical(ip)
    if ip.version == 4:
        return not _in(ip, _NOT_EXTERNAL_V4)
    return ip in _GLOBAL_UNICAST_V6 and not _in(ip, _NOT_EXTERNAL_V6)


def _runtime_api_endpoint() -> tuple[IPAddress, int] | None:
    value = os.environ.get("AWS_LAMBDA_RUNTIME_API", "")
    host, _, port = value.rpartition(":")
    try:
        return _canonical(ipaddress.ip_address(host.strip("[]"))), int(port)
    except ValueError:
        return None


def _always_denied(ip: IPAddress, port: int) -> bool:
    return ip in _ALWAYS_DENIED or _runtime_api_endpoint() == (ip, port)


# --- host lists -------------------------------------------------------------------

@dataclass(frozen=True)
class HostList:
    """A parsed host list: glob patterns, CIDR networks and built-in classes."""
    patterns: tuple[str, ...] = ()
    networks: tuple = ()
    builtins: frozenset = frozenset()

    def __bool__(self) -> bool:
        return bool(self.patterns or self.networks or self.builtins)

    def matches_name(self, host: str) -> bool:
        """Whether the host name (or IP text) itself is listed."""
        if "*" in self.builtins:
            return True
        host = host.lower().rstrip(".")
        return any(fnmatch.fnmatchcase(host, p) for p in self.patterns)

    def matches_ip(self, ip: IPAddress) -> bool:
        ip = _canonical(ip)
        if "*" in self.builtins:
            return True
        if ("external" in self.builtins and is_external(ip)) \
                or ("private" in self.builtins and is_private(ip)) \
                or ("loopback" in self.builtins and is_loopback(ip)):
            return True
        if _in(ip, self.networks):
            return True
        text = str(ip)
        return any(fnmatch.fnmatchcase(text, p) for p in self.patterns)


def _entries(value: str) -> list[str]:
    # Go's filepath.Match writes a negated class [^...]; fnmatch writes [!...]
    return [e.strip().lower().replace("[^", "[!") for e in (value or "").split(",")
            if e.strip()]


def parse_domain_list(value: str) -> HostList:
    """``[migrations] ALLOWED_DOMAINS``/``BLOCKED_DOMAINS``: glob patterns; ``*`` = all."""
    entries = _entries(value)
    return HostList(patterns=tuple(e for e in entries if e != "*"),
                    builtins=frozenset({"*"}) if "*" in entries else frozenset())


def parse_host_list(value: str) -> HostList:
    """``[webhook] ALLOWED_HOST_LIST``: ``external``, ``private``, ``loopback``, ``*``,
    CIDRs and host-name globs; empty means ``external``."""
    patterns, networks, builtins = [], [], set()
    for entry in _entries(value) or ["external"]:
        if entry in ("external", "private", "loopback", "*"):
            builtins.add(entry)
            continue
        if "/" in entry:
            try:
                networks.append(ipaddress.ip_network(entry, strict=False))
                continue
            except ValueError:
                pass
        patterns.append(entry)
    return HostList(tuple(patterns), tuple(networks), frozenset(builtins))


@dataclass(frozen=True)
class Policy:
    purpose: str
    allow: HostList
    block: HostList = field(default_factory=HostList)


def migration_policy(settings: Settings | None = None) -> Policy:
    m = (settings or get_settings()).migrations
    allow = parse_domain_list(m.ALLOWED_DOMAINS)
    builtins = set(allow.builtins)
    if not allow:
        builtins.add("external")
    if m.ALLOW_LOCALNETWORKS:
        builtins |= {"private", "loopback"}
    return Policy(MIGRATION, HostList(allow.patterns, allow.networks, frozenset(builtins)),
                  parse_domain_list(m.BLOCKED_DOMAINS))


def webhook_policy(settings: Settings | None = None) -> Policy:
    return Policy(WEBHOOK, parse_host_list((settings or get_settings()).webhook.ALLOWED_HOST_LIST))


# --- parsing ----------------------------------------------------------------------

@dataclass(frozen=True)
class _Parsed:
    url: str                    # normalized
    scheme: str
    host: str                   # ASCII, lower case, IPv6 without brackets
    ip: IPAddress | None        # set when the host is an IP literal
    port: int                   # explicit or the scheme's default
    request_path: str


def _printable(text: str) -> str:
    # escape first, so that a control character cannot cut a URL short for redact()
    return redact(_CONTROL.sub(lambda m: "\\x%02x" % ord(m.group()), text))


def _protocol_refused(host: str) -> InvalidInput:
    return InvalidInput(f"migration/cloning from '{_printable(host)}' is not allowed: "
                        "the provided url protocol is not allowed")


def _url_refused(host: str) -> InvalidInput:
    return InvalidInput(f"migration/cloning from '{_printable(host)}' is not allowed: "
                        "the provided url is invalid")


def _normalize_host(raw: str) -> tuple[str, IPAddress | None]:
    """ASCII lower-case host name, or an IP literal; ValueError when malformed."""
    if raw.startswith("["):
        if not raw.endswith("]") or "%" in raw:
            raise ValueError("bad IPv6 literal")
        return raw[1:-1].lower(), ipaddress.IPv6Address(raw[1:-1])
    if not raw:
        raise ValueError("empty host")
    try:
        host = raw.encode("idna").decode("ascii") if not raw.isascii() else raw
    except UnicodeError as exc:
        raise ValueError("bad international host name") from exc
    host = host.lower()
    try:   # fullwidth digits become an IP literal only after the IDNA step
        return host, ipaddress.IPv4Address(host)
    except ValueError:
        pass
    labels = host[:-1].split(".") if host.endswith(".") else host.split(".")
    if len(host) > 254 or not all(_LABEL.match(label) for label in labels):
        raise ValueError("bad host name")
    # 127.1, 0x7f.0.0.1, 2130706433: numeric forms some resolvers read as IPv4
    if _NUMERIC_LABEL.match(labels[-1]):
        raise ValueError("numeric host name")
    return host, None


def _split_hostport(hostport: str) -> tuple[str, str]:
    if hostport.startswith("["):
        end = hostport.find("]")
        if end < 0:
            raise ValueError("unterminated IPv6 literal")
        host, rest = hostport[:end + 1], hostport[end + 1:]
        if rest and not rest.startswith(":"):
            raise ValueError("junk after IPv6 literal")
        return host, rest[1:]
    host, sep, port = hostport.rpartition(":")
    return (host, port) if sep else (hostport, "")


def _parse(raw: str, purpose: str, *, allow_userinfo: bool) -> _Parsed:
    """Check the form of ``raw`` (no DNS); raise InvalidInput with the purpose's text."""
    migration = purpose == MIGRATION
    # Forgejo trims clone addresses but takes webhook URLs as they are.
    text = (raw or "").strip() if migration else (raw or "")

    def invalid(host: str) -> InvalidInput:
        return _url_refused(host) if migration else InvalidInput(INVALID_WEBHOOK_URL)

    if _CONTROL.search(text) or _ENCODED_CRLF.search(text) or text != text.strip():
        raise invalid(text)
    if "://" not in text:
        if not migration:
            raise InvalidInput(INVALID_WEBHOOK_URL)
        if text[:5].lower() == "file:":
            raise InvalidInput(LOCAL_IMPORT_REFUSED)
        scp = _SCP.match(text)
        if scp:          # user@host:path is ssh, which migrations do not take
            raise _protocol_refused(scp["host"])
        raise InvalidInput(LOCAL_IMPORT_REFUSED)
    try:
        parts = urlsplit(text)
    except ValueError:
        raise invalid(text) from None
    scheme = parts.scheme.lower()
    hostport = parts.netloc.rpartition("@")[2]
    if scheme in ("", "file"):
        if migration:
            raise InvalidInput(LOCAL_IMPORT_REFUSED)
        raise InvalidInput(INVALID_WEBHOOK_URL)
    if scheme not in (_MIGRATION_SCHEMES if migration else _WEBHOOK_SCHEMES):
        if migration:
            raise _protocol_refused(hostport)
        raise InvalidInput(INVALID_WEBHOOK_URL)
    userinfo = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else None
    if userinfo is not None and not allow_userinfo:
        raise InvalidInput(URL_HAS_CREDENTIALS)
    try:
        raw_host, raw_port = _split_hostport(hostport)
        host, ip = _normalize_host(raw_host)
        if raw_port and not raw_port.isdigit():
            raise ValueError("bad port")
        port = int(raw_port) if raw_port else _DEFAULT_PORTS[scheme]
        if not 0 < port < 65536:
            raise ValueError("port out of range")
    except ValueError:
        raise invalid(hostport) from None
    netloc = f"[{host}]" if ip is not None and ip.version == 6 else host
    if raw_port:
        netloc += f":{port}"
    if userinfo is not None:
        netloc = f"{userinfo}@{netloc}"
    url = urlunsplit((scheme, netloc, parts.path, parts.query, parts.fragment))
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return _Parsed(url, scheme, host, ip, port, path)


# --- resolution and decision ------------------------------------------------------

def system_resolver(host: str) -> list[str]:
    """The addresses the system resolver gives for ``host`` (socket.getaddrinfo)."""
    return [info[4][0] for info in socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)]


def _resolve(host: str, resolver: Resolver | None) -> tuple[IPAddress, ...]:
    try:
        answers = list((resolver or system_resolver)(host))
    except (OSError, UnicodeError):
        return ()
    found: list[IPAddress] = []
    for answer in answers:
        try:
            ip = _canonical(ipaddress.ip_address(str(answer).split("%", 1)[0]))
        except ValueError:
            continue
        if ip not in found:
            found.append(ip)
    return tuple(found)


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


def _denied(policy: Policy, host: str, ip: IPAddress | None, port: int) -> InvalidInput:
    if policy.purpose == MIGRATION:
        return InvalidInput(DISALLOWED_HOSTS)
    dialed = f"[{ip}]:{port}" if ip is not None and ip.version == 6 else f"{ip}:{port}"
    return InvalidInput("webhook can only call allowed HTTP servers (check your "
                        f"webhook.ALLOWED_HOST_LIST setting), deny '{host}({dialed})'")


def _decide(parsed: _Parsed, policy: Policy, resolver: Resolver | None) -> Target:
    if parsed.ip is not None:
        addresses: tuple[IPAddress, ...] = (_canonical(parsed.ip),)
    else:
        addresses = _resolve(parsed.host, resolver)
    name = parsed.host.rstrip(".")
    name_allowed = policy.allow.matches_name(name)
    name_blocked = policy.block.matches_name(name)
    if not addresses:
        if policy.purpose == WEBHOOK:
            raise InvalidInput(f"dial tcp: lookup {name}: no such host")
        if name_allowed and not name_blocked:
            return Target(parsed.url, parsed.scheme, parsed.host, parsed.port, (),
                          parsed.request_path)
        raise _denied(policy, name, None, parsed.port)
    for ip in addresses:
        allowed = name_allowed or policy.allow.matches_ip(ip)
        blocked = name_blocked or policy.block.matches_ip(ip)
        if not allowed or blocked or _always_denied(ip, parsed.port):
            raise _denied(policy, name, ip, parsed.port)
    return Target(parsed.url, parsed.scheme, parsed.host, parsed.port,
                  tuple(str(a) for a in addresses), parsed.request_path)


# --- public checks ----------------------------------------------------------------

def check_migration_url(url: str, settings: Settings | None = None, *,
                        resolver: Resolver | None = None) -> str:
    """Validate a user's clone address; return it normalized (trimmed, lower-case
    scheme and host, IDNA host).  Raises InvalidInput with Forgejo's texts."""
    parsed = _parse(url, MIGRATION, allow_userinfo=False)
    return _decide(parsed, migration_policy(settings), resolver).url


def validate_webhook_url(url: str) -> str:
    """Creation-time check of a webhook URL's form only (Forgejo checks hosts at
    delivery); returns ``url`` unchanged so clients read back what they sent."""
    _parse(url, WEBHOOK, allow_userinfo=True)
    return url


def check_webhook_url(url: str, settings: Settings | None = None, *,
                      resolver: Resolver | None = None, allow_unresolved: bool = False) -> str:
    """Delivery-time check against ``[webhook] ALLOWED_HOST_LIST``; returns the
    normalized URL.  Userinfo is allowed (Forgejo sends it as Basic auth).

    ``allow_unresolved`` (hook creation): a host name that does not resolve now passes,
    since it may by the time of a delivery, which checks again; one that resolves to a
    refused address does not."""
    parsed = _parse(url, WEBHOOK, allow_userinfo=True)
    policy = webhook_policy(settings)
    if allow_unresolved and parsed.ip is None and not _resolve(parsed.host, resolver):
        return parsed.url
    return _decide(parsed, policy, resolver).url


def check_target(url: str, purpose: str, settings: Settings | None = None, *,
                 resolver: Resolver | None = None) -> Target:
    """Resolve and check ``url`` for connecting now; the result pins the addresses.

    For migrations this is meant for the URL *after* :func:`add_credentials`, so
    userinfo is tolerated here; user input must go through check_migration_url first.
    """
    if purpose == MIGRATION:
        policy = migration_policy(settings)
    elif purpose == WEBHOOK:
        policy = webhook_policy(settings)
    else:
        raise ValueError(f"unknown purpose {purpose!r}")
    return _decide(_parse(url, purpose, allow_userinfo=True), policy, resolver)


def pinned_connection_target(url: str, settings: Settings | None = None, *,
                             purpose: str = MIGRATION,
                             resolver: Resolver | None = None) -> tuple[str, int]:
    """``(ip, port)`` to connect to instead of resolving the host again."""
    target = check_target(url, purpose, settings, resolver=resolver)
    if not target.addresses:
        raise InvalidInput(f"dial tcp: lookup {target.host}: no such host")
    return target.addresses[0], target.port


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


# --- credentials ------------------------------------------------------------------

def add_credentials(url: str, username: str | None, password_or_token: str | None) -> str:
    """Put ``username:secret@`` into an http(s) URL, percent-encoded.

    Nothing happens when both are empty, or for git:// (the git daemon has no
    authentication).  For a token, pass ``("oauth2", token)`` as Forgejo does.
    """
    username, secret = username or "", password_or_token or ""
    if not username and not secret:
        return url
    if _CONTROL.search(username) or _CONTROL.search(secret):
        raise InvalidInput("The credentials contain control characters.")
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "git":
        return url
    if scheme not in ("http", "https"):
        raise _protocol_refused(parts.netloc.rpartition("@")[2])
    userinfo = quote(username, safe="") + ":" + quote(secret, safe="")
    netloc = userinfo + "@" + parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Drop ``userinfo@`` from every URL in ``text``; also mask the given secrets
    (as written and percent-encoded) wherever they appear."""
    text = _URL_USERINFO.sub(r"\1", text or "")
    for secret in secrets:
        if secret:
            for form in {secret, quote(secret, safe="")}:
                text = text.replace(form, "******")
    return text
