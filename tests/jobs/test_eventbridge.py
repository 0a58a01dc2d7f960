"""Every domain event on an EventBridge bus (chalicelib/jobs/bridge.py): a rule on moto's
bus sends them to an SQS queue; the queue must hold each event of a scripted session
once, in commit order per repository, and a redelivered message must put nothing twice."""
from __future__ import annotations

import json

import pytest

from chalicelib import aws, events
from chalicelib.jobs import bridge, consumers
from chalicelib.settings import overridden
from chalicelib.store import outbox, unit_of_work
from tests.local_server import runtime_with_events, seat_people, wait_until

BUS = "nimbus-test-bus"


def _received(queue_url: str) -> list[dict]:
    """Every message the rule sent to the queue so far (each one read once)."""
    sqs, found = aws.client("sqs"), []
    while True:
        batch = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10,
                                    WaitTimeSeconds=0).get("Messages", [])
        if not batch:
            return found
        found += [json.loads(m["Body"]) for m in batch]
        sqs.delete_message_batch(QueueUrl=queue_url, Entries=[
            {"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]} for n, m in enumerate(batch)])


def _received_peek(queue_url: str) -> int:
    attributes = aws.client("sqs").get_queue_attributes(
        QueueUrl=queue_url, AttributeNames=["ApproximateNumberOfMessages"])["Attributes"]
    return int(attributes["ApproximateNumberOfMessages"])


@pytest.fixture
def bus_to_queue(tmp_path):
    """A local runtime whose events go to BUS too, and a rule sending them to a queue."""
    with overridden({"NIMBUS__EVENTS__EVENTBRIDGE_BUS": BUS}):
        with runtime_with_events(tmp_path / "data") as runtime:
            bridge_client, sqs = aws.client("events"), aws.client("sqs")
            bridge_client.create_event_bus(Name=BUS)
            url = sqs.create_queue(QueueName="bridge-target")["QueueUrl"]
            arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])[
                "Attributes"]["QueueArn"]
            bridge_client.put_rule(Name="everything", EventBusName=BUS,
                                   EventPattern=json.dumps({"source": ["nimbus"]}))
            bridge_client.put_targets(Rule="everything", EventBusName=BUS,
                                      Targets=[{"Id": "queue", "Arn": arn}])
            committed: list[tuple[str, int, str]] = []

            def record(items) -> None:
                for item in items:
                    event = events.from_message(outbox.message_of(item))
                    if not isinstance(event, events.WORK_ITEMS):
                        committed.append((event.event_id, int(getattr(event, "repo_id", 0)),
                                          type(event).__name__))

            unit_of_work.after_commit(record)
            try:
                seat_people(runtime, {"alice": "alice-password-1", "bob": "bob-password-1"})
                yield runtime, url, committed
            finally:
                unit_of_work.remove_after_commit(record)


def _session(runtime) -> None:
    """A scripted session across two repositories and accounts."""
    call, alice = runtime.client.call, runtime.tokens["alice"]
    for name in ("one", "two"):
        assert call("POST", "/user/repos", token=alice,
                    json={"name": name, "auto_init": True}).status_code == 201
    for n in range(3):
        assert call("POST", f"/repos/alice/one/contents/file{n}.txt", token=alice, json={
            "content": "aGVsbG8K", "message": f"file {n}"}).status_code == 201
    issue = call("POST", "/repos/alice/two/issues", token=alice, json={"title": "Bug"}).json()
    assert call("POST", f"/repos/alice/two/issues/{issue['number']}/comments", token=alice,
                json={"body": "seen"}).status_code == 201
    assert call("PATCH", f"/repos/alice/two/issues/{issue['number']}", token=alice,
                json={"state": "closed"}).status_code == 201
    assert call("PATCH", "/repos/alice/one", token=alice,
                json={"description": "the first"}).status_code == 200
    assert call("PUT", "/repos/alice/one/collaborators/bob", token=alice,
                json={"permission": "write"}).status_code == 204
    assert call("DELETE", "/repos/alice/two", token=alice).status_code == 204


def test_each_event_reaches_the_bus_once_in_commit_order(bus_to_queue):
    runtime, url, committed = bus_to_queue
    _session(runtime)
    got: list[dict] = []

    def all_there() -> bool:
        # Consumers commit events of their own too (a deletion's cleanup): every event
        # committed so far, and none arriving for a while.
        before = len(got)
        got.extend(_received(url))
        return len(got) >= len(committed) and len(got) == before and runtime_idle()

    def runtime_idle() -> bool:
        import time
        time.sleep(0.5)
        return not _received_peek(url)

    wait_until(all_there, "every committed event on the bus's queue", timeout=60)
    expected = list(committed)
    assert len({repo for _, repo, _ in expected if repo}) == 2
    got += _received(url)      # anything more would be a duplicate
    # The site admin was made with the runtime, before the recording began.
    got = [m for m in got if m["detail"].get("login") != "boss"]
    ids = [m["detail"]["id"] for m in got]
    assert len(ids) == len(set(ids)), "an event reached the bus twice"
    assert sorted(ids) == sorted(event_id for event_id, _, _ in expected)
    by_id = {m["detail"]["id"]: m for m in got}
    for event_id, repo_id, name in expected:
        message = by_id[event_id]
        assert message["source"] == "nimbus" and message["detail-type"] == name
        assert message["detail"]["type"] == name
        if repo_id:
            assert message["detail"]["repo"]["id"] == repo_id
            assert message["detail"]["repo"]["owner_login"] == "alice"
    # Per repository, the queue's order is the commit order.
    for repo_id in {repo for _, repo, _ in expected if repo}:
        sent = [event_id for event_id, repo, _ in expected if repo == repo_id]
        arrived = [i for i in ids if i in set(sent)]
        assert arrived == sent, f"repository {repo_id} out of order"
    # The actor snapshot travels, secrets never: no password hash, no token.
    pushed = next(m for m in got if m["detail-type"] == "RepositoryPushed")
    assert pushed["detail"]["actor"]["login"] == "alice"
    text = json.dumps(got)
    assert "password_hash" not in text and runtime.tokens["alice"] not in text


def test_a_redelivered_message_puts_nothing_twice(bus_to_queue):
    runtime, url, committed = bus_to_queue
    call, alice = runtime.client.call, runtime.tokens["alice"]
    assert call("POST", "/user/repos", token=alice, json={"name": "again"}).status_code == 201
    created = next(e for e in committed if e[2] == "RepositoryCreated")
    seen: list[dict] = []
    wait_until(lambda: seen.extend(_received(url)) or any(
        m["detail"]["id"] == created[0] for m in seen), "the creation on the bus")
    # The queue hands the worker the same message again (SQS redelivers, the relay
    # published twice): the delivery mark stops a second put.
    message = {"type": "RepositoryCreated", "id": created[0], "data": {
        "actor_id": None, "event_id": created[0], "repo_id": created[1]}}
    assert consumers.handle_batch([json.dumps(message)]) == [True]
    assert created[0] not in {m["detail"]["id"] for m in _received(url)}


def test_refused_entries_are_sent_again_then_reported(monkeypatch):
    """EventBridge refuses an entry (throttled): it is sent again; one refused every
    time is reported not handled (its claim released, its message redelivered)."""
    calls = []

    class Refusing:
        def put_events(self, Entries):
            calls.append([json.loads(e["Detail"])["id"] for e in Entries])
            return {"Entries": [{"ErrorCode": "ThrottlingException"} if
                                json.loads(e["Detail"])["id"] in ("b", "c") and len(calls) < 3
                                or json.loads(e["Detail"])["id"] == "c"
                                else {"EventId": "x"} for e in Entries]}

    monkeypatch.setattr(aws, "client", lambda service: Refusing())
    batch = [events.RepositoryCreated(actor_id=1, event_id=i, repo_id=1) for i in "abcd"]
    with overridden({"NIMBUS__EVENTS__EVENTBRIDGE_BUS": BUS}):
        done = bridge.publish(batch, sleep=lambda seconds: None)
    assert done == [True, True, False, True]
    assert calls[0] == ["a", "b", "c", "d"] and calls[1] == ["b", "c"]
    assert len(calls) == bridge.ATTEMPTS


def test_calls_hold_ten_entries_and_256_kb():
    small = {"Source": "nimbus", "DetailType": "X", "Detail": "{}"}
    large = {"Source": "nimbus", "DetailType": "X", "Detail": "x" * 150_000}
    assert bridge.calls_of([small] * 23) == [list(range(10)), list(range(10, 20)), [20, 21, 22]]
    assert bridge.calls_of([large, small, large]) == [[0, 1], [2]]


def test_a_detail_too_large_loses_its_largest_fields():
    event = events.IssueChanged(actor_id=1, event_id="e", repo_id=1, number=3,
                                issue={"body": "x" * 300_000, "title": "t"})
    detail = bridge.detail_of(event)
    assert detail["truncated"] == ["issue"] and detail["number"] == 3
    assert len(json.dumps(detail)) < bridge.MAX_DETAIL_BYTES


def test_nothing_is_wanted_without_a_bus():
    event = events.RepositoryCreated(actor_id=1, repo_id=1)
    assert not bridge.wants(event)
    with overridden({"NIMBUS__EVENTS__EVENTBRIDGE_BUS": BUS}):
        assert bridge.wants(event)
        assert not bridge.wants(events.MigrationStepDue(actor_id=1, repo_id=1))
