"""The web interface in a real browser (headless Chromium from Debian, driven by Selenium)
against the local runtime with its event pipeline: sign in, create a repository, read a
file, open an issue and comment, make a token, push a branch with git, open and merge a
pull request, and see the change on the default branch; a stranger and a signed-out
browser get 404 pages for a private repository; a file kept in Git LFS shows as its
content.

``NIMBUS_SCREENSHOTS=1`` rewrites docs/screenshots/*.png from this run.
"""
from __future__ import annotations

import httpx
import pytest

from chalicelib.local.event_pipeline import EventPipeline
from chalicelib.local.runtime import LocalRuntime
from tests.browser_support import Browser, require_browser
from tests.git_transport.test_git_http import TIMEOUT, git, git_env  # noqa: F401 - git_env: a fixture

USERS = {"alice": "alice-password", "carol": "carol-password"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_browser()
    with LocalRuntime(port=0, data_dir=tmp_path_factory.mktemp("browser"),
                      access_log=False) as runtime:
        for task in EventPipeline().tasks():
            runtime.add_background(task)
        from chalicelib.accounts.service import ensure_admin

        ensure_admin("boss", "boss-password", "boss@example.com")
        for name, password in USERS.items():
            httpx.post(f"{runtime.url}/api/v1/admin/users", auth=("boss", "boss-password"),
                       json={"username": name, "email": f"{name}@example.com",
                             "password": password}, timeout=TIMEOUT).raise_for_status()
        yield runtime


@pytest.fixture
def browsers(server):
    opened: list[Browser] = []

    def new() -> Browser:
        opened.append(Browser(server.url))
        return opened[-1]
    yield new
    for browser in opened:
        browser.close()


def status(server, path: str, cookies: dict | None = None) -> int:
    return httpx.get(server.url + path, cookies=cookies, timeout=TIMEOUT).status_code


def test_a_day_in_the_browser(server, browsers, git_env, tmp_path):  # noqa: F811
    alice = browsers()
    alice.sign_in("alice", USERS["alice"])
    assert alice.path == "/" and "alice" in alice.text("header.site")

    # A repository with a README, and a file of it.
    alice.open("/repo/create")
    alice.fill("#repo_name", "garden")
    alice.fill("#description", "Plants and notes")
    alice.screenshot("repo-create")
    alice.submit("form.stack button[type=submit]")
    assert alice.path == "/alice/garden"
    assert "Plants and notes" in alice.text("#readme")
    alice.screenshot("repo-home")
    alice.link("README.md").click()
    assert alice.path == "/alice/garden/src/branch/main/README.md"
    assert "garden" in alice.text("main h1, main .markdown")
    alice.screenshot("file")

    # An issue and a comment.
    alice.open("/alice/garden/issues")
    alice.link("New issue").click()
    alice.fill("#issue-title", "Water the ferns")
    alice.fill("#issue-content", "They look **dry**.")
    alice.submit("form.stack button[type=submit]")
    assert alice.path == "/alice/garden/issues/1"
    assert alice.css(".comment .markdown strong").text == "dry"
    alice.fill("#comment-content", "Done on *Monday*.")
    alice.submit(".comment-form button.primary")
    assert alice.path.startswith("/alice/garden/issues/1#issuecomment-")
    assert [e.text for e in alice.all(".comment .markdown em")] == ["Monday"]
    alice.screenshot("issue")

    # A token made in the browser pushes a branch with git.
    alice.open("/user/settings/applications")
    alice.fill("#token-name", "laptop")
    alice.css("input[name=scope][value=all]").click()
    alice.submit("form.stack button[type=submit]")
    secret = alice.css("#new-token-value").get_attribute("value")
    assert len(secret) == 40
    alice.screenshot("applications")
    host = server.url.split("://", 1)[1]
    work = tmp_path / "garden"
    git(git_env, "clone", "-q", f"http://alice:{secret}@{host}/alice/garden.git", str(work))
    git(git_env, "checkout", "-q", "-b", "ferns", cwd=work)
    (work / "ferns.md").write_text("# Ferns\n\nWater twice a week.\n")
    git(git_env, "add", "ferns.md", cwd=work)
    git(git_env, "commit", "-q", "-m", "Add fern care", cwd=work)
    git(git_env, "push", "-q", "origin", "ferns", cwd=work)

    # Compare, open the pull request, merge it.
    alice.open("/alice/garden/pulls")
    alice.link("New pull request").click()
    alice.choose("#compare-head", "ferns")
    alice.submit("form.toolbar button[type=submit]")
    assert alice.path == "/alice/garden/compare/main...ferns"
    assert "Add fern care" in alice.text("section[aria-label=Commits]")
    assert alice.css("#pull-title").get_attribute("value") == "Add fern care"
    alice.fill("#pull-content", "Care notes for the ferns.")
    alice.screenshot("compare")
    alice.submit("form[aria-label='New pull request'] button.primary")
    assert alice.path == "/alice/garden/pulls/2"      # issues and pulls share numbers
    # The changed files are a tab of their own; the conversation holds the merge form.
    alice.css("nav.pull-tabs a[data-tab=files]").click()
    assert alice.path == "/alice/garden/pulls/2/files"
    assert "ferns.md" in alice.text("#files")
    alice.css("nav.pull-tabs a[data-tab=conversation]").click()
    assert alice.path == "/alice/garden/pulls/2"
    alice.choose("#merge-style", "squash")
    alice.submit("section[aria-label=Merge] button.primary")
    assert alice.path == "/alice/garden/pulls/2"
    assert "Merged" in alice.text("section[aria-label=Merge]")
    alice.screenshot("pull-merged")

    # The change is on the default branch.
    alice.open("/alice/garden")
    alice.link("ferns.md").click()
    assert "Water twice a week." in alice.text("main")
    alice.open("/alice/garden/commits/branch/main")
    assert "Add fern care" in alice.text("main")

    # A private repository: 404 pages to another user and to a signed-out browser.
    alice.open("/repo/create")
    alice.fill("#repo_name", "diary")
    alice.css("#private").click()
    alice.submit("form.stack button[type=submit]")
    assert alice.path == "/alice/diary" and "Private" in alice.text(".repo-head")
    carol = browsers()
    carol.sign_in("carol", USERS["carol"])
    for path in ("/alice/diary", "/alice/diary/src/branch/main/README.md",
                 "/alice/diary/issues/new", "/alice/diary/issues"):
        carol.open(path)
        assert carol.title() == "404", path
        assert "README" not in carol.driver.page_source
    session = {c["name"]: c["value"] for c in carol.driver.get_cookies()}
    assert status(server, "/alice/diary", session) == 404
    alice.css("header.site details summary").click()
    alice.submit("form[action='/user/logout'] button")
    alice.open("/alice/diary")
    assert alice.title() == "404"
    assert status(server, "/alice/diary") == 404
    alice.open("/alice/garden")
    assert "ferns.md" in alice.text("main")
    alice.screenshot("signed-out-repo")


def test_approve_a_pull_request_and_comment_on_a_line(server, browsers):
    """carol reviews alice's pull request in the page: a comment on a line of the diff,
    then an approval; the API shows both."""
    api = f"{server.url}/api/v1/repos/alice/lawn"
    auth = ("alice", USERS["alice"])
    httpx.post(f"{server.url}/api/v1/user/repos", auth=auth, timeout=TIMEOUT,
               json={"name": "lawn", "auto_init": True}).raise_for_status()
    httpx.post(f"{api}/contents/mow.txt", auth=auth, timeout=TIMEOUT,
               json={"content": "TW93IG9uIEZyaWRheXMuCg==", "new_branch": "mow"}
               ).raise_for_status()
    number = httpx.post(f"{api}/pulls", auth=auth, timeout=TIMEOUT, json={
        "head": "mow", "base": "main", "title": "Mowing plan"}).json()["number"]
    carol = browsers()
    carol.sign_in("carol", USERS["carol"])
    carol.open(f"/alice/lawn/pulls/{number}/files")
    carol.css("table.diff-table tr.add td.num a").click()
    assert carol.path.endswith("line=1#comment-form")
    carol.fill("#line-comment", "Fridays are *busy*.")
    carol.submit("#comment-form button.primary")
    assert carol.path == f"/alice/lawn/pulls/{number}/files#files"
    assert carol.css(".code-comment .markdown em").text == "busy"
    carol.open(f"/alice/lawn/pulls/{number}")
    carol.fill("#review-content", "Fine by me.")
    carol.submit(".review-form button[value=APPROVED]")
    assert carol.path == f"/alice/lawn/pulls/{number}#reviews"
    assert "Approved" in carol.text("#reviews") and "Fine by me." in carol.text("#reviews")
    carol.screenshot("pull-review")
    found = httpx.get(f"{api}/pulls/{number}/reviews", auth=auth, timeout=TIMEOUT).json()
    assert [(r["user"]["login"], r["state"]) for r in found] == [("carol", "COMMENT"),
                                                                 ("carol", "APPROVED")]


def test_a_git_lfs_file_in_the_page(server, browsers):
    """A text file kept in Git LFS (uploaded through the batch API's presigned URL,
    verified, its pointer committed): the page shows its content and its real size,
    says where it is stored, and its Raw link answers the object, not the pointer."""
    import base64
    import hashlib

    auth = ("alice", USERS["alice"])
    httpx.post(f"{server.url}/api/v1/user/repos", auth=auth, timeout=TIMEOUT,
               json={"name": "notes", "auto_init": True}).raise_for_status()
    data = ("A line kept in Git LFS.\n" * 400).encode()
    oid = hashlib.sha256(data).hexdigest()
    lfs = f"{server.url}/alice/notes.git/info/lfs"
    media = {"Content-Type": "application/vnd.git-lfs+json"}
    [upload] = httpx.post(f"{lfs}/objects/batch", auth=auth, headers=media, timeout=TIMEOUT, json={
        "operation": "upload", "objects": [{"oid": oid, "size": len(data)}]}).json()["objects"]
    action = upload["actions"]["upload"]
    httpx.put(action["href"], content=data, headers=action.get("header", {}),
              timeout=TIMEOUT).raise_for_status()
    httpx.post(f"{lfs}/verify", auth=auth, headers=media, timeout=TIMEOUT,
               json={"oid": oid, "size": len(data)}).raise_for_status()
    pointer = (f"version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\n"
               f"size {len(data)}\n").encode()
    httpx.post(f"{server.url}/api/v1/repos/alice/notes/contents/kept.txt", auth=auth,
               timeout=TIMEOUT, json={"content": base64.b64encode(pointer).decode()}
               ).raise_for_status()
    alice = browsers()
    alice.sign_in("alice", USERS["alice"])
    alice.open("/alice/notes/src/branch/main/kept.txt")
    head = alice.text(".box .head")
    assert "Stored with Git LFS" in head and "9.4 KiB" in head, head
    assert "A line kept in Git LFS." in alice.text(".box")
    assert "oid sha256" not in alice.text(".box")
    raw = alice.css(".box .head .counts a:nth-of-type(1)").get_attribute("href")
    assert "/media/branch/main/kept.txt" in raw, raw
    assert httpx.get(raw, timeout=TIMEOUT, follow_redirects=True).content == data
