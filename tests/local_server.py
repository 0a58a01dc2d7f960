"""Helpers for tests that run the real ``python -m chalicelib.local`` in a subprocess."""
from __future__ import annotations

import base64
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ADMIN_PASSWORD = "correct-horse-1"
ADMIN_ENV = {"NIMBUS_ADMIN_USER": "root", "NIMBUS_ADMIN_PASSWORD": ADMIN_PASSWORD,
             "NIMBUS_ADMIN_EMAIL": "root@example.test"}
START_TIMEOUT = 30


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def served(data_dir: Path, **env: str):
    """``python -m chalicelib.local`` in a subprocess; yields (process, base URL).  Its
    output goes to ``<data_dir's parent>/server-<port>.log``."""
    port = free_port()
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("NIMBUS", "AWS_"))}
    clean.update(PORT=str(port), NIMBUS_DATA_DIR=str(data_dir), PYTHONUNBUFFERED="1", **env)
    output = data_dir.parent / f"server-{port}.log"
    with open(output, "wb") as log:
        process = subprocess.Popen([sys.executable, "-m", "chalicelib.local"], cwd=REPO,
                                   env=clean, stdout=log, stderr=subprocess.STDOUT)
    process.output = output
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_answering(process, base + "/api/v1/version", output)
        yield process, base
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def wait_until_answering(process, url: str, output: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"server exited with {process.returncode}:\n{output.read_text()}")
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        time.sleep(0.1)
    pytest.fail(f"server did not answer {url} within {START_TIMEOUT} s:\n{output.read_text()}")


def stop(process, timeout: float = 20) -> tuple[int, float]:
    """SIGTERM; the exit code and how long the process took to exit."""
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    code = process.wait(timeout=timeout)
    return code, time.monotonic() - started


def call(base: str, method: str, path: str, body: dict | None = None,
         auth: tuple[str, str] | None = ("root", ADMIN_PASSWORD)):
    """An API request; (status, decoded JSON body or None)."""
    request = urllib.request.Request(base + path, method=method,
                                     data=json.dumps(body).encode() if body is not None else None)
    request.add_header("Content-Type", "application/json")
    if auth:
        token = base64.b64encode(":".join(auth).encode()).decode()
        request.add_header("Authorization", "Basic " + token)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            data = response.read()
            return response.status, json.loads(data) if data else None
    except urllib.error.HTTPError as err:
        data = err.read()
        return err.code, json.loads(data) if data else None


def git(*args: str, cwd: Path | None = None, check: bool = True) -> str:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.test",
           "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.test"}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    if check and done.returncode:
        pytest.fail(f"git {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout.strip()


def commit_random_file(repo: Path, name: str, size: int) -> str:
    """Commit ``size`` random bytes as ``name`` (created with ``git init`` if need be);
    the new HEAD."""
    if not (repo / ".git").exists():
        git("init", "-q", "-b", "main", str(repo))
    (repo / name).write_bytes(os.urandom(size))
    git("add", name, cwd=repo)
    git("commit", "-q", "-m", f"add {name}", cwd=repo)
    return git("rev-parse", "HEAD", cwd=repo)


def push_url(base: str, path: str) -> str:
    return base.replace("http://", f"http://root:{ADMIN_PASSWORD}@") + path


# The site admin ``runtime_with_events`` makes.
BOSS = ("boss", "boss-password")


def make_user(base: str, name: str) -> tuple[str, str]:
    """A user made by ``BOSS`` on a runtime at ``base``; its (name, password)."""
    password = f"{name}-password"
    status, _ = call(base, "POST", "/api/v1/admin/users", {
        "username": name, "password": password, "email": f"{name}@example.com",
        "must_change_password": False}, auth=BOSS)
    assert status == 201, status
    return name, password


@contextlib.contextmanager
def runtime_with_events(data_dir: Path):
    """An in-process local runtime running the domain-event pipeline (the consumers run
    as on ``make run``), with the site admin ``boss`` (password ``boss-password``)."""
    from chalicelib import oauth2
    from chalicelib.accounts.service import ensure_admin
    from chalicelib.http import sessions
    from chalicelib.local.event_pipeline import EventPipeline
    from chalicelib.local.runtime import LocalRuntime
    from chalicelib.signing import service as signing

    # A new instance: the keys an earlier test's instance cached in this process are not
    # its own (they are not in its SSM, so a dump would not carry them).
    signing.reset_cache()
    sessions.reset_key_cache()
    oauth2.reset_jwt_key_cache()
    with LocalRuntime(port=0, data_dir=data_dir, access_log=False,
                      sync_journal=False) as runtime:
        for task in EventPipeline(runtime.yield_to_requests).tasks():
            runtime.add_background(task)
        ensure_admin(*BOSS, "boss@example.com")
        yield runtime


class ApiCaller:
    """JSON calls to a runtime's ``/api/v1`` over HTTP (httpx), with a token or Basic."""

    def __init__(self, url: str, timeout: float = 60):
        self.url, self.timeout = url, timeout

    def call(self, method, path, token=None, auth=None, **kwargs):
        import httpx

        headers = {"Authorization": f"token {token}"} if token else {}
        return httpx.request(method, f"{self.url}/api/v1{path}", headers=headers, auth=auth,
                             timeout=self.timeout, **kwargs)


def seat_people(runtime, passwords: dict[str, str], *, boss_token: bool = False) -> None:
    """Users made by ``BOSS`` on an in-process ``runtime`` (``runtime_with_events``),
    each with an all-scope token in ``runtime.tokens`` (the boss's too with
    ``boss_token``), alice's read-only one in ``runtime.read_only``, the caller in
    ``runtime.client``."""
    client = ApiCaller(runtime.url)
    runtime.tokens = {}
    for name, password in passwords.items():
        client.call("POST", "/admin/users", auth=BOSS, json={
            "username": name, "email": f"{name}@example.com", "password": password,
            "must_change_password": False})
        runtime.tokens[name] = client.call(
            "POST", f"/users/{name}/tokens", auth=(name, password),
            json={"name": "all", "scopes": ["all"]}).json()["sha1"]
    if boss_token:
        runtime.tokens["boss"] = client.call(
            "POST", "/users/boss/tokens", auth=BOSS,
            json={"name": "all", "scopes": ["all"]}).json()["sha1"]
    runtime.read_only = client.call(
        "POST", "/users/alice/tokens", auth=("alice", passwords["alice"]),
        json={"name": "ro", "scopes": ["read:repository"]}).json()["sha1"]
    runtime.client = client


def token_clone_url(runtime, path: str, user: str | None = None) -> str:
    """The clone URL of ``owner/name`` on a ``seat_people`` runtime, with ``user``'s
    token in it (anonymous without)."""
    host = runtime.url.split("://", 1)[1]
    login = f"{user}:{runtime.tokens[user]}@" if user else ""
    return f"http://{login}{host}/{path}.git"


def wait_until(check, what: str, timeout: float = 30.0):
    """``check()``'s first truthy answer, asked every 0.1 s; fails after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")
