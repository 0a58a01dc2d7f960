"""Notification threads -> Forgejo's NotificationThread, NotificationSubject and
NotificationCount records, field for field (Forgejo's ``services/convert/notification.go``):
a thread's repository is shown as to a reader (Forgejo converts it with read access),
and an issue's subject links its latest comment when it has one."""
from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote

from chalicelib import repos
from chalicelib.http import formats, schemas
from chalicelib.http.schema_types import B, I, S, T, ref
from chalicelib.notifications.states import ISSUE, PINNED, PULL, RELEASE, UNREAD

if TYPE_CHECKING:
    from chalicelib.notifications.models import Thread

SCHEMAS = schemas.declare({
    "NotificationThread": {"id": I, "pinned": B, "repository": ref("Repository"),
                           "subject": ref("NotificationSubject"), "unread": B,
                           "updated_at": T, "url": S},
    "NotificationSubject": {"html_url": S, "latest_comment_html_url": S,
                            "latest_comment_url": S, "state": S, "title": S, "type": S,
                            "url": S},
    "NotificationCount": {"new": I},
}, lists=("NotificationThread",))


def thread_url(thread_id: int) -> str:
    return f"{formats.app_url()}api/v1/notifications/threads/{int(thread_id)}"


def subject(thread: "Thread", view) -> dict:
    api = repos.repo_api_url(view.owner.login, view.repo.name)
    html = repos.repo_html_url(view)
    found = {"title": thread.title, "url": "", "latest_comment_url": "", "html_url": "",
             "latest_comment_html_url": "", "type": thread.source, "state": thread.state}
    if thread.source in (ISSUE, PULL):
        kind = "pulls" if thread.source == PULL else "issues"
        found["url"] = f"{api}/issues/{int(thread.number)}"
        found["html_url"] = f"{html}/{kind}/{int(thread.number)}"
        if thread.latest_comment_id:
            comment = int(thread.latest_comment_id)
            found["latest_comment_url"] = f"{api}/issues/comments/{comment}"
            found["latest_comment_html_url"] = f"{found['html_url']}#issuecomment-{comment}"
    elif thread.source == RELEASE:
        found["url"] = f"{api}/releases/{int(thread.subject_id)}"
        found["html_url"] = f"{html}/releases/tag/{quote(thread.release_tag, safe='')}"
    else:
        found["url"] = found["html_url"] = html
    return found


def thread(item: "Thread", view, viewer) -> dict:
    """A NotificationThread; ``view`` is the repository as a reader sees it."""
    return {
        "id": int(item.id),
        "repository": repos.repository_record(view, viewer),
        "subject": subject(item, view),
        "unread": item.status == UNREAD,
        "pinned": item.status == PINNED,
        "updated_at": formats.rfc3339(item.updated),
        "url": thread_url(int(item.id)),
    }


def watch_info(subscribed: bool, created: float, issue_api_url: str, repo_api_url: str) -> dict:
    """Forgejo's answer to "am I subscribed to this issue" (a WatchInfo)."""
    return {"subscribed": subscribed, "ignored": not subscribed, "reason": None,
            "created_at": formats.rfc3339(created), "url": f"{issue_api_url}/subscriptions",
            "repository_url": repo_api_url}
