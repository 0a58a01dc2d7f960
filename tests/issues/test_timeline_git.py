"""An issue's timeline against the local runtime with its event pipeline running, pushed
with the real git CLI: after "Closes #1" reaches the default branch the timeline (API)
has the ``commit_ref`` and the ``close`` naming the commit, after the title, label,
milestone and assignee changes made through the API, in order; the issue page says
"closed this issue in commit <short sha>" with a link to the commit."""
from __future__ import annotations

import urllib.request

import pytest

from chalicelib.local.event_pipeline import EventPipeline
from chalicelib.local.runtime import LocalRuntime
from tests.issues.test_issue_references_git import commit, issue_state, wait_until
from tests.local_server import ADMIN_PASSWORD, call, git, push_url

R = "/api/v1/repos/root/proj"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with LocalRuntime(port=0, data_dir=tmp_path_factory.mktemp("timeline"),
                      access_log=False) as runtime:
        for task in EventPipeline().tasks():
            runtime.add_background(task)
        from chalicelib.accounts.service import ensure_admin

        ensure_admin("root", ADMIN_PASSWORD, "root@example.test")
        yield runtime


def test_pushed_close_shows_on_the_timeline_and_the_page(server, tmp_path):
    base = server.url
    assert call(base, "POST", "/api/v1/user/repos", {"name": "proj"})[0] == 201
    assert call(base, "POST", f"{R}/issues", {"title": "Crash"})[1]["number"] == 1
    label = call(base, "POST", f"{R}/labels", {"name": "bug", "color": "#ff0000"})[1]
    milestone = call(base, "POST", f"{R}/milestones", {"title": "v1"})[1]
    for path, method, body in ((f"{R}/issues/1", "PATCH", {"title": "Crash on start"}),
                               (f"{R}/issues/1/labels", "POST", {"labels": [label["id"]]}),
                               (f"{R}/issues/1", "PATCH", {"milestone": milestone["id"]}),
                               (f"{R}/issues/1", "PATCH", {"assignees": ["root"]})):
        status, answer = call(base, method, path, body)
        assert status in (200, 201), answer

    remote = push_url(base, "/root/proj.git")
    work = tmp_path / "work"
    git("init", "-q", "-b", "main", str(work))
    commit(work, "README.md", "initial")
    git("push", "-q", remote, "main", cwd=work)
    sha = commit(work, "fix.txt", "Fix the crash\n\nCloses #1")
    git("push", "-q", remote, "main", cwd=work)
    wait_until(lambda: issue_state(base, 1) == "closed", "issue 1 to close")

    status, entries = call(base, "GET", f"{R}/issues/1/timeline")
    assert status == 200
    assert [e["type"] for e in entries] == ["change_title", "label", "milestone", "assignees",
                                            "commit_ref", "close"]
    title, labelled, milestoned, assigned, ref, close = entries
    assert (title["old_title"], title["new_title"]) == ("Crash", "Crash on start")
    assert (labelled["label"]["name"], labelled["body"]) == ("bug", "1")
    assert (milestoned["milestone"]["title"], milestoned["old_milestone"]) == ("v1", None)
    assert (assigned["assignee"]["login"], assigned["removed_assignee"]) == ("root", False)
    assert (ref["ref_commit_sha"], ref["body"]) == (sha, "Fix the crash")
    assert (close["ref_commit_sha"], close["user"]["login"]) == (sha, "root")

    with urllib.request.urlopen(base + "/root/proj/issues/1") as resp:
        page = resp.read().decode("utf-8")
    assert f'href="/root/proj/commit/{sha}"><code>{sha[:7]}</code></a>' in page
    assert "closed this issue in commit" in page
    assert "changed the title from <del>Crash</del> to <ins>Crash on start</ins>" in page
