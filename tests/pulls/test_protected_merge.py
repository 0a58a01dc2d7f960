"""Issue 27's acceptance against the local runtime with the real git CLI: a protected
``main`` that needs one approval and a green ``ci/test``.  A writer's direct push and a
force push are refused with Forgejo's pre-receive messages; the merge answers 405 until
both hold; a push to the head dismisses the approval; a scheduled merge lands only when
both hold; an approval racing a push to the head never lets an unapproved commit in."""
from __future__ import annotations

import concurrent.futures
import time

import httpx
import pytest

from tests.git_transport.test_git_http import TIMEOUT, git, git_env  # noqa: F401 - git_env: a fixture
from tests.pulls.test_pulls_git import commit_file, runtime_with_users

RULE = {"rule_name": "main", "required_approvals": 1, "enable_status_check": True,
        "status_check_contexts": ["ci/test"], "dismiss_stale_approvals": True,
        "enable_push": True, "enable_push_whitelist": True,
        "push_whitelist_usernames": ["alice"]}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with runtime_with_users(tmp_path_factory.mktemp("protected"), {},
                            users=("alice", "bob")) as runtime:
        yield runtime


def call(server, user, method, path, **kw):
    return httpx.request(method, f"{server.url}/api/v1{path}", timeout=TIMEOUT,
                         headers={"Authorization": f"token {server.tokens[user]}"}, **kw)


def remote(server, user, name):
    host = server.url.split("://", 1)[1]
    return f"http://{user}:{server.tokens[user]}@{host}/alice/{name}.git"


def guarded_repo(server, env, tmp_path, name, rule=RULE):
    """alice/<name> with bob as a writer, ``main`` protected by ``rule``; a work tree."""
    assert call(server, "alice", "POST", "/user/repos", json={"name": name}).status_code == 201
    r = call(server, "alice", "PUT", f"/repos/alice/{name}/collaborators/bob",
             json={"permission": "write"})
    assert r.status_code == 204, r.text
    work = tmp_path / name
    git(env, "init", "-q", "-b", "main", str(work))
    commit_file(env, work, "README.md", "hello\n", "initial")
    git(env, "push", "-q", remote(server, "alice", name), "main", cwd=work)
    r = call(server, "alice", "POST", f"/repos/alice/{name}/branch_protections", json=rule)
    assert r.status_code == 201, r.text
    return work


def status(server, name, sha, state="success"):
    r = call(server, "alice", "POST", f"/repos/alice/{name}/statuses/{sha}",
             json={"state": state, "context": "ci/test"})
    assert r.status_code in (200, 201), r.text


def approve(server, name, number, commit_id=None):
    body = {"event": "APPROVED", "body": "looks good"}
    if commit_id:
        body["commit_id"] = commit_id
    return call(server, "alice", "POST", f"/repos/alice/{name}/pulls/{number}/reviews", json=body)


def open_pull(server, env, work, name, branch):
    git(env, "checkout", "-q", "-b", branch, "main", cwd=work)
    sha = commit_file(env, work, f"{branch}.txt", "work\n", f"work on {branch}")
    git(env, "push", "-q", remote(server, "bob", name), branch, cwd=work)
    r = call(server, "bob", "POST", f"/repos/alice/{name}/pulls",
             json={"head": branch, "base": "main", "title": f"from {branch}"})
    assert r.status_code == 201, r.text
    return r.json()["number"], sha


def merge(server, name, number, **extra):
    return call(server, "alice", "POST", f"/repos/alice/{name}/pulls/{number}/merge",
                json={"Do": "merge", **extra})


def test_pushes_to_a_protected_branch_are_refused_with_forgejos_messages(server, git_env,
                                                                           tmp_path):
    env = git_env
    work = guarded_repo(server, env, tmp_path, "pushes")
    commit_file(env, work, "direct.txt", "direct\n", "direct to main")
    refused = git(env, "push", remote(server, "bob", "pushes"), "main", cwd=work, check=False)
    assert refused.returncode != 0
    assert "remote: Nimbus: Not allowed to push to protected branch main" in refused.stderr
    assert "pre-receive hook declined" in refused.stderr
    # alice is on the allow list: a fast-forward lands, a force push does not.
    git(env, "push", "-q", remote(server, "alice", "pushes"), "main", cwd=work)
    git(env, "commit", "-q", "--amend", "-m", "rewritten", cwd=work)
    forced = git(env, "push", "-f", remote(server, "alice", "pushes"), "main", cwd=work,
                 check=False)
    assert forced.returncode != 0
    assert "branch main is protected from force push" in forced.stderr
    deleted = git(env, "push", remote(server, "alice", "pushes"), ":main", cwd=work, check=False)
    assert deleted.returncode != 0 and "cannot be deleted" in deleted.stderr
    # The API paths are held by the same rule.
    r = call(server, "bob", "POST", "/repos/alice/pushes/contents/api.txt",
             json={"content": "YXBp", "message": "through the API", "branch": "main"})
    assert r.status_code == 403, r.text
    r = call(server, "alice", "DELETE", "/repos/alice/pushes/branches/main")
    assert r.status_code == 403
    branch = call(server, "bob", "GET", "/repos/alice/pushes/branches/main").json()
    assert branch["protected"] is True and branch["user_can_push"] is False
    assert branch["required_approvals"] == 1 and branch["status_check_contexts"] == ["ci/test"]


def test_merge_waits_for_the_approval_and_the_required_check(server, git_env, tmp_path):
    env = git_env
    work = guarded_repo(server, env, tmp_path, "gated")
    number, sha = open_pull(server, env, work, "gated", "feature")
    r = merge(server, "gated", number)
    assert r.status_code == 405
    assert r.json()["message"] == \
        "not allowed to merge [reason: Not all required status checks successful]"
    status(server, "gated", sha)
    r = merge(server, "gated", number)
    assert r.status_code == 405 and "Does not have enough approvals" in r.json()["message"]
    assert approve(server, "gated", number).status_code == 200
    # A new push to the head dismisses the approval (the rule says so).
    commit_file(env, work, "more.txt", "more\n", "more work")
    new_sha = git(env, "rev-parse", "HEAD", cwd=work).stdout.strip()
    git(env, "push", "-q", remote(server, "bob", "gated"), "feature", cwd=work)
    status(server, "gated", new_sha)
    wait_for(lambda: call(server, "alice", "GET", f"/repos/alice/gated/pulls/{number}")
             .json()["head"]["sha"] == new_sha)
    r = merge(server, "gated", number)
    assert r.status_code == 405 and "Does not have enough approvals" in r.json()["message"]
    assert approve(server, "gated", number).status_code == 200
    r = merge(server, "gated", number)
    assert r.status_code == 200, r.text
    pull = call(server, "alice", "GET", f"/repos/alice/gated/pulls/{number}").json()
    assert pull["merged"] is True


def test_a_scheduled_merge_waits_for_both_conditions(server, git_env, tmp_path):
    env = git_env
    work = guarded_repo(server, env, tmp_path, "scheduled")
    number, sha = open_pull(server, env, work, "scheduled", "auto")
    r = merge(server, "scheduled", number, merge_when_checks_succeed=True)
    assert r.status_code == 201, r.text
    status(server, "scheduled", sha)
    time.sleep(2)       # the status's event ran: the approval is still missing
    assert call(server, "alice", "GET", f"/repos/alice/scheduled/pulls/{number}").json()[
        "merged"] is False
    assert approve(server, "scheduled", number).status_code == 200
    wait_for(lambda: call(server, "alice", "GET", f"/repos/alice/scheduled/pulls/{number}")
             .json()["merged"])


def test_an_approval_racing_a_push_never_merges_an_unapproved_commit(server, git_env, tmp_path):
    env = git_env
    work = guarded_repo(server, env, tmp_path, "racing")
    number, sha = open_pull(server, env, work, "racing", "race")
    status(server, "racing", sha)
    for round_ in range(3):
        head = call(server, "alice", "GET", f"/repos/alice/racing/pulls/{number}").json()[
            "head"]["sha"]
        commit_file(env, work, "race.txt", f"round {round_}\n", f"round {round_}")
        pushed = git(env, "rev-parse", "HEAD", cwd=work).stdout.strip()
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            approval = pool.submit(approve, server, "racing", number, head)
            push = pool.submit(git, env, "push", "-q", remote(server, "bob", "racing"), "race",
                               cwd=work)
            assert approval.result().status_code == 200
            push.result()
        status(server, "racing", pushed)
        r = merge(server, "racing", number)
        # The approval was given on ``head``; the branch now holds ``pushed``.
        assert r.status_code == 405, r.text
        assert "Does not have enough approvals" in r.json()["message"]


def wait_for(condition, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError("condition not reached in time")


def test_protected_tags_hold_on_push_on_the_tag_api_and_on_releases(server, git_env, tmp_path):
    env = git_env
    work = guarded_repo(server, env, tmp_path, "tagged")
    r = call(server, "alice", "POST", "/repos/alice/tagged/tag_protections",
             json={"name_pattern": "v*", "whitelist_usernames": ["alice"]})
    assert r.status_code == 201, r.text
    git(env, "tag", "v1", cwd=work)
    refused = git(env, "push", remote(server, "bob", "tagged"), "v1", cwd=work, check=False)
    assert refused.returncode != 0 and "remote: Nimbus: Tag v1 is protected" in refused.stderr
    r = call(server, "bob", "POST", "/repos/alice/tagged/tags", json={"tag_name": "v2"})
    assert r.status_code == 422 and r.json()["message"] == \
        "user not allowed to create protected tag"
    r = call(server, "bob", "POST", "/repos/alice/tagged/releases",
             json={"tag_name": "v3", "name": "three"})
    assert r.status_code == 422, r.text
    # Tags the rule does not name, and its allowed user, go through.
    git(env, "tag", "nightly", cwd=work)
    git(env, "push", "-q", remote(server, "bob", "tagged"), "nightly", cwd=work)
    git(env, "push", "-q", remote(server, "alice", "tagged"), "v1", cwd=work)
    r = call(server, "bob", "DELETE", "/repos/alice/tagged/tags/v1")
    assert r.status_code == 405 and "protected tag" in r.json()["message"]
