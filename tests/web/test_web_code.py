"""The repository code pages (chalicelib/web: pages, code_view, blame_pages,
repo_pages, diff_table), in-process under moto through the gateway: each listed entry
shows its last commit's subject and age, a README renders under any directory, the
language bar, blame attributes each line to the commit that wrote it, a file's history
lists only the commits touching it (on a branch whose name holds a slash too), diffs
have line numbers, colours and a side-by-side view, commit statuses are coloured and
link only http(s) targets, and a private repository's pages are 404s to strangers."""
from __future__ import annotations

import base64
import re

import pytest

from tests.web.test_web_session import session_cookie, sign_in

R = "/repos/alice/code"
W = "/alice/code"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def page(api, path: str, cookie: str | None = None):
    return api.get(path, raw=True, headers={"Cookie": cookie} if cookie else {})


def text(resp) -> str:
    return resp.body.decode("utf-8")


def write(api, token, path: str, content: str, message: str, **extra) -> str:
    """Create or update ``path`` in one commit; its sha."""
    repo = extra.pop("repo", "code")
    branch = extra.get("branch") or "main"        # a new branch starts from it
    found = api.get(f"/repos/alice/{repo}/contents/{path}?ref={branch}", token=token)
    body = {"content": b64(content), "message": message, **extra}
    if found.status == 200:
        body["sha"] = found.json["sha"]
        r = api.put(f"/repos/alice/{repo}/contents/{path}", token=token, json=body)
        assert r.status == 200, r
    else:
        r = api.post(f"/repos/alice/{repo}/contents/{path}", token=token, json=body)
        assert r.status == 201, r
    return r.json["commit"]["sha"]


# The API refuses a target URL that is not http(s) now; one stored before that rule is
# put in the table directly, where the page still has to read it safely.
OLD_URL = "https://placeholder.test/status/old"


def _store_as_old_record(placeholder: str, url: str) -> None:
    from chalicelib import aws
    from chalicelib.settings import get_settings

    def swap(attr: dict) -> dict:
        if "S" in attr:
            return {"S": attr["S"].replace(placeholder, url)}
        if "M" in attr:
            return {"M": {k: swap(v) for k, v in attr["M"].items()}}
        if "L" in attr:
            return {"L": [swap(v) for v in attr["L"]]}
        return attr

    ddb, name = aws.client("dynamodb"), get_settings().aws.TABLE
    for found in ddb.get_paginator("scan").paginate(TableName=name):
        for item in found["Items"]:
            swapped = {k: swap(v) for k, v in item.items()}
            if swapped != item:
                ddb.put_item(TableName=name, Item=swapped)


@pytest.fixture(scope="module")
def api():
    from tests.conftest import admin_client, moto_world, on_twin

    with moto_world(twin=on_twin(__file__)):
        yield admin_client()


@pytest.fixture(scope="module")
def scene(api):
    """alice's public ``code``: app.py written in two commits touching different lines,
    docs/README.md, a branch ``feature/x`` changing app.py, statuses on the head; and
    her private ``hidden``.  carol is a stranger."""
    tokens = {n: (api.create_user(n), api.create_token(n))[1] for n in ("alice", "carol")}
    alice = tokens["alice"]
    for name, private in (("code", False), ("hidden", True)):
        assert api.post("/user/repos", token=alice, json={
            "name": name, "private": private, "auto_init": True}).status == 201
    first = write(api, alice, "app.py", "def one():\n    return 1\n\nx = 1\n", "Add app")
    docs = write(api, alice, "docs/README.md", "# Docs guide\n\nRead *carefully*.\n",
                 "Write the docs")
    second = write(api, alice, "app.py", "def one():\n    return 1\n\nx = 2  # changed\n",
                   "Change x")
    feature = write(api, alice, "app.py", "def one():\n    return 11\n\nx = 2  # changed\n",
                    "Feature tweak", new_branch="feature/x")
    write(api, alice, "notes.txt", "unrelated\n", "Unrelated note", branch="feature/x")
    for state, url in (("success", "https://ci.example/1"), ("failure", OLD_URL)):
        r = api.post(f"{R}/statuses/{second}", token=alice, json={
            "state": state, "context": f"ci/{state}", "target_url": url,
            "description": f"the {state} check"})
        assert r.status in (200, 201), r
    _store_as_old_record(OLD_URL, "javascript:alert(1)")
    write(api, alice, "hidden.txt", "secret\n", "Hide", repo="hidden")
    cookies = {f"{n}_cookie": session_cookie(sign_in(api, n)) for n in ("alice", "carol")}
    return dict(tokens, **cookies, first=first, docs=docs, second=second, feature=feature)


def test_listing_shows_each_entry_last_commit_subject_and_age(api, scene):
    body = text(page(api, W))
    row = re.search(r'aria-label="Directory docs">docs</a></td>\s*<td class="msg">'
                    r'<a href="/alice/code/commit/([0-9a-f]{40})"[^>]*>([^<]*)</a></td>\s*'
                    r'<td class="age"><time datetime="([^"]+)" title="[^"]+">([^<]+)</time>',
                    body)
    assert row, body
    assert row.group(1) == scene["docs"] and row.group(2) == "Write the docs"
    assert row.group(4) in ("just now", "1 minute ago") or row.group(4).endswith("ago")
    app_row = re.search(r'>app\.py</a></td>\s*<td class="msg"><a href="/alice/code/commit/'
                        r'([0-9a-f]{40})"[^>]*>([^<]*)</a>', body)
    assert app_row and app_row.group(1) == scene["second"] and app_row.group(2) == "Change x"
    # The header: the latest commit of the branch and the commit count, linked.
    head = re.search(r'<tr class="latest">(.*?)</tr>', body, re.S).group(1)
    assert "Change x" in head and scene["second"][:10] in head and "alice" in head
    count = re.search(r'<a href="/alice/code/commits/branch/main">(\d+) commits</a>', head)
    assert count and int(count.group(1)) == 4      # the initial commit and three writes


def test_readme_renders_under_a_subdirectory(api, scene):
    body = text(page(api, f"{W}/src/branch/main/docs"))
    assert 'id="readme"' in body and "<h1" in body and "Docs guide" in body
    assert "<em>carefully</em>" in body
    head = re.search(r'<tr class="latest">(.*?)</tr>', body, re.S).group(1)
    assert "Write the docs" in head


def test_language_bar(api, scene):
    from chalicelib.languages import service as language_service

    repo_id = api.get(R, token=scene["alice"]).json["id"]
    language_service.refresh(int(repo_id))
    body = text(page(api, W))
    assert 'class="lang-bar"' in body
    legend = re.search(r'<ul class="lang-legend"[^>]*>(.*?)</ul>', body, re.S).group(1)
    assert "<strong>Python</strong> 100.0%" in legend
    assert "#3572A5" in body                       # linguist's Python colour


def test_blame_attributes_lines_to_their_commits(api, scene):
    resp = page(api, f"{W}/blame/branch/main/app.py")
    assert resp.status == 200, text(resp)
    body = text(resp)
    owners = {}
    for cell, rows in re.findall(r'<td class="blame-commit" rowspan="\d+">(.*?)</td>(.*?)'
                                 r'(?=<td class="blame-commit"|</table>)', body, re.S):
        sha = re.search(r'/commit/([0-9a-f]{40})', cell).group(1)
        for number in re.findall(r'id="L(\d+)"', rows):
            owners[int(number)] = sha
    assert owners == {1: scene["first"], 2: scene["first"], 3: scene["first"],
                      4: scene["second"]}
    assert '<span class="k">def</span>' in body       # highlighted
    # The file page links its blame and history.
    file_page = text(page(api, f"{W}/src/branch/main/app.py"))
    assert 'href="/alice/code/blame/branch/main/app.py">Blame</a>' in file_page
    assert 'href="/alice/code/commits/branch/main/app.py">History</a>' in file_page


def test_blame_of_a_branch_with_a_slash_and_missing_paths(api, scene):
    body = text(page(api, f"{W}/blame/branch/feature/x/app.py"))
    assert scene["feature"] in body and scene["first"] in body
    assert page(api, f"{W}/blame/branch/main/nothing.py").status == 404
    assert page(api, f"{W}/blame/branch/main/docs").status == 404


def test_blame_refuses_a_file_too_large(api, scene, monkeypatch):
    import importlib

    monkeypatch.setattr(importlib.import_module("chalicelib.contents.blame"), "MAX_BYTES", 10)
    resp = page(api, f"{W}/blame/branch/main/app.py")
    assert resp.status == 200 and "too large to blame" in text(resp)


def test_file_history_lists_only_commits_touching_the_path(api, scene):
    body = text(page(api, f"{W}/commits/branch/main/app.py"))
    shas = set(re.findall(r'/alice/code/commit/([0-9a-f]{40})"', body))
    assert shas == {scene["first"], scene["second"]}
    assert "History of <code>app.py</code>" in body
    # A branch with a slash in its name: the ref is the shortest prefix naming a branch.
    body = text(page(api, f"{W}/commits/branch/feature/x/app.py"))
    shas = set(re.findall(r'/alice/code/commit/([0-9a-f]{40})"', body))
    assert shas == {scene["first"], scene["second"], scene["feature"]}
    whole = text(page(api, f"{W}/commits/branch/feature/x"))
    assert "Unrelated note" in whole and "Commits on branch <code>feature/x</code>" in whole


def test_commit_diff_numbers_colours_and_split_view(api, scene):
    unified = text(page(api, f"{W}/commit/{scene['second']}"))
    assert '<td class="num">4</td>' in unified
    assert '<span class="c1"># changed</span>' in unified       # Pygments' comment class
    split = page(api, f"{W}/commit/{scene['second']}?style=split")
    body = text(split)
    assert 'class="diff-table diff-split highlight"' in body
    row = re.search(r'<tr>\s*<td class="num">4</td><td class="mono code del">(.*?)</td>\s*'
                    r'<td class="num">4</td><td class="mono code add">(.*?)</td>', body, re.S)
    assert row, body
    assert ">1<" in row.group(1) and "# changed" in row.group(2)
    assert 'href="?style=unified"' in body


def test_statuses_coloured_and_only_http_targets_linked(api, scene):
    body = text(page(api, f"{W}/commit/{scene['second']}"))
    assert 'class="label status-label status-success">success' in body
    assert 'class="label status-label status-failure">failure' in body
    assert 'href="https://ci.example/1"' in body
    assert 'href="javascript:' not in body and "javascript:alert(1)" in body
    commits = text(page(api, f"{W}/commits/branch/main"))
    assert 'class="status-dot status-failure"' in commits     # combined: failure wins


def test_private_repository_code_pages_are_404_to_strangers(api, scene):
    for path in ("/alice/hidden/blame/branch/main/hidden.txt",
                 "/alice/hidden/commits/branch/main/hidden.txt"):
        assert page(api, path).status == 404
        assert page(api, path, scene["carol_cookie"]).status == 404
        assert page(api, path, scene["alice_cookie"]).status == 200
