"""An in-memory twin of the AWS services Nimbus uses (DynamoDB, S3, SQS, SSM), for
tests that must run in milliseconds.

It answers at botocore's HTTP layer (a ``before-send`` handler, as moto does), so
every client created while it is installed (chalicelib/aws.py's boto3 clients,
PynamoDB's botocore client) serializes, parses, raises ``ClientError``s and fires its
event hooks for real; only the network is replaced.  An operation it does not model
raises ``tests.twin.errors.Unsupported`` rather than answering.

Use::

    from tests import twin

    with twin.world() as state:      # fresh, empty AWS; Nimbus's resources created
        ...                          # state.dynamodb.tables, state.s3.buckets, ...

or choose the backend of the suite's ``aws`` fixture: by default the domains' API and
page tests run on the twin and the wiring tests on moto (tests/conftest.py's
``on_twin``); ``NIMBUS_TEST_BACKEND=twin`` or ``=moto`` puts every test on one of them.
``tests.twin.transport.install(World())`` installs a bare world without Nimbus's
resources (the differential tests do).

Modules: ``transport`` (botocore hook, HTTP decoding), ``world`` (routing),
``dynamodb``, ``writes``, ``reads``, ``tables``, ``values``, ``expressions``,
``evaluate``, ``updates`` (DynamoDB), ``s3``, ``s3_listing``, ``s3_multipart``,
``s3_data`` (S3), ``sqs``, ``sqs_messages`` (SQS), ``ssm`` (SSM).  It never imports
moto, and nothing under chalicelib imports it.
"""
from __future__ import annotations

import contextlib
from typing import Iterator

from tests.twin import transport
from tests.twin.world import World

__all__ = ["world", "World"]


@contextlib.contextmanager
def world() -> Iterator[World]:
    """Install a fresh twin for the duration, pointing Nimbus at fresh resources (what
    tests/conftest.py's ``moto_world`` does under moto)."""
    from chalicelib import aws as aws_clients
    from chalicelib import oauth2
    from chalicelib.http import sessions as web_sessions
    from chalicelib.settings import get_settings
    from chalicelib.store import ids, table
    from infra.bootstrap import ensure_resources

    state = World(get_settings().aws.REGION)
    transport.install(state)
    try:
        aws_clients.reset_clients()
        table.configure()
        ids.reset()
        web_sessions.reset_key_cache()
        oauth2.reset_jwt_key_cache()   # the ID token key, like the session key
        ensure_resources()
        yield state
    finally:
        aws_clients.reset_clients()
        table.configure()
        transport.uninstall()
