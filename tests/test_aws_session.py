"""The process's botocore session (chalicelib/aws.py) answers "is this service known?"
from the service's own directory, and everything else about the service list as
botocore does."""
from __future__ import annotations

import botocore.loaders
import botocore.session
import pytest
from botocore.exceptions import UnknownServiceError

from chalicelib import aws

pytestmark = pytest.mark.fast


@pytest.fixture()
def names():
    loader = botocore.loaders.create_loader()
    aws._ask_for_one_service(loader)
    return loader, loader.list_available_services("service-2")


def test_membership_is_botocore_s(names):
    loader, found = names
    listed = botocore.loaders.Loader.list_available_services(loader, "service-2")
    for name in ("dynamodb", "s3", "sqs", "ssm", "sts", "no-such-service", listed[0],
                 listed[-1]):
        assert (name in found) == (name in listed), name
    assert not found._filled          # plain names never list the directory
    for odd in ("", ".", "..", "dynamodb/2012-08-10", "../botocore", None, 3):
        assert (odd in found) == (odd in listed), odd


def test_the_list_reads_as_botocore_s(names):
    loader, found = names
    listed = botocore.loaders.Loader.list_available_services(loader, "service-2")
    assert list(found) == listed and found == listed and len(found) == len(listed)
    assert sorted(found) == listed and found[0] == listed[0] and ", ".join(found)


def test_clients_and_errors_through_the_session(monkeypatch):
    monkeypatch.setattr(aws, "_session", None)
    monkeypatch.setattr(aws, "_loader", None)
    session = aws.session()
    assert session.create_client("dynamodb", region_name="us-east-1").meta.service_model \
        .service_name == "dynamodb"
    with pytest.raises(UnknownServiceError) as refused:
        session.create_client("no-such-service", region_name="us-east-1")
    assert "dynamodb" in str(refused.value)       # the whole list, as botocore names it
    assert "s3" in session.get_available_services()
