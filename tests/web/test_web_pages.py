"""The web pages (chalicelib/web), in-process under moto through the gateway: every
page a reader opens answers 200 with the right content, the ``html_url`` of each API
record opens its page, private repositories are 404 pages to strangers and anonymous
visitors, markdown is sanitized, code is highlighted, assets are cached for a year."""
from __future__ import annotations

import base64
import gzip
import re

import pytest

from tests.web.test_web_session import session_cookie, sign_in

R = "/repos/alice/proj"
SCRIPT = "<script>alert('x')</script>"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def page(api, path: str, cookie: str | None = None, **headers):
    if cookie:
        headers["Cookie"] = cookie
    return api.get(path, raw=True, headers=headers)


def text(resp) -> str:
    return resp.body.decode("utf-8")


def put_file(api, token, repo: str, path: str, content: str, **extra) -> None:
    r = api.post(f"/repos/alice/{repo}/contents/{path}", token=token,
                 json={"content": b64(content), **extra})
    assert r.status == 201, r


@pytest.fixture(scope="module")
def api():
    """One AWS world for the module: the pages only read, so they share one scene."""
    from tests.conftest import admin_client, moto_world, on_twin

    with moto_world(twin=on_twin(__file__)):
        yield admin_client()


@pytest.fixture(scope="module")
def scene(api):
    """alice's public ``proj`` (README, code, a branch with a pull request, a tag, a
    release, issues with labels and a milestone) and private ``secret``; carol is a
    stranger."""
    tokens = {n: (api.create_user(n), api.create_token(n))[1] for n in ("alice", "carol")}
    alice = tokens["alice"]
    for name, private in (("proj", False), ("secret", True)):
        assert api.post("/user/repos", token=alice, json={
            "name": name, "private": private, "auto_init": True,
            "description": f"the {name} repository"}).status == 201
    readme_sha = api.get(f"{R}/contents/README.md").json["sha"]
    assert api.put(f"{R}/contents/README.md", token=alice, json={
        "sha": readme_sha, "content": b64("# Project title\n\nSee [guide](docs/guide.md).\n"
                                          + SCRIPT + "\n")}).status == 200
    put_file(api, alice, "proj", "app.py", "def greet(name):\n    return 'hi ' + name\n")
    put_file(api, alice, "proj", "docs/guide.md", "## Guide\n\nRead *this*.\n")
    put_file(api, alice, "proj", "feature.txt", "new work\n", new_branch="feature")
    put_file(api, alice, "secret", "hidden.txt", "nothing to see\n")
    assert api.post(f"{R}/tags", token=alice, json={"tag_name": "v1.0"}).status == 201
    release = api.post(f"{R}/releases", token=alice, json={
        "tag_name": "v1.0", "name": "First release", "body": "Release **notes**"})
    assert release.status == 201, release
    label = api.post(f"{R}/labels", token=alice, json={"name": "bug", "color": "#ee0701"})
    milestone = api.post(f"{R}/milestones", token=alice, json={"title": "Launch"})
    issue = api.post(f"{R}/issues", token=alice, json={
        "title": "Broken greeting", "body": "It *fails*.\n\n" + SCRIPT,
        "labels": [label.json["id"]], "milestone": milestone.json["id"]})
    assert issue.status == 201, issue
    assert api.post(f"{R}/issues/{issue.json['number']}/comments", token=alice,
                    json={"body": "A **comment** here"}).status == 201
    assert api.post(f"{R}/issues", token=alice, json={"title": "Other thing"}).status == 201
    pull = api.post(f"{R}/pulls", token=alice, json={"head": "feature", "base": "main",
                                                      "title": "Add feature"})
    assert pull.status == 201, pull
    secret_issue = api.post("/repos/alice/secret/issues", token=alice,
                            json={"title": "Private trouble"})
    # Pages take the session cookie only: each user signs in through the form.
    cookies = {f"{n}_cookie": session_cookie(sign_in(api, n)) for n in ("alice", "carol")}
    return dict(tokens, **cookies, issue=issue.json, pull=pull.json,
                release=release.json.get("html_url"), secret_issue=secret_issue.json)


def test_html_urls_of_api_records_open_their_pages(api, scene):
    repo = api.get(R).json
    user = api.get("/users/alice").json
    checks = [(repo["html_url"], "Project title"), (user["html_url"], "proj"),
              (scene["issue"]["html_url"], "Broken greeting"),
              (scene["pull"]["html_url"], "Add feature"),
              (scene["release"], "First release")]
    for url, expected in checks:
        assert url.startswith("http://nimbus.test/")
        r = page(api, url[len("http://nimbus.test"):])
        assert r.status == 200, (url, r)
        assert r.headers["content-type"].startswith("text/html")
        assert expected in text(r), url


def test_explore_home_and_profile(api, scene):
    home = text(page(api, "/"))
    assert "alice/proj" in home and "alice/secret" not in home
    found = text(page(api, "/explore/repos?q=proj"))
    assert "alice/proj" in found
    assert "alice/proj" not in text(page(api, "/explore/repos?q=nomatch"))
    # The owner, signed in, sees the private one too.
    mine = text(page(api, "/explore/repos", scene["alice_cookie"]))
    assert "alice/secret" in mine
    profile = text(page(api, "/alice"))
    assert "the proj repository" in profile and "secret" not in profile
    missing = page(api, "/nobody-here")
    assert missing.status == 404
    assert "<h1>404</h1>" in text(missing) and "does not exist or you may not see it" in text(missing)


def test_repository_home(api, scene):
    r = page(api, "/alice/proj")
    body = text(r)
    assert "<h1" in body and "Project title" in body
    assert SCRIPT not in body and "alert(" not in body          # sanitized README
    assert "http://nimbus.test/alice/proj.git" in body           # clone URL
    assert "the proj repository" in body
    assert ">app.py<" in body and ">docs<" in body
    # Entries' icons come from the stylesheet: no emoji a font may lack, nothing fetched.
    files = body[body.index('<table class="files"'):body.index("</table>")]
    assert files.count('<span class="icon icon-dir"') == 1
    assert files.count('<span class="icon icon-file"') >= 2
    assert not re.search("[\U0001F300-\U0001FAFF]", files)
    assert "/alice/proj/src/branch/feature" in body             # branch switcher
    assert 'href="/alice/proj/tags"' in body                     # tags, each a tree link
    record = api.get(R).json
    for label, field in (("Stars", "stars_count"), ("Forks", "forks_count"),
                         ("Watchers", "watchers_count")):
        assert f"{label} {record[field]}" in body
    # README links resolve against the default branch.
    assert 'href="http://nimbus.test/alice/proj/src/branch/main/docs/guide.md"' in body


def test_source_pages(api, scene):
    tree = text(page(api, "/alice/proj/src/branch/main/docs"))
    assert ">guide.md<" in tree
    py = text(page(api, "/alice/proj/src/branch/main/app.py"))
    assert 'class="highlight"' in py and '<span class="k">def</span>' in py
    assert "/alice/proj/raw/branch/main/app.py" in py
    md = text(page(api, "/alice/proj/src/branch/main/docs/guide.md"))
    assert "<em>this</em>" in md
    assert page(api, "/alice/proj/src/branch/feature/feature.txt").status == 200
    assert page(api, "/alice/proj/src/tag/v1.0/app.py").status == 200
    sha = api.get(f"{R}/branches/main").json["commit"]["id"]
    assert "def" in text(page(api, f"/alice/proj/src/commit/{sha}/app.py"))
    raw = page(api, "/alice/proj/raw/branch/main/app.py")
    assert raw.status == 200 and raw.body.startswith(b"def greet")
    assert raw.headers["content-security-policy"] == \
        "default-src 'none'; style-src 'unsafe-inline'; sandbox"
    download = page(api, "/alice/proj/raw/branch/main/app.py?download=1")
    assert download.headers["content-disposition"].startswith("attachment")
    assert page(api, "/alice/proj/src/branch/main/missing.txt").status == 404
    assert page(api, "/alice/proj/src/branch/nobranch").status == 404


def test_commits_commit_branches_tags_releases(api, scene):
    listing = text(page(api, "/alice/proj/commits/branch/main?limit=2"))
    assert "Add docs/guide.md" in listing or "guide.md" in listing
    assert 'rel="next"' in listing                              # paged
    sha = api.get(f"{R}/branches/main").json["commit"]["id"]
    commit = text(page(api, f"/alice/proj/commit/{sha}"))
    assert sha in commit and 'class="diff-table highlight"' in commit and "guide.md" in commit
    branches = text(page(api, "/alice/proj/branches"))
    assert ">main<" in branches and ">feature<" in branches
    tags = text(page(api, "/alice/proj/tags"))
    assert ">v1.0<" in tags and 'href="/alice/proj/src/tag/v1.0"' in tags
    releases = text(page(api, "/alice/proj/releases"))
    assert "First release" in releases and "<strong>notes</strong>" in releases
    assert "Source code (ZIP)" in releases


def test_issue_pages(api, scene):
    listing = text(page(api, "/alice/proj/issues"))
    assert "Broken greeting" in listing and "Other thing" in listing
    assert "Add feature" not in listing
    assert "Other thing" not in text(page(api, "/alice/proj/issues?labels=bug"))
    assert "Other thing" not in text(page(api, "/alice/proj/issues?milestone=Launch"))
    searched = text(page(api, "/alice/proj/issues?q=greeting"))
    assert "Broken greeting" in searched and "Other thing" not in searched
    assert "Nothing here" in text(page(api, "/alice/proj/issues?state=closed"))
    paged = text(page(api, "/alice/proj/issues?limit=1"))
    assert 'rel="next"' in paged
    one = text(page(api, f"/alice/proj/issues/{scene['issue']['number']}"))
    assert "<em>fails</em>" in one and "<strong>comment</strong>" in one
    assert SCRIPT not in one and "alert(" not in one
    # The poster's and each commenter's picture, served by this instance (identicons).
    avatars = re.findall(r'<img class="avatar" src="([^"]+)"', one)
    # On this site, by path: the page loads them from the host that served it.
    assert len(avatars) >= 2 and all(a.startswith("/avatars/a") for a in avatars)
    picture = page(api, avatars[0])
    assert picture.status == 200 and picture.headers["content-type"].startswith("image/")
    assert page(api, "/alice/proj/issues/999").status == 404
    assert page(api, "/alice/proj/issues/abc").status == 404


def test_pull_pages(api, scene):
    listing = text(page(api, "/alice/proj/pulls"))
    assert "Add feature" in listing and "Broken greeting" not in listing
    number = scene["pull"]["number"]
    anonymous = text(page(api, f"/alice/proj/pulls/{number}"))
    assert "Add feature" in anonymous and "no conflicts" in anonymous
    # The commits and the changed files are tabs of their own (Forgejo's URLs).
    assert f'href="/alice/proj/pulls/{number}/commits"' in anonymous
    assert f'href="/alice/proj/pulls/{number}/files"' in anonymous
    commits = text(page(api, f"/alice/proj/pulls/{number}/commits"))
    assert 'id="commits"' in commits and scene["pull"]["head"]["sha"][:10] in commits
    files = text(page(api, f"/alice/proj/pulls/{number}/files"))
    assert 'id="files"' in files and "feature.txt" in files
    assert 'name="do"' not in anonymous                        # no merge form for readers
    sha = scene["pull"]["head"]["sha"]
    assert api.post(f"{R}/statuses/{sha}", token=scene["alice"], json={
        "state": "success", "context": "ci/build", "description": "all good"}).status in (200, 201)
    writer = text(page(api, f"/alice/proj/pulls/{number}", scene["alice_cookie"]))
    assert f'action="/alice/proj/pulls/{number}/merge"' in writer and 'name="do"' in writer
    assert 'value="squash"' in writer and "ci/build" in writer
    # The issue URL of a pull request shows the pull request.
    assert "Files changed" in text(page(api, f"/alice/proj/issues/{number}"))


PRIVATE_PAGES = ["/alice/secret", "/alice/secret/src/branch/main/hidden.txt",
                 "/alice/secret/raw/branch/main/hidden.txt", "/alice/secret/commits/branch/main",
                 "/alice/secret/issues", "/alice/secret/issues/1", "/alice/secret/pulls",
                 "/alice/secret/releases", "/alice/secret/branches", "/alice/secret/tags",
                 "/alice/secret/src/branch/main"]


def test_private_repository_is_404_to_strangers_and_anonymous(api, scene):
    for path in PRIVATE_PAGES:
        for cookie in (None, scene["carol_cookie"]):
            r = page(api, path, cookie)
            assert r.status == 404, (path, cookie, r)
            main = text(r).split("<main", 1)[1]
            assert "hidden.txt" not in main and "nothing to see" not in main
            assert "Private trouble" not in main and "secret repository" not in main
    for path in PRIVATE_PAGES:
        assert page(api, path, scene["alice_cookie"]).status == 200, path


def test_assets_are_immutable_and_pages_compressed(api, scene):
    home = text(page(api, "/alice/proj"))
    css = re.search(r'href="(/assets/nimbus\.css\?v=[0-9a-f]+)"', home).group(1)
    js = re.search(r'src="(/assets/nimbus\.js\?v=[0-9a-f]+)"', home).group(1)
    for url in (css, js):
        r = page(api, url)
        assert r.status == 200
        assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
    stale = page(api, "/assets/nimbus.css?v=old")
    assert "immutable" not in stale.headers["cache-control"]
    assert b"prefers-color-scheme: dark" in stale.body and b".highlight .k" in stale.body
    assert page(api, "/assets/missing.css").status == 404
    zipped = page(api, "/alice/proj", **{"Accept-Encoding": "gzip, br"})
    assert zipped.headers["content-encoding"] == "gzip"
    assert b"Project title" in gzip.decompress(zipped.body)
    # A first visit's bytes on the wire: the page, its stylesheet and script.
    first_visit = len(zipped.body) + sum(
        len(page(api, url, **{"Accept-Encoding": "gzip"}).body) for url in (css, js))
    print(f"first visit of a repository home: {first_visit} bytes compressed")
    assert first_visit <= 60 * 1024


def test_git_and_api_routes_are_not_shadowed(api, scene):
    refs = api.get("/alice/proj.git/info/refs?service=git-upload-pack", raw=True)
    assert refs.status == 200
    assert refs.headers["content-type"] == "application/x-git-upload-pack-advertisement"
    assert api.get("/swagger.v1.json", raw=True).status == 200
    assert api.get("/api/swagger", raw=True).status == 200
    assert api.get(R).json["full_name"] == "alice/proj"


def test_ref_switcher_lists_tags(api, scene):
    assert api.post(f"{R}/tags", token=scene["alice"],
                    json={"tag_name": "release/v1.10", "target": "main"}).status == 201
    home = text(page(api, "/alice/proj"))
    switcher = home[home.index('<details class="switch">'):home.index("</details>")]
    assert '<a href="/alice/proj/src/branch/feature">feature</a>' in switcher
    tags = switcher[switcher.index("<strong>Tags</strong>"):]
    assert '<a href="/alice/proj/src/tag/release/v1.10">release/v1.10</a>' in tags
    assert '<a href="/alice/proj/src/tag/v1.0">v1.0</a>' in tags
    assert "main" not in tags and "feature" not in tags          # branches are not tags
    assert page(api, "/alice/proj/src/tag/release/v1.10").status == 200
    # The source pages show the same switcher, with the tag being viewed.
    source = text(page(api, "/alice/proj/src/tag/v1.0/docs"))
    assert "tag: <strong>v1.0</strong>" in source
    assert '<a href="/alice/proj/src/tag/release/v1.10">release/v1.10</a>' in source


def test_unexpected_errors_are_html_pages(api, scene, monkeypatch, caplog):
    from chalicelib import search
    from chalicelib.search import repo_search

    def broken(*_args, **_kwargs):
        raise RuntimeError("secret detail of the failure")

    # The pages search through the face, the API's route through its own module.
    monkeypatch.setattr(search, "search_repos", broken)
    monkeypatch.setattr(repo_search, "search", broken)
    with caplog.at_level("ERROR", logger="nimbus"):
        r = page(api, "/explore/repos")
    body = text(r)
    assert r.status == 500 and r.headers["content-type"].startswith("text/html")
    request_id = r.headers["x-request-id"]
    assert request_id and request_id in body and "<h1>500</h1>" in body
    assert "secret detail" not in body and "RuntimeError" not in body
    lines = [rec.getMessage() for rec in caplog.records]
    detail = [line for line in lines if '"page_exception"' in line]
    assert len(detail) == 1 and request_id in detail[0]
    assert "secret detail of the failure" in detail[0] and "Traceback" in detail[0]
    assert len([line for line in lines if '"server_error"' in line]) == 1
    # The API keeps its JSON 500.
    api_answer = api.get("/repos/search")
    assert api_answer.status == 500
    assert api_answer.headers["content-type"].startswith("application/json")
    assert api_answer.json["request_id"] and "secret detail" not in api_answer.body.decode()


def test_pull_diff_and_patch_urls_answer_the_diff(api, scene):
    """A PullRequest's ``diff_url``/``patch_url`` (tools fetch them: ``cb pr checkout``)."""
    pull = api.get(f"{R}/pulls/{scene['pull']['number']}").json
    for url, marker in ((pull["diff_url"], "diff --git a/feature.txt"),
                        (pull["patch_url"], "Subject: ")):
        r = page(api, url[len("http://nimbus.test"):])
        assert r.status == 200, (url, r)
        assert r.headers["content-type"].startswith("text/plain")
        assert marker in text(r)
    sha = pull["head"]["sha"]
    for kind, marker in (("diff", "diff --git"), ("patch", "From " + sha)):
        r = page(api, f"/alice/proj/commit/{sha}.{kind}")
        assert r.status == 200 and text(r).startswith(marker), (kind, r)
    assert page(api, f"/alice/proj/pulls/{scene['pull']['number']}.exe").status == 404
    # Private: the diff is a 404 to others, a download for the owner's session and a
    # read:repository token.
    secret = f"/alice/secret/commit/{sha}.diff"
    assert page(api, secret).status == 404


def test_unknown_pages_below_a_repository_are_html_404s(api, scene):
    for path in ("/alice/proj/settings", "/alice/proj/projects", "/alice/proj/pulls/4/files",
                 "/alice/secret/settings", "/nobody/nothing/wiki"):
        r = page(api, path)
        assert r.status == 404, (path, r)
        assert r.headers["content-type"].startswith("text/html"), path
        assert "<!DOCTYPE html>" in text(r)
    # The API's unknown paths stay JSON.
    r = api.get("/repos/alice/proj/nothing-here")
    assert r.status == 404 and r.headers["content-type"].startswith("application/json")
