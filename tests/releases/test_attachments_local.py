"""Releases and attachments against the local runtime (embedded moto over HTTP), as the
issue's acceptance asks: a release shows up in ``git ls-remote``; 1 KB and 20 MB
attachments download byte for byte (the 20 MB one through a presigned S3 redirect to
the embedded moto); a 100 MB file goes through the presigned upload with curl."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess

import httpx
import pytest

from chalicelib.local.runtime import LocalRuntime
from tests.git_transport.test_git_http import TIMEOUT, Api, git, git_env  # noqa: F401 - git_env: a fixture

PASSWORD = "alice-password"
R = "/repos/alice/tool"
MB = 1024 * 1024


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with LocalRuntime(port=0, data_dir=tmp_path_factory.mktemp("attachments-local"),
                      access_log=False, sync_journal=False) as runtime:
        from chalicelib.accounts.service import ensure_admin

        ensure_admin("boss", "boss-password", "boss@example.com")
        api = Api(runtime.url)
        api.post("/admin/users", auth=("boss", "boss-password"), json={
            "username": "alice", "email": "alice@example.com", "password": PASSWORD})
        runtime.token = api.post("/users/alice/tokens", auth=("alice", PASSWORD), json={
            "name": "cli", "scopes": ["all"]}).json()["sha1"]
        call(runtime, "POST", "/user/repos", json={"name": "tool", "auto_init": True})
        release = call(runtime, "POST", f"{R}/releases",
                       json={"tag_name": "v1.0.0", "name": "Tool 1.0"})
        runtime.release = release.json()
        yield runtime


def call(server, method, path, **kw) -> httpx.Response:
    resp = httpx.request(method, f"{server.url}/api/v1{path}", timeout=TIMEOUT,
                         headers={"Authorization": f"token {server.token}"}, **kw)
    assert resp.status_code < 300, (resp.status_code, resp.text[:300])
    return resp


def local(server, record: dict) -> str:
    """``browser_download_url`` on the runtime's own address (the tests' ROOT_URL names
    another host)."""
    path = record["browser_download_url"].split("://", 1)[1].split("/", 1)[1]
    assert path == f"attachments/{record['uuid']}"
    return f"{server.url}/{path}"


def download(url: str, *, follow: bool) -> httpx.Response:
    return httpx.get(url, timeout=TIMEOUT, follow_redirects=follow)


def presigned(server, name: str, size: int) -> dict:
    return call(server, "POST", f"{R}/releases/{server.release['id']}/assets/upload",
                params={"name": name, "size": str(size)}).json()


def confirm(server, pending: dict) -> dict:
    return call(server, "POST", f"{R}/releases/{server.release['id']}/assets/"
                                f"{pending['id']}/confirm").json()


def test_the_release_tag_shows_in_git_ls_remote(server, git_env):  # noqa: F811
    host = server.url.split("://", 1)[1]
    listed = git(git_env, "ls-remote", f"http://alice:{server.token}@{host}/alice/tool.git").stdout
    main = call(server, "GET", f"{R}/branches/main").json()["commit"]["id"]
    assert f"{main}\trefs/tags/v1.0.0" in listed.splitlines()


def test_a_small_attachment_downloads_byte_for_byte(server):
    data = os.urandom(1024)
    record = call(server, "POST", f"{R}/releases/{server.release['id']}/assets",
                  params={"name": "small.bin"},
                  files={"attachment": ("ignored.bin", data, "application/octet-stream")}).json()
    got = download(local(server, record), follow=False)
    assert got.status_code == 200 and got.content == data


def test_a_20_mb_attachment_goes_through_s3_both_ways(server):
    data = os.urandom(20 * MB)
    pending = presigned(server, "medium.bin", len(data))
    put = httpx.put(pending["upload_url"], content=data, timeout=TIMEOUT)
    assert put.status_code == 200, put.text[:300]
    record = confirm(server, pending)
    assert record["size"] == len(data)
    first = download(local(server, record), follow=False)
    assert first.status_code == 302
    assert first.headers["location"].startswith(server.settings.aws.ENDPOINT_URL)
    got = download(local(server, record), follow=True)
    assert got.status_code == 200 and got.content == data
    shown = call(server, "GET", f"{R}/releases/{server.release['id']}/assets/{record['id']}")
    assert shown.json()["download_count"] == 2


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_a_100_mb_presigned_upload_with_curl(server, tmp_path):
    path = tmp_path / "large.bin"
    digest = hashlib.sha256()
    with open(path, "wb") as fh:
        for _ in range(100):
            chunk = os.urandom(MB)
            digest.update(chunk)
            fh.write(chunk)
    pending = presigned(server, "large.bin", 100 * MB)
    done = subprocess.run(["curl", "-sS", "--fail", "-T", str(path), pending["upload_url"]],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    record = confirm(server, pending)
    assert record["size"] == 100 * MB
    fetched = hashlib.sha256()
    with httpx.stream("GET", local(server, record), timeout=TIMEOUT,
                      follow_redirects=True) as resp:
        assert resp.status_code == 200
        for chunk in resp.iter_bytes():
            fetched.update(chunk)
    assert fetched.hexdigest() == digest.hexdigest()


def test_the_pyforgejo_client_drives_releases_and_attachments(server):
    """The real pyforgejo client (generated from Forgejo's description), unmodified."""
    from pyforgejo import PyforgejoApi

    client = PyforgejoApi(base_url=f"{server.url}/api/v1", api_key=server.token)
    made = client.repository.repo_create_release(owner="alice", repo="tool", tag_name="v2.0.0",
                                                 name="Tool 2.0", body="notes", prerelease=True)
    assert (made.tag_name, made.prerelease, made.author.login) == ("v2.0.0", True, "alice")
    asset = client.repository.repo_create_release_attachment(
        owner="alice", repo="tool", id=made.id, request=b"checksums\n", name="SHA256SUMS")
    assert (asset.name, asset.size, asset.type) == ("SHA256SUMS", 10, "attachment")
    edited = client.repository.repo_edit_release_attachment(
        owner="alice", repo="tool", id=made.id, attachment_id=asset.id, name="SHA256SUMS.txt")
    assert edited.name == "SHA256SUMS.txt"
    listed = client.repository.repo_list_release_attachments(owner="alice", repo="tool",
                                                             id=made.id)
    assert [a.name for a in listed] == ["SHA256SUMS.txt"]
    by_tag = client.repository.repo_get_release_by_tag(owner="alice", repo="tool", tag="v2.0.0")
    assert by_tag.id == made.id and by_tag.assets[0].id == asset.id
    assert client.repository.repo_get_latest_release(owner="alice", repo="tool").tag_name == \
        "v1.0.0"                                   # v2.0.0 is a pre-release
    releases = client.repository.repo_list_releases(owner="alice", repo="tool")
    assert [r.tag_name for r in releases][:2] == ["v2.0.0", "v1.0.0"]
    client.repository.repo_delete_release_attachment(owner="alice", repo="tool", id=made.id,
                                                     attachment_id=asset.id)
    client.repository.repo_delete_release_by_tag(owner="alice", repo="tool", tag="v2.0.0")
    assert [r.tag_name for r in client.repository.repo_list_releases(
        owner="alice", repo="tool")] == ["v1.0.0"]
