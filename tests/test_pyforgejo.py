"""The real pyforgejo client from PyPI, unmodified, against the local server."""
import base64

import httpx
import pytest
from pyforgejo import PyforgejoApi

from chalicelib.local.runtime import LocalRuntime


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with LocalRuntime(port=0, data_dir=tmp_path_factory.mktemp("pyforgejo"),
                      access_log=False) as runtime:
        from chalicelib.accounts.service import ensure_admin

        ensure_admin("boss", "boss-password", "boss@example.com")
        yield runtime


def _admin_token(url: str, name: str = "pyforgejo") -> str:
    basic = base64.b64encode(b"boss:boss-password").decode()
    r = httpx.post(f"{url}/api/v1/users/boss/tokens", headers={"Authorization": f"Basic {basic}"},
                   json={"name": name, "scopes": ["all"]})
    assert r.status_code == 201, r.text
    return r.json()["sha1"]


def test_pyforgejo_version_current_user_and_admin_create_user(server):
    client = PyforgejoApi(base_url=f"{server.url}/api/v1", api_key=_admin_token(server.url))

    version = client.miscellaneous.get_version()
    assert version.version.startswith("1.22.0+nimbus-")

    me = client.user.get_current()
    assert me.login == "boss" and me.is_admin is True and me.id > 0

    created = client.admin.create_user(username="newbie", email="newbie@example.com",
                                       password="newbie-password", must_change_password=False)
    assert created.login == "newbie" and created.email == "newbie@example.com"
    assert created.created is not None

    fetched = client.user.get(username="newbie")
    assert fetched.id == created.id


def test_pyforgejo_pull_request_flow(server, tmp_path):
    """Open, list, read, merge a pull request and post statuses, as pyforgejo calls them."""
    import os
    import subprocess

    token = _admin_token(server.url, "pyforgejo-pulls")
    client = PyforgejoApi(base_url=f"{server.url}/api/v1", api_key=token)
    client.repository.create_current_user_repo(name="flow", auto_init=True)
    host = server.url.split("://", 1)[1]
    env = {**os.environ, "HOME": str(tmp_path), "GIT_TERMINAL_PROMPT": "0",
           "GIT_AUTHOR_NAME": "Boss", "GIT_AUTHOR_EMAIL": "boss@example.com",
           "GIT_COMMITTER_NAME": "Boss", "GIT_COMMITTER_EMAIL": "boss@example.com"}
    work = tmp_path / "flow"

    def git(*args):
        subprocess.run(["git", *args], cwd=work if work.exists() else tmp_path, env=env,
                       check=True, capture_output=True, timeout=60)

    git("clone", "-q", f"http://boss:{token}@{host}/boss/flow.git", str(work))
    git("checkout", "-q", "-b", "feature")
    (work / "feature.txt").write_text("feature\n")
    git("add", "feature.txt")
    git("commit", "-q", "-m", "add feature")
    git("push", "-q", "origin", "feature")

    pull = client.repository.repo_create_pull_request("boss", "flow", head="feature",
                                                      base="main", title="Add the feature")
    assert pull.number == 1 and pull.mergeable is True and pull.head.label == "feature"
    listed = client.repository.repo_list_pull_requests("boss", "flow", state="all",
                                                       sort="recentupdate", poster="boss")
    assert [p.number for p in listed] == [1]
    status = client.repository.repo_create_status("boss", "flow", pull.head.sha,
                                                  state="success", context="ci/test")
    assert status.status == "success" and status.context == "ci/test"
    combined = client.repository.repo_get_combined_status_by_ref("boss", "flow", "feature")
    assert combined.state == "success" and combined.total_count == 1
    client.repository.repo_merge_pull_request("boss", "flow", 1, do="squash")
    merged = client.repository.repo_get_pull_request("boss", "flow", 1)
    assert merged.merged is True and merged.state == "closed"
    assert merged.merged_by.login == "boss"
