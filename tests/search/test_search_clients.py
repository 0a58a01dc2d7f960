"""Real clients' issue search, unmodified, against the local runtime with its event
pipeline (the index follows the events, as on ``make run``): gitea-api-client's
``issue_search_issues`` (PyPI, in requirements-dev.txt) and the ``cb`` CLI (PyPI's
codeberg-cli, which needs Python 3.12: the Makefile's ``cb-client`` puts it in its own
virtualenv)."""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.local_server import call, make_user, runtime_with_events

ROOT = Path(__file__).resolve().parents[2]
CB = ROOT / ".venv-cb" / "bin" / "cb"


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    """dana's public ``garden`` with two issues and her private ``diary`` with one, the
    index caught up; yields (base URL, dana's token, a stranger's token)."""
    with runtime_with_events(tmp_path_factory.mktemp("search-clients")) as server:
        base = server.url
        dana, stranger = make_user(base, "dana"), make_user(base, "eve")
        for name, private in (("garden", False), ("diary", True)):
            assert call(base, "POST", "/api/v1/user/repos", {"name": name, "private": private},
                        auth=dana)[0] == 201
        for repo, title in (("garden", "Tomatoes wilting in July"),
                            ("garden", "Compost bin overflowing"),
                            ("diary", "Tomatoes planted secretly")):
            assert call(base, "POST", f"/api/v1/repos/dana/{repo}/issues", {"title": title},
                        auth=dana)[0] == 201
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            status, body = call(base, "GET", "/api/v1/repos/issues/search?q=tomatoes",
                                auth=dana)
            if status == 200 and len(body) == 2:
                break
            time.sleep(0.2)
        yield base, dana, stranger


def _token(base: str, auth: tuple[str, str]) -> str:
    """A new access token of the ``make_user`` user."""
    status, body = call(base, "POST", f"/api/v1/users/{auth[0]}/tokens",
                        {"name": f"t{time.monotonic_ns()}", "scopes": ["all"]}, auth=auth)
    assert status == 201, body
    return body["sha1"]


def test_gitea_api_client_issue_search_issues(seeded):
    from gitea_api_client import ApiClient, Configuration, IssueApi

    base, dana, stranger = seeded

    async def search(token: str, **query):
        config = Configuration(host=f"{base}/api/v1",
                               api_key={"AuthorizationHeaderToken": f"token {token}"})
        async with ApiClient(config) as client:
            return await IssueApi(client).issue_search_issues(**query)

    mine = asyncio.run(search(_token(base, dana), q="tomatoes", state="open", limit=10))
    assert sorted(i.title for i in mine) == ["Tomatoes planted secretly",
                                             "Tomatoes wilting in July"]
    assert {i.repository.full_name for i in mine} == {"dana/garden", "dana/diary"}
    assert all(isinstance(i.number, int) and i.state == "open" for i in mine)
    theirs = asyncio.run(search(_token(base, stranger), q="tomatoes"))
    assert [i.title for i in theirs] == ["Tomatoes wilting in July"]
    created = asyncio.run(search(_token(base, dana), created=True, type="issues"))
    assert len(created) == 3


def test_cb_issue_search(seeded, tmp_path):
    assert CB.exists(), "the cb CLI is installed by `make cb-client` (make test runs it)"
    base, dana, stranger = seeded
    config = tmp_path / "codeberg-cli" / "config.toml"
    config.parent.mkdir()
    config.write_text(f'token = "{_token(base, dana)}"\nbase_url = "{base}/api/v1"\n')
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path), "NO_COLOR": "1"}
    done = subprocess.run([str(CB), "--json", "issue", "search", "tomatoes"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert sorted((i["repo"], i["title"]) for i in found) == [
        ("dana/diary", "Tomatoes planted secretly"), ("dana/garden", "Tomatoes wilting in July")]
    assert all(i["author"] == "dana" and i["state"] == "open" for i in found)
