"""Signing in with a password when the account may have a second factor: Basic on the
API and git (Forgejo's ``services/auth/basic.go`` and the git HTTP handler's check), and
the web form's second step.

- API and git, Basic with a password, for an account with a security key: refused with
  Forgejo's message ("Basic authorization is not allowed while having security keys
  enrolled"), before any one-time code is looked at; tokens work.
- API, Basic with a password: for an account with TOTP on, the request must carry a
  current code in ``X-Forgejo-OTP`` (or ``X-Gitea-OTP``); without one, or with a
  wrong one, the answer is Forgejo's 401 ``invalid provided OTP``.  As in Forgejo the
  header's code is only checked, not used up (every request of a script carries it).
- git over HTTP, Basic with a password: refused for such an account with Forgejo's
  message, code or not; tokens work.
- the web form: the password, then a second step that takes a security key's signature
  (``security_keys``), a current code (used up: it cannot sign in again) or one of the
  recovery codes (each works once).

Every wrong password, code, recovery code or key's answer counts as a failed sign-in of
that name from that address (``login_throttle``), and every attempt is refused unchecked
while the address is held back.  The right password of an account with a key, refused
on Basic, is no failure: it guessed nothing.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.accounts import login_throttle, security_keys, two_factor
from chalicelib.accounts.login_throttle import SignIn

if TYPE_CHECKING:
    from chalicelib.accounts.models import Account

# Forgejo's words (services/auth/basic.go; routers/web/repo/githttp.go).
INVALID_OTP = "invalid provided OTP"
# Forgejo's services/auth/basic.go, on the API and git alike.
KEYS_REFUSE_BASIC = "Basic authorization is not allowed while having security keys enrolled"
GIT_NEEDS_TOKEN = ("Users with two-factor authentication enabled cannot perform HTTP/HTTPS "
                   "operations via plain username and password. Please create and use a "
                   "personal access token on the user settings page")


def basic_sign_in(name: str, password: str, *, address: str, otp: str = "",
                  git: bool = False) -> SignIn:
    """Basic with a password, on the API (``git`` False: ``otp`` is the request's OTP
    header) or on git over HTTP."""
    signed = login_throttle.password_sign_in(name, password, address=address)
    account = signed.account
    if account is not None and security_keys.has_security_keys(account):
        return SignIn(refusal=KEYS_REFUSE_BASIC)
    if account is None or not two_factor.has_totp(account):
        return signed
    if git:
        return SignIn(refusal=GIT_NEEDS_TOKEN)
    if not otp or not two_factor.passcode_valid(account, otp):
        login_throttle.record_failure(name, address)
        return SignIn(refusal=INVALID_OTP)
    return signed


def _second_step(account: Account, proof: str, *, address: str, check) -> SignIn:
    wait = login_throttle.retry_after(account.login, address)
    if wait:
        return SignIn(retry_after=wait)
    if proof and check(account, proof):
        return SignIn(account=account)
    login_throttle.record_failure(account.login, address)
    return SignIn()


def second_factor_sign_in(account: Account, passcode: str, *, address: str) -> SignIn:
    """The form's second step with a code of the authenticator (used up when right)."""
    return _second_step(account, passcode, address=address, check=two_factor.accept_passcode)


def recovery_sign_in(account: Account, code: str, *, address: str) -> SignIn:
    """The form's second step with a recovery code (used up when right)."""
    return _second_step(account, code, address=address, check=two_factor.use_recovery_code)


def security_key_sign_in(account: Account, credential: str, *, address: str) -> SignIn:
    """The form's second step with a security key's answer (its challenge used up)."""
    return _second_step(account, credential, address=address,
                        check=security_keys.accept_assertion)
