"""The scene bench/aws_calls.py measures in: the app under moto, its accounts and tokens,
the request type scenarios return, and helpers that make what a scenario then reads,
edits or deletes.  Nothing a helper does is counted: only the request a scenario
returns is.
"""
from __future__ import annotations

import base64
import json
import logging
import os
import tempfile
import traceback
import warnings
from contextlib import contextmanager
from dataclasses import dataclass

from _harness import REPO_ROOT

ADMIN = ("root", "root-password-1")
USER = ("alice", "alice-password-1")
USER_EMAIL = "alice@example.com"
LOGINS = {"basic": USER, "root-basic": ADMIN}   # password auth modes (root-basic: set-up only)


@dataclass
class Req:
    """One measured request; ``expect`` is the status the route answers on success."""
    method: str
    path: str                 # below /api/v1 unless the route is raw
    # anon | token (alice) | basic (alice's password) | admin (token) | session (alice
    # signed in to the web pages: her session cookie)
    auth: str = "anon"
    body: dict | None = None
    expect: int = 200
    data: bytes | None = None          # a raw body (git protocol, text/plain) instead of JSON
    content_type: str | None = None    # of ``data``
    # Where the status cannot tell success (git reports errors inside a 200), the
    # answer must also contain this.
    expect_body: bytes | None = None
    # NIMBUS__* settings in force for this request only (set before, restored after).
    settings: dict[str, str] | None = None


class UnhandledErrors(logging.Handler):
    """Keeps what the gateway logs about an unhandled error (a 500 says only ""), so a
    failed scenario can name the exception and where it was raised."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self.last = ""

    def emit(self, record: logging.LogRecord) -> None:
        if not record.exc_info or record.exc_info[1] is None:
            return
        exc = record.exc_info[1]
        frames = traceback.extract_tb(exc.__traceback__)
        ours = [f for f in frames if f.filename.startswith(str(REPO_ROOT))] or frames
        where = f" at {os.path.relpath(ours[-1].filename, REPO_ROOT)}:{ours[-1].lineno}" \
            if ours else ""
        self.last = f"{type(exc).__name__}: {exc}{where}"[:300]


class Scene:
    """The app under moto with an admin, a user with a password, tokens and a key."""

    def __init__(self, app, workdir: str):
        self.app = app
        self.workdir = workdir             # files the scene needs (keys, a git remote)
        self.cleanups: list = []           # run by close(): servers the scene started
        self.tokens: dict[str, str] = {}   # auth mode -> token secret
        self.serial = 0
        self.key_id = 0
        self.made: dict[str, object] = {}  # things built once and shared by scenarios
        self.errors = UnhandledErrors()
        logging.getLogger("nimbus").addHandler(self.errors)

    def close(self) -> None:
        logging.getLogger("nimbus").removeHandler(self.errors)
        while self.cleanups:
            self.cleanups.pop()()

    def call(self, method, target, auth="anon", body=None, *, data=None,
             content_type=None) -> tuple[int, bytes]:
        from chalicelib.local.events import build_event, read_result

        headers = []
        if auth in LOGINS:
            headers.append(("Authorization", "Basic " + base64.b64encode(
                ":".join(LOGINS[auth]).encode()).decode()))
        elif auth in self.tokens:
            headers.append(("Authorization", "token " + self.tokens[auth]))
        elif auth == "session":
            headers.append(("Cookie", self.session_cookie()))
        if body is not None:
            data, content_type = json.dumps(body).encode(), "application/json"
        if content_type:
            headers.append(("Content-Type", content_type))
        self.errors.last = ""
        status, _, out = read_result(self.app(build_event(method, target, headers, data), None))
        return status, out

    def must(self, method, path, auth, body=None, expect=201) -> dict:
        status, out = self.call(method, "/api/v1" + path, auth, body)
        assert status == expect, (f"{method} {path} answered {status}, not {expect}: "
                                  f"{out[:200]!r} {self.errors.last}")
        return json.loads(out) if out else {}

    def session_cookie(self) -> str:
        """Alice's web session, signed in once through the sign-in form (pages take no
        token); not counted, like every helper."""
        def sign_in() -> str:
            import re
            from urllib.parse import urlencode

            from chalicelib.local.events import build_event, read_result

            def send(method, headers, data=None):
                status, pairs, out = read_result(self.app(build_event(
                    method, "/user/login", headers, data), None))
                cookie = [v.split(";", 1)[0] for k, v in pairs if k.lower() == "set-cookie"]
                return status, cookie, out
            _, cookie, form = send("GET", [])
            csrf = re.search(rb'name="_csrf" value="([^"]*)"', form).group(1).decode()
            status, signed, _ = send("POST", [
                ("Cookie", cookie[-1]),
                ("Content-Type", "application/x-www-form-urlencoded")],
                urlencode({"_csrf": csrf, "user_name": USER[0],
                           "password": USER[1]}).encode())
            assert status == 303 and signed, "alice could not sign in to the pages"
            return signed[-1]
        return self.once("session_cookie", sign_in)

    def unique(self, prefix: str) -> str:
        self.serial += 1
        return f"{prefix}{self.serial}"

    def once(self, name: str, make):
        """``make()`` the first time ``name`` is asked for; the same thing afterwards.
        A failure is kept too (each scenario that needs it fails the same way at once,
        rather than building half of it again)."""
        if name not in self.made:
            try:
                self.made[name] = make()
            except Exception as exc:  # noqa: BLE001 - raised again below, and every time
                self.made[name] = exc
        if isinstance(self.made[name], Exception):
            raise self.made[name]
        return self.made[name]

    # Scene helpers: each makes something a scenario can then read or delete.
    def user_option(self) -> dict:
        name = self.unique("user")
        return {"username": name, "password": "secret-pass-1", "email": f"{name}@x.test"}

    def new_user(self) -> str:
        return self.must("POST", "/admin/users", "admin", self.user_option())["login"]

    def new_token(self, name: str) -> str:
        return self.must("POST", f"/users/{USER[0]}/tokens", "basic",
                         {"name": name, "scopes": ["all"]})["sha1"]

    def spare_token(self) -> str:
        name = self.unique("tok")
        self.new_token(name)
        return name

    def new_key(self) -> int:
        return self.must("POST", "/user/keys", "token",
                         {"title": self.unique("key"), "key": ssh_key()})["id"]

    def new_repo(self, auto_init: bool = False) -> str:
        name = self.unique("repo")
        self.must("POST", "/user/repos", "token", {"name": name, "auto_init": auto_init})
        return name

    def build(self) -> None:
        from chalicelib.accounts import ensure_admin

        ensure_admin(ADMIN[0], ADMIN[1], "root@example.com")
        self.tokens["admin"] = self.must("POST", f"/users/{ADMIN[0]}/tokens", "root-basic",
                                         {"name": "bench", "scopes": ["all"]})["sha1"]
        self.must("POST", "/admin/users", "admin", {
            "username": USER[0], "password": USER[1], "email": USER_EMAIL})
        self.tokens["token"] = self.new_token("bench")
        self.key_id = self.new_key()
        self.must("POST", "/user/repos", "token", {"name": "demo", "auto_init": True})


_delivered: dict[str, set[str]] = {}


def deliver_pending(domain: str) -> None:
    """What the event worker would do, for one domain's consumer only (its face's
    ``wants_event`` and ``on_event``): each waiting event once (the outbox keeps them, as
    no relay runs in the bench)."""
    import importlib
    import time

    from chalicelib import events
    from chalicelib.store import outbox

    consumer = importlib.import_module(f"chalicelib.{domain}")
    done = _delivered.setdefault(domain, set())
    for item in outbox.pending(older_than=time.time() + 3600):
        event = events.from_message(outbox.message_of(item))
        if event.event_id not in done and consumer.wants_event(event):
            consumer.on_event(event)
        done.add(event.event_id)


@contextmanager
def moto_scene(prefix: str, hook=None):
    """A Scene (not yet built) over a fresh moto world with the stack's resources;
    ``hook(model, **kw)`` sees every AWS call from the app's clients."""
    from moto import mock_aws

    from chalicelib import aws
    from chalicelib.local.aws_requests import serialized_mock_aws
    from chalicelib.store import table
    from infra.bootstrap import ensure_resources

    # moto as ``make run`` and the tests run it (chalicelib/local/aws_requests.py): a
    # transaction costs the items it names, not a copy of the whole table (which grew
    # with every scenario, to minutes and gigabytes over the full run).
    with mock_aws(), serialized_mock_aws(), tempfile.TemporaryDirectory(prefix=prefix) as workdir:
        aws.reset_clients()
        table.configure()
        ensure_resources()
        # Ids come in blocks (one UpdateItem per 16 ids of a sequence, store/ids.py): a
        # cost of the process, amortized, which would otherwise fall on whichever
        # operation happened to empty a block, and move when a scenario is added.  One
        # block per sequence for the whole run: each is drawn while the scene is built
        # or by the first operation that makes that kind of thing.
        from chalicelib.store import ids
        ids.reset()
        ids.BLOCK = 1 << 20
        if hook is not None:
            aws.add_call_hook(hook)
        from app import app

        scene = Scene(app, workdir)
        try:
            yield scene
        finally:
            scene.close()


def after(_prepared, requests: list[Req]) -> list[Req]:
    """``requests``, written after the call that prepares them (evaluated first), as in
    ``lambda s: after(star(s), [Req("GET", "/user/starred", "token")])``."""
    return requests


@contextmanager
def settings_in_force(values: dict[str, str] | None):
    """The app reads settings once per process: set ``values``, drop the cached settings,
    and put everything back afterwards."""
    if not values:
        yield
        return
    from chalicelib.settings import overridden

    with overridden(values):
        yield


def ssh_key() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    return ed25519.Ed25519PrivateKey.generate().public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH).decode()


def gpg_public_key(email: str = USER_EMAIL) -> str:
    """A new armored Ed25519 OpenPGP public key with one user id (``email``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # pgpy's cryptography deprecation warnings
        import pgpy
        from pgpy.constants import EllipticCurveOID, HashAlgorithm, KeyFlags, PubKeyAlgorithm

        key = pgpy.PGPKey.new(PubKeyAlgorithm.EdDSA, EllipticCurveOID.Ed25519)
        key.add_uid(pgpy.PGPUID.new("Alice", email=email),
                    usage={KeyFlags.Sign, KeyFlags.Certify}, hashes=[HashAlgorithm.SHA256])
        return str(key.pubkey)
