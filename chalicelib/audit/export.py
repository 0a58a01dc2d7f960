"""The daily export of the audit log to the bucket, as JSON lines.

``s3://<bucket>/audit/YYYY/MM/DD.jsonl`` holds the entries of that UTC day, oldest first,
one AuditLogEntry record a line (the lists' record, keys sorted), read from the
instance's index a Query page at a time over the day's time range.  A run writes the
last ``DAYS_WRITTEN`` full days: an entry the consumer wrote late (after the first
run past its day) lands in the next day's run.  Writing a day again writes the same
bytes; a day without entries gets an empty file, so every exported day has its file.
The bucket keeps a file after the log's entries expire (its lifecycle is the operator's).
"""
from __future__ import annotations

import json
from datetime import UTC, datetime

from chalicelib import aws, clock
from chalicelib.audit import records, service
from chalicelib.settings import get_settings

DAY_SECONDS = 86400
DAYS_WRITTEN = 2
PREFIX = "audit/"


def day_key(day_start: float) -> str:
    moment = datetime.fromtimestamp(int(day_start), tz=UTC)
    return f"{PREFIX}{moment:%Y/%m/%d}.jsonl"


def day_lines(day_start: float) -> bytes:
    """The day's file: one JSON object a line, a newline after each."""
    lines = [json.dumps(records.audit_entry(entry), sort_keys=True, separators=(",", ":"),
                        ensure_ascii=False)
             for entry in service.exported_day(day_start)]
    return "".join(f"{line}\n" for line in lines).encode()


def export_day(day_start: float) -> int:
    """Write the day that starts at ``day_start`` (UTC midnight); how many entries."""
    body = day_lines(day_start)
    aws.client("s3").put_object(Bucket=get_settings().aws.BUCKET, Key=day_key(day_start),
                                Body=body, ContentType="application/x-ndjson")
    return body.count(b"\n")


def export_recent(now: float | None = None) -> int:
    """The scheduled run: the last DAYS_WRITTEN full days before ``now``; entries written."""
    now = clock.now() if now is None else now
    today = int(now) // DAY_SECONDS * DAY_SECONDS
    return sum(export_day(today - back * DAY_SECONDS) for back in range(1, DAYS_WRITTEN + 1))
