"""The activity domain's words and key layouts, without storage: Forgejo's op types,
the 15-minute buckets of the heatmap, and the keys ``models.py`` lays out (rules and
records use these; only the store touches the items)."""
from __future__ import annotations

from datetime import datetime, timezone

# Forgejo's op types (``models/activities/action.go``) this forge records.
CREATE_REPO, STAR_REPO, WATCH_REPO = "create_repo", "star_repo", "watch_repo"
COMMIT_REPO, PUSH_TAG = "commit_repo", "push_tag"
DELETE_BRANCH, DELETE_TAG = "delete_branch", "delete_tag"
CREATE_ISSUE, CREATE_PULL_REQUEST = "create_issue", "create_pull_request"
CLOSE_ISSUE, REOPEN_ISSUE = "close_issue", "reopen_issue"
CLOSE_PULL_REQUEST, REOPEN_PULL_REQUEST = "close_pull_request", "reopen_pull_request"
MERGE_PULL_REQUEST = "merge_pull_request"
COMMENT_ISSUE, COMMENT_PULL = "comment_issue", "comment_pull"
PUBLISH_RELEASE = "publish_release"

# Heatmap: Forgejo groups contributions by ``created_unix / 900 * 900`` over the last
# 365 days (31536000 seconds).
BUCKET_SECONDS = 900
BUCKETS_PER_DAY = 86400 // BUCKET_SECONDS
HEATMAP_SECONDS = 31536000
DAY_SECONDS = 86400
# Enough digits for a Unix time with microseconds, and for ids below 2**53.
TIME_WIDTH, ID_WIDTH = 17, 16


def day_of(unix: float) -> str:
    return datetime.fromtimestamp(int(unix), tz=timezone.utc).strftime("%Y-%m-%d")


def bucket_of(unix: float) -> int:
    """The bucket's index within its (UTC) day."""
    return (int(unix) % DAY_SECONDS) // BUCKET_SECONDS


def all_field(bucket: int) -> str:
    """The counter of every contribution in the bucket."""
    return f"q{int(bucket):02d}"


def public_field(bucket: int) -> str:
    """The counter of the contributions to public repositories in the bucket."""
    return f"p{int(bucket):02d}"


class akeys:  # noqa: N801 - key builders of this domain
    @staticmethod
    def copy(event_id: str, user_id: int) -> tuple[str, str]:
        """One feed's copy of an event's activity: keyed by the event, so a redelivered
        event finds it written."""
        return f"ACTE#{event_id}", f"U#{int(user_id)}"

    @staticmethod
    def team_copy(event_id: str, team_id: int) -> tuple[str, str]:
        """A team's copy of the organization's activity, beside the event's other copies."""
        return f"ACTE#{event_id}", f"T#{int(team_id)}"

    @staticmethod
    def user_feed(user_id: int) -> str:
        return f"ACTU#{int(user_id)}"

    @staticmethod
    def team_feed(team_id: int) -> str:
        return f"ACTT#{int(team_id)}"

    @staticmethod
    def repo_feed(repo_id: int) -> str:
        return f"ACTR#{int(repo_id)}"

    @staticmethod
    def order(created: float, activity_id: int) -> str:
        return f"{created:0{TIME_WIDTH}.6f}#{int(activity_id):0{ID_WIDTH}d}"

    @staticmethod
    def heatmap(user_id: int) -> str:
        return f"ACTH#{int(user_id)}"

    @staticmethod
    def heatmap_day(user_id: int, day: str) -> tuple[str, str]:
        return akeys.heatmap(user_id), f"D#{day}"
