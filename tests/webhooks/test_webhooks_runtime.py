"""Webhooks against the local runtime with its event pipeline and delivery worker
running: a loopback receiver gets a push naming the pushed file after ``git push``, the
branch's create, an issue, a comment, and a pull request opened and merged, each with
Forgejo's headers and a valid signature; and ``python -m chalicelib.local`` killed with
deliveries pending delivers them after its restart."""
from __future__ import annotations

import time

import pytest

from chalicelib.local.event_pipeline import EventPipeline
from chalicelib.local.runtime import LocalRuntime
from chalicelib.local.webhook_worker import WebhookWorker
from tests.local_server import (ADMIN_ENV, ADMIN_PASSWORD, call, commit_random_file, git,
                                push_url, served)
from tests.environment import settings_env
from tests.webhook_receiver import Receiver

SECRET = "runtime-secret"
SETTINGS = {"NIMBUS__WEBHOOK__ALLOWED_HOST_LIST": "loopback",
            "NIMBUS__WEBHOOK__BACKOFF_BASE_MS": "200",
            "NIMBUS__WEBHOOK__MAX_ATTEMPTS": "100"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with settings_env(SETTINGS), LocalRuntime(
            port=0, data_dir=tmp_path_factory.mktemp("webhooks"), access_log=False) as runtime:
        for task in EventPipeline().tasks() + WebhookWorker().tasks():
            runtime.add_background(task)
        from chalicelib.accounts.service import ensure_admin

        ensure_admin("root", ADMIN_PASSWORD, "root@example.test")
        yield runtime


def make_repo_with_hook(base: str, name: str, url: str, events: list[str]) -> int:
    assert call(base, "POST", "/api/v1/user/repos", {"name": name})[0] == 201
    status, hook = call(base, "POST", f"/api/v1/repos/root/{name}/hooks", {
        "type": "forgejo", "active": True, "events": events,
        "config": {"url": url, "content_type": "json", "secret": SECRET}})
    assert status == 201, hook
    return hook["id"]


def test_push_issue_comment_and_pull_request_events(server, tmp_path):
    base = server.url
    with Receiver() as receiver:
        make_repo_with_hook(base, "proj", receiver.url + "/ci",
                            ["push", "create", "issues", "issue_comment", "pull_request"])
        work = tmp_path / "work"
        head = commit_random_file(work, "hello.txt", 64)
        git("push", "-q", push_url(base, "/root/proj.git"), "main", cwd=work)
        push = receiver.wait_for(lambda got: [r for r in got if r.event == "push"],
                                 what="the push")[0]
        payload = push.payload
        assert payload["ref"] == "refs/heads/main" and payload["after"] == head
        assert payload["commits"][0]["added"] == ["hello.txt"]
        assert payload["head_commit"]["id"] == head and payload["pusher"]["login"] == "root"
        assert push.headers["x-gitea-event"] == "push" and push.signature_ok(SECRET)

        git("checkout", "-q", "-b", "feature", cwd=work)
        commit_random_file(work, "feature.txt", 32)
        git("push", "-q", push_url(base, "/root/proj.git"), "feature", cwd=work)
        status, issue = call(base, "POST", "/api/v1/repos/root/proj/issues", {"title": "Hooked"})
        assert status == 201
        call(base, "POST", f"/api/v1/repos/root/proj/issues/{issue['number']}/comments",
             {"body": "noted"})
        status, pull = call(base, "POST", "/api/v1/repos/root/proj/pulls",
                            {"head": "feature", "base": "main", "title": "Feature"})
        assert status == 201, pull
        receiver.wait_for(lambda got: any(r.event == "pull_request" for r in got),
                          what="the pull request")
        status, _ = call(base, "POST", f"/api/v1/repos/root/proj/pulls/{pull['number']}/merge",
                         {"Do": "merge"})
        assert status == 200
        receiver.wait_for(lambda got: len([r for r in got if r.event == "pull_request"]) >= 2,
                          what="the merge")
        got = receiver.accepted()
        assert all(r.signature_ok(SECRET) for r in got)
        events = [(r.event, r.payload.get("action", r.payload.get("ref_type")))
                  for r in got]
        assert ("create", "branch") in events and ("issues", "opened") in events
        assert ("issue_comment", "created") in events
        pulls = [r.payload for r in got if r.event == "pull_request"]
        assert [p["action"] for p in pulls] == ["opened", "closed"]
        assert pulls[0]["pull_request"]["merged"] is False
        assert pulls[1]["pull_request"]["merged"] is True
        assert pulls[1]["pull_request"]["head"]["ref"] == "feature"     # the branch exists
        feature_push = [r.payload for r in got if r.event == "push"
                        and r.payload["ref"] == "refs/heads/feature"]
        assert feature_push and feature_push[0]["commits"][0]["added"] == ["feature.txt"]
        # The branch's create came before its push, as Forgejo sends them.
        kinds = [r.event for r in got]
        assert kinds.index("create") < len(kinds) - 1 - kinds[::-1].index("push")


def test_deliveries_pending_at_a_kill_are_delivered_after_restart(tmp_path):
    data = tmp_path / "data"
    env = {**ADMIN_ENV, **SETTINGS, "NIMBUS__WEBHOOK__BACKOFF_BASE_MS": "500"}
    with Receiver() as receiver:
        receiver.status = 500
        with served(data, **env) as (process, base):
            hook_id = make_repo_with_hook(base, "crashy", receiver.url + "/later", ["issues"])
            for n in range(3):
                assert call(base, "POST", "/api/v1/repos/root/crashy/issues",
                            {"title": f"pending {n}"})[0] == 201
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:     # all three written, none delivered
                listed = call(base, "GET", f"/api/v1/repos/root/crashy/hooks/{hook_id}"
                                           "/deliveries")[1]
                if len(listed) == 3 and receiver.received:
                    break
                time.sleep(0.1)
            assert len(listed) == 3 and {d["state"] for d in listed} == {"pending"}
            process.kill()
            process.wait()
        receiver.status = 200
        with served(data, **env) as (process, base):
            receiver.wait_for(lambda got: len([r for r in got if r.status == 200]) >= 3,
                              what="the pending deliveries")
            titles = [r.payload["issue"]["title"] for r in receiver.accepted()]
            assert titles == ["pending 0", "pending 1", "pending 2"]
            listed = call(base, "GET", f"/api/v1/repos/root/crashy/hooks/{hook_id}/deliveries")[1]
            assert {d["state"] for d in listed} == {"delivered"}
