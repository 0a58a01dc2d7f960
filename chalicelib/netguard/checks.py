"""The checks callers make: resolve a URL's host, decide it against the policy, and
return the pinned target (migrations, webhooks)."""
from __future__ import annotations

import ipaddress
import socket

from chalicelib.errors import InvalidInput
from chalicelib.netguard.connections import Target
from chalicelib.netguard.policy import (DISALLOWED_HOSTS, MIGRATION, WEBHOOK, IPAddress, Policy,
                                        Resolver, always_denied, canonical, migration_policy,
                                        webhook_policy)
from chalicelib.netguard.urls import ParsedURL, parse_url
from chalicelib.settings import Settings

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
            ip = canonical(ipaddress.ip_address(str(answer).split("%", 1)[0]))
        except ValueError:
            continue
        if ip not in found:
            found.append(ip)
    return tuple(found)



def _denied(policy: Policy, host: str, ip: IPAddress | None, port: int) -> InvalidInput:
    if policy.purpose == MIGRATION:
        return InvalidInput(DISALLOWED_HOSTS)
    dialed = f"[{ip}]:{port}" if ip is not None and ip.version == 6 else f"{ip}:{port}"
    return InvalidInput("webhook can only call allowed HTTP servers (check your "
                        f"webhook.ALLOWED_HOST_LIST setting), deny '{host}({dialed})'")


def _decide(parsed: ParsedURL, policy: Policy, resolver: Resolver | None) -> Target:
    if parsed.ip is not None:
        addresses: tuple[IPAddress, ...] = (canonical(parsed.ip),)
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
        if not allowed or blocked or always_denied(ip, parsed.port):
            raise _denied(policy, name, ip, parsed.port)
    return Target(parsed.url, parsed.scheme, parsed.host, parsed.port,
                  tuple(str(a) for a in addresses), parsed.request_path)


# --- public checks ----------------------------------------------------------------

def check_migration_url(url: str, settings: Settings | None = None, *,
                        resolver: Resolver | None = None) -> str:
    """Validate a user's clone address; return it normalized (trimmed, lower-case
    scheme and host, IDNA host).  Raises InvalidInput with Forgejo's texts."""
    parsed = parse_url(url, MIGRATION, allow_userinfo=False)
    return _decide(parsed, migration_policy(settings), resolver).url


def validate_webhook_url(url: str) -> str:
    """Creation-time check of a webhook URL's form only (Forgejo checks hosts at
    delivery); returns ``url`` unchanged so clients read back what they sent."""
    parse_url(url, WEBHOOK, allow_userinfo=True)
    return url


def check_webhook_url(url: str, settings: Settings | None = None, *,
                      resolver: Resolver | None = None, allow_unresolved: bool = False) -> str:
    """Delivery-time check against ``[webhook] ALLOWED_HOST_LIST``; returns the
    normalized URL.  Userinfo is allowed (Forgejo sends it as Basic auth).

    ``allow_unresolved`` (hook creation): a host name that does not resolve now passes,
    since it may by the time of a delivery, which checks again; one that resolves to a
    refused address does not."""
    parsed = parse_url(url, WEBHOOK, allow_userinfo=True)
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
    return _decide(parse_url(url, purpose, allow_userinfo=True), policy, resolver)


def pinned_connection_target(url: str, settings: Settings | None = None, *,
                             purpose: str = MIGRATION,
                             resolver: Resolver | None = None) -> tuple[str, int]:
    """``(ip, port)`` to connect to instead of resolving the host again."""
    target = check_target(url, purpose, settings, resolver=resolver)
    if not target.addresses:
        raise InvalidInput(f"dial tcp: lookup {target.host}: no such host")
    return target.addresses[0], target.port
