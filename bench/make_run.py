"""``make run`` in a subprocess, exactly as a user starts it (README: the journaled local
runtime with the event pipeline, the webhook worker and the schedules), for the
benchmarks and guards that measure what users run rather than an in-process server.

    with make_run(work, {"NIMBUS_CACHE_DIR": str(cache)}) as base:   # http://127.0.0.1:PORT
        ...

The site admin ``ADMIN`` (user, password) is made at start (``NIMBUS_ADMIN_*``).  The
process and its children are one process group, stopped with SIGTERM (as Ctrl-C
would), then killed if they linger.
"""
from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Iterator

from _harness import REPO_ROOT

ADMIN = ("bench", "bench-password-1")
START_SECONDS = 60


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def make_run(work: Path, env: dict[str, str] | None = None) -> Iterator[str]:
    """``make run`` serving from ``work/data``; yields its base URL."""
    port = free_port()
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("NIMBUS", "AWS_"))}
    clean.update(PORT=str(port), NIMBUS_DATA_DIR=str(work / "data"),
                 NIMBUS_ADMIN_USER=ADMIN[0], NIMBUS_ADMIN_PASSWORD=ADMIN[1],
                 NIMBUS_ADMIN_EMAIL="bench@example.com", **(env or {}))
    log = work / f"make-run-{port}.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(["make", "-s", "run"], cwd=REPO_ROOT, env=clean, stdout=out,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait(process, base, log)
        yield base
    finally:
        _stop(process)


def _wait(process: subprocess.Popen, base: str, log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"make run exited with {process.returncode}:\n{log.read_text()}")
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(base + "/api/v1/version", timeout=2) as answer:
                if answer.status == 200:
                    return
        time.sleep(0.1)
    raise RuntimeError(f"make run did not answer within {START_SECONDS} s:\n{log.read_text()}")


def _stop(process: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
