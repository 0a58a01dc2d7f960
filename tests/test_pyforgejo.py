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


def test_pyforgejo_people_calls(server):
    """Follows, e-mail addresses, blocks, settings, organizations and avatars, as
    pyforgejo calls them (issue 36)."""
    import io

    from PIL import Image
    from pyforgejo.core.api_error import ApiError

    admin = PyforgejoApi(base_url=f"{server.url}/api/v1", api_key=_admin_token(server.url, "people"))
    for name in ("fola", "folb"):
        admin.admin.create_user(username=name, email=f"{name}@example.com",
                                password=f"{name}-password", must_change_password=False)
    basic = base64.b64encode(b"fola:fola-password").decode()
    token = httpx.post(f"{server.url}/api/v1/users/fola/tokens",
                       headers={"Authorization": f"Basic {basic}"},
                       json={"name": "people", "scopes": ["all"]}).json()["sha1"]
    fola = PyforgejoApi(base_url=f"{server.url}/api/v1", api_key=token)

    fola.user.current_put_follow("folb")
    fola.user.check_following("fola", "folb")                 # 204: no exception
    assert [u.login for u in fola.user.current_list_following()] == ["folb"]
    assert [u.login for u in fola.user.list_followers("folb")] == ["fola"]
    assert fola.user.get("folb").followers_count == 1
    fola.user.current_delete_follow("folb")
    with pytest.raises(ApiError) as missing:
        fola.user.check_following("fola", "folb")
    assert missing.value.status_code == 404

    added = fola.user.add_email(emails=["fola.work@example.com"])
    assert [e.email for e in added] == ["fola.work@example.com"]
    assert {e.email: e.primary for e in fola.user.list_emails()} == {
        "fola@example.com": True, "fola.work@example.com": False}
    fola.user.delete_email(emails=["fola.work@example.com"])
    assert "fola@example.com" in [e.email for e in admin.admin.get_all_emails(limit=50)]

    settings = fola.user.update_user_settings(full_name="Fola", hide_email=True)
    assert settings.full_name == "Fola" and settings.hide_email is True
    assert fola.user.get_user_settings().full_name == "Fola"

    fola.user.block_user("folb")
    assert [b.block_id for b in fola.user.list_blocked_users()] == [fola.user.get("folb").id]
    fola.user.unblock_user("folb")

    admin.organization.org_create(username="peopleorg")
    assert "peopleorg" in [o.username for o in fola.organization.org_get_all(limit=50)]
    assert "peopleorg" in [o.username for o in admin.admin.get_all_orgs(limit=50)]

    out = io.BytesIO()
    Image.new("RGB", (64, 48), (10, 120, 200)).save(out, format="PNG")
    fola.user.update_avatar(image=base64.b64encode(out.getvalue()).decode())
    avatar_url = fola.user.get_current().avatar_url
    path = "/" + avatar_url.split("://", 1)[1].split("/", 1)[1]
    served = httpx.get(f"{server.url}{path}")
    assert served.status_code == 200 and served.headers["content-type"] == "image/png"
    assert served.content.startswith(b"\x89PNG")
