"""``make run`` in a subprocess, exactly as a user starts it (README: the journaled local
runtime with the event pipeline, the webhook worker and the schedules), for the
benchmarks and guards that measure what users run rather than an in-process server.

    with make_run(work, {"NIMBUS_CACHE_DIR": str(cache)}) as base:   # http://127.0.0.1:PORT
        ...

The site admin ``ADMIN`` (user, password) is made at start (``NIMBUS_ADMIN_*``).  The
process and its children are one process group, stopped with SIGTERM (as Ctrl-C
would), then killed if they linger.  :func:`wait_until_quiet` waits for its background
work (the events of a bench's set-up) to end, so a measurement sees the server at rest.
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
# The process group of each running make run, by base URL.
_groups: dict[str, int] = {}


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
        _groups[base] = process.pid
        yield base
    finally:
        _groups.pop(base, None)
        _stop(process)


def wait_until_quiet(base: str, *, busy_below: float = 0.05, quiet_for: float = 1.0,
                     timeout: float = 300) -> float:
    """Wait until the make run at ``base`` has used under ``busy_below`` of a CPU for
    ``quiet_for`` seconds (its event lanes drained); the seconds waited."""
    group, started = _groups[base], time.monotonic()
    last, quiet_since = _cpu_seconds(group), started
    while time.monotonic() - started < timeout:
        time.sleep(0.25)
        now = _cpu_seconds(group)
        if now - last > busy_below * 0.25:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since >= quiet_for:
            return time.monotonic() - started
        last = now
    raise RuntimeError(f"make run at {base} stayed busy for {timeout} s")


def _cpu_seconds(group: int) -> float:
    """User and system CPU seconds of the processes of one process group (/proc)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rpartition(")")[2].split()
            if int(fields[2]) == group:      # pgrp
                total += int(fields[11]) + int(fields[12])     # utime, stime
    return total / ticks


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
