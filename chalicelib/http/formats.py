"""How Forgejo writes times and durations in JSON, and the site's own URL: one place for
every record builder."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

from chalicelib.settings import get_settings

GO_ZERO_TIME = "0001-01-01T00:00:00Z"


def rfc3339(unix: int | float | None) -> str:
    """Second precision, UTC; a stored 0 prints as the epoch, as Forgejo's does."""
    moment = datetime.fromtimestamp(int(unix or 0), tz=timezone.utc)
    # strftime's %Y does not pad years before 1000 (glibc): RFC 3339 wants four digits.
    return f"{moment.year:04d}-" + moment.strftime("%m-%dT%H:%M:%SZ")


def rfc3339_offset(unix: int, offset_seconds: int) -> str:
    """A git time in its own zone, as Forgejo prints commit times."""
    tz = timezone(timedelta(seconds=offset_seconds))
    return datetime.fromtimestamp(int(unix), tz=tz).isoformat().replace("+00:00", "Z")


def go_duration(seconds: int) -> str:
    """Go's time.Duration text: 8h0m0s, 10m0s, 0s."""
    hours, rest = divmod(int(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes}m{secs}s"
    if minutes:
        return f"{minutes}m{secs}s"
    return f"{secs}s"


def app_url() -> str:
    return get_settings().app_url
