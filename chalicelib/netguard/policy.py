"""The address classes, host lists and policies the checks apply: which addresses are
external, which are always refused, and what the settings allow (``chalicelib.netguard``
says the rules)."""
from __future__ import annotations

import fnmatch
import ipaddress
import os
from dataclasses import dataclass, field
from typing import Callable, Iterable, Union

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

def canonical(ip: IPAddress) -> IPAddress:
    """IPv4-mapped IPv6 (::ffff:a.b.c.d) is the IPv4 address it carries."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def _in(ip: IPAddress, networks: tuple) -> bool:
    return any(ip.version == n.version and ip in n for n in networks)


def is_loopback(ip: IPAddress) -> bool:
    return _in(canonical(ip), _LOOPBACK)


def is_private(ip: IPAddress) -> bool:
    """RFC 1918 and IPv6 unique-local (fc00::/7), as Forgejo's "private"."""
    return _in(canonical(ip), _PRIVATE)


def is_external(ip: IPAddress) -> bool:
    """Public unicast: not private, loopback, link-local, CGNAT, multicast, unspecified,
    documentation or reserved (IPv4-mapped addresses are judged as IPv4)."""
    ip = canonical(ip)
    if ip.version == 4:
        return not _in(ip, _NOT_EXTERNAL_V4)
    return ip in _GLOBAL_UNICAST_V6 and not _in(ip, _NOT_EXTERNAL_V6)


def _runtime_api_endpoint() -> tuple[IPAddress, int] | None:
    value = os.environ.get("AWS_LAMBDA_RUNTIME_API", "")
    host, _, port = value.rpartition(":")
    try:
        return canonical(ipaddress.ip_address(host.strip("[]"))), int(port)
    except ValueError:
        return None


def always_denied(ip: IPAddress, port: int) -> bool:
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
        ip = canonical(ip)
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
