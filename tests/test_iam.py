"""Least privilege, proven: every function's code runs under moto with IAM enforced,
signed with temporary credentials of a role whose only policy is the one
``infra/template.py`` renders for that function (intrinsics resolved to the moto
resources' real names and ARNs).  How AWS's evaluation is reproduced over moto's, and
why it has to be, is in ``tests/iam_harness.py``; here the functions run and are judged.
"""
from __future__ import annotations

import base64
import json
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest

from chalicelib import clock
from tests import iam_paths
from tests.iam_harness import (
    Authorizer,
    Stack,
    consume,
    rendered_roles,
    schedule_event,
    stream_records,
    unused_rights,
)
from tests.repo_admin.test_migrations import git, local_networks_allowed, remote  # noqa: F401 - fixtures

ROOT = Path(__file__).resolve().parent.parent


# --- the functions at work ------------------------------------------------------------

def bench_git():
    """The benchmark's push and fetch request builders (bench/scenarios_git.py)."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import scenarios_git
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return scenarios_git


def form(data: bytes) -> tuple[bytes, dict]:
    boundary = "iam-boundary"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"attachment\"; "
            f"filename=\"notes.txt\"\r\nContent-Type: application/octet-stream\r\n\r\n").encode() \
        + data + f"\r\n--{boundary}--\r\n".encode()
    return body, {"Content-Type": f"multipart/form-data; boundary={boundary}"}


def presigned_arn(url: str) -> str:
    """The object a presigned URL names (path-style or virtual-hosted)."""
    from chalicelib.settings import get_settings

    bucket, parsed = get_settings().aws.BUCKET, urlparse(url)
    path = parsed.path if parsed.netloc.startswith(bucket + ".") else \
        parsed.path.split("/", 2)[2]
    return f"arn:aws:s3:::{bucket}/{path.lstrip('/')}"


def must(response, status: int = 200):
    assert response.status == status, response
    return response.json if "json" in response.headers.get("content-type", "") else None


def drive_api(api, stack: Stack, remote, guarded: dict) -> dict:  # noqa: F811 - the fixture's value
    """One request per AWS-touching path of the API, each as its user would send it;
    the pull request whose merge waits for its checks and the repository to delete."""
    from tests.conftest import ADMIN

    must(api.post("/admin/users", auth=ADMIN, json={
        "username": "alice", "password": "secret-pass-1", "email": "alice@example.com"}), 201)
    token = must(api.post("/users/alice/tokens", auth=("alice", "secret-pass-1"),
                          json={"name": "t", "scopes": ["all"]}), 201)["sha1"]
    must(api.get("/user", token=token))
    # An avatar uploaded, served, then replaced (the old picture deleted from S3).
    import io

    from PIL import Image

    for colour in ((200, 40, 90), (40, 90, 200)):
        out = io.BytesIO()
        Image.new("RGB", (32, 32), colour).save(out, format="PNG")
        must(api.post("/user/avatar", token=token,
                      json={"image": base64.b64encode(out.getvalue()).decode()}), 204)
        avatar = must(api.get("/user", token=token))["avatar_url"]
        shown = api.get("/" + avatar.split("://", 1)[1].split("/", 1)[1], raw=True)
        assert shown.status == 200 and shown.body.startswith(b"\x89PNG"), shown
    # The first web sign-in creates the session key (an SSM parameter beside the
    # signing key's).
    from tests.web.test_web_session import sign_in

    assert sign_in(api).status == 303
    # A fresh stack: the first signed commit creates the instance signing key.
    must(api.post("/user/repos", token=token, json={"name": "demo", "auto_init": True}), 201)
    repo = "/repos/alice/demo"
    # Credentials sealed with the session key; the pushes below reach the first mirror.
    iam_paths.add_push_mirrors(api, must, token, repo, guarded)
    iam_paths.wiki_pages(api, must, token, repo)
    iam_paths.oauth2_tokens(api, must, token)
    head = must(api.get(f"{repo}/branches/main"))["commit"]["id"]
    for n in range(3):   # several packs, for compaction below
        body = bench_git().receive_pack_body({f"pushed{n}.txt": f"pushed {n}\n".encode()}, head)
        pushed = api.post("/alice/demo.git/git-receive-pack", body=body, token=token, raw=True,
                          headers={"Content-Type": "application/x-git-receive-pack-request"})
        assert pushed.status == 200 and b"ok refs/heads/main" in pushed.body, pushed
        head = must(api.get(f"{repo}/branches/main"))["commit"]["id"]
    fetched = api.post("/alice/demo.git/git-upload-pack", raw=True, headers={
        "Content-Type": "application/x-git-upload-pack-request"},
        body=bench_git().upload_pack_body(head))
    assert fetched.status == 200 and b"PACK" in fetched.body, fetched
    must(api.post(f"{repo}/contents/docs/new.md", token=token, json={
        "content": base64.b64encode(b"# new\n").decode(), "message": "add",
        "new_branch": "feature"}), 201)
    must(api.get(f"{repo}/raw/docs/new.md?ref=feature"))
    issue = must(api.post(f"{repo}/issues", token=token, json={"title": "bug"}), 201)
    # An event too large for SQS travels through S3 (the relay writes, consumers read).
    must(api.post(f"{repo}/issues/{issue['number']}/comments", token=token,
                  json={"body": "seen " * 13000}), 201)
    pull = must(api.post(f"{repo}/pulls", token=token, json={
        "title": "feature", "head": "feature", "base": "main"}), 201)
    must(api.post(f"{repo}/pulls/{pull['number']}/merge", token=token, json={"Do": "merge"}))
    scheduled = iam_paths.schedule_merge(api, must, token, repo)
    hook = must(api.post(f"{repo}/hooks", token=token, json={
        "type": "gitea", "active": True, "events": ["push", "issues"],
        "config": {"url": "http://hooks.invalid/x", "content_type": "json"}}), 201)
    must(api.post(f"{repo}/hooks/{hook['id']}/tests", token=token), 204)
    release = must(api.post(f"{repo}/releases", token=token, json={
        "tag_name": "v1", "name": "v1"}), 201)
    body, headers = form(b"release notes\n")
    asset = must(api.post(f"{repo}/releases/{release['id']}/assets", token=token, body=body,
                          headers=headers), 201)
    must(api.get(f"/attachments/{asset['uuid']}", raw=True))
    must(api.delete(f"{repo}/releases/{release['id']}/assets/{asset['id']}", token=token), 204)
    pending = must(api.post(f"{repo}/releases/{release['id']}/assets/upload?name=big.bin"
                            f"&size=5", token=token), 201)
    # The client uses this URL with the API role's signature: S3 checks that role then.
    assert stack.may("APIHandler", "s3:PutObject", presigned_arn(pending["upload_url"]))
    archive = api.get(f"{repo}/archive/main.zip")
    assert archive.status in (200, 302), archive
    must(api.get("/user/quota", token=token))
    lfs_oid = iam_paths.lfs_objects(api, must, token, bench_git().receive_pack_body)
    must(api.post("/repos/migrate", token=token, json={
        "clone_addr": f"{guarded['pull']}/src.git", "repo_name": "mirror", "mirror": True,
        "auth_username": iam_paths.PULL_AUTH[0], "auth_password": iam_paths.PULL_AUTH[1],
        "mirror_interval": "10m"}), 201)
    iam_paths.start_project_migration(api, must, token, "proj", remote["url"])
    must(api.post("/user/repos", token=token, json={"name": "gone", "auto_init": True}), 201)
    gone = iam_paths.archive_and_attach(api, must, form, token, "/repos/alice/gone")
    return {"scheduled": scheduled, "gone": gone, "lfs": lfs_oid}


def run_stack(api, stack: Stack, remote, guarded: dict, monkeypatch) -> None:  # noqa: F811
    from app import (
        deleted_repo_purge,
        event_worker,
        lfs_collect,
        migration_resume,
        mirror_sync,
        outbox_relay,
        outbox_sweep,
        pack_compaction,
        quota_check,
        webhook_sweep,
        webhook_worker,
    )
    from chalicelib.http import sessions as web_session
    from chalicelib.migrations.service import LEASE_SECONDS
    from chalicelib.repo_admin.models import MirrorDue, keys
    from chalicelib.settings import get_settings
    from chalicelib.signing import service as signing

    # Keys cached by an earlier test in this process would skip SSM: start cold.
    signing.reset_cache()
    web_session.reset_key_cache()
    with stack.run_as("APIHandler"):
        made = drive_api(api, stack, remote, guarded)
    # In AWS every POST goes to the streaming function (infra/template.py): git transfers.
    with stack.run_as("StreamHandler"):
        transfer = bench_git()
        repo = "/repos/alice/demo"
        head = must(api.get(f"{repo}/branches/main"))["commit"]["id"]
        token = must(api.post("/users/alice/tokens", auth=("alice", "secret-pass-1"),
                              json={"name": "stream", "scopes": ["all"]}), 201)["sha1"]
        pushed = api.post("/alice/demo.git/git-receive-pack", token=token, raw=True,
                          body=transfer.receive_pack_body({"streamed.txt": b"streamed\n"}, head),
                          headers={"Content-Type": "application/x-git-receive-pack-request"})
        assert pushed.status == 200 and b"ok refs/heads/main" in pushed.body, pushed
        fetched = api.post("/alice/demo.git/git-upload-pack", raw=True,
                           body=transfer.upload_pack_body(head),
                           headers={"Content-Type": "application/x-git-upload-pack-request"})
        assert fetched.status == 200 and b"PACK" in fetched.body, fetched
    # The relay takes every record but one, the sweep that one; the large comment's
    # (through S3) goes to the relay whatever order the outbox's shards list them in.
    records = sorted(stream_records(), key=lambda r: -len(repr(r)))
    assert len(records) > 2, records
    with stack.run_as("OutboxRelay"):
        assert outbox_relay({"Records": records[:-1]}, None)["published"] == len(records) - 1
    with clock.frozen(time.time() + 3600), stack.run_as("OutboxSweep"):
        assert outbox_sweep(schedule_event(), None)["published"] >= 1
    settings = get_settings().aws
    from chalicelib import aws
    urls = {name: aws.client("sqs").get_queue_url(QueueName=name)["QueueUrl"]
            for name in (settings.EVENTS_QUEUE, settings.WEBHOOK_QUEUE)}
    iam_paths.drop_signing_key()
    with stack.run_as("EventWorker"):
        handled = 0
        while (n := consume(urls[settings.EVENTS_QUEUE], event_worker)):
            handled += n
        assert handled >= len(records)
    # The green status completed the scheduled merge, signed with the key the worker made.
    assert api.get(f"/repos/alice/demo/pulls/{made['scheduled']}").json["merged"] is True
    token = must(api.post("/users/alice/tokens", auth=("alice", "secret-pass-1"),
                          json={"name": "check", "scopes": ["all"]}), 201)["sha1"]
    done = iam_paths.migration_status(api, must, token, "proj")
    assert done["status"] == "done" and done["counts"]["releases"] == 1, done
    assert done["counts"]["wiki"] >= 1, done     # the source wiki fetched into its pool
    assert iam_paths.s3_keys(f"attachments/{api.get('/repos/alice/proj').json['id']}/")
    # A deletion once the repository's own events are handled: the worker purges the
    # pool (its packs in S3).
    with stack.run_as("APIHandler"):
        token = must(api.post("/users/alice/tokens", auth=("alice", "secret-pass-1"),
                              json={"name": "delete", "scopes": ["all"]}), 201)["sha1"]
        must(api.delete("/repos/alice/gone", token=token), 204)
        assert api.get("/repos/alice/demo/raw/streamed.txt").body == b"streamed\n"
        # A migration whose worker dies (its lease runs out): the job queues it again,
        # and the worker runs the new turn (the first event finds the version moved).
        iam_paths.start_project_migration(api, must, token, "stale", remote["url"])
    with clock.frozen(time.time() + LEASE_SECONDS + 60), stack.run_as("MigrationResume"):
        assert migration_resume(schedule_event(), None)["resumed"] == 1
    # The deletion kept it restorable; once its retention has passed the purge takes it.
    with clock.frozen(time.time() + 31 * 86400), stack.run_as("DeletedRepoPurge"):
        assert deleted_repo_purge(schedule_event(), None)["purged"] == 1
    records = stream_records(ahead=32 * 86400)
    with stack.run_as("OutboxRelay"):
        assert outbox_relay({"Records": records}, None)["published"] == len(records)
    with stack.run_as("EventWorker"):
        while consume(urls[settings.EVENTS_QUEUE], event_worker):
            pass
    assert iam_paths.migration_status(api, must, token, "stale")["status"] == "done"
    # The cleanup removed the deleted repository's cached archives and attachments.
    assert not iam_paths.s3_keys(f"archives/{made['gone']}/")
    assert not iam_paths.s3_keys(f"attachments/{made['gone']}/")
    with stack.run_as("WebhookWorker"):
        assert consume(urls[settings.WEBHOOK_QUEUE], webhook_worker) >= 1
    with stack.run_as("WebhookSweep"):
        webhook_sweep(schedule_event(), None)
    from chalicelib.repos import store as repo_store
    mirror = repo_store.get("alice", "mirror")
    MirrorDue(*keys.mirror_due(mirror.id), repo_pk=mirror.pk, due=1).save()
    (remote["work"] / "new.txt").write_text("new\n")
    git("add", ".", cwd=remote["work"])
    git("commit", "-q", "-m", "more", cwd=remote["work"])
    git("push", "-q", str(remote["bare"]), "main", cwd=remote["work"])
    with stack.run_as("MirrorSync"):
        assert mirror_sync(schedule_event(), None)["synced"] == 1
    assert git("rev-parse", "main", cwd=remote["bare"]) == \
        must(api.get("/repos/alice/mirror/branches/main"))["commit"]["id"]
    # The push on commit (event worker) and the scheduled push (mirror sync) went out.
    iam_paths.push_mirrors_synced(int(repo_store.get("alice", "demo").id), git, guarded)
    stale = iam_paths.run_compactions(stack, pack_compaction, int(mirror.pool_id), monkeypatch)
    # The mirror's next sync still holds a list naming the packs the second run swept.
    MirrorDue(*keys.mirror_due(mirror.id), repo_pk=mirror.pk, due=1).save()
    (remote["work"] / "newer.txt").write_text("newer\n")
    git("add", ".", cwd=remote["work"])
    git("commit", "-q", "-m", "newer", cwd=remote["work"])
    git("push", "-q", str(remote["bare"]), "main", cwd=remote["work"])
    with iam_paths.listing_read_before_a_sweep(monkeypatch, int(mirror.pool_id),
                                               stale) as listed, \
            stack.run_as("MirrorSync"):
        assert mirror_sync(schedule_event(), None)["synced"] == 1
    assert int(mirror.pool_id) in listed
    # Those packs answered 404 (the store moved on to the compacted pack), not 403.
    assert ("s3:ListBucket", f"arn:aws:s3:::{settings.BUCKET}") in \
        stack.authorizer.used("MirrorSync")
    # The fork needs the pushed LFS object too; the other two go after the grace period.
    from chalicelib.lfs import need_store
    assert [n.oid for n in need_store.needs_of(repo_store.get("forkers", "demo").id)] == \
        [made["lfs"]]
    with clock.frozen(time.time() + 2 * 86400), stack.run_as("LfsCollect"):
        assert lfs_collect(schedule_event(), None)["collected"] == 2
    demo = repo_store.get("alice", "demo")
    demo.update(actions=[type(demo).quota_size.set(1)])   # drift for the check to repair
    with stack.run_as("QuotaCheck"):
        assert quota_check(schedule_event(), None)["corrected"] >= 1
    # The audit log's export: the days before today from the index, each to audit/.
    from app import audit_export
    with stack.run_as("AuditExport"):
        assert audit_export(schedule_event(), None)["exported"] >= 0


@pytest.fixture
def quota_enabled(monkeypatch):
    from chalicelib.settings import reset_settings_cache

    monkeypatch.setenv("NIMBUS__QUOTA__ENABLED", "true")
    reset_settings_cache()
    yield
    monkeypatch.delenv("NIMBUS__QUOTA__ENABLED")
    reset_settings_cache()


@pytest.fixture
def stack(api, monkeypatch, tmp_path):
    authorizer = Authorizer()
    authorizer.install(monkeypatch)
    return lambda drop=None: Stack(authorizer, rendered_roles(drop), tmp_path)


# Rights granted but not used by the run above, each for a reason.  ("*", action): every
# function; (function, action, tail): on the resources whose ARN ends so.  Anything else
# granted and unused fails the test: a policy only grows with a code path that needs it.
_POLLER = "Lambda's event source poller calls it with the function's role, not our code"
_CLEANUP = ("a failed migration removes what it stored (migrations.discard_git_side): "
            "pool items in batches, the pool's listing and objects")
_STREAMING = "the streaming function serves the API's routes; the run sends it git transfers"
NOT_EXERCISED = {
    ("*", "logs:CreateLogGroup"): "the Lambda runtime writes the function's logs",
    ("*", "logs:CreateLogStream"): "the Lambda runtime writes the function's logs",
    ("*", "logs:PutLogEvents"): "the Lambda runtime writes the function's logs",
    ("OutboxRelay", "dynamodb:DescribeStream"): _POLLER,
    ("OutboxRelay", "dynamodb:GetRecords"): _POLLER,
    ("OutboxRelay", "dynamodb:GetShardIterator"): _POLLER,
    ("OutboxRelay", "dynamodb:ListStreams"): _POLLER,
    ("EventWorker", "sqs:GetQueueAttributes"): _POLLER,
    ("WebhookWorker", "sqs:GetQueueAttributes"): _POLLER,
    ("APIHandler", "dynamodb:BatchWriteItem"): _CLEANUP,
    ("APIHandler", "s3:ListBucket"): _CLEANUP,
    ("APIHandler", "s3:DeleteObject", "packs/*"): _CLEANUP,
    ("APIHandler", "s3:DeleteObject", "lfs/*"): "verify moves an upload to its key, and a "
                                                "failed migration with lfs removes its uploads",
    **{("MirrorSync", action, *tail): "a mirror migrated with lfs stores the LFS objects "
       "its sync fetches (tests/lfs/test_lfs_migrate.py); this run's mirror has none"
       for action, *tail in (("dynamodb:ConditionCheckItem",), ("s3:GetObject", "lfs/*"),
                             ("s3:PutObject", "lfs/*"), ("s3:DeleteObject", "lfs/*"))},
    **{("EventWorker", action, *tail): "a project migration with lfs stores and records "
       "the LFS objects it fetches as a mirror's sync does "
       "(tests/migrations/test_migration_instances.py); this run's source has none"
       for action, *tail in (("dynamodb:ConditionCheckItem",), ("s3:GetObject", "lfs/*"),
                             ("s3:PutObject", "lfs/*"), ("s3:DeleteObject", "lfs/*"))},
    ("EventWorker", "events:PutEvents"): "the run configures no EventBridge bus; "
                                         "tests/jobs/test_eventbridge.py puts on moto's",
    ("OutboxSweep", "s3:PutObject"): "a large event the sweep publishes goes through S3, "
                                     "as the relay's did in this run",
    ("WebhookWorker", "dynamodb:DeleteItem"): "a delivered item and a released lane are "
                                              "deleted; this run's deliveries fail",
    ("WebhookSweep", "sqs:SendMessage"): "the sweep wakes due lanes; none is due in the run",
    **{(function, "lambda:InvokeFunction"): "adminCronRun starts a cron task's function "
       "(tests/test_admin_cron.py invokes it on moto's Lambda); this run starts none"
       for function in ("APIHandler", "StreamHandler")},
    ("WebhookSweep", "sqs:GetQueueUrl"): "the sweep wakes due lanes; none is due in the run",
    **{("StreamHandler", action): _STREAMING for action in (
        "dynamodb:BatchWriteItem", "dynamodb:ConditionCheckItem", "s3:DeleteObject",
        "s3:ListBucket", "sqs:GetQueueUrl", "sqs:SendMessage", "ssm:GetParameter",
        "ssm:PutParameter")},
    **{("StreamHandler", action, prefix): _STREAMING
       for prefix in ("archives/*", "attachments/*", "avatars/*")
       for action in ("s3:GetObject", "s3:PutObject")},
    # The presigned URLs of Git LFS carry these rights; tests/lfs drives its routes.
    **{(function, action, "lfs/*"): "Git LFS objects (chalicelib/lfs) move through "
       "presigned URLs this run does not use" for function in ("APIHandler", "StreamHandler")
       for action in ("s3:GetObject", "s3:PutObject")},
    **{("StreamHandler", action, "large-push/*"): "large pushes (services/large_push.py) "
       "need a bundle upload the run does not make" for action in (
           "s3:GetObject", "s3:PutObject", "s3:DeleteObject")},
    # Paths tests/test_iam_static.py finds in the code and this run cannot take.
    **{(function, "s3:AbortMultipartUpload", "archives/*"): "s3transfer aborts a large "
       "archive's multipart upload when a part fails; the run's archives upload whole"
       for function in ("APIHandler", "StreamHandler")},
    **{(function, "ssm:PutParameter", "/web-session-key"): "unsealing makes the session "
       "key when an operator deleted it to replace it; the run's key exists"
       for function in ("EventWorker", "MirrorSync")},
}


@pytest.fixture
def guarded(remote, tmp_path):  # noqa: F811
    with iam_paths.guarded_remotes(remote["bare"].parent, tmp_path, git) as servers:
        yield servers


@pytest.fixture
def project_source(remote, monkeypatch):  # noqa: F811
    """Project migrations read an in-memory source (git from the real remote) and queue
    their first turn instead of running it in the request."""
    from chalicelib import migrations
    from chalicelib.settings import reset_settings_cache
    from tests.migrations.project_fakes import FakeSource

    monkeypatch.setenv("NIMBUS__MIGRATIONS__INLINE_SECONDS", "0")
    reset_settings_cache()
    migrations.use_source_opener(lambda *a, **kw: FakeSource(
        issues_n=0, pulls_n=0, wiki_url=remote["url"]))
    yield
    migrations.use_source_opener(None)
    monkeypatch.delenv("NIMBUS__MIGRATIONS__INLINE_SECONDS")
    reset_settings_cache()


def test_every_function_runs_on_its_own_policy(api, stack, remote, guarded,  # noqa: F811
                                                local_networks_allowed,  # noqa: F811
                                                quota_enabled, project_source, monkeypatch):
    made = stack()
    try:
        run_stack(api, made, remote, guarded, monkeypatch)
    except Exception:
        # A denial the code turned into another error is the news, not that error.
        if not made.authorizer.denied:
            raise
    denied = sorted(set(made.authorizer.denied))
    assert not denied, "denied by the rendered policies:\n" + "\n".join(
        f"  {function}: {action} on {arn}" for function, action, arn in denied)
    unexplained = sorted(
        (function, action, arn) for function, action, arn in unused_rights(made)
        if not any(key[:2] in ((function, action), ("*", action))
                   and (len(key) == 2 or arn.endswith(key[2])) for key in NOT_EXERCISED))
    assert not unexplained, "rights the run did not use, with no reason in NOT_EXERCISED:\n" \
        + "\n".join(f"  {function}: {action} on {arn}" for function, action, arn in unexplained)
    api_calls = made.authorizer.used("APIHandler")
    # The paths this test exists for were taken, under enforcement.
    assert any(a == "ssm:PutParameter" for a, _ in api_calls), sorted(api_calls)
    assert any(a == "sqs:SendMessage" for a, _ in made.authorizer.used("EventWorker"))
    assert any(a == "s3:DeleteObject" for a, _ in made.authorizer.used("PackCompaction"))
    # Stored credentials unsealed with the session key by the worker and the mirror sync.
    for function in ("EventWorker", "MirrorSync"):
        assert any(a == "ssm:GetParameter" and arn.endswith("/web-session-key")
                   for a, arn in made.authorizer.used(function)), function


@pytest.mark.parametrize("action", ["ssm:PutParameter", "s3:PutObject", "dynamodb:PutItem"])
def test_a_missing_right_is_denied(api, stack, action):
    """The check is real: without one right the API needs, the request that needs it is
    denied, and the denial names the action."""
    from chalicelib.signing import service as signing
    from tests.conftest import ADMIN

    made = stack(("APIHandler", action))
    signing.reset_cache()
    with made.run_as("APIHandler"):
        api.post("/admin/users", auth=ADMIN, json={
            "username": "alice", "password": "secret-pass-1", "email": "alice@example.com"})
        api.post("/user/repos", auth=("alice", "secret-pass-1"),
                 json={"name": "demo", "auto_init": True})
    assert ("APIHandler", action) in {(f, a) for f, a, _ in made.authorizer.denied}


# --- the packaged template --------------------------------------------------------------

@pytest.fixture(scope="module")
def packaged(tmp_path_factory) -> Path:
    """The template infra/deploy.py deploys: ``chalice package`` with infra/template.py
    merged in, finished by infra/package.py (seconds: chalice installs nothing there)."""
    from infra.package import chalice_template, finish_template

    path = tmp_path_factory.mktemp("package") / "sam.json"
    path.write_text(json.dumps(finish_template(chalice_template("us-east-1"))))
    return path


def test_packaged_roles_are_ours_and_scoped(packaged):
    """Every function runs on its own role from infra/iam.py; no statement allows every
    action of a service or every resource (chalice's default roles are replaced)."""
    resources = json.loads(packaged.read_text())["Resources"]
    functions = {name: r for name, r in resources.items()
                 if r["Type"] in ("AWS::Serverless::Function", "AWS::Lambda::Function")}
    roles = {name: r for name, r in resources.items() if r["Type"] == "AWS::IAM::Role"}
    used = {f["Properties"]["Role"]["Fn::GetAtt"][0] for f in functions.values()}
    assert len(used) == len(functions) and used == set(roles), (used, set(roles))
    for name, role in roles.items():
        for entry in role["Properties"]["Policies"]:
            for statement in entry["PolicyDocument"]["Statement"]:
                actions = statement["Action"]
                assert all("*" not in a for a in actions), (name, statement)
                targets = statement["Resource"]
                assert "*" not in (targets if isinstance(targets, list) else [targets]), \
                    (name, statement)


def test_packaged_template_passes_cfn_lint(packaged):
    import subprocess

    done = subprocess.run([str(ROOT / ".venv/bin/cfn-lint"), str(packaged)],
                          check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
