"""The twin's state: one backend per service, and the routing of a request to it."""
from __future__ import annotations

from tests.twin import sqs
from tests.twin.dynamodb import DynamoDB
from tests.twin.errors import Unsupported
from tests.twin.s3 import S3
from tests.twin.sqs import SQS
from tests.twin.ssm import SSM
from tests.twin.transport import Request, json_answer

# service id -> (X-Amz-Target prefix, content type, prefix of an error's __type)
_JSON = {
    "dynamodb": ("DynamoDB_20120810.", "application/x-amz-json-1.0",
                 "com.amazonaws.dynamodb.v20120810#"),
    "sqs": ("AmazonSQS.", "application/x-amz-json-1.0", "com.amazonaws.sqs#"),
    "ssm": ("AmazonSSM.", "application/x-amz-json-1.1", ""),
}


class World:
    """Fresh, empty DynamoDB, S3, SQS and SSM for one region."""

    def __init__(self, region: str = "us-east-1"):
        self.region = region
        self.dynamodb = DynamoDB(region)
        self.s3 = S3(region)
        self.sqs = SQS(region)
        self.ssm = SSM(region)

    def answer(self, service: str, request: Request):
        if service == "s3":
            return self.s3.answer(request)
        if service not in _JSON:
            raise Unsupported(service, request.operation)
        prefix, content_type, error_prefix = _JSON[service]
        target = request.headers.get("x-amz-target", "")
        if not target.startswith(prefix):
            raise Unsupported(service, request.operation, f"X-Amz-Target {target!r}")
        backend = getattr(self, service)
        return json_answer(request.url, backend.handle, target[len(prefix):], request.json(),
                           content_type, error_prefix,
                           sqs.query_code if service == "sqs" else None)
