"""The real ``python -m chalicelib.local`` killed and stopped at bad moments.

- kill -9 right after acknowledged writes loses none of them (the write-ahead journal);
- SIGTERM during and after git transfers stops within STOP_LIMIT seconds, and what was
  pushed before is intact afterwards;
- a burst of 64 parallel connections is served without a reset.

``NIMBUS_STOP_ROUNDS`` sets how many SIGTERM rounds run (20 to check by hand).
"""
from __future__ import annotations

import contextlib
import http.client
import io
import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Iterator

from chalicelib.local import state
from chalicelib.local.journal import Journal, Record, read_records
from chalicelib.local.persistence import Snapshots
from chalicelib.local.moto_backend import MotoServer
from chalicelib.local.state import StateDir
from tests.local_server import (ADMIN_ENV, call, commit_random_file, git, push_url, served,
                                stop)

STOP_LIMIT = 5.0
STOP_ROUNDS = int(os.environ.get("NIMBUS_STOP_ROUNDS", "3"))
BURST = 64


def _burst(base: str, count: int = BURST) -> list[str]:
    """``count`` connections opened at once, one GET on each; what went wrong."""
    host, port = base.removeprefix("http://").split(":")
    start = threading.Barrier(count)
    failures: list[str] = []

    def get(_: int) -> None:
        start.wait()
        try:
            conn = http.client.HTTPConnection(host, int(port), timeout=30)
            conn.request("GET", "/api/v1/version")
            response = conn.getresponse()
            response.read()
            if response.status != 200:
                failures.append(f"status {response.status}")
            conn.close()
        except OSError as exc:
            failures.append(repr(exc))

    threads = [threading.Thread(target=get, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return failures


def test_acknowledged_writes_survive_kill_9_and_bursts_get_no_reset(tmp_path):
    data, source = tmp_path / "data", tmp_path / "source"
    commit_random_file(source, "first.bin", 256 * 1024)
    head = commit_random_file(source, "second.bin", 1024 * 1024)

    with served(data, **ADMIN_ENV) as (process, base):
        assert _burst(base) == []
        assert call(base, "POST", "/api/v1/admin/users", {
            "username": "alice", "password": "alice-password-1",
            "email": "alice@example.test", "must_change_password": False})[0] == 201
        assert call(base, "POST", "/api/v1/user/repos", {"name": "proj"})[0] == 201
        status, issue = call(base, "POST", "/api/v1/repos/root/proj/issues",
                             {"title": "Survives kill -9", "body": "journaled"})
        assert status == 201
        assert call(base, "POST", f"/api/v1/repos/root/proj/issues/{issue['number']}/comments",
                    {"body": "so does this comment"})[0] == 201
        git("push", "-q", push_url(base, "/root/proj.git"), "main", cwd=source)
        process.kill()  # SIGKILL: no final snapshot, nothing flushed by the process
        process.wait()

    with served(data) as (process, base):
        assert call(base, "GET", "/api/v1/users/alice")[0] == 200
        status, repo = call(base, "GET", "/api/v1/repos/root/proj")
        assert status == 200 and repo["empty"] is False
        status, found = call(base, "GET", f"/api/v1/repos/root/proj/issues/{issue['number']}")
        assert (status, found["title"]) == (200, "Survives kill -9")
        status, comments = call(base, "GET",
                                f"/api/v1/repos/root/proj/issues/{issue['number']}/comments")
        assert [c["body"] for c in comments] == ["so does this comment"]
        clone = tmp_path / "clone"
        git("clone", "-q", push_url(base, "/root/proj.git"), str(clone))
        assert git("rev-parse", "HEAD", cwd=clone) == head
        git("fsck", "--full", "--strict", cwd=clone)
        assert stop(process)[0] == 0
    assert "replayed" in process.output.read_text()  # the writes came from the journal


def _in_flight(args: list[str], cwd: Path | None, settle: float) -> subprocess.Popen:
    """Start a git transfer and give it ``settle`` seconds to get going."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    transfer = subprocess.Popen(["git", *args], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    time.sleep(settle)
    return transfer


def test_sigterm_stops_quickly_during_and_after_git_transfers(tmp_path):
    data, source = tmp_path / "data", tmp_path / "source"
    head = commit_random_file(source, "base.bin", 6 * 1024 * 1024)
    # An interrupted push may land or not; one whose client saw success must have.
    possible_heads, timings = {head}, []
    for round_ in range(STOP_ROUNDS):
        with served(data, **ADMIN_ENV) as (process, base):
            url = push_url(base, "/root/proj.git")
            if round_ == 0:
                assert call(base, "POST", "/api/v1/user/repos", {"name": "proj"})[0] == 201
                git("push", "-q", url, "main", cwd=source)
            transfer, idle, pushed = None, None, None
            scenario = ("push", "clone", "after")[round_ % 3]
            if scenario == "push":  # a push the stop interrupts (or lets finish)
                pushed = commit_random_file(source, f"extra-{round_}.bin", 8 * 1024 * 1024)
                # --force: whether the last interrupted push landed or not.
                transfer = _in_flight(["push", "-q", "--force", url, "main"], source, 0.8)
            elif scenario == "clone":  # a clone the stop interrupts
                transfer = _in_flight(["clone", "-q", url, str(tmp_path / f"c{round_}")],
                                      None, 0.8)
            else:  # after the interrupted ones: a clean clone, and an idle keep-alive client
                clone = tmp_path / f"c{round_}"
                git("clone", "-q", url, str(clone))
                git("fsck", "--full", "--strict", cwd=clone)
                head = git("rev-parse", "HEAD", cwd=clone)
                assert head in possible_heads
                possible_heads = {head}
                host, port = base.removeprefix("http://").split(":")
                idle = http.client.HTTPConnection(host, int(port), timeout=30)
                idle.request("GET", "/api/v1/version")
                idle.getresponse().read()
            code, seconds = stop(process)
            timings.append((scenario, round(seconds, 2)))
            if transfer:
                acknowledged = transfer.wait(10) == 0
                if pushed:
                    possible_heads = {pushed} if acknowledged else possible_heads | {pushed}
            if idle:
                idle.close()
            assert code == 0, process.output.read_text()
    print("stop timings:", timings)
    assert all(seconds < STOP_LIMIT for _, seconds in timings), timings


# -- the journal file ------------------------------------------------------------------------

def _request(n: int) -> Record:
    return Record(environ={"REQUEST_METHOD": "PUT", "PATH_INFO": f"/bucket/key-{n}"},
                  body=os.urandom(100 + n), service="s3")


def test_a_torn_last_record_is_dropped_and_appending_goes_on_after_it(tmp_path):
    path = tmp_path / "journal"
    journal = Journal(path)
    written = [_request(n) for n in range(3)]
    for record in written:
        journal.sync(journal.append(record))
    journal.close()
    whole = path.stat().st_size
    with open(path, "ab") as fh:  # a crash in the middle of the fourth append
        fh.write(_request(3).encode()[:40])

    journal = Journal(path)
    assert (journal.records, journal.services) == (3, {"s3"})
    assert path.stat().st_size == whole  # the torn bytes are gone
    journal.sync(journal.append(_request(4)))
    journal.close()
    replayed = list(read_records(path))
    assert [r.environ["PATH_INFO"] for r in replayed] == [
        "/bucket/key-0", "/bucket/key-1", "/bucket/key-2", "/bucket/key-4"]
    assert [r.body for r in replayed[:3]] == [r.body for r in written]


def test_a_record_with_a_bad_checksum_ends_the_journal(tmp_path):
    path = tmp_path / "journal"
    journal = Journal(path)
    for n in range(3):
        journal.append(_request(n))
    journal.close()
    data = bytearray(path.read_bytes())
    second = len(_request(0).encode())
    data[second + 20] ^= 0xFF  # a flipped bit inside the second record's payload
    path.write_bytes(bytes(data))
    assert [r.environ["PATH_INFO"] for r in read_records(path)] == ["/bucket/key-0"]
    assert Journal(path).records == 1


# -- crashes at every step of a compaction, in-process ----------------------------------------

TABLE, BUCKET = "crash", "crash-bucket"
COUNTER = {"id": {"S": "counter"}}


@contextlib.contextmanager
def embedded(data_dir: Path) -> Iterator[MotoServer]:
    """The storage half of the local runtime (embedded moto and its saved state, opened
    and closed as the runtime does, without HTTP or the app); yields the moto server,
    with ``.state`` set."""
    moto = MotoServer("us-east-1")
    moto.start()
    try:
        moto.reset()
        moto.state = StateDir(data_dir, moto.client, moto.backend)
        moto.state.open()
        if not moto.client("dynamodb").list_tables()["TableNames"]:
            moto.client("dynamodb").create_table(
                TableName=TABLE, BillingMode="PAY_PER_REQUEST",
                KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}])
            moto.client("s3").create_bucket(Bucket=BUCKET)
        yield moto
        moto.state.compact()  # a stop's final snapshot
        moto.state.close()
    finally:
        moto.stop()


def _add_one(moto) -> None:
    # ADD is not idempotent: a write applied twice (snapshot + journal) shows.
    moto.client("dynamodb").update_item(TableName=TABLE, Key=COUNTER,
                                        UpdateExpression="ADD n :one",
                                        ExpressionAttributeValues={":one": {"N": "1"}})


def _count(moto) -> int:
    item = moto.client("dynamodb").get_item(TableName=TABLE, Key=COUNTER, ConsistentRead=True)
    return int(item["Item"]["n"]["N"])


def test_a_crash_at_any_step_of_a_compaction_loses_nothing_and_applies_nothing_twice(
        tmp_path, monkeypatch):
    data = tmp_path / "data"
    images: dict[str, Path] = {}

    def crash_image(name: str) -> None:
        """What kill -9 at this moment would leave on disk."""
        images[name] = tmp_path / name
        shutil.copytree(data, images[name], ignore=shutil.ignore_patterns("lock"))

    save, write_json, collect = (Snapshots.save, state.write_json,
                                 StateDir._collect_garbage_locked)

    def save_then_crash(self, folder, *args, **kwargs):
        save(self, folder, *args, **kwargs)
        crash_image("snapshot written, not renamed")

    def write_then_crash(path, *args, **kwargs):
        if path.name == state.CURRENT_FILE:
            crash_image("renamed, CURRENT not switched")
        write_json(path, *args, **kwargs)

    def collect_then_crash(self):
        crash_image("CURRENT switched, old generation still there")
        collect(self)

    with embedded(data) as moto:
        for _ in range(3):
            _add_one(moto)
        moto.client("s3").put_object(Bucket=BUCKET, Key="kept", Body=b"bytes")
        crash_image("journal only")
        monkeypatch.setattr(Snapshots, "save", save_then_crash)
        monkeypatch.setattr(state, "write_json", write_then_crash)
        monkeypatch.setattr(StateDir, "_collect_garbage_locked", collect_then_crash)
        moto.state.compact()
        monkeypatch.undo()
        _add_one(moto)  # journaled after the new snapshot
        crash_image("after the compaction")

    expected = {"journal only": 3, "snapshot written, not renamed": 3,
                "renamed, CURRENT not switched": 3,
                "CURRENT switched, old generation still there": 3, "after the compaction": 4}
    assert set(images) == set(expected)
    for name, image in images.items():
        # After a replay the start compacts; a second start reads that snapshot.
        for _ in range(2 if name == "journal only" else 1):
            with embedded(image) as moto:
                assert _count(moto) == expected[name], name
                body = moto.client("s3").get_object(Bucket=BUCKET, Key="kept")["Body"]
                assert body.read() == b"bytes", name
        # Only the snapshot in use is left: leftovers of the crash were cleaned up.
        current = json.loads((image / state.CURRENT_FILE).read_text())["generation"]
        assert [p.name for p in (image / state.SNAPSHOTS_DIR).iterdir()] == [str(current)]


def test_replaying_the_journal_rebuilds_what_every_kind_of_write_made(tmp_path):
    """Each journaled kind of request, replayed onto the snapshot before it, gives the
    same state: S3 (metadata with underscores, aws-chunked uploads, multipart with its
    random upload id, copies, batch deletes), DynamoDB (tables, TTL, transactions,
    batches), SSM and SQS definitions."""
    from boto3.s3.transfer import TransferConfig

    data, image = tmp_path / "data", tmp_path / "image"
    large = os.urandom(7 * 1024 * 1024)
    bucket = BUCKET
    with embedded(data) as moto:
        s3, ddb = moto.client("s3"), moto.client("dynamodb")
        ssm, sqs = moto.client("ssm"), moto.client("sqs")
        s3.put_object(Bucket=bucket, Key="meta", Body=b"m", ContentType="text/x-test",
                      Metadata={"owner_id": "7"})
        s3.upload_fileobj(io.BytesIO(large), bucket, "multipart", Config=TransferConfig(
            multipart_threshold=5 * 1024 * 1024, multipart_chunksize=5 * 1024 * 1024))
        s3.copy_object(Bucket=bucket, Key="copy", CopySource={"Bucket": bucket, "Key": "meta"})
        for key in ("gone-1", "gone-2", "gone-3"):
            s3.put_object(Bucket=bucket, Key=key, Body=key.encode())
        s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "gone-1"},
                                                             {"Key": "gone-2"}]})
        s3.delete_object(Bucket=bucket, Key="gone-3")
        ddb.create_table(TableName="extra", BillingMode="PAY_PER_REQUEST",
                         KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}])
        ddb.update_time_to_live(TableName="extra", TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "expires"})
        ddb.batch_write_item(RequestItems={"extra": [
            {"PutRequest": {"Item": {"id": {"S": f"b{n}"}, "n": {"N": str(n)}}}}
            for n in range(5)]})
        ddb.transact_write_items(TransactItems=[
            {"Update": {"TableName": "extra", "Key": {"id": {"S": "b1"}},
                        "UpdateExpression": "ADD n :ten", "ConditionExpression": "n = :one",
                        "ExpressionAttributeValues": {":ten": {"N": "10"}, ":one": {"N": "1"}}}},
            {"Delete": {"TableName": "extra", "Key": {"id": {"S": "b2"}}}}])
        ssm.put_parameter(Name="/t/secret", Value="v1", Type="SecureString")
        ssm.put_parameter(Name="/t/secret", Value="v2", Type="SecureString", Overwrite=True)
        ssm.put_parameter(Name="/t/gone", Value="x", Type="String")
        ssm.delete_parameter(Name="/t/gone")
        sqs.create_queue(QueueName="extra-queue", Attributes={"VisibilityTimeout": "42"})
        sqs.delete_queue(QueueUrl=sqs.create_queue(QueueName="gone-queue")["QueueUrl"])
        expected = {
            "objects": {o["Key"]: o["ETag"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]},
            "items": sorted(ddb.scan(TableName="extra")["Items"], key=lambda i: i["id"]["S"])}
        shutil.copytree(data, image, ignore=shutil.ignore_patterns("lock"))  # kill -9 now

    with embedded(image) as moto:
        s3, ddb = moto.client("s3"), moto.client("dynamodb")
        listed = s3.list_objects_v2(Bucket=bucket)["Contents"]
        assert {o["Key"]: o["ETag"] for o in listed} == expected["objects"]
        assert s3.get_object(Bucket=bucket, Key="multipart")["Body"].read() == large
        meta = s3.head_object(Bucket=bucket, Key="meta")
        assert (meta["ContentType"], meta["Metadata"]) == ("text/x-test", {"owner_id": "7"})
        items = sorted(ddb.scan(TableName="extra")["Items"], key=lambda i: i["id"]["S"])
        assert items == expected["items"]
        ttl = ddb.describe_time_to_live(TableName="extra")["TimeToLiveDescription"]
        assert ttl["AttributeName"] == "expires"
        secret = moto.client("ssm").get_parameter(Name="/t/secret", WithDecryption=True)
        assert secret["Parameter"]["Value"] == "v2"
        names = {p["Name"] for p in moto.client("ssm").describe_parameters()["Parameters"]}
        assert "/t/gone" not in names
        queues = {u.rsplit("/", 1)[1] for u in moto.client("sqs").list_queues()["QueueUrls"]}
        assert "extra-queue" in queues and "gone-queue" not in queues
        url = moto.client("sqs").get_queue_url(QueueName="extra-queue")["QueueUrl"]
        attributes = moto.client("sqs").get_queue_attributes(
            QueueUrl=url, AttributeNames=["VisibilityTimeout"])["Attributes"]
        assert attributes["VisibilityTimeout"] == "42"
