"""The CLI's ``admin dump`` and ``admin restore`` (``chalicelib.cli`` adds them).

Imports nothing of chalicelib at module level: the CLI builds its parser before it
knows which instance it talks to, and the store reads its settings on import.  Each
command prints what it did on stdout, its progress and warnings on stderr, and a
refusal as one ``error:`` line (exit status 1).
"""
from __future__ import annotations

import sys


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def add_parsers(things) -> None:
    """``dump`` and ``restore`` among ``things``, the ``admin`` subcommands."""
    dump = things.add_parser("dump", help="write the whole instance to one archive "
                             "(docs/operations.md, Backups)")
    dump.add_argument("--output", required=True,
                      help="the archive to write, a new file: NAME.tar, or NAME.tar.gz")
    dump.add_argument("--include-secrets", action="store_true",
                      help="carry the instance's keys' values too (default: the names of "
                      "their SSM parameters only)")
    dump.add_argument("--page-size", type=int, default=None, metavar="ITEMS",
                      help="items per Scan request, to spread the read (default: "
                      "DynamoDB's 1 MB pages)")
    dump.set_defaults(run=run_dump)
    restore = things.add_parser("restore", help="load a dump into an empty instance")
    restore.add_argument("archive", help="the file admin dump wrote")
    restore.set_defaults(run=run_restore)


def run_dump(args) -> int:
    from chalicelib.backup.dump import DumpFailed, dump

    try:
        done = dump(args.output, include_secrets=args.include_secrets,
                    page_size=args.page_size, say=_say)
    except DumpFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"dumped {done.items} items and {done.objects} objects ({done.object_bytes} bytes) "
          f"to {done.path} in {done.seconds:.1f} s")
    if done.changed:
        print(f"writes ran during the dump: {done.changed} item(s) were taken as read after "
              "the scan; a restore recounts quota usage and rebuilds the search index")
    if done.outbox:
        print(f"{done.outbox} event(s) not relayed yet are in the dump: a restore relays them")
    for missing in done.missing:
        print(f"warning: {missing['key']} is named by {' '.join(missing['named_by'][0])} but "
              "the bucket does not have it", file=sys.stderr)
    print("secrets: values included: keep the file as secret as the keys themselves"
          if done.secrets_included else "secrets: the SSM parameter names only "
          "(--include-secrets adds the values)")
    print("left out: archives/ (caches), lfs/incoming/ and large-push/ (uploads in flight)")
    return 0


def run_restore(args) -> int:
    from chalicelib.backup.restore import RestoreRefused, restore

    try:
        done = restore(args.archive, say=_say)
    except RestoreRefused as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"restored {done.items} items and {done.objects} objects ({done.object_bytes} "
          f"bytes) of the dump made {done.created} of {done.source.get('root_url', '?')}")
    for line in done.rebuilt:
        print(line)
    if done.secrets_written:
        print("keys restored (" + ", ".join(done.secrets_written) + "): restart the "
              "instance's processes so that none keeps a key it read before")
    else:
        print("the dump carries no keys: this instance makes its own (web sessions, "
              "two-factor secrets and mirror credentials sealed with the old one do not "
              "open; docs/operations.md says what to do)")
    return 0
