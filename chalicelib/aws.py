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
                made.meta.events.register("before-call", hook)
            _clients[service] = made
    return _clients[service]


def add_call_hook(hook: Callable) -> None:
    """Call ``hook(model=..., params=..., **kw)`` before every AWS API call."""
    from chalicelib.store.table import Item

    _hooks.append(hook)
    for made in _clients.values():
        made.meta.events.register("before-call", hook)
    Item._get_connection().connection.client.meta.events.register("before-call", hook)


def reset_clients() -> None:
    """Forget clients (after the endpoint changed, e.g. between test sessions)."""
    with _lock:
        _clients.clear()
