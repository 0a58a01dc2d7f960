"""Operator commands.

    python -m chalicelib.cli admin user create --username U --password P --email E [--admin]
    python -m chalicelib.cli admin user generate-access-token --username U [--scopes all]

With ``--local`` (the default when a local runtime is running in ``NIMBUS_DATA_DIR``)
the command talks to the embedded moto of ``make run``; otherwise to AWS with the
usual credentials and the configured table (``NIMBUS__AWS__TABLE`` …).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

RUNTIME_FILE = "runtime.json"


def _local_endpoint(data_dir: str) -> str | None:
    """The moto endpoint a running local runtime published in its data dir."""
    path = Path(data_dir) / RUNTIME_FILE
    try:
        info = json.loads(path.read_text())
        os.kill(int(info["pid"]), 0)  # still running?
    except (OSError, ValueError, KeyError):
        return None
    return info.get("moto_endpoint")


def _connect(args) -> None:
    data_dir = os.environ.get("NIMBUS_DATA_DIR", "./.nimbus")
    endpoint = _local_endpoint(data_dir) if not args.aws else None
    if args.local and endpoint is None:
        sys.exit(f"no local runtime is running in {data_dir}: start it with `make run`")
    if endpoint:
        os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
        os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
        os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
        os.environ["NIMBUS__AWS__ENDPOINT_URL"] = endpoint


def _create_user(args) -> int:
    from chalicelib.errors import ServiceError
    from chalicelib.services import accounts

    try:
        account = accounts.create_account({"username": args.username, "password": args.password,
                                           "email": args.email}, is_admin=args.admin)
    except ServiceError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    role = "site admin" if account.is_admin else "user"
    print(f"created {role} {account.login} (id {account.id})")
    return 0


def _generate_token(args) -> int:
    from chalicelib.errors import NotFoundError, ServiceError
    from chalicelib.services import accounts, tokens

    try:
        user = accounts.get_user(args.username)
    except NotFoundError:
        print(f"error: no user {args.username}", file=sys.stderr)
        return 1
    try:
        # The operator acts as the user (the CLI runs with the operator's AWS rights).
        _, secret = tokens.create_token(user, user.login, {
            "name": args.token_name, "scopes": args.scopes.split(",")})
    except ServiceError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    print(secret)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m chalicelib.cli")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--local", action="store_true", help="require the local runtime")
    where.add_argument("--aws", action="store_true", help="ignore a running local runtime")
    admin = parser.add_subparsers(dest="area", required=True).add_parser("admin")
    user = admin.add_subparsers(dest="thing", required=True).add_parser("user")
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

    args = parser.parse_args(argv)
    _connect(args)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
