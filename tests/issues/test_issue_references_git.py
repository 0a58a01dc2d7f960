"""Issue references against the local runtime with its event pipeline and webhook worker
running, pushed with the real git CLI: "fixes #2" pushed to main closes issue 2, "fixes
#3" pushed to another branch leaves issue 3 open with a reference, a pull request whose
body says "Closes #1" closes issue 1 when merged, and an ``issues`` webhook with action
``closed`` arrives for both closes."""
from __future__ import annotations

import pytest

from chalicelib.local.event_pipeline import EventPipeline
from chalicelib.local.runtime import LocalRuntime
from chalicelib.local.webhook_worker import WebhookWorker
from tests.environment import settings_env
from tests.local_server import ADMIN_PASSWORD, call, git, push_url, wait_until
from tests.webhook_receiver import Receiver

SECRET = "references-secret"
SETTINGS = {"NIMBUS__WEBHOOK__ALLOWED_HOST_LIST": "loopback"}
R = "/api/v1/repos/root/proj"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with settings_env(SETTINGS), LocalRuntime(
            port=0, data_dir=tmp_path_factory.mktemp("references"), access_log=False) as runtime:
        for task in EventPipeline().tasks() + WebhookWorker().tasks():
            runtime.add_background(task)
        from chalicelib.accounts.service import ensure_admin

        ensure_admin("root", ADMIN_PASSWORD, "root@example.test")
        yield runtime


def commit(work, name: str, message: str) -> str:
    (work / name).write_text(message)
    git("add", name, cwd=work)
    git("commit", "-q", "-m", message, cwd=work)
    return git("rev-parse", "HEAD", cwd=work)


def issue_state(base: str, number: int) -> str:
    return call(base, "GET", f"{R}/issues/{number}")[1]["state"]


def test_commits_and_a_merged_pull_request_close_issues(server, tmp_path):
    from chalicelib.issues import reference_store as issue_references

    base = server.url
    with Receiver() as receiver:
        assert call(base, "POST", "/api/v1/user/repos", {"name": "proj"})[0] == 201
        status, _ = call(base, "POST", f"{R}/hooks", {
            "type": "forgejo", "active": True, "events": ["issues"],
            "config": {"url": receiver.url + "/hook", "content_type": "json",
                       "secret": SECRET}})
        assert status == 201
        for n in (1, 2, 3):
            assert call(base, "POST", f"{R}/issues", {"title": f"issue {n}"})[1]["number"] == n
        repo_id = call(base, "GET", R)[1]["id"]
        remote = push_url(base, "/root/proj.git")
        work = tmp_path / "work"
        git("init", "-q", "-b", "main", str(work))
        commit(work, "README.md", "initial")
        git("push", "-q", remote, "main", cwd=work)

        fix = commit(work, "fix.txt", "Make it work\n\nfixes #2")
        git("push", "-q", remote, "main", cwd=work)
        wait_until(lambda: issue_state(base, 2) == "closed", "issue 2 to close")

        git("checkout", "-q", "-b", "feature", cwd=work)
        side = commit(work, "side.txt", "fixes #3")
        git("push", "-q", remote, "feature", cwd=work)
        [ref] = wait_until(lambda: issue_references.references_of(repo_id, 3),
                           "the reference on issue 3")
        assert (ref.comment_type, ref.commit_sha, ref.resolved) == ("commit_ref", side, None)
        assert issue_state(base, 3) == "open"

        git("checkout", "-q", "-b", "topic", "main", cwd=work)
        commit(work, "topic.txt", "Add topic")
        git("push", "-q", remote, "topic", cwd=work)
        status, pull = call(base, "POST", f"{R}/pulls", {
            "head": "topic", "base": "main", "title": "Topic", "body": "Closes #1"})
        assert status == 201, pull
        status, _ = call(base, "POST", f"{R}/pulls/{pull['number']}/merge", {"Do": "merge"})
        assert status == 200
        wait_until(lambda: issue_state(base, 1) == "closed", "issue 1 to close")

        closed = receiver.wait_for(lambda got: sorted(
            r.payload["issue"]["number"] for r in got
            if r.event == "issues" and r.payload["action"] == "closed") == [1, 2] and got,
            what="the issues closed webhooks")
        closes = [r for r in closed if r.event == "issues" and r.payload["action"] == "closed"]
        assert all(r.signature_ok(SECRET) for r in closes)
        assert {r.payload["sender"]["login"] for r in closes} == {"root"}
        assert issue_state(base, 3) == "open"
        [on_two] = issue_references.references_of(repo_id, 2)
        assert (on_two.commit_sha, on_two.resolved) == (fix, "closes")
        [on_one] = issue_references.references_of(repo_id, 1)
        assert (on_one.comment_type, on_one.ref_issue_number, on_one.resolved) == (
            "pull_ref", pull["number"], "closes")
