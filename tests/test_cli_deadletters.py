"""``admin deadletters list|replay`` on moto: what each dead-letter queue holds (counts,
ages, event types, never a body), and replay back to the live queue, each message
deleted from the dead-letter queue only once its send was accepted."""
from __future__ import annotations

import json

import pytest

from chalicelib import aws, cli
from chalicelib.settings import get_settings

SECRET = "hunter2-in-a-body"


@pytest.fixture
def queues(aws_world, monkeypatch):
    """The live and dead-letter queues' URLs; the CLI talks to this process's moto."""
    monkeypatch.setattr(cli, "_connect", lambda args, stack: None)
    sqs = aws.client("sqs")
    settings = get_settings().aws
    url = {name: sqs.get_queue_url(QueueName=name)["QueueUrl"] for name in (
        settings.EVENTS_QUEUE, settings.WEBHOOK_QUEUE, f"{settings.EVENTS_QUEUE}-dlq",
        f"{settings.WEBHOOK_QUEUE}-dlq")}
    return {"events": url[settings.EVENTS_QUEUE], "webhooks": url[settings.WEBHOOK_QUEUE],
            "events-dlq": url[f"{settings.EVENTS_QUEUE}-dlq"],
            "webhooks-dlq": url[f"{settings.WEBHOOK_QUEUE}-dlq"]}


@pytest.fixture
def aws_world():
    from tests.conftest import moto_world

    with moto_world(twin=False):
        yield


def dead_letter(queues, event_id: str) -> None:
    """An event the events queue gave up on: received five times, then moved by SQS."""
    sqs = aws.client("sqs")
    sqs.send_message(QueueUrl=queues["events"], MessageBody=json.dumps(
        {"type": "IssueChanged", "id": event_id, "data": {"body": SECRET}}),
        MessageAttributes={"event_type": {"DataType": "String", "StringValue": "IssueChanged"}})
    for _ in range(6):       # the sixth receive finds it dead-lettered (maxReceiveCount 5)
        sqs.receive_message(QueueUrl=queues["events"], VisibilityTimeout=0)


def count(queues, name: str) -> int:
    attributes = aws.client("sqs").get_queue_attributes(
        QueueUrl=queues[name], AttributeNames=["ApproximateNumberOfMessages"])["Attributes"]
    return int(attributes["ApproximateNumberOfMessages"])


def test_list_describes_dead_letters_without_their_bodies(queues, capsys):
    dead_letter(queues, "ev-1")
    dead_letter(queues, "ev-2")
    aws.client("sqs").send_message(QueueUrl=queues["webhooks-dlq"],
                                   MessageBody=json.dumps({"lane": "hook:7"}))
    assert cli.main(["admin", "deadletters", "list"]) == 0
    out = capsys.readouterr().out
    assert "nimbus-events-dlq (dead letters of nimbus-events): 2 message(s)" in out
    assert "nimbus-webhooks-dlq (dead letters of nimbus-webhooks): 1 message(s)" in out
    assert "IssueChanged  ev-1  first sent" in out and "IssueChanged  ev-2" in out
    assert "lane  hook:7" in out and "ago), received" in out
    assert SECRET not in out
    # Listing takes nothing away: the messages are all still there, visible at once.
    assert count(queues, "events-dlq") == 2 and count(queues, "webhooks-dlq") == 1
    assert cli.main(["admin", "deadletters", "list", "--queue", "webhooks"]) == 0
    only = capsys.readouterr().out
    assert "nimbus-webhooks-dlq" in only and "nimbus-events-dlq" not in only


def test_replay_moves_messages_back_with_their_attributes(queues, capsys):
    for n in range(3):
        dead_letter(queues, f"ev-{n}")
    assert cli.main(["admin", "deadletters", "replay", "--queue", "events", "--max", "2"]) == 0
    assert "events: 2 message(s) moved back to the queue" in capsys.readouterr().out
    assert count(queues, "events-dlq") == 1
    moved = aws.client("sqs").receive_message(
        QueueUrl=queues["events"], MaxNumberOfMessages=10,
        MessageAttributeNames=["All"])["Messages"]
    assert sorted(json.loads(m["Body"])["id"] for m in moved) in (
        [f"ev-{a}", f"ev-{b}"] for a, b in ((0, 1), (0, 2), (1, 2)))
    assert {m["MessageAttributes"]["event_type"]["StringValue"] for m in moved} == \
        {"IssueChanged"}
    assert cli.main(["admin", "deadletters", "replay"]) == 0
    assert count(queues, "events-dlq") == 0 and count(queues, "webhooks-dlq") == 0


def test_a_message_whose_send_is_refused_stays_dead_lettered(queues, capsys):
    dead_letter(queues, "ev-1")
    dead_letter(queues, "ev-2")
    events = aws.client("sqs").meta.events
    entries = []

    def note(params, **_):
        entries[:] = params["Entries"]

    def refuse(**_):
        from botocore.awsrequest import AWSResponse

        # SQS accepting none of the batch: what a throttled or failing send answers.
        return AWSResponse("", 200, {}, None), {"Successful": [], "Failed": [
            {"Id": entry["Id"], "Code": "InternalError", "SenderFault": False,
             "Message": "try again"} for entry in entries]}

    events.register("provide-client-params.sqs.SendMessageBatch", note)
    events.register("before-call.sqs.SendMessageBatch", refuse)
    try:
        assert cli.main(["admin", "deadletters", "replay", "--queue", "events"]) == 1
    finally:
        events.unregister("provide-client-params.sqs.SendMessageBatch", note)
        events.unregister("before-call.sqs.SendMessageBatch", refuse)
    captured = capsys.readouterr()
    assert "events: 0 message(s) moved back" in captured.out
    assert captured.err.count("left in the dead-letter queue") == 2
    assert "InternalError try again" in captured.err
    assert count(queues, "events") == 0
    # Still held by the replay for a minute, then visible again, never lost.
    attributes = aws.client("sqs").get_queue_attributes(
        QueueUrl=queues["events-dlq"], AttributeNames=["ApproximateNumberOfMessagesNotVisible"])
    assert attributes["Attributes"]["ApproximateNumberOfMessagesNotVisible"] == "2"
