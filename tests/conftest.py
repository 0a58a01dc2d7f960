"""Test fixtures: the Lambda handler under moto, driven with API Gateway proxy events.

``api`` calls ``app(event, context)`` exactly as API Gateway would (events built by
the same code the local server uses), so tests take the deployed code path.
"""
from __future__ import annotations

import base64
import json as jsonlib
import os
import re
from contextlib import contextmanager
from pathlib import Path

# Settings are read once per process: fix them before anything imports chalicelib.
os.environ.update({
    "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SECURITY_TOKEN": "testing", "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "NIMBUS__SERVER__ROOT_URL": "http://nimbus.test/",
    # Cheap password hashing keeps the suite fast; production uses the default cost.
    "NIMBUS__SECURITY__PASSWORD_HASH_COST": "1024",
})
for name in list(os.environ):
    if name.startswith("NIMBUS__") and name not in ("NIMBUS__SERVER__ROOT_URL",
                                                    "NIMBUS__SECURITY__PASSWORD_HASH_COST"):
        del os.environ[name]
os.environ.pop("NIMBUS_CONFIG", None)

import pytest  # noqa: E402
from moto import mock_aws  # noqa: E402

from chalicelib.local.events import build_event, read_result  # noqa: E402

ADMIN = ("root", "root-password-1")


class Response:
    def __init__(self, status: int, headers: list[tuple[str, str]], body: bytes):
        self.status = status
        self.header_list = headers
        self.headers = {k.lower(): v for k, v in headers}
        self.body = body

    @property
    def json(self):
        return jsonlib.loads(self.body)

    def __repr__(self):
        return f"<Response {self.status} {self.body[:200]!r}>"


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


class ApiClient:
    def __init__(self, app):
        self.app = app

    def request(self, method: str, path: str, *, json=None, body: bytes | None = None,
                headers: dict | None = None, auth: tuple[str, str] | None = None,
                token: str | None = None, raw: bool = False) -> Response:
        """``raw``: the path is outside /api/v1 (git smart HTTP)."""
        headers = dict(headers or {})
        if json is not None:
            body = jsonlib.dumps(json).encode()
            headers.setdefault("Content-Type", "application/json")
        if auth:
            headers["Authorization"] = basic(*auth)
        if token:
            headers["Authorization"] = f"token {token}"
        target = path if raw or path.startswith(("/api/", "/swagger")) else "/api/v1" + path
        event = build_event(method, target, list(headers.items()), body)
        return Response(*read_result(self.app(event, None)))

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, **kw):
        return self.request("POST", path, **kw)

    def patch(self, path, **kw):
        return self.request("PATCH", path, **kw)

    def put(self, path, **kw):
        return self.request("PUT", path, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)

    # Helpers that tests use to set the scene.
    def create_user(self, username: str, password: str = "secret-pass-1", **extra) -> dict:
        resp = self.post("/admin/users", auth=ADMIN, json={
            "username": username, "password": password, "email": f"{username}@example.com",
            **extra})
        assert resp.status == 201, resp
        return resp.json

    def create_token(self, username: str, password: str = "secret-pass-1",
                     scopes=("all",), name: str = "t") -> str:
        resp = self.post(f"/users/{username}/tokens", auth=(username, password),
                         json={"name": name, "scopes": list(scopes)})
        assert resp.status == 201, resp
        return resp.json["sha1"]


# Which AWS a test's ``aws`` (and ``api``) gets.  A domain's behaviour through the API
# (tests/<domain>/, the pages' tests) runs on the in-memory twin (tests/twin): the same
# handler, services, stores and botocore clients, about three times faster than moto,
# whose answers the twin's differential tests hold it to.  What proves wiring stays on
# moto: the platform's tests (tests/test_*.py: the local runtime, crashes, races, IAM,
# packaging, clients), git and Git LFS through the CLI, the runtime's event pipeline,
# real clients, the browser, two instances.  NIMBUS_TEST_BACKEND=moto (or =twin) puts
# every test on one of them.
TESTS = Path(__file__).resolve().parent
TWIN_DIRS = frozenset({
    "accounts", "activity", "avatars", "contents", "http", "instance", "issues", "jobs",
    "languages", "lfs", "markup", "migrations", "notifications", "orgs", "protection",
    "pulls", "quota", "releases", "repo_admin", "repos", "reviews", "search", "signing",
    "statuses", "web", "webhooks", "wiki"})
WIRING = re.compile(r"git|runtime|client|browser|accessibility|instances|mirrors|weight")


def on_twin(path) -> bool:
    """Whether the test file at ``path`` runs on the twin (see above)."""
    chosen = os.environ.get("NIMBUS_TEST_BACKEND")
    if chosen in ("twin", "moto"):
        return chosen == "twin"
    parts = Path(path).resolve().relative_to(TESTS).parts
    return len(parts) > 1 and parts[0] in TWIN_DIRS and not WIRING.search(parts[-1])


@contextmanager
def moto_world(twin: bool | None = None):
    """Fresh moto state with the table, bucket and queues created by infra's bootstrap.
    moto is not atomic under threads: requests are serialized as the local runtime does,
    so racing tests catch races in our code, not in moto's.

    With ``twin`` (default: ``NIMBUS_TEST_BACKEND=twin``) the in-memory AWS twin
    (tests/twin) stands in for moto, with the same resources."""
    if twin is None:
        twin = os.environ.get("NIMBUS_TEST_BACKEND") == "twin"
    if twin:
        from tests import twin

        with twin.world(), search_kept_current():
            yield
        return
    from chalicelib.local.aws_requests import serialized_mock_aws

    with mock_aws(), serialized_mock_aws(), search_kept_current():
        from chalicelib import aws as aws_clients
        from chalicelib import oauth2
        from chalicelib.http import sessions as web_sessions
        from chalicelib.store import ids, table
        from infra.bootstrap import ensure_resources

        aws_clients.reset_clients()
        table.configure()
        ids.reset()
        web_sessions.reset_key_cache()
        oauth2.reset_jwt_key_cache()   # the ID token key, like the session key
        ensure_resources()
        try:
            yield
        finally:
            aws_clients.reset_clients()
            table.configure()


def admin_client() -> ApiClient:
    """The app with the site admin ``ADMIN`` made (inside a moto world)."""
    from app import app
    from chalicelib.accounts.service import ensure_admin

    ensure_admin(ADMIN[0], ADMIN[1], "root@example.com")
    return ApiClient(app)


@pytest.fixture
def aws(request):
    with moto_world(twin=on_twin(request.node.path)):
        yield


_search_paused = [False]


@contextmanager
def search_paused():
    """The index left behind while a test counts what one request writes (the event
    pipeline indexes later, outside the request, on ``make run`` and in AWS)."""
    _search_paused[0] = True
    try:
        yield
    finally:
        _search_paused[0] = False


@contextmanager
def search_kept_current():
    """The search index brought up to date as each commit's events are written, inside
    the request: what the event pipeline does moments later on ``make run`` and in AWS,
    for end-to-end tests that search right after a change (they run no pipeline)."""
    from chalicelib import events, search
    from chalicelib.store import outbox, unit_of_work

    def index(items) -> None:
        if _search_paused[0]:
            return
        for item in items:
            event = events.from_message(outbox.message_of(item))
            if isinstance(event, search.EVENT_TYPES) and search.wants_event(event):
                search.on_event(event)

    unit_of_work.after_commit(index)
    try:
        yield
    finally:
        unit_of_work.remove_after_commit(index)


@pytest.fixture
def api(aws):
    return admin_client()


# The fast layer ------------------------------------------------------------------------------
#
# Rules tested against the in-memory AWS twin (tests/twin): the real unit of work, stores
# and services over an in-memory table, bucket and queues, in milliseconds and without
# moto.  A test that takes ``memory`` (or ``fast_api``) is marked ``fast``: ``make
# test-fast`` runs only those, ``make test`` runs them first.

@pytest.fixture
def memory():
    """A fresh in-memory AWS with Nimbus's resources, for the test's duration."""
    from tests import twin

    with twin.world() as state:
        yield state


@pytest.fixture
def fast_api(memory):
    """The Lambda handler with the site admin made, on the in-memory twin: for rules a
    client sees through the API (validation texts, status codes) and nothing else."""
    return admin_client()


def pytest_collection_modifyitems(items):
    for item in items:
        if "memory" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.fast)


@pytest.fixture
def immediate_deletion():
    """Repository deletions final at once (``[repository] DELETED_RETENTION_DAYS`` 0), for
    tests of what a deletion removes right away; restorable deletion (the default) is
    tests/repo_admin/test_deletion_rules.py's and test_restorable_deletion.py's."""
    from chalicelib.settings import overridden

    with overridden({"NIMBUS__REPOSITORY__DELETED_RETENTION_DAYS": "0"}):
        yield


def drain_outbox() -> list:
    """Every event waiting in the outbox (oldest first per shard), removed from it, as
    ``chalicelib.events.Event`` objects: what the relay would publish next."""
    import time

    from chalicelib import events
    from chalicelib.store import outbox

    items = list(outbox.pending(older_than=time.time() + 3600))
    outbox.remove(items)
    found = [events.from_message(outbox.message_of(item)) for item in items]
    found.sort(key=lambda e: e.occurred_at)
    return found


def deliver_to(consumer) -> list:
    """Run one consumer (a domain's face: ``wants_event``, ``on_event``) on every waiting
    event, as the worker would; the events it took."""
    ran = []
    for event in drain_outbox():
        if consumer.wants_event(event):
            consumer.on_event(event)
            ran.append(event)
    return ran


def alice_bob_carol(api, *, secret: bool = False) -> dict[str, str]:
    """Their tokens: alice owns public ``alice/open`` (and private ``alice/secret`` when
    asked), bob writes to ``open``, carol is a stranger."""
    tokens = {}
    for name in ("alice", "bob", "carol"):
        api.create_user(name)
        tokens[name] = api.create_token(name)
    for repo, private in (("open", False), ("secret", True))[:2 if secret else 1]:
        assert api.post("/user/repos", token=tokens["alice"],
                        json={"name": repo, "private": private}).status == 201
    assert api.put("/repos/alice/open/collaborators/bob", token=tokens["alice"],
                   json={"permission": "write"}).status == 204
    return tokens


def owner_and_writer(api) -> dict[str, str]:
    """Users alice and bob with tokens; alice owns ``alice/open`` and bob writes to it."""
    tokens = {}
    for name in ("alice", "bob"):
        api.create_user(name)
        tokens[name] = api.create_token(name)
    assert api.post("/user/repos", token=tokens["alice"], json={"name": "open"}).status == 201
    assert api.put("/repos/alice/open/collaborators/bob", token=tokens["alice"],
                   json={"permission": "write"}).status == 204
    return tokens
