"""Scenarios for the wiki API (issue 39): alice's demo repository gets, once, a wiki
with a home page, a sidebar and a footer; the reads list it, read the home page and its
revisions; each write gets a page (or a repository) of its own, so it measures a change,
not a repeat.
"""
from __future__ import annotations

import base64

from scenarios_git import receive_pack_body, upload_pack_body
from scenarios_repos import DEMO
from scene import Req, Scene, after


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def demo_wiki(s: Scene) -> None:
    def build() -> None:
        for title, text in (("Home", "# Demo\n"), ("_Sidebar", "side"), ("_Footer", "foot")):
            s.must("POST", f"{DEMO}/wiki/new", "token",
                   {"title": title, "content_base64": _b64(text)}, expect=201)
    s.once("demo_wiki", build)


def wiki_page(s: Scene) -> str:
    """A new page of the demo wiki, its sub_url."""
    title = s.unique("Page ")
    made = s.must("POST", f"{DEMO}/wiki/new", "token",
                  {"title": title, "content_base64": _b64("text")}, expect=201)
    return made["sub_url"]


def wiki_head(s: Scene, repo: str = "demo") -> str:
    """The tip of alice's ``repo``'s wiki branch (read as git reads it)."""
    from chalicelib import repos, wiki

    with wiki.open_wiki_git(repos.repo_by_name("alice", repo)) as git:
        return git.refs[b"refs/heads/main"].decode()


def wiki_push(s: Scene) -> list[Req]:
    """A fast-forward push of one new page to a fresh repository's wiki."""
    repo = s.new_repo()
    s.must("POST", f"/repos/alice/{repo}/wiki/new", "token",
           {"title": "Home", "content_base64": _b64("first")}, expect=201)
    body = receive_pack_body({"Pushed.md": s.unique("pushed ").encode()}, wiki_head(s, repo))
    return [Req("POST", f"/alice/{repo}.wiki.git/git-receive-pack", "token", data=body,
                content_type="application/x-git-receive-pack-request",
                expect_body=b"ok refs/heads/main")]


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {
        "repoGetWikiPages": lambda s: after(demo_wiki(s), [
            Req("GET", f"{DEMO}/wiki/pages"), Req("GET", f"{DEMO}/wiki/pages", "token")]),
        "repoGetWikiPage": lambda s: after(demo_wiki(s), [
            Req("GET", f"{DEMO}/wiki/page/Home"), Req("GET", f"{DEMO}/wiki/page/Home", "token")]),
        "repoGetWikiPageRevisions": lambda s: after(demo_wiki(s), [
            Req("GET", f"{DEMO}/wiki/revisions/Home"),
            Req("GET", f"{DEMO}/wiki/revisions/Home", "token")]),
        # The first page of a repository's wiki (the branch and the flag appear).
        "repoCreateWikiPage": lambda s: [Req("POST", f"/repos/alice/{s.new_repo()}/wiki/new",
                                             "token", {"title": "Home",
                                                       "content_base64": _b64("first")}, 201)],
        "repoEditWikiPage": lambda s: after(demo_wiki(s), [Req(
            "PATCH", f"{DEMO}/wiki/page/{wiki_page(s)}", "token",
            {"content_base64": _b64("edited")}, 200)]),
        "repoDeleteWikiPage": lambda s: after(demo_wiki(s), [Req(
            "DELETE", f"{DEMO}/wiki/page/{wiki_page(s)}", "token", expect=204)]),
        # git on the wiki: what a clone of it asks, then a push of a page.
        "gitWikiInfoRefs": lambda s: after(demo_wiki(s), [
            Req("GET", "/alice/demo.wiki.git/info/refs?service=git-upload-pack")]),
        "gitWikiUploadPack": lambda s: after(demo_wiki(s), [Req(
            "POST", "/alice/demo.wiki.git/git-upload-pack", data=upload_pack_body(wiki_head(s)),
            content_type="application/x-git-upload-pack-request", expect_body=b"PACK")]),
        "gitWikiReceivePack": wiki_push,
    }


# A read: the two preload batches (the repository with the token, then the caller's
# access), the wiki's refs (one Query) and its pack list (one Query); the packs
# themselves come from the local cache once read (each write publishes one pack: an
# uncompacted wiki's first read of a page downloads each pack's index once).  A write:
# the preloads, the refs and pack list, the pack's upload (two PutObject) and its
# publication (one transaction), the ref's compare-and-swap with the repository's flag
# (one transaction), then the answer's read of the page on a fresh open (refs, packs).
BUDGETS = {
    ("repoGetWikiPages", "anon"): 4,
    ("repoGetWikiPages", "token"): 4,
    ("repoGetWikiPage", "anon"): 4,
    ("repoGetWikiPage", "token"): 4,
    ("repoGetWikiPageRevisions", "anon"): 4,
    ("repoGetWikiPageRevisions", "token"): 4,
    ("repoCreateWikiPage", "token"): 9,
    ("repoEditWikiPage", "token"): 10,
    ("repoDeleteWikiPage", "token"): 8,
    # git: as the repository's own (the preloads, its refs, its pack list); a push
    # stores its pack (two PutObject, one PutItem) and moves the branch with the
    # repository's flag by compare-and-swap (one transaction).
    ("gitWikiInfoRefs", "anon"): 4,
    ("gitWikiUploadPack", "anon"): 4,
    ("gitWikiReceivePack", "token"): 7,
}
