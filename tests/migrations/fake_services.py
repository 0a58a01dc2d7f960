"""Small HTTP servers on loopback that answer like GitHub, GitLab and Gitea for one
small project, so the migration readers can be tested without the Internet.

Each fake is a thread serving canned JSON, paged the service's way (GitHub: Link
headers; Gitea: X-Total-Count and Link; GitLab: X-Next-Page), and records every
request it gets (path and headers) so tests can see where the token went.  Every
fake answers its label list with a 429 once before the real answer; its release asset
lives on a second server (``files``): GitHub's through a redirect from its API, the
others' directly.

The project, the same at every service: labels bug and feature, milestones v1 (open)
and v0 (closed), issues 1-3 (1 with a comment and reactions, 3 closed), pull
requests 4 (merged, approved with a line comment) and 5 (open), release v1.0 with
the asset app.bin.
"""
from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

ASSET_BYTES = b"\x00binary asset\xff" * 1000
TOKEN = "s3cret-token-value"
T1, T2, T3 = "2024-01-02T03:04:05Z", "2024-01-03T00:00:00Z", "2024-02-01T10:00:00+01:00"
U1, U2, U3 = 1704164645, 1704240000, 1706778000
HEAD_SHA, BASE_SHA, MERGE_SHA = "a" * 40, "b" * 40, "c" * 40


@dataclass
class Seen:
    method: str
    path: str
    query: dict
    headers: dict
    client_port: int = 0


@dataclass
class FakeServer:
    """One loopback server; ``routes`` maps a path to a function of the request that
    answers ``(status, headers, body)``."""
    routes: dict[str, Callable] = field(default_factory=dict)
    seen: list[Seen] = field(default_factory=list)
    url: str = ""

    def start(self) -> FakeServer:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"       # keep-alive, as the real services
            disable_nagle_algorithm = True      # headers and body without a delayed ACK

            def do_GET(self):
                parts = urlsplit(self.path)
                request = Seen("GET", parts.path, {k: v[-1] for k, v in
                                                   parse_qs(parts.query).items()},
                               {k.lower(): v for k, v in self.headers.items()},
                               self.client_address[1])
                fake.seen.append(request)
                route = fake.routes.get(parts.path)
                status, headers, body = route(request) if route else \
                    (404, {"Content-Type": "application/json"}, b'{"message":"Not Found"}')
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02},
                         daemon=True).start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def requests_to(self, path: str) -> list[Seen]:
        return [s for s in self.seen if s.path == path]


def as_json(data, status: int = 200, headers: dict | None = None):
    return status, {"Content-Type": "application/json; charset=utf-8", **(headers or {})}, \
        json.dumps(data).encode()


def once_429(answer: Callable) -> Callable:
    """An answer that is a 429 (Retry-After: 0) the first time."""
    state = {"refused": False}

    def route(request):
        if not state["refused"]:
            state["refused"] = True
            return as_json({"message": "slow down"}, 429, {"Retry-After": "0"})
        return answer(request)
    return route


def paged(items: list, style: str, base: str, path: str):
    """A route answering ``items`` paged the way ``style`` (github, gitea, gitlab) does."""
    def route(request):
        size = int(request.query.get("per_page") or request.query.get("limit") or 30)
        page = int(request.query.get("page") or 1)
        chunk = items[(page - 1) * size: page * size]
        more = page * size < len(items)
        headers = {}
        if style in ("github", "gitea") and more:
            headers["Link"] = f'<{base}{path}?page={page + 1}&per_page={size}>; rel="next"'
        if style == "gitea":
            headers["X-Total-Count"] = str(len(items))
        if style == "gitlab":
            headers["X-Next-Page"] = str(page + 1) if more else ""
        return as_json(chunk, headers=headers)
    return route


def fixed(data):
    return lambda request: as_json(data)


def asset_server() -> FakeServer:
    files = FakeServer().start()
    files.routes["/files/app.bin"] = lambda request: (
        200, {"Content-Type": "application/octet-stream"}, ASSET_BYTES)
    return files


# --- Gitea / Forgejo -----------------------------------------------------------------

def gitea_user(uid: int, login: str) -> dict:
    return {"id": uid, "login": login, "email": f"{login}@example.com"}


ALICE, BOB = gitea_user(1, "alice"), gitea_user(2, "bob")


def gitea(files: FakeServer) -> FakeServer:
    server = FakeServer().start()
    base, api = server.url, "/api/v1/repos/alice/proj"
    labels = [{"id": 1, "name": "bug", "color": "ee0701", "description": "broken",
               "exclusive": False},
              {"id": 2, "name": "feature", "color": "#00ff00", "description": ""}]
    milestones = [{"id": 1, "title": "v1", "state": "open", "due_on": T3, "created_at": T1,
                   "updated_at": T2, "description": "first"},
                  {"id": 2, "title": "v0", "state": "closed", "created_at": T1,
                   "updated_at": T2, "closed_at": T2}]

    def issue(number, state="open", **more):
        return {"number": number, "title": f"Issue {number}", "user": ALICE, "body": "text",
                "state": state, "created_at": T1, "updated_at": T2,
                "closed_at": T2 if state == "closed" else None, "labels": [], "milestone": None,
                "assignees": [], "comments": 0, "is_locked": False, **more}
    issues = [issue(1, labels=[labels[0]], milestone=milestones[0], assignees=[BOB],
                    comments=1),
              issue(2), issue(3, "closed")]
    pulls = [{**issue(4, "closed"), "title": "Add feature", "merged": True,
              "merged_at": T3, "merge_commit_sha": MERGE_SHA, "comments": 0,
              "head": {"ref": "feature", "sha": HEAD_SHA,
                       "repo": {"name": "proj", "owner": ALICE,
                                "clone_url": f"{base}/alice/proj.git"}},
              "base": {"ref": "main", "sha": BASE_SHA, "repo": {"name": "proj", "owner": ALICE}}},
             {**issue(5), "merged": False, "merged_at": None, "merge_commit_sha": None,
              "head": {"ref": "wip", "sha": HEAD_SHA}, "base": {"ref": "main", "sha": BASE_SHA}}]
    r = server.routes
    r["/api/v1/settings/api"] = fixed({"max_response_items": 2})
    r[api] = fixed({"name": "proj", "owner": ALICE, "description": "a project",
                    "private": False, "default_branch": "main",
                    "clone_url": f"{base}/alice/proj.git", "html_url": f"{base}/alice/proj",
                    "has_wiki": True})
    r[f"{api}/labels"] = once_429(paged(labels, "gitea", base, f"{api}/labels"))
    r[f"{api}/milestones"] = paged(milestones, "gitea", base, f"{api}/milestones")
    r[f"{api}/issues"] = lambda q: paged(pulls if q.query.get("type") == "pulls" else issues,
                                         "gitea", base, f"{api}/issues")(q)
    r[f"{api}/issues/1/reactions"] = paged(
        [{"user": BOB, "content": "+1", "created_at": T2},
         {"user": ALICE, "content": "rocket", "created_at": T2}], "gitea", base, "")
    r[f"{api}/issues/1/comments"] = fixed([{"id": 11, "user": BOB, "body": "me too",
                                            "created_at": T2, "updated_at": T2}])
    r[f"{api}/issues/comments/11/reactions"] = fixed([{"user": ALICE, "content": "heart"}])
    r[f"{api}/pulls"] = paged(pulls, "gitea", base, f"{api}/pulls")
    r[f"{api}/pulls/4/reviews"] = paged(
        [{"id": 7, "user": BOB, "body": "ship it", "state": "APPROVED", "commit_id": HEAD_SHA,
          "official": True, "submitted_at": T3, "comments_count": 1},
         {"id": 8, "user": BOB, "state": "REQUEST_REVIEW", "comments_count": 0}],
        "gitea", base, "")
    r[f"{api}/pulls/4/reviews/7/comments"] = fixed(
        [{"id": 21, "user": BOB, "body": "nice line", "path": "a.txt", "diff_hunk": "@@ -1 +1 @@",
          "position": 0, "original_position": 3, "commit_id": HEAD_SHA, "created_at": T3,
          "updated_at": T3}])
    r[f"{api}/releases"] = paged(
        [{"id": 1, "tag_name": "v1.0", "target_commitish": "main", "name": "One",
          "body": "notes", "draft": False, "prerelease": True, "author": ALICE,
          "created_at": T1, "published_at": T2,
          "assets": [{"id": 31, "name": "app.bin", "size": len(ASSET_BYTES),
                      "download_count": 3, "created_at": T2,
                      "browser_download_url": f"{files.url}/files/app.bin"}]}],
        "gitea", base, f"{api}/releases")
    r[f"{api}/wiki/pages"] = fixed([{"title": "Home"}])
    return server


# --- GitHub (Enterprise layout: the API at /api/v3) --------------------------------------

def github(files: FakeServer) -> FakeServer:
    server = FakeServer().start()
    base, api = server.url, "/api/v3/repos/alice/proj"
    alice = {"id": 1, "login": "alice"}
    bob = {"id": 2, "login": "bob", "email": "bob@example.com"}
    labels = [{"name": "bug", "color": "ee0701", "description": "broken"},
              {"name": "feature", "color": "00ff00", "description": None}]
    milestones = [{"title": "v1", "state": "open", "due_on": T3, "created_at": T1,
                   "updated_at": T2},
                  {"title": "v0", "state": "closed", "created_at": T1, "closed_at": T2}]

    def issue(number, state="open", reactions=0, **more):
        return {"number": number, "title": f"Issue {number}", "user": alice, "body": "text",
                "state": state, "locked": False, "created_at": T1, "updated_at": T2,
                "closed_at": T2 if state == "closed" else None, "labels": [],
                "milestone": None, "assignees": [], "comments": 0,
                "reactions": {"total_count": reactions}, **more}
    issues = [issue(1, reactions=2, labels=[labels[0]], milestone=milestones[0],
                    assignees=[bob], comments=1),
              issue(2), issue(3, "closed"),
              issue(4, "closed", pull_request={"url": "x"}, comments=2, reactions=1),
              issue(5, pull_request={"url": "y"})]
    pulls = [{"number": 4, "title": "Add feature", "user": bob, "body": "please",
              "state": "closed", "created_at": T1, "updated_at": T2, "closed_at": T3,
              "merged_at": T3, "merge_commit_sha": MERGE_SHA, "labels": [], "assignees": [],
              "head": {"ref": "feature", "sha": HEAD_SHA,
                       "repo": {"name": "proj", "owner": bob,
                                "clone_url": "https://github.com/bob/proj.git"}},
              "base": {"ref": "main", "sha": BASE_SHA}},
             {"number": 5, "title": "WIP", "user": alice, "state": "open", "created_at": T2,
              "merged_at": None, "merge_commit_sha": "d" * 40,
              "head": {"ref": "wip", "sha": HEAD_SHA}, "base": {"ref": "main", "sha": BASE_SHA}}]
    r = server.routes
    r[api] = fixed({"name": "proj", "owner": alice, "description": "a project",
                    "private": True, "default_branch": "main",
                    "clone_url": "https://github.com/alice/proj.git",
                    "html_url": "https://github.com/alice/proj", "has_wiki": True})
    r[f"{api}/labels"] = once_429(paged(labels, "github", base, f"{api}/labels"))
    r[f"{api}/milestones"] = paged(milestones, "github", base, f"{api}/milestones")
    r[f"{api}/issues"] = paged(issues, "github", base, f"{api}/issues")
    for number, data in ((4, issues[3]), (5, issues[4])):
        r[f"{api}/issues/{number}"] = fixed(data)
    r[f"{api}/issues/1/reactions"] = paged(
        [{"user": bob, "content": "+1", "created_at": T2},
         {"user": alice, "content": "hooray", "created_at": T3}],
        "github", base, f"{api}/issues/1/reactions")
    r[f"{api}/issues/4/reactions"] = paged([{"user": alice, "content": "rocket"}],
                                           "github", base, "")
    r[f"{api}/issues/1/comments"] = paged(
        [{"id": 11, "user": bob, "body": "me too", "created_at": T2, "updated_at": T2,
          "reactions": {"total_count": 1}}], "github", base, "")
    r[f"{api}/issues/comments/11/reactions"] = paged([{"user": alice, "content": "heart"}],
                                                     "github", base, "")
    r[f"{api}/pulls"] = paged(pulls, "github", base, f"{api}/pulls")
    r[f"{api}/pulls/4/reviews"] = paged(
        [{"id": 7, "user": bob, "body": "ship it", "state": "APPROVED", "commit_id": HEAD_SHA,
          "submitted_at": T3},
         {"id": 8, "user": alice, "body": "fix this", "state": "CHANGES_REQUESTED",
          "submitted_at": T2}], "github", base, "")
    r[f"{api}/pulls/4/reviews/7/comments"] = paged(
        [{"id": 21, "user": bob, "body": "nice line", "path": "a.txt", "diff_hunk": "@@",
          "line": 3, "side": "RIGHT", "commit_id": HEAD_SHA, "in_reply_to_id": None,
          "created_at": T3, "updated_at": T3, "reactions": {"total_count": 0}}],
        "github", base, "")
    r[f"{api}/pulls/4/reviews/8/comments"] = paged(
        [{"id": 22, "user": alice, "body": "old side", "path": "a.txt", "line": None,
          "original_line": 2, "side": "LEFT", "in_reply_to_id": 21,
          "reactions": {"total_count": 0}}], "github", base, "")
    r[f"{api}/releases"] = paged(
        [{"id": 1, "tag_name": "v1.0", "target_commitish": "main", "name": "One",
          "body": "notes", "draft": False, "prerelease": False, "author": alice,
          "created_at": T1, "published_at": T2,
          "assets": [{"id": 31, "name": "app.bin", "size": len(ASSET_BYTES),
                      "content_type": "application/x-binary", "download_count": 3,
                      "created_at": T2, "url": f"{base}{api}/releases/assets/31",
                      "browser_download_url": "https://github.com/alice/proj/app.bin"}]}],
        "github", base, f"{api}/releases")

    def asset(request):
        if request.headers.get("accept") != "application/octet-stream":
            return as_json({"id": 31})
        return 302, {"Location": f"{files.url}/files/app.bin?signature=x"}, b""
    r[f"{api}/releases/assets/31"] = asset
    return server


# --- GitLab ---------------------------------------------------------------------------

def gitlab(files: FakeServer) -> FakeServer:
    server = FakeServer().start()
    base, api = server.url, "/api/v4/projects/9"
    alice = {"id": 1, "username": "alice", "public_email": "alice@example.com"}
    bob = {"id": 2, "username": "bob"}
    labels = [{"name": "bug", "color": "#EE0701", "description": "broken"},
              {"name": "feature", "color": "#00ff00"}]
    milestones = [{"title": "v1", "state": "active", "due_date": "2024-02-01",
                   "created_at": T1, "updated_at": T2},
                  {"title": "v0", "state": "closed", "created_at": T1, "updated_at": T2}]

    def issue(iid, state="opened", **more):
        return {"iid": iid, "id": 100 + iid, "title": f"Issue {iid}", "author": alice,
                "description": "text", "state": state, "created_at": T1, "updated_at": T2,
                "closed_at": T2 if state == "closed" else None, "labels": [],
                "milestone": None, "assignees": [], "user_notes_count": 0,
                "discussion_locked": None, **more}
    issues = [issue(1, labels=["bug"], milestone=milestones[0], assignees=[bob],
                    user_notes_count=1),
              issue(2), issue(3, "closed")]
    mrs = [{"iid": 1, "title": "Add feature", "author": bob, "description": "please",
            "state": "merged", "created_at": T1, "updated_at": T2, "merged_at": T3,
            "closed_at": None, "merge_commit_sha": MERGE_SHA, "source_branch": "feature",
            "target_branch": "main", "sha": HEAD_SHA, "diff_refs": {"base_sha": BASE_SHA},
            "labels": [], "user_notes_count": 0},
           {"iid": 2, "title": "WIP", "author": alice, "state": "opened", "created_at": T2,
            "source_branch": "wip", "target_branch": "main", "sha": HEAD_SHA}]
    r = server.routes
    r["/api/v4/projects/alice%2Fproj"] = fixed({
        "id": 9, "name": "Proj", "path": "proj", "namespace": {"full_path": "alice"},
        "description": "a project", "visibility": "internal", "default_branch": "main",
        "http_url_to_repo": f"{base}/alice/proj.git", "web_url": f"{base}/alice/proj",
        "wiki_enabled": True})

    def issue_list(request):
        if request.query.get("sort") == "desc":
            return paged(issues[::-1], "gitlab", base, "")(request)
        return paged(issues, "gitlab", base, "")(request)
    r[f"{api}/labels"] = once_429(paged(labels, "gitlab", base, ""))
    r[f"{api}/milestones"] = paged(milestones, "gitlab", base, "")
    r[f"{api}/issues"] = issue_list
    for iid in (2, 3):
        r[f"{api}/issues/{iid}/award_emoji"] = paged([], "gitlab", base, "")
    r[f"{api}/issues/1/award_emoji"] = paged(
        [{"name": "thumbsup", "user": bob, "created_at": T2},
         {"name": "tada", "user": alice, "created_at": T3},
         {"name": "custom_party_parrot", "user": bob}], "gitlab", base, "")
    r[f"{api}/issues/1/notes"] = paged(
        [{"id": 50, "body": "added ~bug label", "system": True, "author": alice},
         {"id": 51, "body": "me too", "system": False, "author": bob, "created_at": T2,
          "updated_at": T2}], "gitlab", base, "")
    r[f"{api}/issues/1/notes/51/award_emoji"] = paged([{"name": "heart", "user": alice}],
                                                      "gitlab", base, "")
    r[f"{api}/merge_requests"] = paged(mrs, "gitlab", base, "")
    for iid in (1, 2):
        r[f"{api}/merge_requests/{iid}/award_emoji"] = paged([], "gitlab", base, "")
    r[f"{api}/merge_requests/1/notes"] = paged(
        [{"id": 60, "body": "looks good", "system": False, "author": alice,
          "created_at": T3}], "gitlab", base, "")
    r[f"{api}/merge_requests/1/notes/60/award_emoji"] = paged([], "gitlab", base, "")
    r[f"{api}/merge_requests/1/approvals"] = fixed(
        {"created_at": T1, "updated_at": T3, "approved_by": [{"user": alice}]})
    r[f"{api}/releases"] = paged(
        [{"tag_name": "v1.0", "name": "One", "description": "notes", "created_at": T1,
          "released_at": T2, "author": alice, "commit": {"id": HEAD_SHA},
          "assets": {"links": [{"id": 31, "name": "app.bin",
                                "url": f"{files.url}/files/app.bin",
                                "direct_asset_url": f"{files.url}/files/app.bin"}]}}],
        "gitlab", base, "")
    r[f"{api}/wikis"] = fixed([{"slug": "home"}])
    return server
