"""Gitea-style INI configuration with environment overrides, read into one typed object.

Sources, later ones winning:
1. defaults below;
2. the INI file named by ``NIMBUS_CONFIG`` (optional);
3. ``NIMBUS__<SECTION>__<KEY>`` environment variables.  Section names are
   case-insensitive; characters that cannot appear in a variable name are written
   ``_0X<hex>_`` (``NIMBUS__REPOSITORY_0X2E_SIGNING__FORMAT`` sets
   ``[repository.signing] FORMAT``), as Gitea's environment-to-ini does.

Bad values raise :class:`SettingsError` at start, naming the section and key.
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
from typing import Iterator, Mapping
from urllib.parse import urlsplit

from chalicelib.settings_checks import validate
from chalicelib.settings_sources import ENV_PREFIX, SettingsError, convert, env_overrides, read_ini

__all__ = ["ENV_PREFIX", "SettingsError", "Settings", "get_settings", "load_settings",
           "reset_settings_cache", "overridden"]

class _Section:
    """The typed form of one INI section: its keys are the class's annotated attributes,
    their defaults the class's values, and an instance holds what the configuration set.
    Frozen, compared and printed by value, like a frozen dataclass; plain attributes
    because a cold start would spend 10 ms making sixteen dataclasses' methods."""

    SECTION = ""
    FIELDS: dict[str, str] = {}   # key -> its type's name ("str", "int", "bool")

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.FIELDS = {name: str(kind) for name, kind in cls.__dict__.get("__annotations__", {}).items()}

    def __init__(self, **values):
        unknown = set(values) - self.FIELDS.keys()
        if unknown:
            raise TypeError(f"[{self.SECTION}] has no keys {sorted(unknown)}")
        for name in self.FIELDS:
            object.__setattr__(self, name, values.get(name, getattr(type(self), name)))

    def __setattr__(self, name, value):
        raise AttributeError(f"settings are read-only: [{self.SECTION}] {name}")

    def __eq__(self, other):
        return type(other) is type(self) and vars(other) == vars(self)

    def __hash__(self):
        return hash((type(self), tuple(vars(self).items())))

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in vars(self).items())})"

    def replace(self, **changes):
        return type(self)(**{**vars(self), **changes})


def _section(name: str):
    """Mark a class as the typed form of INI section ``name`` (a ``_Section``)."""
    def wrap(cls):
        made = type(cls.__name__, (_Section,), {k: v for k, v in cls.__dict__.items()
                                                 if k not in ("__dict__", "__weakref__")})
        made.SECTION = name
        return made
    return wrap


@_section("server")
class ServerSettings:
    ROOT_URL: str = "http://127.0.0.1:8000/"
    DOMAIN: str = ""
    SSH_DOMAIN: str = ""
    SSH_PORT: int = 22
    SSH_USER: str = "git"
    # Lambda serves HTTP only; set false when an SSH front end exists for ssh_url to name.
    DISABLE_SSH: bool = True
    APP_NAME: str = "Nimbus"
    # Set by the template when a custom domain puts CloudFront in front (infra/domain.py):
    # the distribution sends it in X-Nimbus-Edge, and only a request carrying it has its
    # client address read from X-Forwarded-For (CloudFront's viewer) instead of the edge's.
    EDGE_SECRET: str = ""
    # Payload limits of the deployed front door (docs/git-at-scale.md).  In AWS they are
    # API Gateway's and Lambda's own; the local runtime applies them only when
    # ENFORCE_AWS_LIMITS is on, so a laptop sees the failures a deployment would.
    # Request and buffered response: Lambda's 6 MB, counted on the proxy event/result
    # JSON (so base64 included); streamed: Lambda response streaming's 200 MB.
    ENFORCE_AWS_LIMITS: bool = False
    REQUEST_LIMIT: int = 6_291_456
    BUFFERED_RESPONSE_LIMIT: int = 6_291_456
    STREAMED_RESPONSE_LIMIT: int = 209_715_200
    # Largest bundle the large-push path accepts (chalicelib/git_transport/large_push.py).
    LARGE_PUSH_LIMIT: int = 2_147_483_648
    # Git LFS at /{owner}/{repo}.git/info/lfs/… (chalicelib/lfs).  On by default, unlike
    # Forgejo: the bytes go to S3 through presigned URLs, never through Lambda, so the
    # server costs one small request per batch of objects.  LFS_MAX_FILE_SIZE: the
    # largest object in bytes; 0 means no limit of ours (S3's single PUT still stops at
    # 5 GiB, chalicelib/lfs/store.py).
    LFS_START_SERVER: bool = True
    LFS_MAX_FILE_SIZE: int = 0
    # Seconds an object nobody needs (uploaded but never pushed, or whose last
    # repository was deleted) is kept before the lfs_collect schedule removes it: longer
    # than any push between its upload and its refs (chalicelib/lfs/collect.py).
    LFS_GRACE_PERIOD: int = 86_400
    # The most Git LFS locks one page of the locks API lists (Forgejo's, 50).
    LFS_LOCKS_PAGING_NUM: int = 50


@_section("aws")
class AwsSettings:
    REGION: str = "us-east-1"
    TABLE: str = "nimbus"
    BUCKET: str = "nimbus-data"
    WEBHOOK_QUEUE: str = "nimbus-webhooks"
    # Domain events, relayed from the outbox (chalicelib/jobs/relay.py).
    EVENTS_QUEUE: str = "nimbus-events"
    SIGNING_KEY_PARAMETER: str = "/nimbus/signing-key"
    # Set locally to the embedded moto server; empty in AWS.
    ENDPOINT_URL: str = ""


@_section("security")
class SecuritySettings:
    DISABLE_QUERY_AUTH_TOKEN: bool = False
    MIN_PASSWORD_LENGTH: int = 8
    # scrypt cost parameter (a power of two); 2**14 with r=8 takes ~40 ms and 16 MiB.
    PASSWORD_HASH_COST: int = 16384
    # Failed sign-ins per client address, and per name from one address, in a sliding
    # window of seconds; 0 turns a limit off (docs/security.md, "Sign-in throttling").
    LOGIN_FAILURES_PER_ADDRESS: int = 20
    LOGIN_FAILURES_PER_ACCOUNT_ADDRESS: int = 10
    LOGIN_FAILURE_WINDOW: int = 900


@_section("service")
class ServiceSettings:
    ENABLE_BASIC_AUTHENTICATION: bool = True
    REQUIRE_SIGNIN_VIEW: bool = False
    DEFAULT_KEEP_EMAIL_PRIVATE: bool = False
    NO_REPLY_ADDRESS: str = ""
    # Whether an issue may depend on an issue of another repository (Forgejo's default).
    ALLOW_CROSS_REPOSITORY_DEPENDENCIES: bool = True
    # /user/sign_up (accounts/signup.py); REGISTER_EMAIL_CONFIRM on is refused: no mail.
    DISABLE_REGISTRATION: bool = True
    REGISTER_EMAIL_CONFIRM: bool = False


@_section("oauth2")
class OAuth2Settings:
    """Nimbus as an OAuth2 / OpenID Connect provider (chalicelib/oauth2), Forgejo's keys:
    access tokens live ACCESS_TOKEN_EXPIRATION_TIME seconds, refresh tokens
    REFRESH_TOKEN_EXPIRATION_TIME hours; an authorization code AUTHORIZATION_CODE_SECONDS."""
    ENABLED: bool = True
    ACCESS_TOKEN_EXPIRATION_TIME: int = 3600
    REFRESH_TOKEN_EXPIRATION_TIME: int = 730
    AUTHORIZATION_CODE_SECONDS: int = 600


@_section("api")
class ApiSettings:
    ENABLE_SWAGGER: bool = True
    MAX_RESPONSE_ITEMS: int = 50
    DEFAULT_PAGING_NUM: int = 30
    DEFAULT_GIT_TREES_PER_PAGE: int = 1000
    DEFAULT_MAX_BLOB_SIZE: int = 10485760
    # Commit status paths: "seed" serves the combined status at /commits/{ref}/statuses
    # and answers a create 200 (the commissioned contract); "forgejo" serves the list of
    # statuses there and answers 201, as current Forgejo does (Renovate, typed SDKs).
    STATUS_ROUTES: str = "seed"


@_section("cors")
class CorsSettings:
    ENABLED: bool = False
    ALLOW_DOMAIN: str = "*"
    X_FRAME_OPTIONS: str = "SAMEORIGIN"


@_section("repository")
class RepositorySettings:
    DEFAULT_BRANCH: str = "main"
    ENABLE_PUSH_CREATE_USER: bool = False
    ENABLE_PUSH_CREATE_ORG: bool = False
    DISABLE_HTTP_GIT: bool = False
    # A deleted repository stays restorable this many days (0: gone at once), and every
    # ref move is kept this long, its old tip reachable (docs/extensions.md).
    DELETED_RETENTION_DAYS: int = 30
    REF_HISTORY_DAYS: int = 90


@_section("repository.signing")
class SigningSettings:
    FORMAT: str = "openpgp"
    SIGNING_KEY: str = "default"
    SIGNING_NAME: str = "Nimbus"
    SIGNING_EMAIL: str = "noreply@nimbus.invalid"
    INITIAL_COMMIT: str = "always"
    CRUD_ACTIONS: str = "pubkey, twofa, parentsigned"
    MERGES: str = "pubkey, twofa, basesigned, commitssigned"


@_section("migrations")
class MigrationSettings:
    ALLOW_LOCALNETWORKS: bool = False
    ALLOWED_DOMAINS: str = ""
    BLOCKED_DOMAINS: str = ""
    MAX_ATTEMPTS: int = 3
    # A project migration runs in the request this many seconds (well under API
    # Gateway's 29) and answers the finished repository if it is done by then, as
    # Forgejo does; the rest goes on as queued work.  0: always queued at once.
    INLINE_SECONDS: int = 20


@_section("mirror")
class MirrorSettings:
    """Forgejo's ``[mirror]``: ``ENABLED`` off answers the push-mirror operations 400;
    ``DISABLE_NEW_PUSH`` refuses new push mirrors (the existing ones keep syncing)."""
    ENABLED: bool = True
    DISABLE_NEW_PUSH: bool = False


@_section("audit")
class AuditSettings:
    """The audit log (chalicelib/audit): entries are kept RETENTION_DAYS days, and each
    day's entries are exported to the bucket as JSON lines (docs/extensions.md)."""
    RETENTION_DAYS: int = 365


@_section("events")
class EventSettings:
    """EVENTBRIDGE_BUS: the name or ARN of an Amazon EventBridge bus that receives every
    domain event too (empty: none; docs/extensions.md)."""
    EVENTBRIDGE_BUS: str = ""


@_section("webhook")
class WebhookSettings:
    ALLOWED_HOST_LIST: str = "external"
    SKIP_TLS_VERIFY: bool = False
    DELIVER_TIMEOUT: int = 5
    # Delivery retries (chalicelib/webhooks/deliveries.py): attempts of one
    # delivery before it is dead-lettered, waits doubling from BACKOFF_BASE_MS up to
    # BACKOFF_MAX_SECONDS (with jitter); a delivery older than MAX_AGE_HOURS gets no
    # retry.  Twelve attempts span about three and a half hours of receiver downtime.
    MAX_ATTEMPTS: int = 12
    BACKOFF_BASE_MS: int = 10000
    BACKOFF_MAX_SECONDS: int = 3600
    MAX_AGE_HOURS: int = 24
    # Delivery records expire (DynamoDB TTL) this long after they were made (Forgejo's
    # cleanup_hook_task_table keeps 168 hours); push payloads carry this many commits.
    HISTORY_DAYS: int = 7
    PAYLOAD_COMMIT_LIMIT: int = 15


@_section("quota")
class QuotaSettings:
    """Forgejo's quota (quota/service.py, docs/quota.md).  Off: every check passes and
    the quota routes answer 404 as if they did not exist.  ``DEFAULT_GROUPS``: comma
    list of groups for accounts in none (names that do not exist are ignored)."""
    ENABLED: bool = False
    DEFAULT_GROUPS: str = ""
    # Older spelling of [quota.default] TOTAL, in bytes; used when TOTAL is not set.
    DEFAULT_TOTAL: int = -1


@_section("quota.default")
class QuotaDefaultSettings:
    """The quota of an account in no group at all: one implicit rule on ``size:all``.
    ``TOTAL`` is a size such as ``1 GiB`` or ``500MB``; empty or unparsable: unlimited."""
    TOTAL: str = ""
    ATTR = "quota_default"


@_section("attachment")
class AttachmentSettings:
    """Uploaded files (release attachments: releases/assets.py), with Forgejo's
    defaults.  ``MAX_SIZE`` is in MiB; ``ALLOWED_TYPES`` is what Forgejo applies to issue
    and comment attachments (release attachments follow ``[repository.release]``)."""
    ENABLED: bool = True
    ALLOWED_TYPES: str = (".cpuprofile,.csv,.dmp,.docx,.fodg,.fodp,.fods,.fodt,.gif,.gz,.jpeg,"
                          ".jpg,.json,.jsonc,.log,.md,.mov,.mp4,.odf,.odg,.odp,.ods,.odt,.patch,"
                          ".pdf,.png,.pptx,.svg,.tgz,.txt,.webm,.webp,.xls,.xlsx,.zip")
    MAX_SIZE: int = 2048
    MAX_FILES: int = 5


@_section("repository.release")
class ReleaseSettings:
    """Forgejo checks release attachments against this list, not ``[attachment]``'s:
    empty (the default) allows every type."""
    ALLOWED_TYPES: str = ""


@_section("picture")
class PictureSettings:
    """Uploaded avatars (chalicelib/avatars), with Forgejo's keys and defaults: the
    largest upload in bytes (413 above it) and the largest picture it may decode to."""
    AVATAR_MAX_FILE_SIZE: int = 1048576
    AVATAR_MAX_WIDTH: int = 4096
    AVATAR_MAX_HEIGHT: int = 4096


@_section("ratelimit")
class RateLimitSettings:
    """Token buckets per client address and per credential, in each Lambda instance
    (chalicelib/http/ratelimit.py, docs/ratelimit.md)."""
    ENABLED: bool = False
    ADDRESS_PER_MINUTE: int = 600
    ADDRESS_BURST: int = 120
    CREDENTIAL_PER_MINUTE: int = 1200
    CREDENTIAL_BURST: int = 240
    SIGN_UPS_PER_HOUR: int = 10     # accounts per address at /user/sign_up, ENABLED or not


@_section("ui")
class UiSettings:
    """``[ui] REACTIONS``: what one may react with, comma-separated (issues/reactions.py)."""
    REACTIONS: str = "+1, -1, laugh, hooray, confused, heart, rocket, eyes"


@_section("repository.issue")
class IssueSettings:  # MAX_PINNED: pinned issues, and pulls apart (issues/pins.py)
    MAX_PINNED: int = 3
    ATTR = "issue"


_SECTIONS = (ServerSettings, AwsSettings, SecuritySettings, ServiceSettings, ApiSettings,
             CorsSettings, RepositorySettings, SigningSettings, MigrationSettings,
             WebhookSettings, QuotaSettings, RateLimitSettings, AttachmentSettings,
             ReleaseSettings, QuotaDefaultSettings, PictureSettings, UiSettings, IssueSettings,
             MirrorSettings, OAuth2Settings, AuditSettings, EventSettings)


@dataclasses.dataclass(frozen=True)
class Settings:
    server: ServerSettings
    aws: AwsSettings
    security: SecuritySettings
    service: ServiceSettings
    api: ApiSettings
    cors: CorsSettings
    repository: RepositorySettings
    signing: SigningSettings
    migrations: MigrationSettings
    webhook: WebhookSettings
    quota: QuotaSettings
    quota_default: QuotaDefaultSettings
    ratelimit: RateLimitSettings
    attachment: AttachmentSettings
    release: ReleaseSettings
    picture: PictureSettings
    ui: UiSettings
    issue: IssueSettings
    mirror: MirrorSettings
    oauth2: OAuth2Settings
    audit: AuditSettings
    events: EventSettings

    @property
    def app_url(self) -> str:
        """ROOT_URL, always ending in '/' (Gitea's AppURL)."""
        return self.server.ROOT_URL

    @property
    def swagger_url(self) -> str:
        return self.app_url + "api/swagger"

    @property
    def domain(self) -> str:
        return self.server.DOMAIN or (urlsplit(self.app_url).hostname or "localhost")

    @property
    def no_reply_address(self) -> str:
        return self.service.NO_REPLY_ADDRESS or "noreply." + self.domain


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    environ = os.environ if environ is None else environ
    values: dict[str, dict[str, str]] = {}
    if environ.get("NIMBUS_CONFIG"):
        values = read_ini(environ["NIMBUS_CONFIG"])
    for section, keys in env_overrides(environ).items():
        values.setdefault(section, {}).update(keys)

    built = {}
    for cls in _SECTIONS:
        given = values.get(cls.SECTION, {})
        kwargs = {k: convert(cls.SECTION, k, v, cls.FIELDS[k])
                  for k, v in given.items() if k in cls.FIELDS}
        attr = "signing" if cls is SigningSettings else "migrations" if cls is MigrationSettings \
            else "release" if cls is ReleaseSettings else getattr(cls, "ATTR", cls.SECTION)
        built[attr] = cls(**kwargs)
    if not built["server"].ROOT_URL.endswith("/"):
        built["server"] = built["server"].replace(ROOT_URL=built["server"].ROOT_URL + "/")
    settings = Settings(**built)
    validate(settings)
    return settings


@functools.lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (read once per Lambda container)."""
    return load_settings()


def reset_settings_cache() -> None:
    get_settings.cache_clear()


@contextlib.contextmanager
def overridden(values: Mapping[str, str], *, dropping: str | None = None) -> Iterator[None]:
    """NIMBUS__* (or any) environment variables set for a stretch of one process (and
    every variable starting with ``dropping`` removed), the settings read afresh on the
    way in and out, every variable put back as it was (tests, the benchmarks and the
    local runtime; settings are otherwise read once per process)."""
    dropped = {k for k in os.environ if dropping and k.startswith(dropping)}
    saved = {name: os.environ.get(name) for name in dropped | set(values)}
    for name in dropped:
        del os.environ[name]
    os.environ.update(values)
    reset_settings_cache()
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        reset_settings_cache()
