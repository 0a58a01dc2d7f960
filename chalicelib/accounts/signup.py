"""Sign-up: the account a visitor makes for themselves (Forgejo's ``SignUpPost``), for the
form at ``/user/sign_up`` (chalicelib/web/signup_pages.py).

Open only while ``[service] DISABLE_REGISTRATION`` is off.  The account is made by the
service adminCreateUser calls (``service.create_account``), so a sign-up meets the same
rules: Forgejo's name rules and reserved names, the e-mail's form, ``[security]
MIN_PASSWORD_LENGTH``, the API's text limits, and a name or address already taken (in
any case) refused by the conditional write that claims it, never by a read beforehand:
two sign-ups racing for one name make one account and tell the other the name is taken.

The new user is an ordinary one: active at once (Nimbus sends no mail, so nothing could
confirm an address), never asked to change the password, never a site admin.  Forgejo
makes the first account of an empty instance its admin; here the operator makes the
admin (``admin user create``, the local runtime's bootstrap), and counting every user
to find out whether one is the first is no request's business.

An address makes at most ``[ratelimit] SIGN_UPS_PER_HOUR`` accounts an hour: a token
bucket per address, in the Lambda instance like the general limits
(``http.ratelimit``; no AWS call), taken whether or not ``[ratelimit] ENABLED`` puts
every request under those too.  A request whose name or address the rules refuse
outright takes no token; one that reaches the write does, made or refused as taken.
"""
from __future__ import annotations

import math
import threading
from typing import TYPE_CHECKING

from chalicelib.accounts import service
from chalicelib.accounts.options import CreateUserOption
from chalicelib.errors import InvalidInput, NotFoundError, ServiceError
from chalicelib.http import input_rules, ratelimit
from chalicelib.settings import get_settings

if TYPE_CHECKING:
    from chalicelib.accounts.models import Account

# The buckets of this instance, by the hourly allowance they were made for.
_buckets: dict[int, ratelimit.TokenBuckets] = {}
_lock = threading.Lock()


class TooManySignUps(ServiceError):
    """This address made its allowance of accounts for now: ``retry_after`` seconds
    until it may make one more."""

    def __init__(self, retry_after: int):
        minutes = max(1, math.ceil(retry_after / 60))
        super().__init__("Too many accounts were made from your address: try again in "
                         f"{minutes} minute{'s' if minutes > 1 else ''}.")
        self.retry_after = retry_after


def registration_open() -> bool:
    return not get_settings().service.DISABLE_REGISTRATION


def sign_up(name: str, email: str, password: str, retype: str, *,
            address: str) -> Account:
    """The account ``address`` signs up for, or the refusal: NotFoundError while sign-up
    is closed, InvalidInput naming the field (``[Username]``, ``[Email]``, ``[Password]``,
    ``[Retype]``, or "user already exists" / "e-mail already in use" / "name is
    reserved"), TooManySignUps past the address's allowance."""
    if not registration_open():
        raise NotFoundError("registration is disabled")
    input_rules.check_body({"username": name, "email": email, "password": password},
                           "CreateUserOption")
    service.validate_name(name)
    service.validate_email(email)
    if password != retype:
        raise InvalidInput("[Retype]: the passwords do not match")
    _take_allowance(address)
    return service.create_account(
        CreateUserOption(username=name, email=email, password=password,
                         must_change_password=False), is_admin=False)


def _take_allowance(address: str) -> None:
    per_hour = get_settings().ratelimit.SIGN_UPS_PER_HOUR
    with _lock:
        buckets = _buckets.get(per_hour)
        if buckets is None:
            buckets = _buckets[per_hour] = ratelimit.TokenBuckets(per_hour / 60, per_hour)
    verdict = buckets.take("sign-up:" + (address or "unknown"))
    if not verdict.allowed:
        raise TooManySignUps(math.ceil(verdict.retry_after))


def forget_allowances() -> None:
    """Every address's allowance full again (tests)."""
    with _lock:
        _buckets.clear()
