"""The reviews domain's items in the table: its models (and key layouts).

Only this domain's modules import this module; other domains reach these items
through the domain's face (``chalicelib/reviews/__init__.py``).
"""
from __future__ import annotations

from pynamodb.attributes import BooleanAttribute, NumberAttribute, UnicodeAttribute

from chalicelib.store.keys import keys as shared_keys
from chalicelib.store.table import Item

# A review's state while its author has not submitted it (Forgejo's name).
PENDING = "PENDING"


class ReviewItem(Item, discriminator="review"):
    id = NumberAttribute()
    number = NumberAttribute()
    reviewer_id = NumberAttribute(default=0)
    reviewer = UnicodeAttribute(default="{}")
    team_id = NumberAttribute(default=0)
    team = UnicodeAttribute(default="{}")
    state = UnicodeAttribute(default=PENDING)
    body = UnicodeAttribute(default="")
    commit_id = UnicodeAttribute(default="")
    official = BooleanAttribute(default=False)
    stale = BooleanAttribute(default=False)
    dismissed = BooleanAttribute(default=False)
    submitted_at = NumberAttribute(default=0)
    updated = NumberAttribute(default=0)
    comments_count = NumberAttribute(default=0)
    version = NumberAttribute(default=1)


class ReviewCommentItem(Item, discriminator="reviewcomment"):
    id = NumberAttribute()
    number = NumberAttribute()
    review_id = NumberAttribute()
    poster_id = NumberAttribute(default=0)
    poster = UnicodeAttribute(default="{}")
    body = UnicodeAttribute(default="")
    path = UnicodeAttribute(default="")
    line = NumberAttribute(default=0)
    commit_id = UnicodeAttribute(default="")
    original_commit_id = UnicodeAttribute(default="")
    diff_hunk = UnicodeAttribute(default="")
    invalidated = BooleanAttribute(default=False)
    created = NumberAttribute(default=0)
    updated = NumberAttribute(default=0)


class keys(shared_keys):  # noqa: N801 - a namespace of key builders
    """Key layouts of the reviews domain's items (docs/data-model.md)."""

    # Code review (reviews/store.py): a pull request's reviews, and each review's code
    # comments, in the repository's partition under the pull request's number.
    @staticmethod
    def review(repo_id: int, number: int, review_id: int) -> tuple[str, str]:
        return shared_keys.repo_partition(repo_id), f"REVIEW#{number:010d}#{review_id:015d}"

    @staticmethod
    def review_prefix(number: int) -> str:
        return f"REVIEW#{number:010d}#"

    @staticmethod
    def review_comment(repo_id: int, number: int, review_id: int,
                       comment_id: int) -> tuple[str, str]:
        return shared_keys.repo_partition(repo_id), f"REVIEWC#{number:010d}#{review_id:015d}#{comment_id:015d}"

    @staticmethod
    def review_comment_prefix(number: int, review_id: int | None = None) -> str:
        if review_id is None:
            return f"REVIEWC#{number:010d}#"
        return f"REVIEWC#{number:010d}#{review_id:015d}#"
