"""The unit of work, the transactional outbox, the relay and idempotent consumers."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from chalicelib import events
from tests.conftest import drain_outbox
from tests.repo_admin.test_migrations import local_networks_allowed, remote  # noqa: F401 - fixtures

ROOT = Path(__file__).resolve().parent.parent


def _queue_bodies(url: str) -> list[dict]:
    from chalicelib import aws

    found = []
    while True:
        got = aws.client("sqs").receive_message(QueueUrl=url, MaxNumberOfMessages=10)
        messages = got.get("Messages", [])
        if not messages:
            return found
        for message in messages:
            found.append(json.loads(message["Body"]))
            aws.client("sqs").delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])


def _counter_item(name: str):
    from chalicelib.store.table import Counter
    from chalicelib.store.keys import keys

    return Counter(*keys.counter(name), value=1)


def test_commit_writes_change_and_event_together(aws):
    from chalicelib.errors import ConditionFailed
    from chalicelib.store import unit_of_work
    from chalicelib.store.table import Counter
    from chalicelib.store.keys import keys

    with unit_of_work.writing() as uow:
        uow.put(_counter_item("a"), label="a", must_not_exist=True)
        uow.raise_event(events.UserCreated(actor_id=1, user_id=7, login="a"))
    [event] = drain_outbox()
    assert isinstance(event, events.UserCreated) and event.login == "a" and event.event_id

    # A failed condition writes neither the change nor its event.
    with pytest.raises(ConditionFailed) as failed:
        with unit_of_work.writing() as uow:
            uow.put(_counter_item("b"), label="b", must_not_exist=True)
            uow.put(_counter_item("a"), label="taken", must_not_exist=True)
            uow.raise_event(events.UserCreated(actor_id=1, user_id=8, login="b"))
    assert failed.value.label == "taken" and failed.value.exists
    assert drain_outbox() == []
    assert Counter.count(keys.counter("b")[0]) == 0


def test_an_exception_in_the_block_writes_nothing(aws):
    from chalicelib.store import unit_of_work

    with pytest.raises(RuntimeError):
        with unit_of_work.writing() as uow:
            uow.put(_counter_item("c"))
            uow.raise_event(events.UserCreated(actor_id=1, user_id=9, login="c"))
            raise RuntimeError("refused half-way")
    with unit_of_work.writing():
        pass                     # nothing left staged from the failed block
    assert drain_outbox() == []


def test_a_unit_past_the_transaction_limit_commits_in_chunks_events_last(aws):
    from chalicelib.store import unit_of_work
    from chalicelib.store.table import Counter

    with unit_of_work.writing() as uow:
        for n in range(230):
            uow.put(_counter_item(f"bulk{n:03d}"))
        uow.raise_event(events.UserCreated(actor_id=1, user_id=10, login="bulk"))
    assert sum(1 for _ in Counter.scan(Counter.pk.startswith("SEQ#bulk"))) == 230
    assert [e.login for e in drain_outbox()] == ["bulk"]


def test_reads_after_a_write_come_from_the_unit(aws):
    from chalicelib.store import unit_of_work
    from chalicelib.store.table import Counter
    from chalicelib.store.keys import keys

    with unit_of_work.start() as uow:
        with unit_of_work.writing():
            uow.put(_counter_item("d"))
        calls = []
        from chalicelib import aws as aws_clients
        aws_clients.add_call_hook(lambda **kw: calls.append(kw.get("model")))
        assert uow.get(Counter, keys.counter("d")).value == 1
        assert calls == []


def test_relay_publishes_and_removes_and_consumers_run_once(aws):
    from chalicelib.jobs import consumers, relay
    from chalicelib.store import outbox, unit_of_work

    seen = []
    consumers.register("test-once", (events.UserCreated,), seen.append)
    try:
        with unit_of_work.writing() as uow:
            uow.raise_event(events.UserCreated(actor_id=1, user_id=11, login="once"))
        items = list(outbox.pending())
        assert relay.sweep(grace=0) == 1
        assert list(outbox.pending()) == []
        url = relay.queue_url()
        # The relay crashed after sending and before removing: the item goes again.
        relay.publish(items)
        bodies = _queue_bodies(url)
        assert len(bodies) == 2 and bodies[0] == bodies[1]
        for body in bodies:
            consumers.handle_message(body)
        assert [e.login for e in seen] == ["once"]
    finally:
        consumers.unregister("test-once")


def test_a_failing_consumer_is_retried_not_marked_done(aws):
    from chalicelib.jobs import consumers
    from chalicelib.store import outbox

    attempts = []

    def flaky(event):
        attempts.append(event.event_id)
        if len(attempts) == 1:
            raise RuntimeError("receiver down")

    consumers.register("test-flaky", (events.UserCreated,), flaky)
    try:
        event = events.UserCreated(actor_id=1, user_id=12, login="flaky").stamped()
        message = events.to_message(event)
        with pytest.raises(RuntimeError):
            consumers.handle_message(message)
        assert not outbox.is_done(event.event_id, "test-flaky")
        assert consumers.handle_message(message) == 1
        assert outbox.is_done(event.event_id, "test-flaky")
        assert consumers.handle_message(message) == 0
        assert len(attempts) == 2
    finally:
        consumers.unregister("test-flaky")


def test_stream_records_relay_outbox_items_only(aws):
    from chalicelib.jobs import relay
    from chalicelib.store import outbox

    event = events.UserCreated(actor_id=1, user_id=13, login="streamed").stamped()
    item = outbox.item_for(event)
    image = item.serialize()
    other = _counter_item("e").serialize()
    records = [{"eventName": "INSERT", "dynamodb": {"NewImage": image}},
               {"eventName": "INSERT", "dynamodb": {"NewImage": other}},
               {"eventName": "REMOVE", "dynamodb": {}}]
    assert relay.relay_stream_records(records) == 1
    [body] = _queue_bodies(relay.queue_url())
    assert events.from_message(body) == event


def test_messages_round_trip_every_event_type():
    pushed = events.RepositoryPushed(
        actor_id=1, repo_id=2, ref="refs/heads/main", before="0" * 40, after="a" * 40,
        commits=(events.PushedCommit("a" * 40, "msg", "A", "a@x", "C", "c@x", 1, 60),),
        total_commits=1, repo={"id": 2, "name": "r"}).stamped()
    assert events.from_message(json.loads(json.dumps(events.to_message(pushed)))) == pushed
    edited = events.IssueChanged(actor_id=1, repo_id=2, action="edited",
                                 changes=(("title", "old"),)).stamped()
    assert events.from_message(json.loads(json.dumps(events.to_message(edited)))) == edited
    with pytest.raises(events.UnknownEvent):
        events.from_message({"type": "NoSuchEvent", "data": {}})


def test_snapshots_leave_secrets_out():
    record = {"id": 1, "login": "x", "password_hash": "scrypt$...", "mirror_auth": "u:p",
              "gsi1pk": "LOGIN#x", "team_ids": {3, 1}}
    assert events.snapshot(record) == {"id": 1, "login": "x", "team_ids": [1, 3]}


def test_a_crash_after_commit_loses_no_event_and_duplicates_reach_consumers_once(tmp_path):
    """The process dies (os._exit) right after the commit, before anything relays; a new
    process sweeps the outbox and the consumer sees the event once, also when the queue
    delivers it again."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0)
    server.start()
    try:
        host, port = server.get_host_and_port()
        log = tmp_path / "consumed.jsonl"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("NIMBUS", "AWS_"))}
        env.update({"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                    "AWS_DEFAULT_REGION": "us-east-1",
                    "NIMBUS__AWS__ENDPOINT_URL": f"http://{host}:{port}",
                    "NIMBUS__SERVER__ROOT_URL": "http://nimbus.test/",
                    "NIMBUS__SECURITY__PASSWORD_HASH_COST": "1024",
                    "OUTBOX_TEST_LOG": str(log)})

        def step(name):
            return subprocess.run([sys.executable, "-m", "tests.outbox_child", name], cwd=ROOT,
                                  env=env, capture_output=True, text=True, timeout=90)

        died = step("write")
        assert died.returncode == 137, died.stdout + died.stderr
        assert "survived" not in died.stdout
        delivered = step("deliver")
        assert delivered.returncode == 0, delivered.stderr
        assert "UserCreated" in json.loads(delivered.stdout.splitlines()[0])["left"]
        again = step("again")
        assert again.returncode == 0, again.stderr
        consumed = [json.loads(line) for line in log.read_text().splitlines()]
        assert [c["login"] for c in consumed].count("crashy") == 1, consumed
    finally:
        server.stop()


@pytest.mark.usefixtures("immediate_deletion")   # what deleting removes at once
def test_repository_deletion_is_cleaned_up_by_its_consumer(api, remote, local_networks_allowed):  # noqa: F811
    from chalicelib import aws as aws_clients
    from chalicelib.jobs import consumers, relay
    from chalicelib.settings import get_settings
    from chalicelib.repo_admin.models import MirrorDue
    from chalicelib.repo_admin.models import keys

    api.create_user("alice")
    alice = api.create_token("alice")
    made = api.post("/repos/migrate", token=alice, json={
        "clone_addr": remote["url"], "repo_name": "mirror", "mirror": True,
        "mirror_interval": "10m"})
    assert made.status == 201, made
    repo_id = made.json["id"]
    assert api.get("/repos/alice/mirror/archive/main.zip").status == 200
    s3, bucket = aws_clients.client("s3"), get_settings().aws.BUCKET

    def cached_archives():
        return s3.list_objects_v2(Bucket=bucket, Prefix=f"archives/{repo_id}/").get("KeyCount", 0)

    def scheduled():
        return MirrorDue.count(keys.mirror_due(repo_id)[0],
                               MirrorDue.sk == keys.mirror_due(repo_id)[1]) > 0

    assert cached_archives() == 1 and scheduled()
    assert api.delete("/repos/alice/mirror", token=alice).status == 204
    assert cached_archives() == 1 and scheduled()       # not on the request path
    relay.sweep(grace=0)
    while consumers.poll(relay.queue_url()):
        pass
    assert cached_archives() == 0 and not scheduled()


def test_an_event_too_large_for_sqs_travels_through_s3(aws):
    from chalicelib.jobs import consumers, relay
    from chalicelib.store import unit_of_work

    seen = []
    consumers.register("test-large", (events.IssueChanged,), seen.append)
    try:
        body = "é" * 65_536 + "🙂" * 10_000
        with unit_of_work.writing() as uow:
            uow.raise_event(events.IssueChanged(actor_id=1, repo_id=2, action="edited",
                                                issue={"body": body},
                                                changes=(("body", body),)))
        assert relay.sweep(grace=0) == 1
        [message] = _queue_bodies(relay.queue_url())
        assert "stored_at" in message and len(json.dumps(message)) < 1000
        consumers.handle_message(message)
        assert [e.issue["body"] for e in seen] == [body]
    finally:
        consumers.unregister("test-large")
