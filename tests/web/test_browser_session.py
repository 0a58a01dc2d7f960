"""A team's day on the web, in headless Chromium against the local runtime with its
event pipeline and webhook worker, as `make run` serves it: alice creates a repository
and uploads a file, makes a label, adds bob as a collaborator and opens an issue with
the label and bob assigned; she pushes a branch with git, follows the link the push
printed, opens the pull request and asks bob for a review; bob comments on a line of the
diff and approves; alice merges, edits the repository's settings, adds a webhook, edits
it, sends a test delivery and redelivers it.  Every step is checked through the API too.

``NIMBUS_SCREENSHOTS=1`` writes a screenshot of each page to docs/screenshots/session-*.png.
"""
from __future__ import annotations

import re
import subprocess
from urllib.parse import urlsplit

import httpx
import pytest

from chalicelib import settings as settings_module
from chalicelib.local.event_pipeline import EventPipeline
from chalicelib.local.runtime import LocalRuntime
from chalicelib.local.webhook_worker import WebhookWorker
from tests.browser_support import Browser, require_browser
from tests.git_transport.test_git_http import TIMEOUT, git, git_env  # noqa: F401 - a fixture
from tests.webhook_receiver import Receiver

USERS = {"alice": "alice-password", "bob": "bob-password"}
REPO = "/alice/orchard"
API = "/api/v1/repos/alice/orchard"
# Loopback receivers allowed (the test's own), quick retries.
HOOK_SETTINGS = {"NIMBUS__WEBHOOK__ALLOWED_HOST_LIST": "loopback",
                 "NIMBUS__WEBHOOK__BACKOFF_BASE_MS": "40",
                 "NIMBUS__WEBHOOK__DELIVER_TIMEOUT": "2"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_browser()
    patch = pytest.MonkeyPatch()
    for name, value in HOOK_SETTINGS.items():
        patch.setenv(name, value)
    settings_module.reset_settings_cache()
    try:
        with LocalRuntime(port=0, data_dir=tmp_path_factory.mktemp("session"),
                          access_log=False) as runtime:
            for task in EventPipeline().tasks() + WebhookWorker().tasks():
                runtime.add_background(task)
            from chalicelib.accounts.service import ensure_admin

            ensure_admin("boss", "boss-password", "boss@example.com")
            for name, password in USERS.items():
                httpx.post(f"{runtime.url}/api/v1/admin/users",
                           auth=("boss", "boss-password"), timeout=TIMEOUT,
                           json={"username": name, "email": f"{name}@example.com",
                                 "password": password, "must_change_password": False}
                           ).raise_for_status()
            yield runtime
    finally:
        patch.undo()
        settings_module.reset_settings_cache()


@pytest.fixture
def browsers(server):
    opened: list[Browser] = []

    def new(user: str) -> Browser:
        opened.append(Browser(server.url))
        opened[-1].sign_in(user, USERS[user])
        return opened[-1]
    yield new
    for browser in opened:
        browser.close()


def shot(browser: Browser, name: str) -> None:
    browser.screenshot(f"session-{name}")


def api_get(server, path: str):
    return httpx.get(server.url + path, auth=("alice", USERS["alice"]), timeout=TIMEOUT).json()


def test_a_team_works_on_the_web(server, browsers, git_env, tmp_path):  # noqa: F811
    alice = browsers("alice")

    # A repository, and a file uploaded into it.
    alice.open("/repo/create")
    alice.fill("#repo_name", "orchard")
    alice.fill("#description", "Trees and their care")
    shot(alice, "01-repo-create")
    alice.submit("form.stack button[type=submit]")
    assert alice.path == REPO
    alice.open(f"{REPO}/_upload/main/")
    upload = tmp_path / "pruning.md"
    upload.write_text("# Pruning\n\nIn late winter.\n")
    alice.css("#upload-files").send_keys(str(upload))
    shot(alice, "02-upload")
    alice.submit("form.file-form button.primary")
    assert "pruning.md" in alice.text("main")
    assert api_get(server, f"{API}/contents/pruning.md")["name"] == "pruning.md"
    shot(alice, "03-repo-home")

    # A label, bob as a collaborator, and an issue with both.
    alice.open(f"{REPO}/labels")
    alice.css("details.box summary").click()
    alice.fill("#label-name", "pests")
    alice.fill("#label-color", "#d93f0b")
    alice.submit("form[aria-label='New label'] button.primary")
    alice.open(f"{REPO}/settings/collaboration")
    alice.fill("#collaborator", "bob")
    alice.choose("#permission", "write")
    shot(alice, "04-collaborators")
    alice.submit("form[aria-label='Add a collaborator'] button.primary")
    assert "bob" in alice.text("main")
    alice.open(f"{REPO}/issues/new")
    alice.fill("#issue-title", "Aphids on the apple trees")
    alice.fill("#issue-content", "Seen on **three** trees.")
    alice.css("input[name=labels]").click()
    alice.css("input[name=assignees][value=bob]").click()
    shot(alice, "05-issue-new")
    alice.submit("form.stack button.primary")
    assert alice.path == f"{REPO}/issues/1"
    issue = api_get(server, f"{API}/issues/1")
    assert [label["name"] for label in issue["labels"]] == ["pests"]
    assert [a["login"] for a in issue["assignees"]] == ["bob"]
    shot(alice, "06-issue")

    # A branch pushed with git prints the link to open its pull request; alice follows it.
    host = server.url.split("://", 1)[1]
    work = tmp_path / "orchard"
    url = f"http://alice:{USERS['alice']}@{host}/alice/orchard.git"
    git(git_env, "clone", "-q", url, str(work))
    git(git_env, "checkout", "-q", "-b", "spray", cwd=work)
    (work / "spray.md").write_text("# Spraying\n\nSoap and water, twice a week.\n")
    git(git_env, "add", "spray.md", cwd=work)
    git(git_env, "commit", "-q", "-m", "Add a spraying plan", cwd=work)
    pushed = subprocess.run(["git", "push", "origin", "spray"], cwd=work, env=git_env,
                            capture_output=True, text=True, timeout=TIMEOUT)
    assert pushed.returncode == 0, pushed.stderr
    link = re.search(r"remote:\s+(\S+/compare/main\.\.\.spray)", pushed.stderr)
    assert link, pushed.stderr
    # The link names the instance's ROOT_URL; the test's server is reached by its port.
    alice.open(urlsplit(link.group(1)).path)
    assert alice.path == f"{REPO}/compare/main...spray"
    assert alice.css("#pull-title").get_attribute("value") == "Add a spraying plan"
    alice.fill("#pull-content", "Against the aphids, see #1.")
    shot(alice, "07-compare")
    alice.submit("form[aria-label='New pull request'] button.primary")
    assert alice.path == f"{REPO}/pulls/2"

    # A review is asked of bob in the sidebar.
    alice.css("details.reviewers summary").click()
    alice.fill("#side-reviewers", "bob")
    alice.submit("form[aria-label='Request a review'] button")
    assert [r["login"] for r in api_get(server, f"{API}/pulls/2")["requested_reviewers"]] \
        == ["bob"]
    shot(alice, "08-pull")

    # bob comments on a line of the diff, then approves.
    bob = browsers("bob")
    bob.open(f"{REPO}/pulls/2/files")
    bob.css("table.diff-table tr.add td.num a").click()
    bob.fill("#line-comment", "Twice may be *too often*.")
    bob.submit("#comment-form button.primary")
    assert bob.css(".code-comment .markdown em").text == "too often"
    shot(bob, "09-line-comment")
    bob.open(f"{REPO}/pulls/2")
    bob.fill("#review-content", "Fine once we watch the leaves.")
    bob.submit(".review-form button[value=APPROVED]")
    assert "Approved" in bob.text("#reviews")
    shot(bob, "10-approved")

    # alice merges.
    alice.open(f"{REPO}/pulls/2")
    alice.choose("#merge-style", "merge")
    alice.submit("section[aria-label=Merge] button.primary")
    assert "Merged" in alice.text("section[aria-label=Merge]")
    assert api_get(server, f"{API}/pulls/2")["merged"] is True
    # The timeline tells it in sentences.
    for sentence in ("A review was requested from bob", "bob approved these changes",
                     "alice merged this pull request"):
        assert sentence in alice.text("main"), sentence
    shot(alice, "11-merged")

    # The repository's settings: its description, then a webhook to a receiver here.
    alice.open(f"{REPO}/settings")
    alice.fill("#description", "Trees, pests and their care")
    shot(alice, "12-settings")
    alice.submit("form.stack button.primary")
    assert api_get(server, API)["description"] == "Trees, pests and their care"
    with Receiver() as receiver:
        alice.open(f"{REPO}/settings/hooks/new")
        alice.fill("#url", receiver.url + "/orchard")
        alice.css("input[name=mode][value=all]").click()
        shot(alice, "13-hook-new")
        alice.submit("form.hook-form button.primary")
        [hook] = api_get(server, f"{API}/hooks")
        assert hook["config"]["url"] == receiver.url + "/orchard"
        # Edited: push events only.
        alice.open(f"{REPO}/settings/hooks/{hook['id']}")
        alice.css("input[name=mode][value=push]").click()
        alice.submit("form.hook-form button.primary")
        assert api_get(server, f"{API}/hooks/{hook['id']}")["events"] == ["push"]
        alice.open(f"{REPO}/settings/hooks/{hook['id']}")
        alice.submit("form[action$='/test'] button")
        receiver.wait_for(lambda got: len(got) >= 1, what="the test delivery")
        alice.open(f"{REPO}/settings/hooks/{hook['id']}")
        assert len(alice.all("#deliveries li details")) == 1
        alice.submit("#deliveries form button")
        receiver.wait_for(lambda got: len(got) >= 2, what="the redelivery")
        alice.open(f"{REPO}/settings/hooks/{hook['id']}#deliveries")
        assert len(alice.all("#deliveries li details")) == 2
        assert "redelivery" in alice.text("#deliveries")
        shot(alice, "14-hook-deliveries")
