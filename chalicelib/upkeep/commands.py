"""The CLI's ``admin deadletters list|replay`` and ``admin health`` (``chalicelib.cli``
adds them).

Imports nothing of chalicelib at module level: the CLI builds its parser before it
knows which instance it talks to.  Output is one line per finding on stdout; a refusal
is one ``error:`` line on stderr (exit status 1).  ``admin health`` exits with status 2
when something is behind, so a cron job or a monitor can act on it.
"""
from __future__ import annotations

import json
import sys

BEHIND_STATUS = 2


def add_parsers(things) -> None:
    """``deadletters`` and ``health`` among ``things``, the ``admin`` subcommands."""
    letters = things.add_parser("deadletters", help="the queues' dead-letter queues")
    commands = letters.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list", help="what each dead-letter queue holds (never "
                                  "a message's body)")
    listing.add_argument("--queue", choices=("events", "webhooks"),
                         help="one queue (default: both)")
    listing.add_argument("--limit", type=int, default=1000,
                         help="messages read per queue (default 1000)")
    listing.set_defaults(run=run_list)
    replay = commands.add_parser("replay", help="move dead letters back to their queue")
    replay.add_argument("--queue", choices=("events", "webhooks"),
                        help="one queue (default: both)")
    replay.add_argument("--max", type=int, default=None, dest="max_messages",
                        help="at most this many messages per queue (default: all)")
    replay.set_defaults(run=run_replay)

    health = things.add_parser("health", help="what is behind: the outbox, the queues, dead "
                               f"letters, the schedules (exit status {BEHIND_STATUS} if any)")
    health.add_argument("--outbox-minutes", type=int, default=15,
                        help="events waiting longer than this are behind (default 15)")
    health.add_argument("--queue-minutes", type=int, default=15,
                        help="a queue whose oldest message is older is behind (default 15)")
    health.add_argument("--json", action="store_true", help="the findings as JSON")
    health.set_defaults(run=run_health)


def _time(seconds: float) -> str:
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def run_list(args) -> int:
    from chalicelib import clock
    from chalicelib.upkeep import dead_letters, health

    for queue in dead_letters.chosen(args.queue):
        found = dead_letters.inspect(queue, limit=args.limit)
        print(f"{found.dead} (dead letters of {found.live}): {found.count} message(s)")
        now = clock.now()
        for letter in found.letters:
            print(f"  {letter.message_id}  {letter.kind}  {letter.subject or '-'}  first sent "
                  f"{_time(letter.sent_at)} ({health.ago(now - letter.sent_at)} ago), "
                  f"received {letter.receives} times")
        if found.count > len(found.letters):
            print(f"  ... {found.count - len(found.letters)} more not read (--limit)")
    return 0


def run_replay(args) -> int:
    from chalicelib.upkeep import dead_letters

    refused = 0
    for queue in dead_letters.chosen(args.queue):
        done = dead_letters.replay(queue, max_messages=args.max_messages)
        print(f"{queue}: {done.sent} message(s) moved back to the queue")
        for reason in done.refused:
            print(f"  left in the dead-letter queue: {reason}", file=sys.stderr)
        refused += len(done.refused)
    return 1 if refused else 0


def run_health(args) -> int:
    from chalicelib.upkeep import health

    findings = health.check(outbox_minutes=args.outbox_minutes,
                            queue_minutes=args.queue_minutes)
    behind = [finding for finding in findings if finding.behind]
    if args.json:
        print(json.dumps({"behind": len(behind),
                          "findings": [finding.as_dict() for finding in findings]}, indent=2))
    else:
        for finding in findings:
            mark = "BEHIND" if finding.behind else "ok"
            where = finding.area if finding.name == finding.area else \
                f"{finding.area} {finding.name}"
            print(f"{mark:<6}  {where}: {finding.summary}"
                  + (f": {finding.behind}" if finding.behind else ""))
        print(f"{len(behind)} behind" if behind else "nothing is behind")
    return BEHIND_STATUS if behind else 0
