"""Sign-in throttling: failed password (and second factor) attempts counted per client
address and per account name from that address, shared by every Lambda instance
through the table (``sign_in_store``), and the password check that honours it.

The rule: over the last ``[security] LOGIN_FAILURE_WINDOW`` seconds (a sliding window:
the current window's count plus the previous one's, weighted by how much of it is still
inside), an address with ``LOGIN_FAILURES_PER_ADDRESS`` failures, or with
``LOGIN_FAILURES_PER_ACCOUNT_ADDRESS`` failures for one name, is refused (429 with
``Retry-After``) before any password is checked, right or wrong, so a guesser learns
nothing more once held back.  Nothing is counted against an account as a whole: what an
attacker does from one address never holds back its owner signing in from another
(docs/security.md, "Sign-in throttling").  An IPv6 address counts by its /64, which
one subscriber usually holds whole.

Only password sign-ins read or write the counters (the form, Basic on the API and git);
tokens and sessions never touch them.
"""
from __future__ import annotations

import ipaddress
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib import clock
from chalicelib.accounts import sign_in_store
from chalicelib.accounts.service import check_password_login
from chalicelib.settings import get_settings
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts.models import Account

# Names longer than any login are counted as this much of themselves (a key stays small).
MAX_NAME = 255


@dataclass(frozen=True)
class SignIn:
    """What a sign-in attempt came to: the account (the password, and the second factor
    where one was asked, were right), or else ``retry_after`` seconds when the address is
    held back (nothing was checked), or else a refusal (``refusal``: what to say when it
    is not the usual "wrong name or password")."""
    account: Account | None = None
    retry_after: int = 0
    refusal: str = ""

    @property
    def throttled(self) -> bool:
        return self.retry_after > 0


def address_key(address: str) -> str:
    """The counted form of a client address: IPv4 as it is, IPv6 by its /64."""
    try:
        parsed = ipaddress.ip_address((address or "").strip())
    except ValueError:
        return "unknown"
    if parsed.version == 6 and parsed.ipv4_mapped is None:
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(getattr(parsed, "ipv4_mapped", None) or parsed)


def _name_key(name: str) -> str:
    # No name is a name of its own (no login looks like it): never the address's item.
    return (name or "").strip().lower()[:MAX_NAME] or "(none)"


def _config():
    security = get_settings().security
    return (security.LOGIN_FAILURES_PER_ADDRESS, security.LOGIN_FAILURES_PER_ACCOUNT_ADDRESS,
            security.LOGIN_FAILURE_WINDOW)


def _on() -> bool:
    per_address, per_name, _ = _config()
    return bool(per_address or per_name)


def preload_keys(name: str, address: str) -> list[tuple[str, str]]:
    """The counters a password sign-in of ``name`` from ``address`` reads (for the
    request's first batched read); none when throttling is off."""
    if not _on():
        return []
    window = int(clock.now() // _config()[2])
    return sign_in_store.window_keys(address_key(address), _name_key(name), window)


def wait_for(limit: int, current: int, previous: int, elapsed: float, window: int) -> int:
    """Seconds until the sliding count ``previous * (1 - elapsed / window) + current``
    drops below ``limit`` with no further failure; 0 when it is below already (or the
    limit is off).  ``elapsed``: seconds into the current window."""
    if not limit or previous * (1 - elapsed / window) + current < limit:
        return 0
    if current >= limit:
        # Only after this window ends, once the current count, carried as the previous
        # one, has faded enough: current * (1 - t / window) < limit, t past that point.
        later = window * (1 - limit / current)
        return math.floor(window - elapsed + later) + 1
    # Within this window, once the previous one's weight has faded enough.
    until = window * (1 - (limit - current) / previous)
    return max(1, math.floor(until - elapsed) + 1)


def retry_after(name: str, address: str) -> int:
    """Seconds the address must wait before signing in as ``name`` again (0: it may)."""
    if not _on():
        return 0
    per_address, per_name, length = _config()
    now = clock.now()
    window, elapsed = int(now // length), now % length
    here, named, here_before, named_before = sign_in_store.counts(
        sign_in_store.window_keys(address_key(address), _name_key(name), window))
    return max(wait_for(per_address, here, here_before, elapsed, length),
               wait_for(per_name, named, named_before, elapsed, length))


def record_failure(name: str, address: str) -> None:
    """Count one failure for the address and for the name from it (one write)."""
    if not _on():
        return
    length = _config()[2]
    window = int(clock.now() // length)
    with unit_of_work.writing():
        # Kept until the window after this one has ended: its count weighs on that one.
        sign_in_store.stage_failure(address_key(address), _name_key(name), window,
                                    expires=(window + 2) * length)


def password_sign_in(name: str, password: str, *, address: str) -> SignIn:
    """The password check every sign-in takes (the form, Basic on the API and git):
    refused unchecked while the address is held back, counted when wrong.  The second
    factor is not asked here: the callers that sign in ask it (``sign_in``)."""
    wait = retry_after(name, address)
    if wait:
        return SignIn(retry_after=wait)
    account = check_password_login(name, password) if name and password else None
    if account is None:
        record_failure(name, address)
    return SignIn(account=account)
