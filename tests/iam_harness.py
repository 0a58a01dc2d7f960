"""Code run under moto with IAM enforced, judged as AWS would judge it.

moto 5.2.5 checks each request's signature and action against the caller's policies,
but for DynamoDB and SSM it checks every action against ``Resource: "*"`` (a policy that
names the table would never match), and it checks SQS batch calls and DynamoDB
transactions under action names IAM does not have.  ``Authorizer`` below puts in what AWS
evaluates instead (documented per service in the AWS Service Authorization Reference):
the table or index ARN, each table of a batch, each item action of a transaction, the
parameter ARN, single-message SQS actions, GetQueueUrl on the queue.  S3 keeps moto's
own evaluation (bucket and object ARNs), plus two of AWS's rules moto lacks: a
DeleteObjects request is authorized per key, and a GET or HEAD of a missing key needs
s3:ListBucket on the bucket (without it AWS answers 403, not 404).  Every denial is
recorded, so one that the code swallows (a signing key that cannot be stored) still
fails the test, naming the action.

``rendered_roles`` gives each function the role ``infra/template.py`` renders for it,
with intrinsics resolved to the moto resources' real names and ARNs; ``Stack`` runs code
as one function at a time; the job drivers hand events to handlers as Lambda would.
"""
from __future__ import annotations

import contextlib
import json
import re
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest


# --- the template, resolved against moto's resources ------------------------------

def stack_values() -> dict[str, str]:
    """What CloudFormation would substitute, from the resources the fixture made."""
    from chalicelib import aws
    from chalicelib.settings import get_settings

    settings = get_settings().aws
    sqs = aws.client("sqs")
    table_arn = aws.client("dynamodb").describe_table(TableName=settings.TABLE)["Table"]["TableArn"]
    account, region = table_arn.split(":")[4], table_arn.split(":")[3]
    values = {"AWS::Partition": "aws", "AWS::Region": region, "AWS::AccountId": account,
              "NimbusTable": settings.TABLE, "NimbusTable.Arn": table_arn,
              "NimbusTable.StreamArn": f"{table_arn}/stream/2026-01-01T00:00:00.000",
              "NimbusBucket": settings.BUCKET,
              "NimbusBucket.Arn": f"arn:aws:s3:::{settings.BUCKET}",
              "EventBridgeBus": "nimbus-events"}
    queues = {"WebhookQueue": settings.WEBHOOK_QUEUE, "EventsQueue": settings.EVENTS_QUEUE,
              "WebhookDeadLetters": settings.WEBHOOK_QUEUE + "-dlq",
              "EventsDeadLetters": settings.EVENTS_QUEUE + "-dlq"}
    for logical, name in queues.items():
        url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
        values[f"{logical}.Arn"] = sqs.get_queue_attributes(
            QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        values[f"{logical}.QueueName"] = name
    # The functions' own ARNs (adminCronRun invokes a cron task's function).
    from infra.template import FUNCTION_NAMES
    values.update({f"{name}.Arn": f"arn:aws:lambda:{region}:{account}:function:nimbus-{name}"
                   for name in FUNCTION_NAMES})
    return values


def resolve(node, values: dict[str, str]):
    """``node`` with Ref, Fn::GetAtt and Fn::Sub replaced; an unknown name fails."""
    if isinstance(node, list):
        return [resolve(n, values) for n in node]
    if not isinstance(node, dict):
        return node
    if set(node) == {"Ref"}:
        return values[node["Ref"]]
    if set(node) == {"Fn::GetAtt"}:
        return values[".".join(node["Fn::GetAtt"])]
    if set(node) == {"Fn::Sub"}:
        return re.sub(r"\$\{([^}]+)\}", lambda m: values[m.group(1)], node["Fn::Sub"])
    return {k: resolve(v, values) for k, v in node.items()}


def rendered_roles(drop: tuple[str, str] | None = None) -> dict[str, dict]:
    """function -> its role's resource, resolved; ``drop`` = (function, action) removes
    that action from the function's policy (the test that shows a missing right fails)."""
    from chalicelib.settings import get_settings
    from infra.template import FUNCTION_NAMES, resources

    template = resources(get_settings())["Resources"]
    values = stack_values()
    roles = {}
    for function, resource in template.items():
        role = resource.get("Properties", {}).get("Role", {}).get("Fn::GetAtt", [None])[0]
        if role:
            roles[function] = resolve(template[role], values)
    assert set(FUNCTION_NAMES) <= set(roles), roles.keys()
    if drop:
        for entry in roles[drop[0]]["Properties"]["Policies"]:
            for statement in entry["PolicyDocument"]["Statement"]:
                statement["Action"] = [a for a in statement["Action"] if a != drop[1]]
    return roles


# --- what AWS authorizes, per request ----------------------------------------------

def _arn(service: str, region: str, account: str, resource: str) -> str:
    return f"arn:aws:{service}:{region}:{account}:{resource}"


def _dynamodb(action: str, params: dict, region: str, account: str) -> list[tuple[str, str]]:
    def table(name: str, index: str | None = None) -> str:
        return _arn("dynamodb", region, account, f"table/{name}"
                    + (f"/index/{index}" if index else ""))

    if action in ("BatchGetItem", "BatchWriteItem"):
        return [(action, table(name)) for name in params["RequestItems"]]
    if action == "TransactWriteItems":
        kinds = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem",
                 "ConditionCheck": "ConditionCheckItem"}
        return [(kinds[kind], table(body["TableName"]))
                for entry in params["TransactItems"] for kind, body in entry.items()]
    if action == "TransactGetItems":
        return [("GetItem", table(entry["Get"]["TableName"])) for entry in params["TransactItems"]]
    if "TableName" in params:
        return [(action, table(params["TableName"], params.get("IndexName")))]
    return [(action, "*")]


def _ssm(action: str, params: dict, region: str, account: str) -> list[tuple[str, str]]:
    names = params.get("Names") or ([params["Name"]] if "Name" in params else [])
    return [(action, _arn("ssm", region, account, "parameter" + (n if n.startswith("/") else "/" + n)))
            for n in names] or [(action, "*")]


def _sqs(action: str, params: dict, region: str, account: str) -> list[tuple[str, str]]:
    name = params.get("QueueName") or str(params.get("QueueUrl", "")).rstrip("/").split("/")[-1]
    single = {"SendMessageBatch": "SendMessage", "DeleteMessageBatch": "DeleteMessage",
              "ChangeMessageVisibilityBatch": "ChangeMessageVisibility"}
    return [(single.get(action, action), _arn("sqs", region, account, name) if name else "*")]


EVALUATED = {"dynamodb": _dynamodb, "ssm": _ssm, "sqs": _sqs}


def deleted_keys(handler) -> list[str] | None:
    """The keys of a DeleteObjects request (POST ?delete), None for any other request."""
    if handler.method != "POST" or "delete" not in (handler.querystring or {}):
        return None
    from xml.etree import ElementTree

    root = ElementTree.fromstring(handler.raw_body)
    return [node.text for node in root.iter() if node.tag.rsplit("}", 1)[-1] == "Key"]


def object_exists(handler, arn: str) -> bool:
    """Whether the object an S3 key request names is in moto's bucket."""
    from moto.s3.models import s3_backends

    bucket, _, key = arn.split(":::", 1)[1].partition("/")
    found = s3_backends[handler.current_account]["aws"].buckets.get(bucket)
    return found is not None and key in found.keys


class Authorizer:
    """Installed over moto's check; records what each function was allowed or denied."""

    def __init__(self):
        self.function = ""
        self.allowed: set[tuple[str, str, str]] = set()
        self.denied: list[tuple[str, str, str]] = []

    def install(self, monkeypatch) -> None:
        from moto import settings as moto_settings
        from moto.core.authorization import ActionAuthenticatorMixin
        from moto.iam.access_control import IAMRequest

        original = ActionAuthenticatorMixin._authenticate_and_authorize_action
        me = self

        def normal(handler, resource="*"):
            service = getattr(handler, "service_name", None)
            if service not in EVALUATED or \
                    moto_settings.INITIAL_NO_AUTH_ACTION_COUNT == float("inf"):
                return original(handler, IAMRequest, resource)
            params = json.loads(handler.raw_body or b"{}")   # JSON protocols, all three
            action = handler._get_action()
            path = urlparse(handler.uri).path + (("?" + urlparse(handler.uri).query)
                                                 if urlparse(handler.uri).query else "")
            for name, arn in EVALUATED[service](action, params, handler.region,
                                                handler.current_account):
                request = IAMRequest(account_id=handler.current_account, method=handler.method,
                                     path=path, data=handler.data, body=handler.raw_body,
                                     headers=handler.headers, action=name)
                request.check_signature()
                me.check(request, f"{service}:{name}", arn)

        def any_action(handler, iam_request_cls, resource="*"):
            if iam_request_cls is IAMRequest or \
                    moto_settings.INITIAL_NO_AUTH_ACTION_COUNT == float("inf"):
                return original(handler, iam_request_cls, resource)
            action = f"s3:{handler._get_action()}"
            keys = deleted_keys(handler)
            if keys is None:
                try:
                    original(handler, iam_request_cls, resource)
                except Exception:
                    me.denied.append((me.function, action, resource))
                    raise
                me.allowed.add((me.function, action, resource))
                if action == "s3:GetObject" and not object_exists(handler, resource):
                    # AWS tells "no such key" only to a caller that may list the bucket.
                    uri = urlparse(handler.uri)
                    request = iam_request_cls(account_id=handler.current_account,
                                              method=handler.method,
                                              path=uri.path + (f"?{uri.query}" if uri.query else ""),
                                              data=handler.data, body=handler.raw_body,
                                              headers=handler.headers, action="ListBucket")
                    request.check_signature()
                    me.check(request, "s3:ListBucket", resource.split("/", 1)[0])
                return
            # DeleteObjects: AWS authorizes s3:DeleteObject on each key, moto the bucket.
            path = urlparse(handler.uri).path + "?" + urlparse(handler.uri).query
            for key in keys:
                request = iam_request_cls(account_id=handler.current_account,
                                          method=handler.method, path=path, data=handler.data,
                                          body=handler.raw_body, headers=handler.headers,
                                          action="DeleteObject")
                request.check_signature()
                me.check(request, "s3:DeleteObject", f"{resource}/{key}")

        monkeypatch.setattr(ActionAuthenticatorMixin, "_authenticate_and_authorize_normal_action",
                            normal)
        monkeypatch.setattr(ActionAuthenticatorMixin, "_authenticate_and_authorize_action",
                            any_action)

    def check(self, request, action: str, arn: str) -> None:
        try:
            request.check_action_permitted(arn)
        except Exception:
            self.denied.append((self.function, action, arn))
            raise
        self.allowed.add((self.function, action, arn))

    def used(self, function: str) -> set[tuple[str, str]]:
        return {(a, r) for f, a, r in self.allowed if f == function}


class Stack:
    """Runs code as one function at a time: its role's credentials, IAM enforced."""

    def __init__(self, authorizer: Authorizer, roles: dict[str, dict], scratch: Path):
        self.authorizer, self.roles, self.scratch = authorizer, roles, scratch
        self.credentials: dict[str, dict] = {}
        self.starts = 0   # every run is a cold start

    def _credentials(self, function: str) -> dict:
        if function not in self.credentials:
            import boto3

            iam = boto3.client("iam", region_name="us-east-1")
            sts = boto3.client("sts", region_name="us-east-1")
            props = self.roles[function]["Properties"]
            arn = iam.create_role(RoleName=function, AssumeRolePolicyDocument=json.dumps(
                props["AssumeRolePolicyDocument"]))["Role"]["Arn"]
            for entry in props["Policies"]:
                iam.put_role_policy(RoleName=function, PolicyName=entry["PolicyName"],
                                    PolicyDocument=json.dumps(entry["PolicyDocument"]))
            self.credentials[function] = sts.assume_role(
                RoleArn=arn, RoleSessionName=function)["Credentials"]
        return self.credentials[function]

    @contextlib.contextmanager
    def run_as(self, function: str):
        from moto.core.authorization import enable_iam_authentication

        from chalicelib import aws, oauth2
        from chalicelib.http import sessions as web_sessions
        from chalicelib.signing import service as signing
        from chalicelib.webhooks import deliveries as webhook_deliveries
        from chalicelib.store import table

        made = self._credentials(function)
        with pytest.MonkeyPatch.context() as env:
            env.setenv("AWS_ACCESS_KEY_ID", made["AccessKeyId"])
            env.setenv("AWS_SECRET_ACCESS_KEY", made["SecretAccessKey"])
            env.setenv("AWS_SESSION_TOKEN", made["SessionToken"])
            env.delenv("AWS_SECURITY_TOKEN", raising=False)
            # Each function has its own /tmp and memory: no pack another one downloaded,
            # no queue URL another one looked up.
            self.starts += 1
            env.setenv("NIMBUS_CACHE_DIR", str(self.scratch / f"{function}-{self.starts}"))
            env.setattr(webhook_deliveries, "_queue_urls", {})
            signing.reset_cache()
            web_sessions.reset_key_cache()
            oauth2.reset_jwt_key_cache()   # the ID token key, like the session key
            aws.reset_clients()
            table.configure()
            self.authorizer.function = function
            try:
                with enable_iam_authentication():
                    yield
            finally:
                self.authorizer.function = ""
        aws.reset_clients()
        table.configure()

    def may(self, function: str, action: str, arn: str) -> bool:
        """A right the code hands to a client (presigned URLs), evaluated as IAM would."""
        from moto.iam.access_control import IAMPolicy, PermissionResult

        results = [IAMPolicy(json.dumps(entry["PolicyDocument"])).is_action_permitted(action, arn)
                   for entry in self.roles[function]["Properties"]["Policies"]]
        return PermissionResult.PERMITTED in results and PermissionResult.DENIED not in results


def unused_rights(made: Stack) -> set[tuple[str, str, str]]:
    """(function, action, resource) of each granted right no call of the run matched."""
    from moto.iam.access_control import IAMPolicyStatement

    found = set()
    for function, role in made.roles.items():
        used = made.authorizer.used(function)
        for entry in role["Properties"]["Policies"]:
            for statement in entry["PolicyDocument"]["Statement"]:
                targets = statement["Resource"]
                for target in targets if isinstance(targets, list) else [targets]:
                    for action in statement["Action"]:
                        match = IAMPolicyStatement({"Resource": target})._check_element_matches
                        if not any(a == action and match("Resource", arn) for a, arn in used):
                            found.add((function, action, target))
    return found


# --- the job drivers: what Lambda hands each function -------------------------------

def schedule_event() -> dict:
    return {"version": "0", "id": "1", "detail-type": "Scheduled Event", "source": "aws.events",
            "account": "123456789012", "time": "2026-01-01T00:00:00Z", "region": "us-east-1",
            "resources": [], "detail": {}}


def consume(url: str, handler) -> int:
    """What Lambda's SQS poller does with the function's role (it knows the queue, so no
    GetQueueUrl): receive a batch, run the handler, delete the batch on success."""
    from chalicelib import aws

    sqs = aws.client("sqs")
    messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
    if messages:
        handler({"Records": [
            {"messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"], "body": m["Body"],
             "attributes": {}, "messageAttributes": {}, "eventSource": "aws:sqs",
             "eventSourceARN": "", "awsRegion": "us-east-1"} for m in messages]}, None)
        sqs.delete_message_batch(QueueUrl=url, Entries=[
            {"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]} for n, m in enumerate(messages)])
    return len(messages)


def stream_records(*, ahead: float = 3600) -> list[dict]:
    """The outbox's items as the table's stream hands them to the relay (``ahead``: also
    those written with the clock moved up to that far on)."""
    from chalicelib.store import outbox

    return [{"eventName": "INSERT", "dynamodb": {"NewImage": item.serialize()}}
            for item in outbox.pending(older_than=time.time() + ahead)]
