"""boto3 clients for S3, SQS and SSM, made once per process and pointed at the
configured endpoint (moto locally), and the S3 presigner.  DynamoDB goes through PynamoDB (store/table.py).

Every client, PynamoDB's included, is made from one botocore session (``session``),
and every session of the process shares one loader of botocore's endpoint and service
descriptions: a session of its own per client parsed them again for each (about 0.3 s
of a cold start's CPU per client; the tests' fresh worlds paid it every time).
``reset_clients`` starts a new session over the same loader, so credentials are read
again (the tests' IAM harness changes them) without parsing anything twice.  Clients
are made under the lock: a session is not thread-safe, the clients it makes are.

``add_call_hook`` lets benchmarks count every AWS call through botocore's event hooks;
``add_send_handler`` lets the local runtime answer calls without sending them.
``delete_objects`` and ``is_access_denied`` keep a refused call from passing for done.
"""
from __future__ import annotations

import logging
import threading
from typing import Callable, Iterable

from chalicelib.settings import get_settings

_clients: dict[str, object] = {}
_hooks: list[Callable] = []
# Clients made elsewhere (PynamoDB's) that take the hooks too.
_attached: list[object] = []
_lock = threading.RLock()
_session = None
_boto3 = None
_loader = None
_presigners: dict[tuple[str, str], object] = {}
log = logging.getLogger("nimbus.aws")
# What AWS answers a call the role does not allow (S3's and the JSON protocols' codes).
ACCESS_DENIED = ("AccessDenied", "AccessDeniedException")
# The oldest botocore whose models take every parameter the code passes (S3 PutObject's
# IfNoneMatch came in 1.35.2).  In Lambda the SDK is the runtime's own (infra/README.md,
# "AWS SDK"): an older one is reported at the first client, not refused.
OLDEST_BOTOCORE = (1, 35, 2)


def session():
    """The process's botocore session (clients are made from it under ``lock()``)."""
    global _session, _loader
    with _lock:
        if _session is None:
            import botocore.session

            if botocore_too_old(botocore.__version__):
                log.error("botocore %s is older than %s, the oldest whose models take every "
                          "parameter Nimbus passes: calls using newer ones will fail",
                          botocore.__version__, ".".join(map(str, OLDEST_BOTOCORE)))
            made = botocore.session.get_session()
            if _loader is None:
                _loader = made.get_component("data_loader")
                _ask_for_one_service(_loader)
            else:
                made.register_component("data_loader", _loader)
            _session = made
        return _session


def botocore_too_old(version: str) -> bool:
    numbers = [int(part) for part in version.split(".")[:3] if part.isdigit()]
    return tuple(numbers) < OLDEST_BOTOCORE


class _ServiceNames(list):
    """botocore's sorted list of the services that have a ``type_name`` model, made
    (about 400 directories listed, 2,700 files tested: 15 ms of a cold start's CPU)
    only when something reads the list.  Making a client only asks whether its one
    service is in it: that looks in the service's own directory, the same test
    (a version folder holding a ``type_name`` file) on the same search paths."""

    def __init__(self, loader, type_name: str):
        super().__init__()
        self._loader, self._type_name, self._filled = loader, type_name, False

    def _fill(self) -> None:
        if not self._filled:
            self._filled = True
            self.extend(type(self._loader).list_available_services(self._loader, self._type_name))

    def __contains__(self, name) -> bool:
        if self._filled or not isinstance(name, str) or not name.isidentifier() and not \
                name.replace("-", "").isalnum():
            self._fill()
            return list.__contains__(self, name)
        from botocore.exceptions import DataNotFoundError

        try:
            return bool(self._loader.list_api_versions(name, self._type_name))
        except DataNotFoundError:
            return False

    def __iter__(self):
        self._fill()
        return list.__iter__(self)

    def __len__(self) -> int:
        self._fill()
        return list.__len__(self)

    def __getitem__(self, index):
        self._fill()
        return list.__getitem__(self, index)

    def __eq__(self, other) -> bool:
        self._fill()
        return list.__eq__(self, other)

    def __repr__(self) -> str:
        self._fill()
        return list.__repr__(self)


def _ask_for_one_service(loader) -> None:
    names: dict[str, _ServiceNames] = {}
    loader.list_available_services = lambda type_name: names.setdefault(
        type_name, _ServiceNames(loader, type_name))


def lock() -> threading.RLock:
    """Held while a client is made from ``session()``."""
    return _lock


def _boto3_session():
    # One boto3 session over the botocore one: each boto3 session registers its handlers
    # on the botocore session again.
    global _boto3
    with _lock:
        if _boto3 is None:
            import boto3

            _boto3 = boto3.session.Session(botocore_session=session())
        return _boto3


def client(service: str):
    made = _clients.get(service)
    if made is not None:
        return made
    with _lock:
        if service not in _clients:
            from botocore.config import Config

            settings = get_settings()
            made = _boto3_session().client(
                service,
                region_name=settings.aws.REGION,
                endpoint_url=settings.aws.ENDPOINT_URL or None,
                # botocore's own retries: backoff with jitter on throttling and 5xx.
                config=Config(retries={"mode": "standard", "max_attempts": 5}),
            )
            for hook in _hooks:
                _register(made, hook)
            _clients[service] = made
    return _clients[service]


def presigner():
    """An S3 client that signs URLs with Signature Version 4 (boto3's default presigner
    still writes version 2 URLs in us-east-1, which newer regions refuse).  Presigning
    makes no call (so no hook counts it); one client per region and endpoint (the local
    runtime's moves)."""
    settings = get_settings()
    where = (settings.aws.REGION, settings.aws.ENDPOINT_URL)
    with _lock:
        if where not in _presigners:
            from botocore.config import Config

            _presigners[where] = _boto3_session().client(
                "s3", region_name=where[0], endpoint_url=where[1] or None,
                config=Config(signature_version="s3v4"))
        return _presigners[where]


def add_call_hook(hook: Callable) -> None:
    """Call ``hook(model=..., params=..., **kw)`` before every AWS API call."""
    with _lock:
        _hooks.append(hook)
        for made in [*_clients.values(), *_attached]:
            _register(made, hook)


def add_send_handler(handler: Callable) -> None:
    """Let ``handler(request=..., **kw)`` answer requests before they are sent (it
    returns a botocore response, or None to send as usual), on every client: the local
    runtime answers the calls to its embedded moto in-process (``local/moto_direct.py``)."""
    handler.nimbus_send_handler = True
    add_call_hook(handler)


def attach_hooks(made) -> None:
    """Give a client made outside this module (PynamoDB's) the call hooks, once."""
    if _attached and _attached[-1] is made:
        return      # every DynamoDB call passes here: the usual case takes no lock
    with _lock:
        if any(made is known for known in _attached):
            return
        _attached.append(made)
        for hook in _hooks:
            _register(made, hook)


def _register(made, hook: Callable) -> None:
    # A client may be attached again after reset_clients(): never count a call twice.
    hooked = made.__dict__.setdefault("_nimbus_hooks", set())
    if id(hook) not in hooked:
        hooked.add(id(hook))
        if getattr(hook, "nimbus_send_handler", False):
            made.meta.events.register_first("before-send", hook)
        else:
            made.meta.events.register("before-call", hook)


def reset_clients() -> None:
    """Forget clients and the session (after the endpoint or the credentials changed,
    e.g. between test worlds); botocore's descriptions stay loaded."""
    global _session, _boto3
    with _lock:
        _clients.clear()
        _attached.clear()
        _presigners.clear()
        _session = _boto3 = None


class ObjectsNotDeleted(RuntimeError):
    """Keys a DeleteObjects request answered with an error; ``codes``: their error codes."""

    def __init__(self, bucket: str, errors: list[dict]):
        self.codes = sorted({str(error.get("Code")) for error in errors})
        keys = ", ".join(str(error.get("Key")) for error in errors[:5])
        super().__init__(f"{len(errors)} objects of {bucket} not deleted ({', '.join(self.codes)}): "
                         f"{keys}{', ...' if len(errors) > 5 else ''}")


def delete_objects(bucket: str, keys: Iterable[str]) -> int:
    """Delete ``keys`` from ``bucket``, 1,000 a request; how many were asked for.

    S3 answers a key it refuses (AccessDenied when the role lacks s3:DeleteObject on its
    prefix) inside a 200 response, so ignoring the answer would leave the object behind
    without a trace: every refused key is logged and the call raises ObjectsNotDeleted
    once all requests were made."""
    s3, pending, errors, asked = client("s3"), [], [], 0
    for key in keys:
        pending.append({"Key": key})
        if len(pending) == 1000:
            errors += _delete_batch(s3, bucket, pending)
            asked, pending = asked + len(pending), []
    if pending:
        errors += _delete_batch(s3, bucket, pending)
        asked += len(pending)
    if errors:
        failure = ObjectsNotDeleted(bucket, errors)
        log.error("%s", failure)
        raise failure
    return asked


def _delete_batch(s3, bucket: str, objects: list[dict]) -> list[dict]:
    # Quiet: the answer lists only the keys that failed.
    answer = s3.delete_objects(Bucket=bucket, Delete={"Objects": objects, "Quiet": True})
    return list(answer.get("Errors") or [])


def is_access_denied(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or what it wraps: PynamoDB's ``cause``, a raised-from chain) is
    AWS refusing the call to this role."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, ObjectsNotDeleted) and set(exc.codes) & set(ACCESS_DENIED):
            return True
        code = getattr(exc, "response", {}).get("Error", {}).get("Code") \
            if isinstance(getattr(exc, "response", None), dict) else None
        if code in ACCESS_DENIED:
            return True
        exc = getattr(exc, "cause", None) or exc.__cause__ or exc.__context__
    return False


def read_secret(name: str) -> str | None:
    """An SSM SecureString's value, or None when the parameter does not exist."""
    ssm = client("ssm")
    try:
        return ssm.get_parameter(Name=name, WithDecryption=True)["Parameter"]["Value"]
    except ssm.exceptions.ParameterNotFound:
        return None


def kept_secret(name: str, make: Callable[[], str], description: str) -> str:
    """The SSM SecureString ``name``, made with ``make()`` on first use.  Written without
    ``Overwrite``: when two containers make one at the same time, the loser reads the
    winner's, so every container ends up with the same value."""
    found = read_secret(name)
    if found is not None:
        return found
    ssm, fresh = client("ssm"), make()
    try:
        ssm.put_parameter(Name=name, Value=fresh, Type="SecureString", Overwrite=False,
                          Description=description)
        return fresh
    except ssm.exceptions.ParameterAlreadyExists:
        return read_secret(name)
