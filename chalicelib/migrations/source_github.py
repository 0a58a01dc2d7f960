"""The reader of a GitHub project, through the REST API v3 (as Forgejo's github
downloader reads it).

Lists are paged with ``page`` and ``per_page`` (at most 100); a page is the last when
its Link header names no next one.  Issues come oldest first
(``sort=created&direction=asc``) and the issue list's pull requests are skipped (they
are read from ``/pulls``).  The pull list lacks a pull request's comment count and
reactions, so each is read from the pull request's issue (one request, plus the
reactions when it has any).  Reactions are only asked for when the record's summary
counts some.

Review states become Forgejo's: CHANGES_REQUESTED is REQUEST_CHANGES, COMMENTED and
DISMISSED are COMMENT.  A review comment's line is its ``line`` (``original_line`` on
an outdated one), negative on the LEFT side, as Forgejo counts.

An asset is read from its API URL with ``Accept: application/octet-stream``, which
GitHub answers with a redirect to its object store: the token goes to the API host
only, the object store gets the signed URL without it.

The wiki: a project with ``has_wiki`` names ``<clone url without .git>.wiki.git``;
GitHub's API cannot tell whether the wiki has pages, so the importer finds out when
it asks the git server.
"""
from __future__ import annotations

from collections.abc import Iterator

from chalicelib.migrations.project import (
    Asset,
    Branch,
    Comment,
    Issue,
    Label,
    Milestone,
    Page,
    Person,
    ProjectRepo,
    PullRequest,
    Reaction,
    Release,
    Review,
    ReviewComment,
)
from chalicelib.migrations.source_http import (
    SourceHTTP,
    color,
    link_next,
    listed,
    one,
    reaction_name,
    unix,
)

MAX_PER_PAGE = 100
REVIEW_STATES = {"APPROVED": "APPROVED", "CHANGES_REQUESTED": "REQUEST_CHANGES",
                 "COMMENTED": "COMMENT", "DISMISSED": "COMMENT", "PENDING": "PENDING"}


def person(user) -> Person:
    if not isinstance(user, dict):
        return Person()
    return Person(id=int(user.get("id") or 0), login=str(user.get("login") or ""),
                  email=str(user.get("email") or ""))


def reacted(data: dict) -> bool:
    """Whether a record's reaction summary counts any (no summary: ask)."""
    summary = data.get("reactions")
    if not isinstance(summary, dict):
        return True
    return int(summary.get("total_count") or 0) > 0


class GitHubSource:
    def __init__(self, http: SourceHTTP, owner: str, name: str):
        self.http = http
        self.owner, self.name = owner, name
        self.repo_path = f"repos/{owner}/{name}"
        self._repo: ProjectRepo | None = None

    # --- paging ---------------------------------------------------------------------

    def page(self, path: str, params: dict, page: int, per_page: int,
             what: str) -> tuple[list[dict], bool]:
        size = max(1, min(per_page, MAX_PER_PAGE))
        answer = self.http.get(path, {**params, "page": page, "per_page": size})
        items = listed(answer, what)
        return items, link_next(answer.headers) is None or not items

    def every(self, path: str, params: dict, what: str) -> list[dict]:
        found: list[dict] = []
        page = 1
        while True:
            items, last = self.page(path, params, page, MAX_PER_PAGE, what)
            found.extend(items)
            if last:
                return found
            page += 1

    def reactions(self, path: str) -> tuple[Reaction, ...]:
        found = []
        for r in self.every(path, {}, "reaction list"):
            content = reaction_name(r.get("content"))
            if content:
                found.append(Reaction(person=person(r.get("user")), content=content,
                                      created=unix(r.get("created_at"))))
        return tuple(found)

    # --- the project ------------------------------------------------------------------

    def repository(self) -> ProjectRepo:
        if self._repo is None:
            data = one(self.http.get(self.repo_path), "repository")
            owner = data.get("owner") if isinstance(data.get("owner"), dict) else {}
            self._repo = ProjectRepo(
                name=str(data.get("name") or self.name),
                owner=str(owner.get("login") or self.owner),
                description=str(data.get("description") or ""),
                private=bool(data.get("private")),
                default_branch=str(data.get("default_branch") or ""),
                clone_url=str(data.get("clone_url") or ""),
                original_url=str(data.get("html_url") or ""),
                has_wiki=bool(data.get("has_wiki")))
        return self._repo

    def labels(self) -> list[Label]:
        return [Label(name=str(i.get("name") or ""), color=color(i.get("color")),
                      description=str(i.get("description") or ""))
                for i in self.every(f"{self.repo_path}/labels", {}, "label list")]

    def milestones(self) -> list[Milestone]:
        items = self.every(f"{self.repo_path}/milestones", {"state": "all"}, "milestone list")
        return [Milestone(title=str(i.get("title") or ""),
                          description=str(i.get("description") or ""),
                          state="closed" if i.get("state") == "closed" else "open",
                          deadline=unix(i.get("due_on")), created=unix(i.get("created_at")),
                          updated=unix(i.get("updated_at")), closed=unix(i.get("closed_at")))
                for i in items]

    # --- issues and comments ---------------------------------------------------------------

    def issues(self, page: int, per_page: int) -> Page:
        items, last = self.page(f"{self.repo_path}/issues",
                                {"state": "all", "sort": "created", "direction": "asc"},
                                page, per_page, "issue list")
        found = [self.issue(i) for i in items if not i.get("pull_request")]
        return Page(sorted(found, key=lambda issue: issue.number), last)

    def issue(self, data: dict) -> Issue:
        number = int(data.get("number") or 0)
        return Issue(
            number=number, title=str(data.get("title") or ""), author=person(data.get("user")),
            body=str(data.get("body") or ""),
            state="closed" if data.get("state") == "closed" else "open",
            locked=bool(data.get("locked")),
            created=unix(data.get("created_at")), updated=unix(data.get("updated_at")),
            closed=unix(data.get("closed_at")), labels=label_names(data),
            milestone=milestone_title(data), assignees=assignee_logins(data),
            reactions=self.reactions(f"{self.repo_path}/issues/{number}/reactions")
            if reacted(data) else (),
            comment_count=int(data.get("comments") or 0))

    def comments(self, issue_number: int) -> list[Comment]:
        items = self.every(f"{self.repo_path}/issues/{issue_number}/comments", {},
                           "comment list")
        return [Comment(
            issue_number=issue_number, id=int(c.get("id") or 0), author=person(c.get("user")),
            body=str(c.get("body") or ""), created=unix(c.get("created_at")),
            updated=unix(c.get("updated_at")),
            reactions=self.reactions(f"{self.repo_path}/issues/comments/{c.get('id')}/reactions")
            if reacted(c) else ()) for c in items]

    # --- pull requests and reviews ----------------------------------------------------------

    def pull_requests(self, page: int, per_page: int) -> Page:
        items, last = self.page(f"{self.repo_path}/pulls",
                                {"state": "all", "sort": "created", "direction": "asc"},
                                page, per_page, "pull request list")
        found = [self.pull_request(i) for i in items]
        return Page(sorted(found, key=lambda pull: pull.number), last)

    def pull_request(self, data: dict) -> PullRequest:
        number = int(data.get("number") or 0)
        as_issue = one(self.http.get(f"{self.repo_path}/issues/{number}"), "issue")
        merged = bool(data.get("merged_at")) or bool(data.get("merged"))
        return PullRequest(
            number=number, title=str(data.get("title") or ""), author=person(data.get("user")),
            head=branch(data.get("head")), base=branch(data.get("base")),
            body=str(data.get("body") or ""),
            state="closed" if merged or data.get("state") == "closed" else "open",
            merged=merged, merged_at=unix(data.get("merged_at")),
            merge_commit_sha=str(data.get("merge_commit_sha") or "") if merged else "",
            locked=bool(data.get("locked")),
            created=unix(data.get("created_at")), updated=unix(data.get("updated_at")),
            closed=unix(data.get("closed_at")), labels=label_names(data),
            milestone=milestone_title(data), assignees=assignee_logins(data),
            reactions=self.reactions(f"{self.repo_path}/issues/{number}/reactions")
            if reacted(as_issue) else (),
            comment_count=int(as_issue.get("comments") or 0),
            source_ref=f"refs/pull/{number}/head")

    def reviews(self, pull_number: int) -> list[Review]:
        found = []
        for data in self.every(f"{self.repo_path}/pulls/{pull_number}/reviews", {},
                               "review list"):
            state = REVIEW_STATES.get(str(data.get("state") or "").upper())
            if state is None:
                continue
            review_id = int(data.get("id") or 0)
            found.append(Review(
                id=review_id, pull_number=pull_number, author=person(data.get("user")),
                state=state, body=str(data.get("body") or ""),
                commit_id=str(data.get("commit_id") or ""),
                created=unix(data.get("submitted_at")),
                comments=self.review_comments(pull_number, review_id)))
        return found

    def review_comments(self, pull_number: int, review_id: int) -> tuple[ReviewComment, ...]:
        path = f"{self.repo_path}/pulls/{pull_number}/reviews/{review_id}/comments"
        found = []
        for c in self.every(path, {}, "review comment list"):
            line = int(c.get("line") or c.get("original_line") or 0)
            if str(c.get("side") or "").upper() == "LEFT":
                line = -line
            found.append(ReviewComment(
                id=int(c.get("id") or 0), author=person(c.get("user")),
                body=str(c.get("body") or ""), path=str(c.get("path") or ""),
                diff_hunk=str(c.get("diff_hunk") or ""), line=line,
                commit_id=str(c.get("commit_id") or c.get("original_commit_id") or ""),
                in_reply_to=int(c.get("in_reply_to_id") or 0),
                created=unix(c.get("created_at")), updated=unix(c.get("updated_at")),
                reactions=self.reactions(f"{self.repo_path}/pulls/comments/{c.get('id')}"
                                         "/reactions") if reacted(c) else ()))
        return tuple(found)

    # --- releases and the wiki ----------------------------------------------------------------

    def releases(self, page: int, per_page: int) -> Page:
        items, last = self.page(f"{self.repo_path}/releases", {}, page, per_page,
                                "release list")
        return Page([release(i) for i in items], last)

    def asset_stream(self, asset: Asset) -> Iterator[bytes]:
        if asset.download_url.startswith(self.http.base_url + "/"):
            return self.http.stream(asset.download_url, {"Accept": "application/octet-stream"})
        return self.http.stream(asset.download_url)

    def wiki_clone_url(self) -> str:
        repo = self.repository()
        if not repo.has_wiki or not repo.clone_url:
            return ""
        base = repo.clone_url.removesuffix(".git")
        return base + ".wiki.git"


def label_names(data: dict) -> tuple[str, ...]:
    return tuple(str(label.get("name") or "") for label in data.get("labels") or ()
                 if isinstance(label, dict))


def milestone_title(data: dict) -> str:
    milestone = data.get("milestone")
    return str(milestone.get("title") or "") if isinstance(milestone, dict) else ""


def assignee_logins(data: dict) -> tuple[str, ...]:
    return tuple(str(p.get("login") or "") for p in data.get("assignees") or ()
                 if isinstance(p, dict))


def branch(data) -> Branch:
    if not isinstance(data, dict):
        return Branch(ref="", sha="")
    repo = data.get("repo") if isinstance(data.get("repo"), dict) else {}
    owner = repo.get("owner") if isinstance(repo.get("owner"), dict) else {}
    return Branch(ref=str(data.get("ref") or ""), sha=str(data.get("sha") or ""),
                  repo_owner=str(owner.get("login") or ""), repo_name=str(repo.get("name") or ""),
                  clone_url=str(repo.get("clone_url") or ""))


def release(data: dict) -> Release:
    assets = tuple(
        Asset(id=int(a.get("id") or 0), name=str(a.get("name") or ""),
              size=int(a.get("size") or 0),
              download_url=str(a.get("url") or a.get("browser_download_url") or ""),
              content_type=str(a.get("content_type") or "application/octet-stream"),
              download_count=int(a.get("download_count") or 0), created=unix(a.get("created_at")))
        for a in data.get("assets") or () if isinstance(a, dict))
    return Release(tag_name=str(data.get("tag_name") or ""),
                   target=str(data.get("target_commitish") or ""),
                   name=str(data.get("name") or ""), body=str(data.get("body") or ""),
                   draft=bool(data.get("draft")), prerelease=bool(data.get("prerelease")),
                   author=person(data.get("author")), created=unix(data.get("created_at")),
                   published=unix(data.get("published_at")), assets=assets)
