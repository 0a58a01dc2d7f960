"""Clones bigger than a buffered Lambda response, against the local runtime enforcing
AWS's payload limits (scaled down: 1 MB where AWS has 6 MB, so a 3 MB repository
takes the same paths as a 20 MB one would deployed).

POSTs go to the streaming function as API Gateway's POST method does in AWS: a clone's
pack arrives chunked, and passes ``git fsck``; a buffered answer over the limit is the
502 AWS gives; a stream over its own limit ends in git's ``remote error``.  The Lambda
custom-runtime loop is checked against a stand-in Runtime API: the prelude, the
delimiter, then the same bytes the local server streams.
"""
from __future__ import annotations

import contextlib
import http.client
import http.server
import json
import os
import threading

import httpx
import pytest

from chalicelib.local.events import build_event
from chalicelib.local.server import read_chunked
from tests.environment import settings_env
from tests.pulls.test_pulls_git import runtime_with_users
from tests.git_transport.test_git_http import TIMEOUT, git, git_env  # noqa: F401 - git_env: a fixture

MB = 1_000_000
LIMITS = {"NIMBUS__SERVER__REQUEST_LIMIT": str(1 << 20),
          "NIMBUS__SERVER__BUFFERED_RESPONSE_LIMIT": str(1 << 20),
          "NIMBUS__SERVER__STREAMED_RESPONSE_LIMIT": str(16 << 20)}
ENFORCED = {"NIMBUS__SERVER__ENFORCE_AWS_LIMITS": "true"}


@pytest.fixture
def env(git_env):  # noqa: F811 - the imported fixture
    """test_git_http's git environment (user Alice, protocol v0)."""
    return git_env


def enforced(**overrides):
    return settings_env({**ENFORCED, **{f"NIMBUS__SERVER__{k}": str(v)
                                        for k, v in overrides.items()}})


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with runtime_with_users(tmp_path_factory.mktemp("git-streaming"), LIMITS,
                            events=False) as runtime:
        yield runtime


@pytest.fixture(scope="module")
def big_repo(server, tmp_path_factory):
    """alice/big: about 3 MB of incompressible blobs in three commits, pushed while the
    limits are off (the push path is test_large_push's subject)."""
    env = seed_env(tmp_path_factory.mktemp("seed-home"))
    httpx.post(f"{server.url}/api/v1/user/repos", json={"name": "big", "private": True},
               headers={"Authorization": f"token {server.token}"},
               timeout=TIMEOUT).raise_for_status()
    work = tmp_path_factory.mktemp("seed") / "big"
    git(env, "init", "-q", str(work))
    for i in range(3):
        (work / f"blob{i}.bin").write_bytes(os.urandom(MB + 200_000))
        git(env, "add", ".", cwd=work)
        git(env, "commit", "-q", "-m", f"blob {i}", cwd=work)
    git(env, "tag", "v1", cwd=work)
    git(env, "push", "-q", remote(server), "main", "v1", cwd=work)
    return work


def seed_env(home) -> dict:
    (home / ".gitconfig").write_text("[user]\n\tname = Alice\n\temail = alice@example.com\n"
                                     "[init]\n\tdefaultBranch = main\n")
    return {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
            "HOME": str(home), "GIT_TERMINAL_PROMPT": "0"}


def remote(server, name="big") -> str:
    host = server.url.split("://", 1)[1]
    return f"http://alice:{server.token}@{host}/alice/{name}.git"


def refs_of(env, work) -> str:
    return git(env, "for-each-ref", "--format=%(objectname) %(refname)", "refs/heads",
               "refs/tags", cwd=work).stdout


def upload_pack_request(server, want: str) -> bytes:
    line = f"want {want} ofs-delta side-band-64k thin-pack\n".encode()
    return b"%04x" % (len(line) + 4) + line + b"00000009done\n"


def test_clone_over_the_buffered_limit_streams(server, big_repo, env, tmp_path):
    clone = tmp_path / "clone"
    with enforced():
        git(env, "clone", "-q", remote(server), str(clone))
    git(env, "fsck", "--strict", cwd=clone)
    with enforced():
        served = git(env, "ls-remote", remote(server), cwd=clone).stdout
    assert sorted(line.replace("\t", " ") for line in served.splitlines()
                  if line.split("\t")[1] != "HEAD") == sorted(refs_of(env, big_repo).splitlines())
    assert git(env, "rev-parse", "HEAD", "v1", cwd=clone).stdout == \
        git(env, "rev-parse", "HEAD", "v1", cwd=big_repo).stdout
    assert (clone / "blob2.bin").read_bytes() == (big_repo / "blob2.bin").read_bytes()


def test_the_pack_arrives_chunked(server, big_repo, env):
    head = git(env, "rev-parse", "HEAD", cwd=big_repo).stdout.strip()
    with enforced():
        response = httpx.post(f"{server.url}/alice/big.git/git-upload-pack",
                              content=upload_pack_request(server, head),
                              headers={"Content-Type": "application/x-git-upload-pack-request",
                                       "Authorization": f"token {server.token}"},
                              timeout=TIMEOUT)
    assert response.status_code == 200, response.text
    assert response.headers["transfer-encoding"] == "chunked"
    assert "content-length" not in response.headers
    assert len(response.content) > 3 * MB
    assert b"PACK" in response.content[:200]


def test_buffered_answer_over_the_limit_is_a_502(server, big_repo):
    path = "/api/v1/repos/alice/big/raw/blob0.bin"
    auth = {"Authorization": f"token {server.token}"}
    with enforced():
        over = httpx.get(server.url + path, headers=auth, timeout=TIMEOUT)
    assert over.status_code == 502
    assert "exceeds the 1048576-byte limit of a buffered Lambda response" in \
        over.json()["message"]
    with enforced(BUFFERED_RESPONSE_LIMIT=4 << 20):
        fits = httpx.get(server.url + path, headers=auth, timeout=TIMEOUT)
    assert fits.status_code == 200 and len(fits.content) == MB + 200_000
    # Without enforcement the local runtime has no such limit.
    assert httpx.get(server.url + path, headers=auth, timeout=TIMEOUT).status_code == 200


def test_request_over_the_limit_is_a_413(server, big_repo):
    with enforced():
        response = httpx.post(f"{server.url}/api/v1/markdown/raw", content=b"x" * (900_000),
                              headers={"Authorization": f"token {server.token}",
                                       "Content-Type": "text/plain"}, timeout=TIMEOUT)
    assert response.status_code == 413
    assert "limit of a Lambda invocation" in response.json()["message"]


def test_clone_over_the_streamed_limit_says_why(server, big_repo, env, tmp_path):
    with enforced(STREAMED_RESPONSE_LIMIT=2 << 20):
        failed = git(env, "clone", "-q", remote(server), str(tmp_path / "c"), check=False)
    # The pack is built as it streams, so its size is known only once it passes the
    # limit: git gets the reason on side-band channel 3 and stops.
    assert failed.returncode != 0
    assert "remote: this fetch passed 2.1 MB of pack, the most a streamed Lambda " \
           "response carries; fetch less at once" in failed.stderr, failed.stderr


class _RuntimeApi(http.server.BaseHTTPRequestHandler):
    """One invocation's worth of the Lambda Runtime API."""
    protocol_version = "HTTP/1.1"
    event: dict = {}
    posted: list = []

    def do_GET(self):
        body = json.dumps(self.event).encode()
        self.send_response(200)
        self.send_header("Lambda-Runtime-Aws-Request-Id", "req-1")
        self.send_header("Lambda-Runtime-Deadline-Ms", "9999999999999")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        chunked = self.headers.get("Transfer-Encoding") == "chunked"
        body = read_chunked(self.rfile) if chunked else \
            self.rfile.read(int(self.headers["Content-Length"]))
        self.posted.append((self.path, dict(self.headers), body))
        self.send_response(202)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def runtime_api(event):
    _RuntimeApi.event, _RuntimeApi.posted = event, []
    api = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _RuntimeApi)
    thread = threading.Thread(target=api.serve_forever, daemon=True)
    thread.start()
    try:
        yield http.client.HTTPConnection(*api.server_address, timeout=TIMEOUT)
    finally:
        api.shutdown()
        api.server_close()


def test_lambda_bootstrap_streams_with_the_api_gateway_prelude(server, big_repo, env):
    from chalicelib.streaming import bootstrap
    from chalicelib.streaming.handler import DELIMITER, handle_stream_event

    head = git(env, "rev-parse", "HEAD", cwd=big_repo).stdout.strip()
    request = upload_pack_request(server, head)
    headers = [("Content-Type", "application/x-git-upload-pack-request"),
               ("Authorization", f"token {server.token}")]
    event = build_event("POST", "/alice/big.git/git-upload-pack", headers, request)
    with runtime_api(event) as conn:
        assert bootstrap.run_once(conn, handle_stream_event) == "req-1"
    [(path, sent_headers, body)] = _RuntimeApi.posted
    assert path == "/2018-06-01/runtime/invocation/req-1/response"
    assert sent_headers["Lambda-Runtime-Function-Response-Mode"] == "streaming"
    assert sent_headers["Content-Type"] == "application/vnd.awslambda.http-integration-response"
    prelude, payload = body.split(DELIMITER, 1)
    meta = json.loads(prelude)
    assert meta["statusCode"] == 200
    assert meta["headers"]["Content-Type"] == "application/x-git-upload-pack-result"
    with enforced():
        direct = httpx.post(f"{server.url}/alice/big.git/git-upload-pack", content=request,
                            headers=dict(headers), timeout=TIMEOUT)
    assert len(payload) > 3 * MB and payload == direct.content


def test_lambda_bootstrap_reports_a_failure_as_an_invocation_error(server):
    from chalicelib.streaming import bootstrap

    def broken(event, context):
        raise RuntimeError("cannot start")

    with runtime_api({}) as conn:
        bootstrap.run_once(conn, broken)
    [(path, _, body)] = _RuntimeApi.posted
    assert path == "/2018-06-01/runtime/invocation/req-1/error"
    assert json.loads(body)["errorMessage"] == "cannot start"
