"""boto3 clients for S3, SQS and SSM, made once per process and pointed at the
configured endpoint (moto locally).  DynamoDB goes through PynamoDB (store/table.py).

``add_call_hook`` lets benchmarks count every AWS call through botocore's event hooks.
"""
from __future__ import annotations

import threading
from typing import Callable

from chalicelib.settings import get_settings

_clients: dict[str, object] = {}
_hooks: list[Callable] = []
# Clients made elsewhere (PynamoDB's) that take the hooks too.
_attached: list[object] = []
_lock = threading.Lock()


def client(service: str):
    made = _clients.get(service)
    if made is not None:
        return made
    with _lock:
        if service not in _clients:
            import boto3
            from botocore.config import Config

            settings = get_settings()
            made = boto3.session.Session().client(
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


def add_call_hook(hook: Callable) -> None:
    """Call ``hook(model=..., params=..., **kw)`` before every AWS API call."""
    with _lock:
        _hooks.append(hook)
        for made in [*_clients.values(), *_attached]:
            _register(made, hook)


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
        made.meta.events.register("before-call", hook)


def reset_clients() -> None:
    """Forget clients (after the endpoint changed, e.g. between test sessions)."""
    with _lock:
        _clients.clear()
        _attached.clear()
