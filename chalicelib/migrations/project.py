"""A project as any source describes it: the records a migration reads from Gitea,
Forgejo, Gogs, GitHub or GitLab and writes into Nimbus, in one shape.

The readers (``sources``) turn each service's JSON into these; the importer reads
nothing else, so a new source is one reader.  Times are Unix seconds (0: unknown);
numbers are the source's, kept as they are.  A person is named by the source's id,
login and e-mail: the importer matches the e-mail to a local user, or keeps the login
as the record's original author (Forgejo's ``original_author`` fields).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class Person:
    id: int = 0
    login: str = ""
    email: str = ""


@dataclass(frozen=True)
class Reaction:
    person: Person
    content: str                     # "+1", "-1", "laugh", "heart", …
    created: int = 0                 # when it was given (0: unknown)


@dataclass(frozen=True)
class ProjectRepo:
    name: str
    owner: str
    description: str = ""
    private: bool = False
    default_branch: str = ""
    clone_url: str = ""
    original_url: str = ""
    has_wiki: bool = False


@dataclass(frozen=True)
class Label:
    name: str
    color: str                       # "rrggbb", without "#"
    description: str = ""
    exclusive: bool = False


@dataclass(frozen=True)
class Milestone:
    title: str
    description: str = ""
    state: str = "open"              # "open" | "closed"
    deadline: int = 0
    created: int = 0
    updated: int = 0
    closed: int = 0


@dataclass(frozen=True)
class Comment:
    issue_number: int
    id: int                          # the source's id, to resume after it
    author: Person
    body: str
    created: int = 0
    updated: int = 0
    reactions: tuple[Reaction, ...] = ()


@dataclass(frozen=True)
class Issue:
    number: int
    title: str
    author: Person
    body: str = ""
    state: str = "open"              # "open" | "closed"
    locked: bool = False
    created: int = 0
    updated: int = 0
    closed: int = 0
    labels: tuple[str, ...] = ()     # label names
    milestone: str = ""              # milestone title
    assignees: tuple[str, ...] = ()  # logins at the source
    reactions: tuple[Reaction, ...] = ()
    ref: str = ""
    comment_count: int = 0           # lets the importer skip asking for none


@dataclass(frozen=True)
class Branch:
    ref: str                         # branch name at the source
    sha: str
    repo_owner: str = ""
    repo_name: str = ""
    clone_url: str = ""


@dataclass(frozen=True)
class PullRequest:
    number: int
    title: str
    author: Person
    head: Branch
    base: Branch
    body: str = ""
    state: str = "open"              # "open" | "closed" (merged ones are closed)
    merged: bool = False
    merged_at: int = 0
    merge_commit_sha: str = ""
    locked: bool = False
    created: int = 0
    updated: int = 0
    closed: int = 0
    labels: tuple[str, ...] = ()
    milestone: str = ""
    assignees: tuple[str, ...] = ()
    reactions: tuple[Reaction, ...] = ()
    comment_count: int = 0
    # The ref at the source holding the head's commits, when it keeps one
    # (GitHub, Gitea: refs/pull/N/head; GitLab: refs/merge-requests/IID/head).
    source_ref: str = ""


@dataclass(frozen=True)
class ReviewComment:
    id: int
    author: Person
    body: str
    path: str = ""
    diff_hunk: str = ""
    line: int = 0                    # > 0: new side, < 0: old side (Forgejo's convention)
    commit_id: str = ""
    in_reply_to: int = 0
    created: int = 0
    updated: int = 0
    reactions: tuple[Reaction, ...] = ()


@dataclass(frozen=True)
class Review:
    id: int
    pull_number: int
    author: Person
    state: str                       # "APPROVED" | "REQUEST_CHANGES" | "COMMENT" | "PENDING"
    body: str = ""
    commit_id: str = ""
    official: bool = False
    created: int = 0
    comments: tuple[ReviewComment, ...] = ()


@dataclass(frozen=True)
class Asset:
    id: int
    name: str
    size: int
    download_url: str
    content_type: str = "application/octet-stream"
    download_count: int = 0
    created: int = 0


@dataclass(frozen=True)
class Release:
    tag_name: str
    target: str = ""                 # target commitish
    name: str = ""
    body: str = ""
    draft: bool = False
    prerelease: bool = False
    author: Person = field(default_factory=Person)
    created: int = 0
    published: int = 0
    assets: tuple[Asset, ...] = ()


@dataclass(frozen=True)
class Page:
    """One page of a list: the records and whether it was the last."""
    items: list
    last: bool


class Source(Protocol):
    """What a reader of one service answers.  Paged lists take 1-based pages; a reader
    raises ``errors.InvalidInput`` with a clear message when the source refuses."""

    def repository(self) -> ProjectRepo: ...
    def labels(self) -> list[Label]: ...
    def milestones(self) -> list[Milestone]: ...
    def issues(self, page: int, per_page: int) -> Page: ...            # Issue, no pulls
    def comments(self, issue_number: int) -> list[Comment]: ...       # issue or pull
    def pull_requests(self, page: int, per_page: int) -> Page: ...     # PullRequest
    def reviews(self, pull_number: int) -> list[Review]: ...
    def releases(self, page: int, per_page: int) -> Page: ...          # Release
    def asset_stream(self, asset: Asset) -> Iterator[bytes]: ...       # its bytes
    def wiki_clone_url(self) -> str: ...                               # "" if none
