"""The notifications domain's words and key layouts, without storage: thread statuses,
the boxes they sit in, subject types, and the keys ``models.py`` lays out (rules and
records use these; only the store touches the items)."""
from __future__ import annotations

UNREAD, READ, PINNED = "unread", "read", "pinned"
STATUSES = (UNREAD, READ, PINNED)
ACTIVE_BOX, READ_BOX = "active", "read"
# Subject types, as Forgejo's API names them.
ISSUE, PULL, COMMIT, REPOSITORY, RELEASE = "Issue", "Pull", "Commit", "Repository", "Release"
# Enough digits for a Unix time with microseconds, and for ids below 2**53.
TIME_WIDTH, ID_WIDTH = 17, 16


class nkeys:  # noqa: N801 - key builders of this domain
    THREAD_SK = "THREAD"

    @staticmethod
    def thread(thread_id: int) -> tuple[str, str]:
        return f"NTF#{int(thread_id)}", nkeys.THREAD_SK

    @staticmethod
    def box(status: str) -> str:
        return READ_BOX if status == READ else ACTIVE_BOX

    @staticmethod
    def user_box(user_id: int, box: str) -> str:
        return f"NTFU#{int(user_id)}#{box}"

    @staticmethod
    def repo_box(user_id: int, repo_id: int, box: str) -> str:
        return f"NTFR#{int(user_id)}#{int(repo_id)}#{box}"

    @staticmethod
    def order(updated: float, thread_id: int) -> str:
        return f"{updated:0{TIME_WIDTH}.6f}#{int(thread_id):0{ID_WIDTH}d}"

    @staticmethod
    def subject(source: str, subject_id: int) -> str:
        return f"NTFS#{source}#{int(subject_id)}"

    @staticmethod
    def subject_link(source: str, subject_id: int, user_id: int) -> tuple[str, str]:
        return nkeys.subject(source, subject_id), f"U#{int(user_id)}"

    @staticmethod
    def watchers(issue_id: int) -> str:
        return f"NTFW#{int(issue_id)}"

    @staticmethod
    def subscription(issue_id: int, user_id: int) -> tuple[str, str]:
        return nkeys.watchers(issue_id), f"U#{int(user_id)}"
