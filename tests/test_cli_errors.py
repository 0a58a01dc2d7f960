"""The operator CLI finds the local runtime however it was started, and answers every
failure with one line on stderr and a non-zero exit status, never a traceback."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError, NoCredentialsError
from pynamodb.exceptions import GetError

from chalicelib import cli

ROOT = Path(__file__).resolve().parents[1]
CREATE = ["admin", "user", "create", "--username", "ops", "--password", "ops-password-1",
          "--email", "ops@example.com", "--admin"]


def _without_credentials(monkeypatch, tmp_path):
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                 "AWS_SECURITY_TOKEN", "AWS_PROFILE", "NIMBUS_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


def _one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in text, text
    assert lines[0].startswith("error: "), text
    return lines[0]


def test_no_runtime_and_no_credentials_is_one_line(monkeypatch, tmp_path, capsys):
    _without_credentials(monkeypatch, tmp_path)
    monkeypatch.setattr(cli, "find_local_runtime", lambda data_dir: (None, [tmp_path]))
    assert cli.main(CREATE) == 1
    line = _one_line(capsys.readouterr().err)
    assert "no local runtime is running" in line and "no AWS credentials" in line
    assert cli.main(["--aws", *CREATE]) == 1
    assert "no AWS credentials" in _one_line(capsys.readouterr().err)


def test_named_data_dir_without_runtime_is_one_line(tmp_path, capsys):
    assert cli.main(["--data-dir", str(tmp_path), *CREATE]) == 1
    line = _one_line(capsys.readouterr().err)
    assert f"no local runtime is running and no local state is stored (looked in {tmp_path})" \
        in line


def test_stale_runtime_file_is_not_a_runtime(tmp_path, capsys):
    """kill -9 leaves runtime.json behind: its pid is gone, so it is not used."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    (tmp_path / cli.RUNTIME_FILE).write_text(
        f'{{"pid": {gone.pid}, "moto_endpoint": "http://127.0.0.1:9"}}')
    assert cli.main(["--local", "--data-dir", str(tmp_path), *CREATE]) == 1
    assert "no local runtime is running" in _one_line(capsys.readouterr().err)


@pytest.mark.parametrize("failure, expected", [
    (NoCredentialsError(), "cannot reach AWS: Unable to locate credentials"),
    (EndpointConnectionError(endpoint_url="http://x"), "cannot reach AWS: Could not connect"),
    (ClientError({"Error": {"Code": "ResourceNotFoundException", "Message": "no table"}},
                 "GetItem"), "AWS refused the request: ResourceNotFoundException: no table"),
    (RuntimeError("first\nsecond"), "RuntimeError: first"),
])
def test_unexpected_failures_are_one_line(monkeypatch, capsys, failure, expected):
    def fail(args):
        raise failure

    monkeypatch.setattr(cli, "_connect", lambda args, stack: None)
    monkeypatch.setattr(cli, "_create_user", fail)
    # The parser binds the command when main() runs: patching the module is enough.
    assert cli.main(CREATE) == 1
    assert _one_line(capsys.readouterr().err).startswith(f"error: {expected}")


def test_pynamodb_failures_name_their_aws_cause(capsys):
    try:
        try:
            raise NoCredentialsError()
        except NoCredentialsError as cause:
            raise GetError("Failed to get item") from cause
    except GetError as wrapped:
        assert cli.describe_failure(wrapped) == "cannot reach AWS: Unable to locate credentials"


def _start_runtime(cwd: Path, data_dir: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NIMBUS__", "AWS_")) and k != "NIMBUS_CONFIG"}
    env.update(PORT="0", NIMBUS_DATA_DIR=data_dir, PYTHONPATH=str(ROOT),
               NIMBUS__SECURITY__PASSWORD_HASH_COST="1024")
    proc = subprocess.Popen([sys.executable, "-m", "chalicelib.local"], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 60
    for line in proc.stdout:
        if line.startswith("Nimbus is serving"):
            return proc
        if time.monotonic() > deadline:
            break
    proc.kill()
    pytest.fail("the local runtime did not start")


def test_finds_a_runtime_started_in_another_shell(tmp_path):
    """The runtime runs with a relative NIMBUS_DATA_DIR from its own directory; the CLI
    runs elsewhere, without NIMBUS_DATA_DIR or AWS credentials, and still finds it."""
    (tmp_path / "server").mkdir()
    (tmp_path / "operator").mkdir()
    runtime = _start_runtime(tmp_path / "server", "state")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NIMBUS", "AWS_"))}
    env.update(PYTHONPATH=str(ROOT), AWS_EC2_METADATA_DISABLED="true",
               AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"))

    def create() -> tuple[int, str, str] | None:
        """(exit status, stdout, stderr); None when other runtimes (other tests') run
        beside ours, and the CLI rightly asks which one."""
        done = subprocess.run([sys.executable, "-m", "chalicelib.cli", *CREATE],
                              cwd=tmp_path / "operator", env=env, capture_output=True,
                              text=True, timeout=60)
        if "several local runtimes" in done.stderr:
            assert str(tmp_path / "server" / "state") in _one_line(done.stderr)
            return None
        return done.returncode, done.stdout.strip(), done.stderr

    try:
        first = create()
        assert first is None or first[:2] == (0, "created site admin ops (id 1)"), first
        again = create()
        assert again is None or again[0] == 1, again
        assert again is None or _one_line(again[2]) == "error: user already exists [name: ops]"
    finally:
        runtime.send_signal(signal.SIGTERM)
        try:
            runtime.wait(timeout=20)
        except subprocess.TimeoutExpired:
            runtime.kill()
            runtime.wait()


def test_opens_a_stopped_runtimes_data_dir(tmp_path):
    """No runtime running: a named data dir with state is opened by the command itself,
    and what it wrote is there for the next one (and for ``make run``)."""
    runtime = _start_runtime(tmp_path, "state")
    runtime.send_signal(signal.SIGTERM)
    assert runtime.wait(timeout=20) == 0
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NIMBUS", "AWS_"))}
    env.update(PYTHONPATH=str(ROOT), NIMBUS__SECURITY__PASSWORD_HASH_COST="1024")
    command = [sys.executable, "-m", "chalicelib.cli", "--data-dir", str(tmp_path / "state"),
               *CREATE]
    first = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert (first.returncode, first.stdout.strip()) == (0, "created site admin ops (id 1)"), \
        first.stderr
    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert again.returncode == 1
    assert _one_line(again.stderr) == "error: user already exists [name: ops]"
