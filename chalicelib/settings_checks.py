"""The checks settings must pass once loaded (``chalicelib.settings.load_settings``): each
refusal names its section and key, so a typo stops the process at start with a clear
message instead of failing a request later."""
from __future__ import annotations

from urllib.parse import urlsplit

from chalicelib.settings_sources import SettingsError


def validate(settings) -> None:
    """Refuse settings that cannot work, naming the section and key (SettingsError)."""
    root = urlsplit(settings.server.ROOT_URL)
    if root.scheme not in ("http", "https") or not root.netloc:
        raise SettingsError(f"[server] ROOT_URL: expected an http(s) URL, got {settings.server.ROOT_URL!r}")
    if settings.signing.FORMAT not in ("openpgp", "ssh"):
        raise SettingsError(f"[repository.signing] FORMAT: expected openpgp or ssh, got {settings.signing.FORMAT!r}")
    if not 1 <= settings.api.MAX_RESPONSE_ITEMS or not 1 <= settings.api.DEFAULT_PAGING_NUM:
        raise SettingsError("[api] MAX_RESPONSE_ITEMS and DEFAULT_PAGING_NUM must be at least 1")
    cost = settings.security.PASSWORD_HASH_COST
    if cost < 2 or cost & (cost - 1):
        raise SettingsError(f"[security] PASSWORD_HASH_COST: expected a power of two, got {cost}")
    security = settings.security
    if min(security.LOGIN_FAILURES_PER_ADDRESS, security.LOGIN_FAILURES_PER_ACCOUNT_ADDRESS,
           security.LOGIN_FAILURE_WINDOW - 1) < 0:
        raise SettingsError("[security] LOGIN_FAILURES_*: expected >= 0, LOGIN_FAILURE_WINDOW >= 1")
    limits = settings.ratelimit
    if min(limits.ADDRESS_PER_MINUTE, limits.ADDRESS_BURST, limits.CREDENTIAL_PER_MINUTE,
           limits.CREDENTIAL_BURST, limits.SIGN_UPS_PER_HOUR) < 1:
        raise SettingsError("[ratelimit] *_PER_MINUTE, *_BURST and SIGN_UPS_PER_HOUR must be "
                            "at least 1")
    if settings.service.REGISTER_EMAIL_CONFIRM:
        raise SettingsError("[service] REGISTER_EMAIL_CONFIRM: Nimbus sends no mail; set it false")
    if settings.attachment.MAX_SIZE < 0:
        raise SettingsError(f"[attachment] MAX_SIZE: expected MiB >= 0, got {settings.attachment.MAX_SIZE}")
    if settings.api.STATUS_ROUTES not in ("seed", "forgejo"):
        raise SettingsError(f"[api] STATUS_ROUTES: expected seed or forgejo, got {settings.api.STATUS_ROUTES!r}")
    if not 1 <= settings.server.SSH_PORT <= 65535:
        raise SettingsError(f"[server] SSH_PORT: out of range: {settings.server.SSH_PORT}")
    if settings.server.LFS_MAX_FILE_SIZE < 0:
        raise SettingsError("[server] LFS_MAX_FILE_SIZE: expected bytes >= 0 (0: no limit), "
                            f"got {settings.server.LFS_MAX_FILE_SIZE}")
    oauth = settings.oauth2
    if min(oauth.ACCESS_TOKEN_EXPIRATION_TIME, oauth.REFRESH_TOKEN_EXPIRATION_TIME,
           oauth.AUTHORIZATION_CODE_SECONDS) < 1:
        raise SettingsError("[oauth2] token and code lifetimes must be at least 1")
    if settings.server.LFS_LOCKS_PAGING_NUM < 1:
        raise SettingsError("[server] LFS_LOCKS_PAGING_NUM: expected at least 1, "
                            f"got {settings.server.LFS_LOCKS_PAGING_NUM}")
    days = settings.repository
    if min(days.DELETED_RETENTION_DAYS, days.REF_HISTORY_DAYS - 1,
           settings.audit.RETENTION_DAYS - 1) < 0:
        raise SettingsError("[repository] DELETED_RETENTION_DAYS: expected days >= 0; "
                            "[repository] REF_HISTORY_DAYS and [audit] RETENTION_DAYS: >= 1")
    bus = settings.events.EVENTBRIDGE_BUS
    if bus and (len(bus) > 256 or not all(c.isalnum() or c in "._-" for c in bus)):
        raise SettingsError(f"[events] EVENTBRIDGE_BUS: expected the name of a bus of the "
                            f"account and region, got {bus!r}")
