"""What is behind: the outbox, the queues and their dead letters, the schedules' last runs.

Each check reads only what its question needs, never a whole table:
- the outbox: its items are kept per shard in commit order (``store/outbox.py``), so
  the oldest waiting event is the first item of each shard (one Query each) and those
  older than the threshold are a range of each shard (read up to ``OUTBOX_COUNT_CAP``);
  in AWS the stream relays an event seconds after its commit and the sweep every five
  minutes, so one still waiting after minutes is stuck; locally the outbox is the events
  queue, and an event whose consumers keep failing waits there;
- the queues: SQS's counts (waiting, in flight, delayed), and the age of the oldest
  message from CloudWatch (``ApproximateAgeOfOldestMessage``: reading a live queue's
  messages would count as receives and push them towards the dead-letter queue; where
  CloudWatch has no figures, as locally, the age is not known and not judged);
- the dead-letter queues: anything there is behind (``upkeep/dead_letters.py``);
- the schedules: each cron task's last run (``instance.cron_task_runs``), judged by
  ``instance.cron_lateness`` (late, failed, or never run while the others ran).
"""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import asdict, dataclass

from chalicelib import aws, clock, instance
from chalicelib.settings import get_settings
from chalicelib.upkeep import dead_letters

DEFAULT_OUTBOX_MINUTES = 15
DEFAULT_QUEUE_MINUTES = 15
# At most this many old outbox items are read (per shard) to count them.
OUTBOX_COUNT_CAP = 100
# Dead letters read to tell the oldest one's age and their types.
DEAD_LETTERS_READ = 100


@dataclass(frozen=True)
class Finding:
    area: str          # outbox | queue | dead letters | schedule
    name: str
    summary: str
    behind: str = ""   # why it is behind; empty when it is not

    def as_dict(self) -> dict:
        return asdict(self)


def ago(seconds: float) -> str:
    seconds = max(0, int(seconds))
    for unit, size in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= 2 * size:
            return f"{seconds // size} {unit}"
    return f"{seconds} seconds"


def check(*, outbox_minutes: int = DEFAULT_OUTBOX_MINUTES,
          queue_minutes: int = DEFAULT_QUEUE_MINUTES) -> list[Finding]:
    now = clock.now()
    return [outbox_finding(now, outbox_minutes), *queue_findings(queue_minutes),
            *dead_letter_findings(now), *schedule_findings(now)]


def outbox_finding(now: float, minutes: int) -> Finding:
    from chalicelib.store import outbox

    oldest = min((float(item.created) for item in outbox.pending(limit=1)), default=None)
    if oldest is None:
        return Finding("outbox", "outbox", "no event waits")
    old = Counter(item.event_type for item in outbox.pending(
        older_than=now - minutes * 60, limit=OUTBOX_COUNT_CAP))
    summary = f"the oldest event waiting was committed {ago(now - oldest)} ago"
    if not old:
        return Finding("outbox", "outbox", summary)
    total = sum(old.values())
    at_least = "at least " if max(old.values()) >= OUTBOX_COUNT_CAP else ""
    kinds = ", ".join(f"{kind} {n}" for kind, n in old.most_common())
    return Finding("outbox", "outbox", f"{summary} ({kinds})",
                   f"{at_least}{total} event(s) committed more than {minutes} minutes ago "
                   "are still waiting to be relayed")


def _oldest_message_age(queue: str) -> float | None:
    """CloudWatch's ApproximateAgeOfOldestMessage (its latest maximum), None without data."""
    now = time.time()
    points = aws.client("cloudwatch").get_metric_statistics(
        Namespace="AWS/SQS", MetricName="ApproximateAgeOfOldestMessage",
        Dimensions=[{"Name": "QueueName", "Value": queue}], StartTime=now - 900,
        EndTime=now, Period=300, Statistics=["Maximum"]).get("Datapoints", [])
    if not points:
        return None
    return float(max(points, key=lambda p: p["Timestamp"])["Maximum"])


def queue_findings(minutes: int) -> list[Finding]:
    settings = get_settings().aws
    sqs = aws.client("sqs")
    found = []
    for queue in (settings.EVENTS_QUEUE, settings.WEBHOOK_QUEUE):
        url = sqs.get_queue_url(QueueName=queue)["QueueUrl"]
        counts = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=[
            "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible",
            "ApproximateNumberOfMessagesDelayed"])["Attributes"]
        summary = (f"{counts.get('ApproximateNumberOfMessages', 0)} waiting, "
                   f"{counts.get('ApproximateNumberOfMessagesNotVisible', 0)} in flight, "
                   f"{counts.get('ApproximateNumberOfMessagesDelayed', 0)} delayed")
        age = _oldest_message_age(queue)
        if age is None:
            found.append(Finding("queue", queue, summary + "; the oldest message's age is "
                                 "unknown (CloudWatch has no figures)"))
            continue
        summary += f"; the oldest message is {ago(age)} old"
        late = f"its oldest message waits for {ago(age)}" if age > minutes * 60 else ""
        found.append(Finding("queue", queue, summary, late))
    return found


def dead_letter_findings(now: float) -> list[Finding]:
    found = []
    for queue in dead_letters.QUEUES:
        name, held = dead_letters.count(queue)
        if not held:
            found.append(Finding("dead letters", name, "empty"))
            continue
        read = dead_letters.inspect(queue, limit=DEAD_LETTERS_READ).letters
        kinds = Counter(letter.kind for letter in read)
        oldest = min((letter.sent_at for letter in read), default=now)
        found.append(Finding(
            "dead letters", name, f"the oldest was first sent {ago(now - oldest)} ago ("
            + ", ".join(f"{kind} {n}" for kind, n in kinds.most_common()) + ")",
            f"{held} message(s) dead-lettered: `admin deadletters list --queue {queue}`, "
            f"then `admin deadletters replay --queue {queue}` once their cause is fixed"))
    return found


def schedule_findings(now: float) -> list[Finding]:
    runs = instance.cron_task_runs()
    since = min((state.first for _, state in runs if state.first), default=None)
    found = []
    for task, state in runs:
        if state.prev is None:
            summary = f"never ran ({task.schedule})"
        else:
            how = ("still running" if state.running(now)
                   else state.outcome or "ended")
            summary = f"last run started {ago(now - state.prev)} ago, {how} ({task.schedule})"
        found.append(Finding("schedule", task.name, summary,
                             instance.cron_lateness(task, state, now, since)))
    return found
