"""The tracker steps of a project migration (``steps.py``): labels, milestones, issues
and pull requests, written through ``issues``' and ``pulls``' import functions.

Issues and pull requests are read a page at a time.  The cursor says where the step
stands: ``page``, ``index`` (records of that page done) and ``comments`` (-1: the
record at ``index`` is not written yet; n: it is, with its first n comments).  Each
transaction holds one record or one chunk of its comments (with their reactions) and
the cursor that counts them, so a resumed step writes each exactly once.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from chalicelib import accounts, issues, pulls, repos
from chalicelib.migrations import importer_reviews
from chalicelib.migrations.project import Comment, Issue, PullRequest
from chalicelib.migrations.turn import Run, commit, each_page

PER_PAGE = 50
# Items of one comment chunk (a comment is two items plus one per reaction), below
# DynamoDB's 100 per transaction with the tracker and the task beside them.
CHUNK_ITEMS = 80


def labels(run: Run) -> None:
    tracker = issues.ensure_import_tracker(run.repo_id)
    wanted = [{"name": label.name, "color": label.color, "description": label.description,
               "exclusive": label.exclusive} for label in run.source.labels()]

    def stage() -> None:
        run.count("labels", issues.stage_imported_labels(run.repo_id, tracker, wanted))
        run.next_step()

    commit(run, stage)


def milestones(run: Run) -> None:
    tracker = issues.ensure_import_tracker(run.repo_id)
    wanted = [{"title": m.title, "description": m.description, "state": m.state,
               "due": m.deadline, "created": m.created, "updated": m.updated,
               "closed": m.closed} for m in run.source.milestones()]

    def stage() -> None:
        run.count("milestones", issues.stage_imported_milestones(run.repo_id, tracker, wanted))
        run.next_step()

    commit(run, stage)


def issues_step(run: Run) -> None:
    _records(run, run.source.issues, "issues")


def pulls_step(run: Run) -> None:
    _records(run, run.source.pull_requests, "pulls")


def _records(run: Run, read_page, kind: str) -> None:
    """Issues or pull requests from the cursor on, until the turn ends or the last page
    is done."""
    issues.ensure_import_tracker(run.repo_id)
    git = _git(run) if kind == "pulls" else None
    each_page(run, lambda page_no: read_page(page_no, PER_PAGE),
              lambda run, record, position: _one(run, record, git), {"comments": -1})


def _one(run: Run, record, git) -> None:
    """One issue or pull request with its comments (and a pull request's reviews, after
    them: ``importer_reviews``), resuming inside it."""
    tracker_domain = issues
    number = int(record.number)
    found_reviews = importer_reviews.read(run, record)
    comments: list[Comment] = run.source.comments(number) \
        if int(getattr(record, "comment_count", 0) or 0) or _always_ask(record) else []
    done = int(run.cursor.get("comments", -1))
    index = int(run.cursor.get("index", 0))
    part = importer_reviews.carried(run.cursor)
    if done < 0:
        tracker = tracker_domain.get_tracker(run.repo_id, consistent=True)
        part = importer_reviews.first_cursor(found_reviews)
        imported = _imported(run, record, len(comments), git,
                             importer_reviews.verdicts(run, number, found_reviews, part))

        def stage_record() -> None:
            tracker_domain.stage_imported_issue(run.repo_id, tracker, imported)
            tracker_domain.stage_imported_reactions(run.repo_id, number, 0,
                                                    _reactions(run, record.reactions,
                                                               int(record.created)))
            if isinstance(record, PullRequest) and git is not None:
                change = pulls.imported_head_ref_change(git, number, record.head.sha)
                if change is not None:
                    pulls.stage_imported_head_ref(git, change)
            run.count("pulls" if isinstance(record, PullRequest) else "issues")
            run.count("reactions", len(record.reactions))
            run.highest(number)
            _cursor_after(run, index, 0, len(comments), part)
            run.advance()

        commit(run, stage_record)
        if git is not None:
            git.refs.refresh()
        done = 0
    issue = tracker_domain.imported_issue(run.repo_id, number)
    while done < len(comments):
        chunk, items = [], 0
        for comment in comments[done:]:
            cost = 2 + len(comment.reactions)
            if chunk and items + cost > CHUNK_ITEMS:
                break
            chunk.append(comment)
            items += cost
        converted = tuple(issues.ImportedComment(
            run.author(c.author), c.body, int(c.created), int(c.updated or c.created),
            tuple(_reactions(run, c.reactions, int(c.created)))) for c in chunk)
        written = done + len(chunk)
        commit(run, functools.partial(_stage_chunk, run, issue, converted,
                                      _Place(index, written, len(comments), part)))
        done = written
    if part:
        importer_reviews.write(run, number, index, found_reviews, part)


@dataclass(frozen=True)
class _Place:
    """Where a chunk of comments leaves the record: its index in the page, the comments
    written with the chunk, how many it has, and the reviews' part that follows."""
    index: int
    written: int
    total: int
    part: dict


def _stage_chunk(run: Run, issue, converted: tuple, place: _Place) -> None:
    """One chunk of a record's comments (with their reactions) and the cursor after it;
    its values bound by the caller, never read from a loop's variables."""
    issues.stage_imported_comments(issue, list(converted))
    run.count("comments", len(converted))
    run.count("reactions", sum(len(c.reactions) for c in converted))
    _cursor_after(run, place.index, place.written, place.total, place.part)
    run.advance()


def _always_ask(record) -> bool:
    """A reader that cannot tell how many comments a record has gives -1."""
    return int(getattr(record, "comment_count", 0) or 0) < 0


def _cursor_after(run: Run, index: int, done: int, total: int, part: dict) -> None:
    """Past the record when its comments are done and no reviews follow; else at it,
    with the comments written and the reviews' part (``importer_reviews``)."""
    if done >= total and not part:
        run.cursor = {"page": int(run.cursor.get("page", 1)), "index": index + 1,
                      "comments": -1}
    else:
        run.cursor = {"page": int(run.cursor.get("page", 1)), "index": index,
                      "comments": done, **part}


def _reactions(run: Run, reactions, given: int) -> list:
    """The reactions with their own time; a source that gives none (0) dates them as the
    record they react to (``given``), never at the epoch."""
    return [issues.ImportedReaction(run.author(r.person), r.content,
                                    int(getattr(r, "created", 0) or given))
            for r in reactions]


def _imported(run: Run, record, num_comments: int, git, verdicts: tuple = ()):
    """The record as ``issues.import_store`` takes it."""
    common = dict(number=int(record.number), title=record.title,
                  author=run.author(record.author), body=record.body or "",
                  state=record.state, created=int(record.created),
                  updated=int(record.updated or record.created), closed=int(record.closed),
                  locked=bool(record.locked), labels=tuple(record.labels),
                  milestone=record.milestone, num_comments=num_comments,
                  assignees=_assignees(run, record.assignees))
    if not isinstance(record, PullRequest):
        assert isinstance(record, Issue)
        return issues.ImportedIssue(ref=record.ref, **common)
    fields = pulls.imported_pull_fields(git, run.repo_id, pulls.ImportedPull(
        head_branch=record.head.ref, head_sha=record.head.sha,
        base_branch=record.base.ref, base_sha=record.base.sha,
        open=record.state == "open" and not record.merged, merged=bool(record.merged),
        merged_at=int(record.merged_at), merge_commit_sha=record.merge_commit_sha,
        verdicts=verdicts))
    if record.merged:
        common["state"] = "closed"
        common["closed"] = int(record.closed or record.merged_at)
    return issues.ImportedIssue(is_pull=True, pull=fields, **common)


def _assignees(run: Run, logins) -> tuple:
    """The source's assignees (logins) as local users of those names who may be
    assigned here (write access to the issues, Forgejo's CanBeAssigned); anyone else is
    dropped, as Forgejo's migration drops them.  Asked once per login per turn."""
    from chalicelib.migrations.service import unwritten_repo

    known = run.__dict__.setdefault("assignable", {})
    wanted = [name for name in dict.fromkeys(str(n).lower() for n in logins if n)
              if name not in known]
    if wanted:
        found = accounts.accounts_by_login(wanted)
        repo = unwritten_repo(run.task, run.owner)
        for name in wanted:
            account = found.get(name)
            known[name] = account if account is not None and not repos.is_org(account) \
                and repos.repo_access(account, repo, run.owner, unit="repo.issues") \
                >= repos.Access.WRITE else None
    picked = {int(a.id): a for a in (known[str(n).lower()] for n in logins if n) if a}
    return tuple(picked.values())


def _git(run: Run):
    from chalicelib.gitstore import repo as gitrepo

    return gitrepo.open_repo(run.repo_id, int(run.task.pool_id))
