"""Scenarios for the web pages (chalicelib/web): every page a reader opens, anonymous
and signed in (the session cookie: pages take no token; its account is one more item in
the same batch).  Raw files are downloads, which a token may fetch too.

``alice/demo`` (auto-initialized: a README) gets, once, a second file, a branch with a
pull request, a tag, a release and an issue with a comment.

The sign-in and sign-out POSTs carry a session cookie and a CSRF token, which the
bench's requests cannot: they are EXEMPT here and covered by tests/web/test_web_session.py.
"""
from __future__ import annotations

import base64

from scene import Req, Scene, after

DEMO = "/repos/alice/demo"
WEB = "/alice/demo"


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def web_scene(s: Scene) -> dict:
    def build() -> dict:
        s.must("POST", f"{DEMO}/contents/app.py", "token",
               {"content": _b64("def main():\n    return 1\n")})
        s.must("POST", f"{DEMO}/contents/web.txt", "token",
               {"content": _b64("web\n"), "new_branch": "web-feature"})
        s.must("POST", f"{DEMO}/tags", "token", {"tag_name": "web-v1"})
        s.must("POST", f"{DEMO}/releases", "token", {"tag_name": "web-v1", "name": "Web v1",
                                                     "body": "notes"})
        issue = s.must("POST", f"{DEMO}/issues", "token", {"title": "Web issue", "body": "*x*"})
        s.must("POST", f"{DEMO}/issues/{issue['number']}/comments", "token", {"body": "ok"})
        pull = s.must("POST", f"{DEMO}/pulls", "token", {"head": "web-feature", "base": "main",
                                                         "title": "Web pull"})
        head = s.must("GET", f"{DEMO}/branches/main", "token", expect=200)["commit"]["id"]
        return {"issue": issue["number"], "pull": pull["number"], "head": head}
    return s.once("web_scene", build)


def both(path: str) -> list[Req]:
    return [Req("GET", path), Req("GET", path, "session")]


def scenarios() -> dict:
    return {
        "webHome": lambda s: both("/"),
        "webExploreRepos": lambda s: both("/explore/repos?q=demo"),
        "webProfile": lambda s: both("/alice"),
        "webRepoHome": lambda s: after(web_scene(s), both(WEB)),
        "webRepoSource": lambda s: after(web_scene(s), both(f"{WEB}/src/branch/main/app.py")),
        "webRepoRaw": lambda s: after(web_scene(s), both(f"{WEB}/raw/branch/main/app.py")
                                                  + [Req("GET", f"{WEB}/raw/branch/main/app.py",
                                                         "token")]),
        "webRepoCommits": lambda s: after(web_scene(s), both(f"{WEB}/commits/branch/main")),
        "webRepoCommitsOfTag": lambda s: after(web_scene(s), both(f"{WEB}/commits/tag/web-v1")),
        "webRepoCommit": lambda s: both(f"{WEB}/commit/{web_scene(s)['head']}"),
        "webRepoBranches": lambda s: after(web_scene(s), both(f"{WEB}/branches")),
        "webRepoTags": lambda s: after(web_scene(s), both(f"{WEB}/tags")),
        "webRepoReleases": lambda s: after(web_scene(s), both(f"{WEB}/releases")),
        "webRepoRelease": lambda s: after(web_scene(s), both(f"{WEB}/releases/tag/web-v1")),
        "webRepoIssues": lambda s: after(web_scene(s), both(f"{WEB}/issues")),
        "webRepoIssue": lambda s: both(f"{WEB}/issues/{web_scene(s)['issue']}"),
        "webRepoPulls": lambda s: after(web_scene(s), both(f"{WEB}/pulls")),
        "webRepoPull": lambda s: both(f"{WEB}/pulls/{web_scene(s)['pull']}"),
        "webRepoPullFiles": lambda s: both(f"{WEB}/pulls/{web_scene(s)['pull']}/files"),
        "webPullDiffOrPatch": lambda s: both(f"{WEB}/pulls/{web_scene(s)['pull']}.diff"),
        "webCommitDiffOrPatch": lambda s: both(f"{WEB}/commit/{web_scene(s)['head']}.patch"),
        "webAsset": lambda s: [Req("GET", "/assets/nimbus.css")],
        "webLoginForm": lambda s: [Req("GET", "/user/login")],
        # The forms, signed in.
        "webRepoCreateForm": lambda s: [Req("GET", "/repo/create", "session")],
        "webIssueNewForm": lambda s: after(web_scene(s), [Req("GET", f"{WEB}/issues/new",
                                                              "session")]),
        "webCompareChoose": lambda s: after(web_scene(s), [    # on to base...head
            Req("GET", f"{WEB}/compare?base=main&head=web-feature", "session", expect=303)]),
        "webCompare": lambda s: after(web_scene(s), [
            Req("GET", f"{WEB}/compare/main...web-feature", "session")]),
        "webReleaseNewForm": lambda s: [Req("GET", f"{WEB}/releases/new", "session")],
        "webApplications": lambda s: [Req("GET", "/user/settings/applications", "session")],
        "webRepoSettingsBranches": lambda s: [Req("GET", f"{WEB}/settings/branches",
                                                  "session")],
    }


_FORM_POST = "a form POST needs a session cookie and its CSRF token (tests/web/test_web_actions.py)"
EXEMPT = {
    "webRepoPageNotFound": "its only answer is a 404 page that reads nothing, so it has no "
                           "success path to count (tests/web/test_web_pages.py)",
    "webLogin": "needs the sign-in form's cookie and CSRF token (tests/web/test_web_session.py)",
    "webLogout": "needs a session cookie and its CSRF token (tests/web/test_web_session.py)",
    **{op: _FORM_POST for op in (
        "webRepoCreate", "webIssueNew", "webIssueComment", "webCompareOpenPull",
        "webPullMerge", "webReleaseNew", "webApplicationsCreate", "webApplicationsDelete",
        "webPullReviewSubmit", "webPullReviewComment", "webRepoBranchProtectionCreate",
        "webRepoBranchProtectionDelete", "webRepoTagProtectionCreate",
        "webRepoTagProtectionDelete")},
}

# The repository home: the two preload batches, then one open of the repository (refs
# and pack list) that serves the listing, the README and the branch and tag switcher.
# A file page the same.  The sign-in form reads (and on first use creates) the session
# key in SSM, once per container.
BUDGETS = {
    ("webRepoHome", "anon"): 4,
    ("webRepoHome", "session"): 4,
    ("webRepoSource", "anon"): 4,
    ("webAsset", "anon"): 0,
    # A diff or patch: the two preload batches, the pull request (or the repository's
    # refs) and the repository's pack list; the same as the API's.
    ("webPullDiffOrPatch", "anon"): 4,
    ("webPullDiffOrPatch", "session"): 4,
    ("webCommitDiffOrPatch", "anon"): 4,
    # A pull request: the preloads, the pull request, its commits, files and diff, the
    # head's statuses, and one Query for its reviews (one more for their code comments
    # once it has reviews), one for the references its timeline shows and one for the
    # reactions of the whole page.  The files view reads no commit list.
    ("webRepoPull", "anon"): 14,
    ("webRepoPull", "session"): 14,
    ("webRepoPullFiles", "anon"): 8,
    ("webRepoPullFiles", "session"): 8,
    # The protection page: the preloads and the repository's rules item (one GetItem).
    ("webRepoSettingsBranches", "session"): 3,
    ("webLoginForm", "anon"): 2,
}
