"""A pull request's reviews in a project migration's pulls step (``importer_tracker``),
written through ``reviews``' import functions after the pull request's comments.

The source's submitted reviews are read in the order of their ids.  When the pull
request is written, each gets its local id, kept in the cursor (``review_ids``: source
id → local id) and named by the verdicts the pull request is written with.  Then each
transaction holds one review with a chunk of its code comments (or a further chunk),
and the cursor that counts them (``reviews``: reviews done, in that order;
``review_comments``: comments written of the next one), so a resumed step writes each
exactly once; a review's key is taken once, so even a cursor gone wrong cannot double
it.  A review the source drops meanwhile is skipped; one it adds meanwhile is not
brought (its pull request was written without it).
"""
from __future__ import annotations

from chalicelib import reviews
from chalicelib.migrations.project import PullRequest, Review
from chalicelib.migrations.turn import Run, commit

# What comes in: a pending review is its author's alone, a review request no review.
SUBMITTED = ("APPROVED", "REQUEST_CHANGES", "COMMENT")
# Code comments of one transaction (one item each), beside the review and the task.
CHUNK_ITEMS = 80


def read(run: Run, record) -> list[Review]:
    """The pull request's submitted reviews, in source id order ([] for an issue)."""
    if not isinstance(record, PullRequest):
        return []
    found = [r for r in run.source.reviews(int(record.number)) if r.state in SUBMITTED]
    return sorted(found, key=lambda r: int(r.id))


def first_cursor(found: list[Review]) -> dict:
    """The cursor's review part when the pull request is written: local ids given
    ({} when it has no reviews)."""
    if not found:
        return {}
    return {"review_ids": reviews.imported_review_ids(r.id for r in found), "reviews": 0,
            "review_comments": 0}


def carried(cursor: dict) -> dict:
    """The cursor's review part, as a resumed step finds it."""
    if not cursor.get("review_ids"):
        return {}
    return {"review_ids": cursor["review_ids"], "reviews": int(cursor.get("reviews", 0)),
            "review_comments": int(cursor.get("review_comments", 0))}


def _imported(run: Run, review: Review, local_id: int) -> reviews.ImportedReview:
    return reviews.ImportedReview(
        local_id=int(local_id), author=run.author(review.author), state=review.state,
        body=review.body or "", commit_id=review.commit_id or "",
        official=bool(review.official), created=int(review.created),
        num_comments=len(review.comments))


def verdicts(run: Run, number: int, found: list[Review], part: dict) -> tuple:
    """The standing verdicts the pull request is written with."""
    local = part.get("review_ids") or {}
    return tuple(reviews.imported_verdicts(
        number, [_imported(run, r, local[str(r.id)]) for r in found if str(r.id) in local]))


def write(run: Run, number: int, index: int, found: list[Review], part: dict) -> None:
    """The reviews from the cursor on; the cursor moves past the pull request with the
    last of them."""
    local = part["review_ids"]
    order = sorted(local, key=int)
    by_id = {str(r.id): r for r in found}
    done, written = int(part.get("reviews", 0)), int(part.get("review_comments", 0))
    page = int(run.cursor.get("page", 1))
    while done < len(order):
        review = by_id.get(order[done])
        imported = _imported(run, review, local[order[done]]) if review is not None else None
        chunk = list(review.comments[written:written + CHUNK_ITEMS]) if review else []
        converted = [reviews.ImportedReviewComment(
            author=run.author(c.author), body=c.body or "", path=c.path, line=int(c.line),
            diff_hunk=c.diff_hunk or "", commit_id=c.commit_id or imported.commit_id,
            created=int(c.created), updated=int(c.updated or c.created)) for c in chunk]
        finished = review is None or written + len(chunk) >= len(review.comments)
        after = (done + 1, 0) if finished else (done, written + len(chunk))

        def stage(imported=imported, converted=converted, first=written == 0,
                  after=after) -> None:
            if imported is not None:
                if first:
                    reviews.stage_imported_review(run.repo_id, number, imported)
                    run.count("reviews")
                reviews.stage_imported_review_comments(run.repo_id, number,
                                                       imported.local_id, converted)
                run.count("review_comments", len(converted))
            if after[0] >= len(order):
                run.cursor = {"page": page, "index": index + 1, "comments": -1}
            else:
                run.cursor = {**run.cursor, "reviews": after[0], "review_comments": after[1]}
            run.advance()

        commit(run, stage)
        done, written = after
