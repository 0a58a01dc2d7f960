"""The local runtime on AWS services served by another process (``NIMBUS_AWS_ENDPOINT``),
which is how bench/large_repos.py measures the memory of the serving process alone.

moto runs in its own subprocess; ``python -m chalicelib.local`` serves the API and git
against it, keeps no state of its own, and a new serving process finds everything the
previous one wrote.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.local_server import ADMIN_ENV, REPO, call, commit_random_file, git, push_url, served

MOTO = """
import signal, threading
from chalicelib.local.moto_backend import MotoServer
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
moto = MotoServer("us-east-1")
moto.start()
print(moto.endpoint, flush=True)
stop.wait()
"""


@pytest.fixture(scope="module")
def moto_endpoint():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NIMBUS", "AWS_"))}
    process = subprocess.Popen([sys.executable, "-c", MOTO], cwd=REPO, stdout=subprocess.PIPE,
                               env={**env, "PYTHONPATH": str(REPO)}, text=True)
    try:
        endpoint = process.stdout.readline().strip()
        assert endpoint.startswith("http://127.0.0.1:"), "moto did not start"
        yield endpoint
    finally:
        process.terminate()
        process.wait(10)


def test_serves_git_from_another_process_state_and_keeps_none_itself(moto_endpoint, tmp_path):
    data_dir = tmp_path / "data"
    env = {**ADMIN_ENV, "NIMBUS_AWS_ENDPOINT": moto_endpoint,
           "NIMBUS_CACHE_DIR": str(tmp_path / "cache")}
    work = tmp_path / "work"
    head = commit_random_file(work, "data.bin", 300_000)
    with served(data_dir, **env) as (process, base):
        published = json.loads((data_dir / "runtime.json").read_text())
        assert published == {"pid": process.pid, "moto_endpoint": moto_endpoint}
        status, _ = call(base, "POST", "/api/v1/user/repos", {"name": "far"})
        assert status == 201
        git("push", "-q", push_url(base, "/root/far.git"), "main", cwd=work)
        process.terminate()
        assert process.wait(20) == 0
    # Nothing restored, journaled or snapshotted here: the state is moto's process's.
    assert sorted(p.name for p in data_dir.iterdir()) == ["lock"]

    with served(data_dir, **env) as (process, base):
        status, repo = call(base, "GET", "/api/v1/repos/root/far")
        assert (status, repo["empty"]) == (200, False)
        git("clone", "-q", push_url(base, "/root/far.git"), str(tmp_path / "clone"))
        assert git("rev-parse", "HEAD", cwd=tmp_path / "clone") == head
        assert git("fsck", "--strict", cwd=tmp_path / "clone", check=False) == ""
