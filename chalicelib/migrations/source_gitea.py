"""The reader of a Gitea, Forgejo or Gogs project, through their API v1 (as Forgejo's
gitea and gogs downloaders read it).

Gitea and Forgejo answer everything a project holds.  Lists are paged with ``page`` and
``limit``; ``limit`` is kept within the server's ``max_response_items``
(``/settings/api``), and a page is the last when ``X-Total-Count`` says so, else when
the Link header names no next page, else when it came short.  Issues and pull
requests are asked oldest first (``sort=oldest``) and each page is ordered by number,
so a server that ignores the parameter still gives every page in order.

Gogs has labels, milestones, issues and their comments, and no reactions, pull
request listing, reviews or releases in its API: those read as empty.  Its pages
have a fixed size, so a Gogs list ends at the first empty page.

The wiki: a project whose ``has_wiki`` is set and whose wiki lists a page (Gogs: whose
``has_wiki`` is set) names ``<clone url without .git>.wiki.git``.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

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
    Answer,
    SourceHTTP,
    color,
    link_next,
    listed,
    one,
    unix,
)

DEFAULT_MAX_PER_PAGE = 50
# Review states a migration brings; REQUEST_REVIEW is a request, not a review.
REVIEW_STATES = ("APPROVED", "REQUEST_CHANGES", "COMMENT", "PENDING")


def person(user) -> Person:
    if not isinstance(user, dict):
        return Person()
    return Person(id=int(user.get("id") or 0),
                  login=str(user.get("login") or user.get("username") or ""),
                  email=str(user.get("email") or ""))


def wiki_url_of(clone_url: str) -> str:
    base = clone_url.removesuffix(".git")
    return base + ".wiki.git" if base else ""


class GiteaSource:
    """``service`` is "gitea", "forgejo" or "gogs"; ``base_url`` the server's root
    (with its sub-path, if any)."""

    def __init__(self, http: SourceHTTP, owner: str, name: str, *, service: str = "gitea"):
        self.http = http
        self.owner, self.name = owner, name
        self.gogs = service == "gogs"
        self.repo_path = f"repos/{owner}/{name}"
        self._max_per_page: int | None = None
        self._repo: ProjectRepo | None = None
        self._emails: dict[str, str] = {}

    # --- paging ---------------------------------------------------------------------

    def per_page(self, wanted: int) -> int:
        if self._max_per_page is None:
            answer = None if self.gogs else self.http.get_optional("settings/api")
            found = answer.data.get("max_response_items") if answer and \
                isinstance(answer.data, dict) else None
            self._max_per_page = int(found) if isinstance(found, int) and found > 0 \
                else DEFAULT_MAX_PER_PAGE
        return max(1, min(wanted, self._max_per_page))

    def page(self, path: str, params: dict, page: int, per_page: int,
             what: str) -> tuple[list[dict], bool]:
        size = self.per_page(per_page)
        answer = self.http.get(path, {**params, "page": page, "limit": size})
        items = listed(answer, what)
        return items, self.is_last(answer, items, page, size)

    def is_last(self, answer: Answer, items: list, page: int, size: int) -> bool:
        if self.gogs:
            return not items
        total = answer.headers.get("x-total-count", "").strip()
        if total.isdigit():
            return page * size >= int(total)
        if "link" in answer.headers:
            return link_next(answer.headers) is None
        return len(items) < size

    def every(self, path: str, params: dict, what: str) -> list[dict]:
        found: list[dict] = []
        page = 1
        while True:
            items, last = self.page(path, params, page, DEFAULT_MAX_PER_PAGE, what)
            found.extend(items)
            if last or not items:
                return found
            page += 1

    # --- the project ------------------------------------------------------------------

    def repository(self) -> ProjectRepo:
        if self._repo is None:
            data = one(self.http.get(self.repo_path), "repository")
            owner = data.get("owner") if isinstance(data.get("owner"), dict) else {}
            self._repo = ProjectRepo(
                name=str(data.get("name") or self.name),
                owner=str(owner.get("login") or owner.get("username") or self.owner),
                description=str(data.get("description") or ""),
                private=bool(data.get("private")),
                default_branch=str(data.get("default_branch") or ""),
                clone_url=str(data.get("clone_url") or ""),
                original_url=str(data.get("html_url") or ""),
                has_wiki=bool(data.get("has_wiki")))
        return self._repo

    def labels(self) -> list[Label]:
        items = self.every(f"{self.repo_path}/labels", {}, "label list")
        return [Label(name=str(i.get("name") or ""), color=color(i.get("color")),
                      description=str(i.get("description") or ""),
                      exclusive=bool(i.get("exclusive"))) for i in items]

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
        params = {"state": "all"} if self.gogs else \
            {"state": "all", "type": "issues", "sort": "oldest"}
        items, last = self.page(f"{self.repo_path}/issues", params, page, per_page, "issue list")
        found = [self.issue(i) for i in items if not i.get("pull_request")]
        return Page(sorted(found, key=lambda issue: issue.number), last)

    def issue(self, data: dict) -> Issue:
        number = int(data.get("number") or 0)
        return Issue(
            number=number, title=str(data.get("title") or ""), author=person(data.get("user")),
            body=str(data.get("body") or ""),
            state="closed" if data.get("state") == "closed" else "open",
            locked=bool(data.get("is_locked")),
            created=unix(data.get("created_at")), updated=unix(data.get("updated_at")),
            closed=unix(data.get("closed_at")), labels=label_names(data),
            milestone=milestone_title(data), assignees=assignee_logins(data),
            reactions=self.issue_reactions(number), ref=str(data.get("ref") or ""),
            comment_count=int(data.get("comments") or 0))

    def issue_reactions(self, number: int) -> tuple[Reaction, ...]:
        if self.gogs:
            return ()
        found: list[dict] = []
        page = 1
        while True:
            answer = self.http.get_optional(f"{self.repo_path}/issues/{number}/reactions",
                                            {"page": page, "limit": self.per_page(50)},
                                            missing=(403, 404))
            items = listed(answer, "reaction list") if answer and answer.data is not None else []
            found.extend(items)
            if not items or self.is_last(answer, items, page, self.per_page(50)):
                return reactions(found)
            page += 1

    def comment_reactions(self, comment_id: int) -> tuple[Reaction, ...]:
        if self.gogs:
            return ()
        answer = self.http.get_optional(f"{self.repo_path}/issues/comments/{comment_id}"
                                        "/reactions", missing=(403, 404))
        if answer is None or answer.data is None:
            return ()
        return reactions(listed(answer, "reaction list"))

    def comments(self, issue_number: int) -> list[Comment]:
        answer = self.http.get(f"{self.repo_path}/issues/{issue_number}/comments")
        items = sorted(listed(answer, "comment list"),
                       key=lambda c: (unix(c.get("created_at")), int(c.get("id") or 0)))
        return [Comment(issue_number=issue_number, id=int(c.get("id") or 0),
                        author=person(c.get("user")), body=str(c.get("body") or ""),
                        created=unix(c.get("created_at")), updated=unix(c.get("updated_at")),
                        reactions=self.comment_reactions(int(c.get("id") or 0)))
                for c in items]

    # --- pull requests and reviews ----------------------------------------------------------

    def pull_requests(self, page: int, per_page: int) -> Page:
        if self.gogs:
            return Page([], True)
        items, last = self.page(f"{self.repo_path}/pulls", {"state": "all", "sort": "oldest"},
                                page, per_page, "pull request list")
        found = [self.pull_request(i) for i in items]
        return Page(sorted(found, key=lambda pull: pull.number), last)

    def pull_request(self, data: dict) -> PullRequest:
        number = int(data.get("number") or 0)
        merged = bool(data.get("merged"))
        return PullRequest(
            number=number, title=str(data.get("title") or ""), author=person(data.get("user")),
            head=branch(data.get("head")), base=branch(data.get("base")),
            body=str(data.get("body") or ""),
            state="closed" if merged or data.get("state") == "closed" else "open",
            merged=merged, merged_at=unix(data.get("merged_at")),
            merge_commit_sha=str(data.get("merge_commit_sha") or "") if merged else "",
            locked=bool(data.get("is_locked")),
            created=unix(data.get("created_at")), updated=unix(data.get("updated_at")),
            closed=unix(data.get("closed_at")), labels=label_names(data),
            milestone=milestone_title(data), assignees=assignee_logins(data),
            reactions=self.issue_reactions(number),
            comment_count=int(data.get("comments") or 0),
            source_ref=f"refs/pull/{number}/head")

    def reviews(self, pull_number: int) -> list[Review]:
        if self.gogs:
            return []
        items = self.every(f"{self.repo_path}/pulls/{pull_number}/reviews", {}, "review list")
        found = []
        for data in items:
            state = str(data.get("state") or "").upper()
            if state not in REVIEW_STATES:
                continue
            review_id = int(data.get("id") or 0)
            comments = self.review_comments(pull_number, review_id) \
                if int(data.get("comments_count") or 0) > 0 else ()
            found.append(Review(
                id=review_id, pull_number=pull_number, author=person(data.get("user")),
                state=state, body=str(data.get("body") or ""),
                commit_id=str(data.get("commit_id") or ""), official=bool(data.get("official")),
                created=unix(data.get("submitted_at") or data.get("updated_at")),
                comments=comments))
        return found

    def review_comments(self, pull_number: int, review_id: int) -> tuple[ReviewComment, ...]:
        answer = self.http.get(f"{self.repo_path}/pulls/{pull_number}/reviews/{review_id}"
                               "/comments")
        found = []
        for c in listed(answer, "review comment list"):
            position = int(c.get("position") or 0)
            line = position if position else -int(c.get("original_position") or 0)
            comment_id = int(c.get("id") or 0)
            found.append(ReviewComment(
                id=comment_id, author=person(c.get("user")), body=str(c.get("body") or ""),
                path=str(c.get("path") or ""), diff_hunk=str(c.get("diff_hunk") or ""),
                line=line, commit_id=str(c.get("commit_id") or c.get("original_commit_id") or ""),
                created=unix(c.get("created_at")), updated=unix(c.get("updated_at")),
                reactions=self.comment_reactions(comment_id)))
        return tuple(found)

    # --- releases and the wiki ----------------------------------------------------------------

    def releases(self, page: int, per_page: int) -> Page:
        if self.gogs:
            return Page([], True)
        items, last = self.page(f"{self.repo_path}/releases", {}, page, per_page,
                                "release list")
        return Page([self.with_publisher_email(release(i)) for i in items], last)

    def with_publisher_email(self, found: Release) -> Release:
        """Gitea and Forgejo show a release's publisher as to an anonymous reader (the
        no-reply placeholder for the e-mail); the user's own record shows the address to
        a signed-in reader, so the author can be matched like any other (once a login)."""
        login = found.author.login
        if not login:
            return found
        if login not in self._emails:
            answer = self.http.get_optional(f"users/{login}", missing=(403, 404))
            data = answer.data if answer is not None and isinstance(answer.data, dict) else {}
            self._emails[login] = str(data.get("email") or "")
        email = self._emails[login] or found.author.email
        return replace(found, author=replace(found.author, email=email))

    def asset_stream(self, asset: Asset) -> Iterator[bytes]:
        return self.http.stream(asset.download_url)

    def wiki_clone_url(self) -> str:
        repo = self.repository()
        if not repo.has_wiki:
            return ""
        if not self.gogs:
            answer = self.http.get_optional(f"{self.repo_path}/wiki/pages", {"limit": 1})
            if answer is None or not isinstance(answer.data, list) or not answer.data:
                return ""
        return wiki_url_of(repo.clone_url)


# --- records shared with the issue and pull readings --------------------------------------

def label_names(data: dict) -> tuple[str, ...]:
    return tuple(str(label.get("name") or "") for label in data.get("labels") or ()
                 if isinstance(label, dict))


def milestone_title(data: dict) -> str:
    milestone = data.get("milestone")
    return str(milestone.get("title") or "") if isinstance(milestone, dict) else ""


def assignee_logins(data: dict) -> tuple[str, ...]:
    people = data.get("assignees") or ([data["assignee"]] if data.get("assignee") else [])
    return tuple(person(p).login for p in people if isinstance(p, dict))


def reactions(items: list[dict]) -> tuple[Reaction, ...]:
    return tuple(Reaction(person=person(r.get("user")), content=str(r.get("content") or ""),
                          created=unix(r.get("created_at")))
                 for r in items if r.get("content"))


def branch(data) -> Branch:
    if not isinstance(data, dict):
        return Branch(ref="", sha="")
    repo = data.get("repo") if isinstance(data.get("repo"), dict) else {}
    owner = repo.get("owner") if isinstance(repo.get("owner"), dict) else {}
    return Branch(ref=str(data.get("ref") or ""), sha=str(data.get("sha") or ""),
                  repo_owner=str(owner.get("login") or owner.get("username") or ""),
                  repo_name=str(repo.get("name") or ""),
                  clone_url=str(repo.get("clone_url") or ""))


def release(data: dict) -> Release:
    assets = tuple(
        Asset(id=int(a.get("id") or 0), name=str(a.get("name") or ""),
              size=int(a.get("size") or 0), download_url=str(a.get("browser_download_url") or ""),
              download_count=int(a.get("download_count") or 0), created=unix(a.get("created_at")))
        for a in data.get("assets") or () if isinstance(a, dict))
    return Release(tag_name=str(data.get("tag_name") or ""),
                   target=str(data.get("target_commitish") or ""),
                   name=str(data.get("name") or ""), body=str(data.get("body") or ""),
                   draft=bool(data.get("draft")), prerelease=bool(data.get("prerelease")),
                   author=person(data.get("author")), created=unix(data.get("created_at")),
                   published=unix(data.get("published_at")), assets=assets)
