"""Failed sign-ins in the table, counted per client address and per account name from
that address, one item per time window (``SIGNIN#<address>/W#<window>[#<name>]``).

Reads: one BatchGetItem of the current and the previous window's items (four keys),
which the gateway makes in the request's first preload batch when a request carries a
Basic password.  Writes: one ADD of each current item per failure (created by the
first one, ``expires`` set for the table's TTL, which removes old windows; reads never
depend on it: a window's number is in its key).  Writes are staged in the current unit
of work; the caller commits.
"""
from __future__ import annotations

from chalicelib.accounts.models import SignInFailures, keys
from chalicelib.store import unit_of_work

__all__ = ["counts", "stage_failure", "window_keys"]


def window_keys(address: str, lower_name: str, window: int) -> list[tuple[str, str]]:
    """The address's and the name's items, this window and the one before."""
    return [keys.sign_in_failures(address, w, name)
            for w in (window, window - 1) for name in ("", lower_name)]


def counts(wanted: list[tuple[str, str]]) -> list[int]:
    """The failures counted in each item (0 where there is none), read together (no read
    at all when the request's preload holds them)."""
    unit_of_work.prefetch(wanted)
    found = (unit_of_work.get(SignInFailures, key) for key in wanted)
    return [int(item.failures or 0) if item is not None else 0 for item in found]


def stage_failure(address: str, lower_name: str, window: int, expires: int) -> None:
    """One more failure in this window, for the address and for the name from it."""
    uow = unit_of_work.current()
    for name in ("", lower_name):
        item = SignInFailures(*keys.sign_in_failures(address, window, name))
        uow.add_counts(item, {"failures": 1}, label="sign-in failures",
                       actions=[SignInFailures.kind.set(SignInFailures),
                                SignInFailures.expires.set(expires)])
