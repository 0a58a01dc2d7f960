"""Shared by the benchmarks: the repo root on sys.path and a Lambda-like environment.

The scripts run as ``.venv/bin/python bench/<name>.py`` from the repo root, so only
``bench/`` is on sys.path by default; ``app`` and ``chalicelib`` need the root.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Callable, Iterator

REPO_ROOT = Path(__file__).resolve().parent.parent

# What a Lambda function sees: credentials and a region, nothing of ours configured.
# The keys are fake: nothing here may reach a real AWS account.
FAKE_AWS = {
    "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing", "AWS_SECURITY_TOKEN": "testing",
    "AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "us-east-1",
}


def lambda_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The current environment minus any AWS/Nimbus settings, plus FAKE_AWS and ``extra``.

    Dropping inherited AWS_* (profiles, endpoint URLs) and NIMBUS_* keeps a developer's
    shell from changing what is measured.
    """
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("AWS_", "NIMBUS_", "PYTHON"))}
    env.update(FAKE_AWS)
    env.update(extra or {})
    return env


def use_repo(extra_env: dict[str, str] | None = None) -> None:
    """Make this process import the app as the Lambda would; call before importing it.

    Settings are read once per process, so the environment must be final first.
    """
    env = lambda_env(extra_env)
    for name in list(os.environ):
        if name not in env:
            del os.environ[name]
    os.environ.update(env)
    if str(REPO_ROOT) not in sys.path:
        sys.path.insert(0, str(REPO_ROOT))


def snake_case(operation: str) -> str:
    """A recorded API operation name (``BatchGetItem``) as boto3's method name."""
    return "".join("_" + c.lower() if c.isupper() else c for c in operation).lstrip("_")


def recorded_dynamodb_call(model, params) -> tuple[str, dict] | None:
    """(operation, API parameters) of a botocore ``before-call`` event on DynamoDB, else
    None.  Its JSON protocol sends the API parameters as the body, so replaying them
    through a plain boto3 client makes the very same request."""
    import json

    if model.service_model.service_name != "dynamodb":
        return None
    return model.name, json.loads(params["body"])


def report(doc: str, run: Callable[[], dict], show: Callable[[dict], None]) -> int:
    """A bench's command line: ``run()`` with the app's own output sent to stderr, then
    its result as JSON (``--json``, parseable as it is) or through ``show``; the exit
    status is the result's ``exit_status`` (0 when it has none)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args()
    with contextlib.redirect_stdout(sys.stderr):
        result = run()
    if args.json:
        json.dump(result, sys.stdout, indent=2, default=str)
        print()
    else:
        show(result)
    return int(result.get("exit_status", 0))


class CallCounter:
    """Counts the AWS calls made while ``counting()`` is open, by ``service:operation``;
    ``hook`` goes to ``scene.moto_scene`` (the calls outside a count are not counted)."""

    def __init__(self) -> None:
        self._open: list[Counter] = []

    def hook(self, model, **_) -> None:
        if self._open:
            self._open[-1][f"{model.service_model.service_name}:{model.name}"] += 1

    @contextlib.contextmanager
    def counting(self) -> Iterator[Counter]:
        calls: Counter = Counter()
        self._open.append(calls)
        try:
            yield calls
        finally:
            self._open.pop()
