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
import shutil
import socket
import threading
import time

import pytest

from chalicelib.local.aws_requests import Access, action_of, classify, signing_service
from chalicelib.local.persistence import blob_name
from chalicelib.local.runtime import LocalRuntime
from chalicelib.local.server import BadRequestBody, LocalHTTPServer, read_chunked
from tests.local_server import ADMIN_ENV, call, served, stop



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


@contextlib.contextmanager
def bare_server(handler=echo_handler, serving: bool = True):
    """A LocalHTTPServer without moto; yields (server, start serving)."""
    server = LocalHTTPServer(("127.0.0.1", 0), access_log=False)
    server.lambda_handler = handler
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    if serving:
        thread.start()
    try:
        yield server, thread.start
    finally:
        if thread.is_alive():
            server.shutdown()
        server.server_close()


def test_the_listen_backlog_holds_a_burst_of_64_connections():
    # While nothing accepts, every connection of the burst waits in the backlog; with
    # socketserver's default of 5 the kernel drops the rest (SYN retried after 1 s).
    with bare_server(serving=False) as (server, serve):
        host, port = server.server_address[:2]
        sockets = []
        try:
            for _ in range(64):
                sockets.append(socket.create_connection((host, port), timeout=0.5))
            serve()
            for sock in sockets:
                sock.sendall(b"GET /burst HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            for sock in sockets:
                sock.settimeout(10)
                assert sock.recv(12) == b"HTTP/1.1 201"
        finally:
            for sock in sockets:
                sock.close()


def test_closing_connections_is_bounded_by_the_drain_timeout():
    started, release = threading.Event(), threading.Event()

    def slow_handler(event, context):
        if event["path"] == "/slow":
            started.set()
            release.wait(30)
        return echo_handler(event, context)

    with bare_server(slow_handler) as (server, _):
        host, port = server.server_address[:2]
        idle = http.client.HTTPConnection(host, port, timeout=10)
        idle.request("GET", "/quick")
        idle.getresponse().read()  # kept alive, idle from now on
        outcome = []

        def slow_request():
            conn = http.client.HTTPConnection(host, port, timeout=10)
            try:
                conn.request("GET", "/slow")
                outcome.append(conn.getresponse().status)
            except (OSError, http.client.HTTPException) as exc:
                outcome.append(type(exc).__name__)

        client = threading.Thread(target=slow_request)
        client.start()
        assert started.wait(5)
        server.shutdown()
        closing = time.monotonic()
        assert server.close_connections(0.3) is False  # the slow request had to be cut
        assert time.monotonic() - closing < 1.0
        client.join(5)
        assert outcome and outcome[0] != 201  # cut, never answered
        assert idle.sock.recv(1) == b""  # the idle keep-alive connection was closed
        release.set()


def test_a_request_finishing_within_the_drain_timeout_is_answered():
    started, release = threading.Event(), threading.Event()

    def slow_handler(event, context):
        started.set()
        release.wait(30)
        return echo_handler(event, context)

    with bare_server(slow_handler) as (server, _):
        host, port = server.server_address[:2]
        conn = http.client.HTTPConnection(host, port, timeout=10)
        conn.request("GET", "/slow")
        assert started.wait(5)
        server.shutdown()
        threading.Timer(0.2, release.set).start()
        assert server.close_connections(5) is True
        response = conn.getresponse()
        assert response.status == 201
        assert response.headers["Connection"] == "close"


# -- what counts as a write --------------------------------------------------------------

def _signed(service: str) -> str:
    return (f"AWS4-HMAC-SHA256 Credential=testing/20260101/us-east-1/{service}/aws4_request, "
            "SignedHeaders=host, Signature=0")


@pytest.mark.parametrize("authorization, query, method, target, body, expected", [
    (_signed("dynamodb"), "", "POST", "DynamoDB_20120810.Query", b"", Access("dynamodb", False)),
    (_signed("dynamodb"), "", "POST", "DynamoDB_20120810.TransactWriteItems", b"",
     Access("dynamodb", True)),
    (_signed("s3"), "", "GET", None, b"", Access("s3", False)),
    (_signed("s3"), "", "DELETE", None, b"", Access("s3", True)),
    ("", "X-Amz-Credential=testing%2F20260101%2Fus-east-1%2Fs3%2Faws4_request", "PUT", None,
     b"", Access("s3", True)),  # a presigned upload
    (_signed("ssm"), "", "POST", "AmazonSSM.PutParameter", b"", Access("ssm", True)),
    (_signed("ssm"), "", "POST", "AmazonSSM.GetParameter", b"", Access("ssm", False)),
    (_signed("sqs"), "", "POST", "AmazonSQS.CreateQueue", b"", Access("sqs", True)),
    (_signed("sqs"), "", "POST", "AmazonSQS.SendMessage", b"", Access("sqs", False)),
    (_signed("sqs"), "", "POST", None, b"Action=DeleteQueue&QueueUrl=x", Access("sqs", True)),
    (_signed("sts"), "", "POST", None, b"Action=GetCallerIdentity", Access(None, False)),
])
def test_writes_of_persisted_services_are_told_from_reads(authorization, query, method, target,
                                                          body, expected):
    content_type = None if target else "application/x-www-form-urlencoded"
    access = classify(signing_service(authorization, query), method,
                      action_of(target, content_type, body))
    assert access == expected
    # DynamoDB and S3 reads lock (shared) too; other reads run freely.
    assert access.locks == (expected.writes or expected.service in ("dynamodb", "s3"))


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
        assert {"nimbus-webhooks", "nimbus-webhooks-dlq"} <= {q.rsplit("/", 1)[1] for q in queues}
        old_blob = tmp_path / "s3" / bucket / "blobs" / blob_name(
            "gone-soon", s3.head_object(Bucket=bucket, Key="gone-soon")["ETag"])
        assert old_blob.exists()
        s3.delete_object(Bucket=bucket, Key="gone-soon")
        s3.put_object(Bucket=bucket, Key=LONG_KEY, Body=b"longer")
        rt.snapshot()  # compaction calls this too
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

def test_admin_from_the_environment_survives_a_restart(tmp_path):
    data = tmp_path / "data"
    with served(data, **ADMIN_ENV) as (process, base):
        status, user = call(base, "GET", "/api/v1/user")
        assert (status, user["login"]) == (200, "root")
        assert stop(process)[0] == 0

    with served(data) as (process, base):  # no NIMBUS_ADMIN_* this time
        status, user = call(base, "GET", "/api/v1/user")
        assert (status, user["login"]) == (200, "root")
        assert stop(process)[0] == 0
    # A site admin exists: the hint about creating one is not repeated on every start.
    assert "no admin created" not in process.output.read_text()


def test_the_no_admin_hint_appears_only_without_a_site_admin(api):
    """In-process, on the test table: root is a site admin, then is not."""
    from chalicelib import aws
    from chalicelib.local.__main__ import ensure_admin_from_env
    from chalicelib.accounts.store import get_by_name
    from chalicelib.store.table import Item

    assert ensure_admin_from_env({}) == ""
    root = get_by_name("root")
    aws.client("dynamodb").update_item(
        TableName=Item.Meta.table_name, Key={"pk": {"S": root.pk}, "sk": {"S": root.sk}},
        UpdateExpression="SET is_admin = :no", ExpressionAttributeValues={":no": {"BOOL": False}})
    assert "no admin created" in ensure_admin_from_env({})


def test_served_app_sees_settings_and_whole_request_bodies(tmp_path):
    root_url = {"NIMBUS__SERVER__ROOT_URL": "http://example.test/"}
    with served(tmp_path / "data", **root_url) as (process, base):
        status, body = call(base, "GET", "/api/v1/no-such-endpoint", auth=None)
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
        assert stop(process)[0] == 0


def test_a_data_dir_in_the_older_single_snapshot_layout_is_taken_over(tmp_path):
    with LocalRuntime(port=0, data_dir=tmp_path, handler=echo_handler, access_log=False) as rt:
        table, bucket = rt.settings.aws.TABLE, rt.settings.aws.BUCKET
        rt.moto.client("dynamodb").put_item(TableName=table, Item=BINARY_ITEM)
        rt.moto.client("s3").put_object(Bucket=bucket, Key=ODD_KEY, Body=b"pack")
    # What an older version left: one snapshot in the data dir itself, no CURRENT.
    generation = json.loads((tmp_path / "CURRENT").read_text())["generation"]
    snapshot = tmp_path / "snapshots" / str(generation)
    for name in ("dynamodb", "sqs.json", "ssm.json"):
        if (snapshot / name).exists():
            (snapshot / name).rename(tmp_path / name)
    for manifest in snapshot.glob("s3/*/manifest.json"):
        manifest.rename(tmp_path / "s3" / manifest.parent.name / "manifest.json")
    shutil.rmtree(tmp_path / "snapshots")
    (tmp_path / "CURRENT").unlink()

    with LocalRuntime(port=0, data_dir=tmp_path, handler=echo_handler, access_log=False) as rt:
        key = {"pk": BINARY_ITEM["pk"], "sk": BINARY_ITEM["sk"]}
        assert rt.moto.client("dynamodb").get_item(TableName=table, Key=key)["Item"] == BINARY_ITEM
        assert _object(rt.moto.client("s3"), bucket, ODD_KEY) == b"pack"
    assert (tmp_path / "CURRENT").exists()
    assert not (tmp_path / "dynamodb").exists()
    assert not list(tmp_path.glob("s3/*/manifest.json"))
