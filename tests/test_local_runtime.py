"""The local runtime (``python -m chalicelib.local``): HTTP framing, saved state, start/stop.

The server and persistence are tested in-process with a stand-in Lambda handler that
echoes what it received; start, admin bootstrap, SIGTERM and restart are tested on the
real command in a subprocess.
"""
from __future__ import annotations

import base64
import contextlib
import gzip
import http.client
import io
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

from chalicelib.local.moto_backend import PERSISTED_SERVICES, ChangeTracker
from chalicelib.local.persistence import _blob_name
from chalicelib.local.runtime import LocalRuntime
from chalicelib.local.server import BadRequestBody, read_chunked

REPO = Path(__file__).resolve().parents[1]
ADMIN = {"NIMBUS_ADMIN_USER": "root", "NIMBUS_ADMIN_PASSWORD": "correct-horse-1",
         "NIMBUS_ADMIN_EMAIL": "root@example.test"}


# -- de-chunking -------------------------------------------------------------------------

def test_read_chunked_joins_chunks_and_drops_extensions_and_trailers():
    wire = b"5\r\nhello\r\n6;name=value\r\n world\r\n0\r\nX-Checksum: abc\r\n\r\nNEXT"
    stream = io.BytesIO(wire)
    assert read_chunked(stream) == b"hello world"
    assert stream.read() == b"NEXT"  # stops exactly at the end of the body


@pytest.mark.parametrize("wire", [
    b"zz\r\nhello\r\n0\r\n\r\n",       # size is not hex
    b"0x5\r\nhello\r\n0\r\n\r\n",      # int(..., 16) would accept this; HTTP does not
    b"5\r\nhel",                       # body ends inside a chunk
    b"5\r\nhelloXX0\r\n\r\n",          # chunk not followed by CRLF
    b"5\r\nhello\r\n0\r\n",            # no empty line after the last chunk
])
def test_read_chunked_rejects_malformed_bodies(wire):
    with pytest.raises(BadRequestBody):
        read_chunked(io.BytesIO(wire))


# -- the server, with a handler that echoes its event ------------------------------------

def echo_handler(event, context):
    if event["path"] == "/crash":
        raise RuntimeError("boom")
    body = json.dumps({
        "method": event["httpMethod"], "path": event["path"],
        "headers": event["multiValueHeaders"], "body": event["body"],
        "remaining_ms": context.get_remaining_time_in_millis(),
    })
    return {"statusCode": 201, "headers": {"Content-Type": "application/json"},
            "multiValueHeaders": {"Set-Cookie": ["a=1", "b=2"]},
            "body": body, "isBase64Encoded": False}


@pytest.fixture(scope="class")
def echo_server(tmp_path_factory):
    # Class scope: moto's state is process-global, so in-process runtimes must not overlap.
    runtime = LocalRuntime(port=0, data_dir=tmp_path_factory.mktemp("echo"),
                           handler=echo_handler, access_log=False)
    with runtime:
        yield runtime


def _connect(runtime) -> http.client.HTTPConnection:
    host, port = runtime.url.removeprefix("http://").split(":")
    return http.client.HTTPConnection(host, int(port), timeout=10)


def _received(response) -> dict:
    echoed = json.loads(response.read())
    echoed["body"] = base64.b64decode(echoed["body"] or "")
    return echoed


class TestServer:
    """The HTTP server in-process, with echo_handler as the Lambda."""

    def test_chunked_post_reaches_the_handler_whole(self, echo_server):
        payload = os.urandom(3 * 1024 * 1024 // 2)  # git chunks POSTs above 1 MiB
        conn = _connect(echo_server)
        pieces = (payload[i:i + 65536] for i in range(0, len(payload), 65536))
        conn.request("POST", "/repo.git/git-receive-pack", body=pieces, encode_chunked=True,
                     headers={"Content-Type": "application/x-git-receive-pack-request"})
        response = conn.getresponse()
        echoed = _received(response)
        assert response.status == 201
        assert echoed["body"] == payload
        assert echoed["headers"]["Transfer-Encoding"] == ["chunked"]
        assert 0 < echoed["remaining_ms"] <= 29_000

    def test_gzip_body_and_request_headers_pass_through_unchanged(self, echo_server):
        compressed = gzip.compress(b'{"text": "# hi"}')
        conn = _connect(echo_server)
        conn.request("POST", "/api/v1/markdown?mode=gfm", body=compressed, headers={
            "Content-Encoding": "gzip", "Content-Type": "application/json", "X-Twice": "1"})
        echoed = _received(conn.getresponse())
        assert echoed["body"] == compressed  # inflating is the app gateway's job
        assert echoed["headers"]["Content-Encoding"] == ["gzip"]
        assert echoed["headers"]["X-Twice"] == ["1"]
        assert echoed["path"] == "/api/v1/markdown"

    def test_responses_keep_multi_value_headers_and_the_connection(self, echo_server):
        conn = _connect(echo_server)
        conn.request("GET", "/first")
        first = conn.getresponse()
        first.read()
        assert first.headers.get_all("Set-Cookie") == ["a=1", "b=2"]
        sock = conn.sock
        conn.request("HEAD", "/second")
        head = conn.getresponse()
        assert head.read() == b""
        assert head.status == 201 and head.headers["Content-Type"] == "application/json"
        assert conn.sock is sock  # HTTP/1.1 keep-alive: both requests on one connection

    def test_a_crashing_handler_answers_502_like_api_gateway(self, echo_server):
        conn = _connect(echo_server)
        conn.request("GET", "/crash")
        response = conn.getresponse()
        assert response.status == 502
        assert json.loads(response.read()) == {"message": "Internal server error"}

    def test_broken_framing_answers_400_and_closes(self, echo_server):
        host, port = echo_server.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(b"POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 400 ")
        assert b"Connection: close" in answer

    def test_a_second_runtime_cannot_share_the_data_dir(self, echo_server):
        with pytest.raises(RuntimeError, match="in use"):
            LocalRuntime(port=0, data_dir=echo_server.data_dir, handler=echo_handler).start()


# -- what counts as a change ------------------------------------------------------------

def _signed(service: str) -> str:
    return (f"AWS4-HMAC-SHA256 Credential=testing/20260101/us-east-1/{service}/aws4_request, "
            "SignedHeaders=host, Signature=0")


@pytest.mark.parametrize("environ, changed", [
    ({"REQUEST_METHOD": "POST", "HTTP_AUTHORIZATION": _signed("dynamodb"),
      "HTTP_X_AMZ_TARGET": "DynamoDB_20120810.Query"}, set()),
    ({"REQUEST_METHOD": "POST", "HTTP_AUTHORIZATION": _signed("dynamodb"),
      "HTTP_X_AMZ_TARGET": "DynamoDB_20120810.TransactWriteItems"}, {"dynamodb"}),
    ({"REQUEST_METHOD": "GET", "HTTP_AUTHORIZATION": _signed("s3")}, set()),
    ({"REQUEST_METHOD": "DELETE", "HTTP_AUTHORIZATION": _signed("s3")}, {"s3"}),
    ({"REQUEST_METHOD": "PUT",  # a presigned upload
      "QUERY_STRING": "X-Amz-Credential=testing%2F20260101%2Fus-east-1%2Fs3%2Faws4_request"},
     {"s3"}),
    ({"REQUEST_METHOD": "POST", "HTTP_AUTHORIZATION": _signed("ssm"),
      "HTTP_X_AMZ_TARGET": "AmazonSSM.PutParameter"}, {"ssm"}),
    ({"REQUEST_METHOD": "POST"}, set(PERSISTED_SERVICES)),  # unsigned: could be anything
])
def test_only_writes_mark_a_service_changed(environ, changed):
    tracker = ChangeTracker()
    tracker.note(environ)
    assert tracker.take() == changed
    assert tracker.take() == set()


# -- saved state ---------------------------------------------------------------------------

ODD_KEY = "packs/pool 1/pack-ü?#%&*.pack"
LONG_KEY = "attachments/" + "x" * 1000
BINARY_ITEM = {"pk": {"S": "TEST#1"}, "sk": {"S": "BLOB"}, "raw": {"B": b"\x00\xff"},
               "set": {"BS": [b"\x01", b"\x02"]},
               "nested": {"M": {"list": {"L": [{"B": b"\x03"}, {"N": "7"}]}}}}


def _object(s3, bucket, key) -> bytes:
    return s3.get_object(Bucket=bucket, Key=key)["Body"].read()


def test_state_survives_a_restart(tmp_path):
    pack = os.urandom(2 * 1024 * 1024)
    with LocalRuntime(port=0, data_dir=tmp_path, handler=echo_handler, access_log=False) as rt:
        table, bucket = rt.settings.aws.TABLE, rt.settings.aws.BUCKET
        s3, ddb = rt.moto.client("s3"), rt.moto.client("dynamodb")
        s3.put_object(Bucket=bucket, Key=ODD_KEY, Body=pack, ContentType="application/x-git")
        s3.put_object(Bucket=bucket, Key=LONG_KEY, Body=b"long", Metadata={"owner": "7"})
        s3.put_object(Bucket=bucket, Key="gone-soon", Body=b"old")
        ddb.put_item(TableName=table, Item=BINARY_ITEM)
        rt.moto.client("ssm").put_parameter(Name="/nimbus/signing-key", Value="secret",
                                            Type="SecureString")

    with LocalRuntime(port=0, data_dir=tmp_path, handler=echo_handler, access_log=False) as rt:
        s3, ddb = rt.moto.client("s3"), rt.moto.client("dynamodb")
        assert _object(s3, bucket, ODD_KEY) == pack
        assert s3.head_object(Bucket=bucket, Key=ODD_KEY)["ContentType"] == "application/x-git"
        assert s3.head_object(Bucket=bucket, Key=LONG_KEY)["Metadata"] == {"owner": "7"}
        key = {"pk": BINARY_ITEM["pk"], "sk": BINARY_ITEM["sk"]}
        assert ddb.get_item(TableName=table, Key=key)["Item"] == BINARY_ITEM
        indexes = ddb.describe_table(TableName=table)["Table"]["GlobalSecondaryIndexes"]
        assert sorted(i["IndexName"] for i in indexes) == ["gsi1", "gsi2"]
        parameter = rt.moto.client("ssm").get_parameter(Name="/nimbus/signing-key",
                                                        WithDecryption=True)["Parameter"]
        assert (parameter["Type"], parameter["Value"]) == ("SecureString", "secret")
        queues = rt.moto.client("sqs").list_queues()["QueueUrls"]
        assert {q.rsplit("/", 1)[1] for q in queues} == {"nimbus-webhooks", "nimbus-webhooks-dlq"}
        old_blob = tmp_path / "s3" / bucket / "blobs" / _blob_name(
            "gone-soon", s3.head_object(Bucket=bucket, Key="gone-soon")["ETag"])
        assert old_blob.exists()
        s3.delete_object(Bucket=bucket, Key="gone-soon")
        s3.put_object(Bucket=bucket, Key=LONG_KEY, Body=b"longer")
        rt.snapshot()  # periodic snapshots call this too
        assert not old_blob.exists()

    with LocalRuntime(port=0, data_dir=tmp_path, handler=echo_handler, access_log=False) as rt:
        s3 = rt.moto.client("s3")
        keys = {o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]}
        assert keys == {ODD_KEY, LONG_KEY}
        assert _object(s3, bucket, LONG_KEY) == b"longer"
    blobs = list((tmp_path / "s3" / bucket / "blobs").glob("*/*"))
    assert len(blobs) == 2  # the superseded version of LONG_KEY was removed
    assert not list(tmp_path.rglob("*.tmp"))


# -- the real command ---------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def served(data_dir: Path, **env: str):
    """``python -m chalicelib.local`` in a subprocess; yields (process, base URL)."""
    port = _free_port()
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("NIMBUS", "AWS_"))}
    clean.update(PORT=str(port), NIMBUS_DATA_DIR=str(data_dir), PYTHONUNBUFFERED="1", **env)
    output = data_dir.parent / f"server-{port}.log"
    with open(output, "wb") as log:
        process = subprocess.Popen([sys.executable, "-m", "chalicelib.local"], cwd=REPO,
                                   env=clean, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_answering(process, base + "/api/v1/version", output)
        yield process, base
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _wait_until_answering(process, url: str, output: Path) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"server exited with {process.returncode}:\n{output.read_text()}")
        with contextlib.suppress(OSError):
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        time.sleep(0.1)
    pytest.fail(f"server did not answer {url} within 20 s:\n{output.read_text()}")


def _stop(process) -> int:
    process.send_signal(signal.SIGTERM)
    return process.wait(timeout=20)


def _get(url: str, user: str | None = None, password: str | None = None):
    request = urllib.request.Request(url)
    if user:
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        request.add_header("Authorization", "Basic " + token)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_admin_from_the_environment_survives_a_restart(tmp_path):
    data = tmp_path / "data"
    with served(data, **ADMIN) as (process, base):
        status, user = _get(base + "/api/v1/user", "root", ADMIN["NIMBUS_ADMIN_PASSWORD"])
        assert (status, user["login"]) == (200, "root")
        assert _stop(process) == 0

    with served(data) as (process, base):  # no NIMBUS_ADMIN_* this time
        status, user = _get(base + "/api/v1/user", "root", ADMIN["NIMBUS_ADMIN_PASSWORD"])
        assert (status, user["login"]) == (200, "root")
        assert _stop(process) == 0


def test_served_app_sees_settings_and_whole_request_bodies(tmp_path):
    root_url = {"NIMBUS__SERVER__ROOT_URL": "http://example.test/"}
    with served(tmp_path / "data", **root_url) as (process, base):
        status, body = _get(base + "/api/v1/no-such-endpoint")
        assert status == 404
        assert body["url"] == "http://example.test/api/swagger"

        host, port = base.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        conn.request("POST", "/api/v1/version", body=iter([b"{}", b" "]), encode_chunked=True,
                     headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        assert response.status == 405  # an answer, not a server waiting for more body
        assert json.loads(response.read())["url"] == "http://example.test/api/swagger"
        conn.request("POST", "/api/v1/version", body=gzip.compress(b"{}"),
                     headers={"Content-Type": "application/json", "Content-Encoding": "gzip"})
        response = conn.getresponse()
        assert response.status == 405
        assert response.headers["Content-Type"].startswith("application/json")
        response.read()
        assert _stop(process) == 0
