"""The errors the twin's backends raise: what AWS would answer, and what it cannot.

``ServiceError`` is an answer (a code, a message, an HTTP status and any extra fields
the service puts in its error body); the transport renders it in the service's
protocol so botocore raises a real ``ClientError``.  ``Unsupported`` is the twin's own
failure: an operation or parameter it does not model, raised straight to the caller
so a test can never pass on behaviour the twin only pretends to have.
"""
from __future__ import annotations


class ServiceError(Exception):
    """An error answer.  ``fields``: more members of the error body (DynamoDB's
    ``CancellationReasons`` and ``Item``, S3's ``Key`` or ``BucketName``)."""

    def __init__(self, code: str, message: str, status: int = 400, **fields):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status
        self.fields = fields


class Unsupported(NotImplementedError):
    """The twin does not model this; use moto (``mock_aws``) for the test instead."""

    def __init__(self, service: str, operation: str, detail: str = ""):
        super().__init__(f"the AWS twin does not support {service} {operation}"
                         + (f": {detail}" if detail else ""))
        self.service = service
        self.operation = operation


def validation(message: str) -> ServiceError:
    """DynamoDB's (and SSM's) catch-all for a request it refuses."""
    return ServiceError("ValidationException", message)
