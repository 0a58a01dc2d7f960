"""A call AWS refuses to a function's role is an error that surfaces: never read as a
lost race ("published meanwhile"), never as done (S3 refuses keys of a DeleteObjects
inside a 200 answer), and a scheduled job that carries on past a failing pool or mirror
still fails its run.  tests/test_iam.py shows the roles cover these paths; this is what
happens when one does not."""
from __future__ import annotations

import io
import time
import types

import pytest

DENIED = {"Error": {"Code": "AccessDeniedException", "Message": "not authorized"}}


def refuse_every_key(monkeypatch):
    """S3 answers DeleteObjects as it does to a role without s3:DeleteObject on a prefix."""
    from chalicelib import aws

    s3 = aws.client("s3")
    monkeypatch.setattr(s3, "delete_objects", lambda **kw: {"Errors": [
        {"Key": o["Key"], "Code": "AccessDenied", "Message": "Access Denied"}
        for o in kw["Delete"]["Objects"]]})
    return s3


def test_refused_deletions_of_a_deleted_repository_are_raised(aws, monkeypatch):
    from chalicelib import aws as aws_clients
    from chalicelib.contents import archives
    from chalicelib.releases import s3_objects as release_bytes

    s3 = aws_clients.client("s3")
    for key in ("archives/7/abc.zip", "attachments/7/uuid"):
        s3.put_object(Bucket="nimbus-data", Key=key, Body=b"x")
    refuse_every_key(monkeypatch)
    for forget in (archives.forget_repo, release_bytes.remove_repo):
        with pytest.raises(aws_clients.ObjectsNotDeleted) as raised:
            forget(7)      # the cleanup consumer fails, and its event is retried
        assert aws_clients.is_access_denied(raised.value)
    listed = s3.list_objects_v2(Bucket="nimbus-data")["Contents"]
    assert len(listed) == 2


def test_refused_deletions_of_a_pool_are_raised(aws, monkeypatch):
    from chalicelib import aws as aws_clients
    from chalicelib.gitstore import packdb

    packdb.put_immutable("packs/9/pack-orphan.pack", io.BytesIO(b"x"))
    refuse_every_key(monkeypatch)
    with pytest.raises(aws_clients.ObjectsNotDeleted, match=r"1 objects .*\(AccessDenied\)"):
        packdb.delete_pool(9)


def test_a_refused_orphan_claim_is_raised_not_taken_for_a_race(aws, monkeypatch):
    from pynamodb.exceptions import TransactWriteError, VerboseClientError

    from chalicelib import aws as aws_clients
    from chalicelib.gitstore import packdb

    packdb.put_immutable("packs/9/pack-orphan.pack", io.BytesIO(b"x"))

    class Refused:
        """A transaction as DynamoDB answers a role without ConditionCheckItem."""

        def __init__(self, **_):
            pass

        def __enter__(self):
            return self

        def condition_check(self, *args, **kwargs):
            pass

        def save(self, *args, **kwargs):
            pass

        def __exit__(self, *exc):
            raise TransactWriteError("Failed to write transaction items",
                                     VerboseClientError(DENIED, "TransactWriteItems"))

    monkeypatch.setattr(packdb, "TransactWrite", Refused)
    with pytest.raises(TransactWriteError) as raised:
        packdb.sweep_pool(9, grace_seconds=0, now=time.time() + 10)
    assert aws_clients.is_access_denied(raised.value)
    keys = aws_clients.client("s3").list_objects_v2(Bucket="nimbus-data")["Contents"]
    assert [o["Key"] for o in keys] == ["packs/9/pack-orphan.pack"]


def _pools(*ids):
    return [types.SimpleNamespace(pk=f"POOL#{n}", repo_ids={n}) for n in ids]


def test_compaction_runs_every_pool_then_fails_on_a_denial(monkeypatch):
    from botocore.exceptions import ClientError

    from chalicelib.gitstore import compaction
    from chalicelib.jobs import schedules
    from chalicelib import repos

    ran = []

    def compact(pool_id, repo_ids, **_):
        ran.append(pool_id)
        if pool_id == 1:
            raise ClientError(DENIED, "TransactWriteItems")
        if pool_id == 2:
            raise RuntimeError("a broken pool")       # logged; not the role's fault
        return True

    monkeypatch.setattr(repos, "every_pool", lambda: _pools(1, 2, 3))
    monkeypatch.setattr(compaction, "compact_pool", compact)
    with pytest.raises(ClientError, match="AccessDenied"):
        schedules.compact_packs()
    # Each pool, then the wiki of each repository on it (a wiki is a pool of its own),
    # each tried whatever the one before did.
    assert ran == [1, "wiki-1", 2, "wiki-2", 3, "wiki-3"]
    monkeypatch.setattr(repos, "every_pool", lambda: _pools(2, 3))
    assert schedules.compact_packs() == 3


def test_mirror_sync_runs_every_mirror_then_fails_on_a_denial(monkeypatch):
    from botocore.exceptions import ClientError

    from chalicelib.repo_admin import migrations

    mirrors = [types.SimpleNamespace(id=n, owner_id=1) for n in (1, 2)]
    synced = []

    def sync(repo):
        synced.append(repo.id)
        if repo.id == 1:
            raise ClientError({"Error": {"Code": "AccessDenied"}}, "GetObject")

    monkeypatch.setattr(migrations.mirror_store, "due_repos", lambda now: mirrors)
    monkeypatch.setattr(migrations.quota, "quota_allows", lambda *a: True)
    monkeypatch.setattr(migrations, "sync", sync)
    monkeypatch.setattr(migrations, "_reschedule", lambda repo, at: None)
    with pytest.raises(ClientError, match="AccessDenied"):
        migrations.sync_due()
    assert synced == [1, 2]
