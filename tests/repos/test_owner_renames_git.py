"""A renamed user's old clone URL, with the git CLI against the local runtime (its event
pipeline running, as on ``make run``): ``git clone`` and ``git push`` through the old
address follow the redirect to the new one, and what was pushed is there."""
from __future__ import annotations

from tests.local_server import (BOSS, call, commit_random_file, git, make_user,
                                runtime_with_events)


def test_clone_and_push_through_the_old_address(tmp_path):
    with runtime_with_events(tmp_path / "data") as server:
        base = server.url
        carol = make_user(base, "carol")
        assert call(base, "POST", "/api/v1/user/repos", {"name": "proj"}, auth=carol)[0] == 201
        status, token = call(base, "POST", "/api/v1/users/carol/tokens",
                             {"name": "push", "scopes": ["write:repository"]}, auth=carol)
        assert status == 201
        # The token outlives the name (a password goes with the login name it is sent with).
        remote = base.replace("http://", f"http://carol:{token['sha1']}@")
        work = tmp_path / "work"
        first = commit_random_file(work, "a.bin", 2000)
        git("push", "-q", f"{remote}/carol/proj.git", "main", cwd=work)

        assert call(base, "POST", "/api/v1/admin/users/carol/rename",
                    {"new_username": "caroline"}, auth=BOSS)[0] == 204

        clone = tmp_path / "clone"
        git("clone", "-q", f"{base}/carol/proj.git", str(clone))       # anonymous, public
        assert git("rev-parse", "HEAD", cwd=clone) == first
        second = commit_random_file(work, "b.bin", 2000)
        git("push", "-q", f"{remote}/carol/proj.git", "main", cwd=work)  # the old address
        status, branch = call(base, "GET", "/api/v1/repos/caroline/proj/branches/main",
                              auth=None)
        assert status == 200 and branch["commit"]["id"] == second
        assert call(base, "GET", "/api/v1/repos/carol/proj/branches/main", auth=None)[0] == 200
