"""The reader of a GitLab project, through the REST API v4 (as Forgejo's gitlab
downloader reads it).

The project is found by its URL-encoded path, then read by its id.  Lists are paged
with ``page`` and ``per_page`` (at most 100); a page is the last when
``X-Next-Page`` is empty (else, without that header, when the Link header names no
next page, else when it came short).

Numbers: GitLab numbers issues and merge requests separately (``iid``), Forgejo in
one sequence.  As Forgejo's downloader does, an issue keeps its iid and a merge
request becomes ``iid + the highest issue iid``.  The highest issue iid is asked once
(the newest issue) and kept for the reader's life; a migration that resumes in a new
process passes the offset it used (``pull_offset``) so numbers never shift between
steps.  ``comments(n)`` reads the issue ``n`` or, above the offset, the merge request
``n - offset``.

Comments are the non-system notes; emoji awards become reactions under Forgejo's
names (``thumbsup`` is ``+1``, ``tada`` is ``hooray``, …; an emoji Forgejo has no
name for is left out).  A merge request's approvals are its reviews (state APPROVED):
GitLab's API has no other review records; its diff notes come as comments.  A
merged merge request is closed and merged, its merge (or squash) commit kept; its
head is ``refs/merge-requests/<iid>/head`` at the source.  Release assets are the
release's links, downloaded from their direct URL (the token only when that is the
GitLab host).  The wiki: ``wiki_enabled`` and at least one page name
``<clone url without .git>.wiki.git``.
"""
from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

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


def person(user) -> Person:
    if not isinstance(user, dict):
        return Person()
    return Person(id=int(user.get("id") or 0), login=str(user.get("username") or ""),
                  email=str(user.get("public_email") or user.get("email") or ""))


class GitLabSource:
    def __init__(self, http: SourceHTTP, path: str, *, pull_offset: int | None = None):
        self.http = http
        self.path = path
        self._project: dict | None = None
        self._offset = pull_offset

    def project(self) -> dict:
        if self._project is None:
            self._project = one(self.http.get("projects/" + quote(self.path, safe="")),
                                "project")
        return self._project

    @property
    def project_path(self) -> str:
        return f"projects/{int(self.project().get('id') or 0)}"

    # --- paging ---------------------------------------------------------------------

    def page(self, path: str, params: dict, page: int, per_page: int,
             what: str) -> tuple[list[dict], bool]:
        size = max(1, min(per_page, MAX_PER_PAGE))
        answer = self.http.get(f"{self.project_path}/{path}",
                               {**params, "page": page, "per_page": size})
        items = listed(answer, what)
        if "x-next-page" in answer.headers:
            return items, not answer.headers["x-next-page"].strip()
        if "link" in answer.headers:
            return items, link_next(answer.headers) is None
        return items, len(items) < size

    def every(self, path: str, params: dict, what: str) -> list[dict]:
        found: list[dict] = []
        page = 1
        while True:
            items, last = self.page(path, params, page, MAX_PER_PAGE, what)
            found.extend(items)
            if last or not items:
                return found
            page += 1

    def awards(self, path: str) -> tuple[Reaction, ...]:
        found = []
        for award in self.every(f"{path}/award_emoji", {}, "award list"):
            content = reaction_name(award.get("name"))
            if content:
                found.append(Reaction(person=person(award.get("user")), content=content,
                                      created=unix(award.get("created_at"))))
        return tuple(found)

    def pull_offset(self) -> int:
        """What merge request iids are raised by: the highest issue iid."""
        if self._offset is None:
            newest, _ = self.page("issues", {"state": "all", "order_by": "created_at",
                                             "sort": "desc"}, 1, 1, "issue list")
            self._offset = max((int(i.get("iid") or 0) for i in newest), default=0)
        return self._offset

    # --- the project ------------------------------------------------------------------

    def repository(self) -> ProjectRepo:
        data = self.project()
        namespace = data.get("namespace") if isinstance(data.get("namespace"), dict) else {}
        return ProjectRepo(
            name=str(data.get("path") or data.get("name") or ""),
            owner=str(namespace.get("full_path") or namespace.get("path") or ""),
            description=str(data.get("description") or ""),
            private=data.get("visibility", "public") != "public",
            default_branch=str(data.get("default_branch") or ""),
            clone_url=str(data.get("http_url_to_repo") or ""),
            original_url=str(data.get("web_url") or ""),
            has_wiki=bool(data.get("wiki_enabled")))

    def labels(self) -> list[Label]:
        return [Label(name=str(i.get("name") or ""), color=color(i.get("color")),
                      description=str(i.get("description") or ""))
                for i in self.every("labels", {}, "label list")]

    def milestones(self) -> list[Milestone]:
        found = []
        for i in self.every("milestones", {}, "milestone list"):
            closed = i.get("state") == "closed"
            found.append(Milestone(
                title=str(i.get("title") or ""), description=str(i.get("description") or ""),
                state="closed" if closed else "open", deadline=unix(i.get("due_date")),
                created=unix(i.get("created_at")), updated=unix(i.get("updated_at")),
                closed=unix(i.get("updated_at")) if closed else 0))
        return found

    # --- issues and comments ---------------------------------------------------------------

    def issues(self, page: int, per_page: int) -> Page:
        items, last = self.page("issues", {"state": "all", "order_by": "created_at",
                                           "sort": "asc"}, page, per_page, "issue list")
        found = [self.issue(i) for i in items]
        return Page(sorted(found, key=lambda issue: issue.number), last)

    def issue(self, data: dict) -> Issue:
        iid = int(data.get("iid") or 0)
        return Issue(
            number=iid, title=str(data.get("title") or ""), author=person(data.get("author")),
            body=str(data.get("description") or ""),
            state="closed" if data.get("state") == "closed" else "open",
            locked=bool(data.get("discussion_locked")),
            created=unix(data.get("created_at")), updated=unix(data.get("updated_at")),
            closed=unix(data.get("closed_at")),
            labels=tuple(str(name) for name in data.get("labels") or ()),
            milestone=milestone_title(data), assignees=assignee_logins(data),
            reactions=self.awards(f"issues/{iid}"),
            comment_count=int(data.get("user_notes_count") or 0))

    def comments(self, issue_number: int) -> list[Comment]:
        offset = self.pull_offset()
        owner = f"issues/{issue_number}" if issue_number <= offset \
            else f"merge_requests/{issue_number - offset}"
        found = []
        for note in self.every(f"{owner}/notes", {"sort": "asc", "order_by": "created_at"},
                               "note list"):
            if note.get("system"):
                continue
            note_id = int(note.get("id") or 0)
            found.append(Comment(
                issue_number=issue_number, id=note_id, author=person(note.get("author")),
                body=str(note.get("body") or ""), created=unix(note.get("created_at")),
                updated=unix(note.get("updated_at")),
                reactions=self.awards(f"{owner}/notes/{note_id}")))
        return found

    # --- merge requests and approvals ------------------------------------------------------

    def pull_requests(self, page: int, per_page: int) -> Page:
        items, last = self.page("merge_requests", {"state": "all", "order_by": "created_at",
                                                   "sort": "asc"},
                                page, per_page, "merge request list")
        offset = self.pull_offset()
        found = [self.pull_request(i, offset) for i in items]
        return Page(sorted(found, key=lambda pull: pull.number), last)

    def pull_request(self, data: dict, offset: int) -> PullRequest:
        iid = int(data.get("iid") or 0)
        state = data.get("state")
        merged = state == "merged"
        refs = data.get("diff_refs") if isinstance(data.get("diff_refs"), dict) else {}
        return PullRequest(
            number=iid + offset, title=str(data.get("title") or ""),
            author=person(data.get("author")),
            head=Branch(ref=str(data.get("source_branch") or ""),
                        sha=str(data.get("sha") or refs.get("head_sha") or "")),
            base=Branch(ref=str(data.get("target_branch") or ""),
                        sha=str(refs.get("base_sha") or "")),
            body=str(data.get("description") or ""),
            state="closed" if state in ("closed", "merged") else "open",
            merged=merged, merged_at=unix(data.get("merged_at")) if merged else 0,
            merge_commit_sha=str(data.get("merge_commit_sha") or data.get("squash_commit_sha")
                                 or "") if merged else "",
            locked=bool(data.get("discussion_locked")),
            created=unix(data.get("created_at")), updated=unix(data.get("updated_at")),
            closed=unix(data.get("closed_at") or (data.get("merged_at") if merged else None)),
            labels=tuple(str(name) for name in data.get("labels") or ()),
            milestone=milestone_title(data), assignees=assignee_logins(data),
            reactions=self.awards(f"merge_requests/{iid}"),
            comment_count=int(data.get("user_notes_count") or 0),
            source_ref=f"refs/merge-requests/{iid}/head")

    def reviews(self, pull_number: int) -> list[Review]:
        iid = pull_number - self.pull_offset()
        answer = self.http.get_optional(f"{self.project_path}/merge_requests/{iid}/approvals",
                                        missing=(403, 404))
        if answer is None or not isinstance(answer.data, dict):
            return []
        when = unix(answer.data.get("updated_at") or answer.data.get("created_at"))
        found = []
        for approval in answer.data.get("approved_by") or ():
            who = person(approval.get("user") if isinstance(approval, dict) else None)
            found.append(Review(id=who.id, pull_number=pull_number, author=who,
                                state="APPROVED", created=when))
        return found

    # --- releases and the wiki ----------------------------------------------------------------

    def releases(self, page: int, per_page: int) -> Page:
        items, last = self.page("releases", {}, page, per_page, "release list")
        return Page([release(i) for i in items], last)

    def asset_stream(self, asset: Asset) -> Iterator[bytes]:
        return self.http.stream(asset.download_url)

    def wiki_clone_url(self) -> str:
        repo = self.repository()
        if not repo.has_wiki or not repo.clone_url:
            return ""
        pages = self.http.get_optional(f"{self.project_path}/wikis", missing=(403, 404))
        if pages is None or not isinstance(pages.data, list) or not pages.data:
            return ""
        base = repo.clone_url.removesuffix(".git")
        return base + ".wiki.git"


def milestone_title(data: dict) -> str:
    milestone = data.get("milestone")
    return str(milestone.get("title") or "") if isinstance(milestone, dict) else ""


def assignee_logins(data: dict) -> tuple[str, ...]:
    people = data.get("assignees") or ([data["assignee"]] if data.get("assignee") else [])
    return tuple(person(p).login for p in people if isinstance(p, dict))


def release(data: dict) -> Release:
    links = (data.get("assets") or {}).get("links") if isinstance(data.get("assets"), dict) \
        else ()
    assets = tuple(
        Asset(id=int(link.get("id") or 0), name=str(link.get("name") or ""), size=0,
              download_url=str(link.get("direct_asset_url") or link.get("url") or ""))
        for link in links or () if isinstance(link, dict))
    commit = data.get("commit") if isinstance(data.get("commit"), dict) else {}
    return Release(tag_name=str(data.get("tag_name") or ""), target=str(commit.get("id") or ""),
                   name=str(data.get("name") or ""), body=str(data.get("description") or ""),
                   prerelease=bool(data.get("upcoming_release")),
                   author=person(data.get("author")), created=unix(data.get("created_at")),
                   published=unix(data.get("released_at") or data.get("created_at")),
                   assets=assets)
