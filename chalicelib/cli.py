"""Operator commands.

    python -m chalicelib.cli admin user create --username U --password P --email E [--admin]
    python -m chalicelib.cli admin user generate-access-token --username U [--scopes all]
    python -m chalicelib.cli admin user reset-2fa --username U
    python -m chalicelib.cli admin repair [--dry-run]
    python -m chalicelib.cli admin dump --output FILE [--include-secrets]
    python -m chalicelib.cli admin restore FILE        (into an empty instance)
    python -m chalicelib.cli admin deadletters list|replay [--queue events|webhooks] [--max N]
    python -m chalicelib.cli admin health              (exit status 2 when something is behind)
    python -m chalicelib.cli push-bundle <remote> [<refspec>...]   (large pushes)

With ``--local`` (the default when a local runtime is running) the command talks to the
embedded moto of ``make run``, found through ``--data-dir`` (before or after the
command), ``NIMBUS_DATA_DIR``, or else among the running runtimes, whatever shell
started them (and with their settings).  With no runtime running, a data dir holding
state is served by a runtime started for the command when it is named (or
``--local``), or when no AWS credentials are configured; otherwise the command talks
to AWS with the usual credentials and the configured table (``NIMBUS__AWS__TABLE`` …).
Every failure is one line on stderr and exit status 1.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

RUNTIME_FILE = "runtime.json"


DEFAULT_DATA_DIR = ".nimbus"
# The module ``make run`` starts; how the CLI recognises a local runtime's process.
LOCAL_MODULE = "chalicelib.local"
# Files a data dir with stored state has (chalicelib/local/state.py).
STATE_MARKERS = ("CURRENT", "snapshots")
RUNTIME_START_SECONDS = 60
# Settings a runtime was started with that the CLI adopts, so it reads the same table.
_ADOPTED = ("NIMBUS_CONFIG", "NIMBUS__")


class CliError(Exception):
    """A failure the operator can fix from its one-line message."""


@dataclass
class LocalRuntimeInfo:
    data_dir: Path
    endpoint: str
    environ: dict[str, str]     # the runtime process's settings (empty if unknown)


def _published(data_dir: Path) -> tuple[int, str] | None:
    """(pid, moto endpoint) a still-running local runtime published in ``data_dir``."""
    try:
        info = json.loads((data_dir / RUNTIME_FILE).read_text())
        pid = int(info["pid"])
        os.kill(pid, 0)  # still running?
        return pid, str(info["moto_endpoint"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _process_environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    pairs = (entry.decode("utf-8", "replace").partition("=") for entry in raw.split(b"\0") if entry)
    return {name: value for name, _, value in pairs}


def _running_data_dirs() -> dict[Path, dict[str, str]]:
    """Data dirs of the local runtimes this user runs (``make run``, ``python -m
    chalicelib.local``), however they were started, with their settings: read from
    /proc, where a runtime's own environment and working directory are."""
    found: dict[Path, dict[str, str]] = {}
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if proc.stat().st_uid != os.getuid():
                continue
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            if LOCAL_MODULE.encode() not in argv:
                continue
            environ = _process_environ(int(proc.name))
            cwd = Path(os.readlink(proc / "cwd"))
        except (OSError, ValueError):
            continue  # gone meanwhile, or not ours to read
        data_dir = (cwd / (environ.get("NIMBUS_DATA_DIR") or DEFAULT_DATA_DIR)).resolve()
        if environ.get("NIMBUS_CONFIG"):
            environ["NIMBUS_CONFIG"] = str(cwd / environ["NIMBUS_CONFIG"])
        found[data_dir] = {k: v for k, v in environ.items() if k.startswith(_ADOPTED)}
    return found


def find_local_runtime(data_dir: str | None) -> tuple[LocalRuntimeInfo | None, list[Path]]:
    """The local runtime to talk to, and the data dirs looked at.  A dir named by
    ``--data-dir`` or ``NIMBUS_DATA_DIR`` is the only candidate; else ./.nimbus, the
    project's .nimbus, and every running runtime's (one of them, or an error naming
    them if there are several)."""
    named = data_dir or os.environ.get("NIMBUS_DATA_DIR")
    if named:
        candidates = [Path(named).resolve()]
        running = {}
    else:
        running = _running_data_dirs()
        project = Path(__file__).resolve().parents[1] / DEFAULT_DATA_DIR
        candidates = list(dict.fromkeys([Path(DEFAULT_DATA_DIR).resolve(), project, *running]))
    alive = [(d, _published(d)) for d in candidates]
    alive = [(d, found) for d, found in alive if found]
    if len({found for _, found in alive}) > 1:
        raise CliError("several local runtimes are running (data dirs "
                       + ", ".join(str(d) for d, _ in alive) + "): choose one with "
                       f"--data-dir DIR (before or after the command, e.g. --data-dir "
                       f"{alive[0][0]}) or NIMBUS_DATA_DIR=DIR")
    if not alive:
        return None, candidates
    chosen, (_, endpoint) = alive[0]
    return LocalRuntimeInfo(chosen, endpoint, running.get(chosen, {})), candidates


def _connect(args, stack: contextlib.ExitStack) -> None:
    """Point chalicelib at the running local runtime; else at a data dir with state
    (opened here) when one is named or there are no AWS credentials; else at AWS."""
    if args.aws:
        return _require_aws_credentials(None)
    runtime, looked = find_local_runtime(args.data_dir)
    if runtime is not None:
        return _use_runtime(runtime)
    stored = [d for d in looked if any((d / marker).exists() for marker in STATE_MARKERS)]
    named = args.local or args.data_dir or os.environ.get("NIMBUS_DATA_DIR")
    if stored and (named or not _has_aws_credentials()):
        return _open_data_dir(stored[0], stack)
    where = ", ".join(str(d) for d in looked)
    if args.local or args.data_dir:
        raise CliError(f"no local runtime is running and no local state is stored (looked "
                       f"in {where}): start it with `make run`, or name its data dir with "
                       "--data-dir")
    return _require_aws_credentials(where)


def _use_runtime(runtime: LocalRuntimeInfo) -> None:
    for name, value in runtime.environ.items():
        os.environ.setdefault(name, value)
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    os.environ["NIMBUS__AWS__ENDPOINT_URL"] = runtime.endpoint


def _open_data_dir(data_dir: Path, stack: contextlib.ExitStack) -> None:
    """No runtime serves this data dir: start one (``python -m chalicelib.local``, on a
    free port) for the duration of the command, so its writes are journaled and saved
    exactly as ``make run`` saves them, and stop it when the command ends."""
    log = stack.enter_context(tempfile.TemporaryFile("w+"))
    env = dict(os.environ, NIMBUS_DATA_DIR=str(data_dir), PORT="0", NIMBUS_HOST="127.0.0.1")
    process = subprocess.Popen([sys.executable, "-m", LOCAL_MODULE], env=env,
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
    stack.callback(_stop_runtime, process)
    deadline = time.monotonic() + RUNTIME_START_SECONDS
    while (published := _published(data_dir)) is None or published[0] != process.pid:
        if process.poll() is not None or time.monotonic() > deadline:
            log.seek(0)
            said = [line.strip() for line in log if line.strip()]
            raise CliError(f"cannot open {data_dir}: " + (said[-1] if said else "the local "
                           "runtime did not start"))
        time.sleep(0.05)
    _use_runtime(LocalRuntimeInfo(data_dir, published[1], {}))


def _stop_runtime(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(RUNTIME_START_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()  # its journal holds every acknowledged write
        process.wait()


def _has_aws_credentials() -> bool:
    import boto3

    return boto3.session.Session().get_credentials() is not None


def _require_aws_credentials(looked: str | None) -> None:
    if not _has_aws_credentials():
        local = f"no local runtime is running (looked in {looked}) and " if looked else ""
        raise CliError(f"{local}no AWS credentials are configured: start `make run` (or name "
                       "its data dir with --data-dir), or configure AWS credentials")


def describe_failure(exc: BaseException) -> str:
    """One line for an unexpected failure: what failed, never a traceback."""
    from botocore.exceptions import BotoCoreError, ClientError
    from pynamodb.exceptions import PynamoDBException

    from chalicelib.errors import ServiceError
    from chalicelib.settings import SettingsError

    if isinstance(exc, (CliError, SettingsError)):
        return str(exc)
    if isinstance(exc, ServiceError):
        return exc.message
    cause = exc.__cause__ if isinstance(exc, PynamoDBException) and exc.__cause__ else exc
    if isinstance(cause, BotoCoreError):
        return f"cannot reach AWS: {cause}"
    if isinstance(cause, ClientError):
        error = cause.response.get("Error", {})
        return f"AWS refused the request: {error.get('Code', '?')}: {error.get('Message', '')}"
    return f"{type(exc).__name__}: {exc}".splitlines()[0]


def _create_user(args) -> int:
    from chalicelib import accounts
    from chalicelib.accounts import CreateUserOption
    from chalicelib.errors import ServiceError

    try:
        account = accounts.create_account(
            CreateUserOption(username=args.username, password=args.password, email=args.email),
            is_admin=args.admin)
    except ServiceError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    role = "site admin" if account.is_admin else "user"
    print(f"created {role} {account.login} (id {account.id})")
    return 0


def _generate_token(args) -> int:
    from chalicelib import accounts
    from chalicelib.accounts import CreateAccessTokenOption
    from chalicelib.errors import NotFoundError, ServiceError

    try:
        user = accounts.get_user(args.username)
    except NotFoundError:
        print(f"error: no user {args.username}", file=sys.stderr)
        return 1
    try:
        # The operator acts as the user (the CLI runs with the operator's AWS rights).
        _, secret = accounts.create_token(user, user.login, CreateAccessTokenOption(
            name=args.token_name, scopes=args.scopes.split(",")))
    except ServiceError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    print(secret)
    return 0


def _reset_two_factor(args) -> int:
    """Remove a user's two-factor authentication (they lost their authenticator and
    their recovery codes): the rule a site admin's page calls, the operator acting."""
    from chalicelib import accounts
    from chalicelib.errors import ServiceError

    try:
        user = accounts.reset_two_factor(None, args.username)
    except ServiceError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    print(f"two-factor authentication removed for {user.login}: they sign in with their "
          "password alone")
    return 0


def _repair(args) -> int:
    """Fix stored records that break today's input rules (repair)."""
    from chalicelib import repair

    fixed = set()
    for finding in repair.repair(dry_run=args.dry_run):
        if finding.fixed or args.dry_run:
            fixed.add((finding.pk, finding.sk))
        note = "" if finding.fixed or args.dry_run else " (changed meanwhile, not fixed)"
        print(f"{finding.kind} {finding.pk} {finding.sk} {finding.field}: {finding.problem}{note}")
    verb = "would fix" if args.dry_run else "fixed"
    print(f"{verb} {len(fixed)} record(s)")
    return 0


def _quota_recount(args) -> int:
    """Recompute every account's quota usage and repair drift (services.quota_check)."""
    from chalicelib import quota

    found = quota.recount(dry_run=args.dry_run)
    for correction in found:
        print(correction)
    verb = "would correct" if args.dry_run else "corrected"
    print(f"{verb} {sum(1 for c in found if c.fixed or args.dry_run)} value(s)")
    return 0


def _lfs_collect(args) -> int:
    """Run the Git LFS collection now (the lfs_collect schedule, chalicelib/lfs/collect.py)."""
    from chalicelib import lfs

    print(f"removed {lfs.collect_objects()} object(s) and abandoned upload(s)")
    return 0


def _search_reindex(args) -> int:
    """Index every repository and issue again (chalicelib/search): after a restore, or
    to build the index of an instance that had none.  Reads every repository once, a
    page of the repository list at a time, and each repository's issues."""
    from chalicelib import repos, search

    count = issue_count = 0
    for repo in repos.every_repo():
        search.index_repo(int(repo.id))
        issue_count += search.index_repo_issues(int(repo.id))
        count += 1
    print(f"indexed {count} repositories and {issue_count} issues")
    return 0


# Large pushes ----------------------------------------------------------------------

def _push_bundle(args) -> int:
    """A push too big for one request, through a bundle in S3 (chalicelib/push_bundle.py)."""
    from chalicelib import push_bundle

    try:
        accepted = push_bundle.push(args.repo_dir, args.remote, args.refspecs,
                                    token=args.token, force=args.force)
    except push_bundle.PushError as exc:
        raise CliError(str(exc)) from None
    return 0 if accepted else 1


def _add_push_bundle(parser: argparse.ArgumentParser) -> None:
    command = parser.areas.add_parser(
        "push-bundle", help="push through an S3 upload when git push is too large "
        "for one request (docs/git-at-scale.md)")
    command.add_argument("remote", help="a remote's name or http(s)://host/owner/repo.git")
    command.add_argument("refspecs", nargs="*",
                         help="src[:dst], as for git push (default: the current branch)")
    command.add_argument("--repo-dir", default=".", help="the local repository (default: .)")
    command.add_argument("--token", help="access token (default: NIMBUS_TOKEN, else the "
                         "URL's credentials)")
    command.add_argument("--force", "-f", action="store_true",
                         help="allow updates that are not fast-forwards")
    command.set_defaults(run=_push_bundle)


def _data_dir_anywhere(parser: argparse.ArgumentParser) -> None:
    """``--data-dir`` after the subcommand too (``admin user create --data-dir D …``):
    every command below ``parser`` takes it but push-bundle (a client of the HTTP API);
    given twice, the last one counts."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                if name == "push-bundle":
                    continue
                if "--data-dir" not in command._option_string_actions:
                    command.add_argument("--data-dir", default=argparse.SUPPRESS,
                                         help="the local runtime's data dir (as before the "
                                         "command)")
                _data_dir_anywhere(command)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m chalicelib.cli")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--local", action="store_true", help="require the local runtime")
    where.add_argument("--aws", action="store_true", help="ignore a running local runtime")
    parser.add_argument("--data-dir", help="the local runtime's data dir (default: "
                        "NIMBUS_DATA_DIR, else found among the running runtimes)")
    areas = parser.add_subparsers(dest="area", required=True)
    parser.areas = areas
    admin = areas.add_parser("admin")
    things = admin.add_subparsers(dest="thing", required=True)
    user = things.add_parser("user")
    commands = user.add_subparsers(dest="command", required=True)

    create = commands.add_parser("create", help="create a user")
    create.add_argument("--username", required=True)
    create.add_argument("--password", required=True)
    create.add_argument("--email", required=True)
    create.add_argument("--admin", action="store_true", help="make the user a site admin")
    create.set_defaults(run=_create_user)

    token = commands.add_parser("generate-access-token", help="mint a token for a user")
    token.add_argument("--username", required=True)
    token.add_argument("--scopes", default="all", help="comma-separated, e.g. read:user,write:repository")
    token.add_argument("--token-name", default="cli")
    token.set_defaults(run=_generate_token)

    reset_2fa = commands.add_parser("reset-2fa", help="remove a user's two-factor "
                                    "authentication (lost authenticator and recovery codes)")
    reset_2fa.add_argument("--username", required=True)
    reset_2fa.set_defaults(run=_reset_two_factor)

    repair = things.add_parser("repair", help="find and fix records that break the input rules")
    repair.add_argument("--dry-run", action="store_true", help="only list what would change")
    repair.set_defaults(run=_repair)

    quota = things.add_parser("quota", help="quota usage")
    recount = quota.add_subparsers(dest="command", required=True).add_parser(
        "recount", help="recompute every account's usage from the packs and repair drift")
    recount.add_argument("--dry-run", action="store_true", help="only list what is wrong")
    recount.set_defaults(run=_quota_recount)

    lfs = things.add_parser("lfs", help="Git LFS objects")
    lfs_collect = lfs.add_subparsers(dest="command", required=True).add_parser(
        "collect", help="remove objects no repository has needed for [server] LFS_GRACE_PERIOD")
    lfs_collect.set_defaults(run=_lfs_collect)

    search = things.add_parser("search", help="the search index")
    reindex = search.add_subparsers(dest="command", required=True).add_parser(
        "reindex", help="index every repository and issue again (docs/search.md)")
    reindex.set_defaults(run=_search_reindex)

    # dump and restore; the module imports nothing of chalicelib until a command runs
    from chalicelib.backup import commands as backup_commands
    backup_commands.add_parsers(things)

    # dead letters and the health check (chalicelib/upkeep), imported as the above
    from chalicelib.upkeep import commands as upkeep_commands
    upkeep_commands.add_parsers(things)

    _add_push_bundle(parser)
    _data_dir_anywhere(parser)
    args = parser.parse_args(argv)
    try:
        with contextlib.ExitStack() as stack:
            if args.area != "push-bundle":  # a client of the HTTP API: no table access
                _connect(args, stack)
            return args.run(args)
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - every failure is one line, never a traceback
        print(f"error: {describe_failure(exc)}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
