"""WikiPage, WikiPageMetaData, WikiCommit and WikiCommitList records
(fj:services/convert/wiki.go, services/wiki/wiki_path.go ToWikiPageMetaData), field for
field; Forgejo spells the committer ``commiter``."""
from __future__ import annotations

import base64
from typing import TYPE_CHECKING

from chalicelib.http import formats, schemas
from chalicelib.http.schema_types import I, S, ref

if TYPE_CHECKING:
    from chalicelib.wiki.names import PageName
    from chalicelib.wiki.service import Page

# The records' Swagger definitions: Forgejo's names, fields and types, published by
# /swagger.v1.json (``http.schemas``) and checked against what this module builds.
SCHEMAS = schemas.declare({
    "WikiCommit": {"sha": S, "author": ref("CommitUser"), "commiter": ref("CommitUser"),
                   "message": S},
    "WikiCommitList": {"commits": {"type": "array", "items": ref("WikiCommit")}, "count": I},
    "WikiPageMetaData": {"title": S, "html_url": S, "sub_url": S,
                         "last_commit": ref("WikiCommit")},
    "WikiPage": {"title": S, "html_url": S, "sub_url": S, "last_commit": ref("WikiCommit"),
                 "content_base64": S, "commit_count": I, "sidebar": S, "footer": S},
})


def _commit_user(raw: bytes, when: int) -> dict:
    text = raw.decode("utf-8", "replace")
    name, _, email = text.partition("<")
    return {"name": name.strip(), "email": email.rstrip(">").strip(),
            "date": formats.rfc3339(when)}


def wiki_commit(commit) -> dict:
    """ToWikiCommit: the id, author and committer (their times in UTC), the message."""
    return {
        "sha": commit.id.decode(),
        "author": _commit_user(commit.author, commit.author_time),
        "commiter": _commit_user(commit.committer, commit.commit_time),
        "message": commit.message.decode("utf-8", "replace"),
    }


def wiki_commit_list(commits: list, count: int) -> dict:
    return {"commits": [wiki_commit(c) for c in commits], "count": int(count)}


def page_html_url(repo_html_url: str, name: PageName) -> str:
    return f"{repo_html_url}/wiki/{name.web}"


def metadata(name: PageName, commit, repo_html_url: str) -> dict:
    """ToWikiPageMetaData."""
    return {"title": name.title, "html_url": page_html_url(repo_html_url, name),
            "sub_url": name.web, "last_commit": wiki_commit(commit)}


def _b64(data: bytes | None) -> str:
    return base64.b64encode(data).decode("ascii") if data else ""


def wiki_page(page: Page, repo_html_url: str) -> dict:
    """WikiPage: the metadata, the content, the sidebar's and footer's (base64, "" when
    absent or larger than Forgejo answers), and how many commits changed the page."""
    return {**metadata(page.name, page.last_commit, repo_html_url),
            "content_base64": _b64(page.content), "commit_count": int(page.commit_count),
            "sidebar": _b64(page.sidebar), "footer": _b64(page.footer)}
