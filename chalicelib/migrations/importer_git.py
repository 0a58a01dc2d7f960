"""The git, wiki and finish steps of a project migration (``steps.py``).

git: the repository's branches and tags, the source's ``refs/pull/<n>/head`` when pull
requests are asked for, and its Git LFS objects when ``lfs`` is (``repo_admin``'s
fetch: the network guard, pinned connections).  Its refs are written, its record is
not; fetching again after a crash writes only what is missing.

wiki: the source's wiki, when this instance has a wiki (``chalicelib.wiki``'s
``open_wiki_git`` and ``set_wiki_refs``) and the source has one; otherwise the step
records that it brought none.

finish: the repository record with its counters (open issues and pull requests from
the tracker, published releases), its HEAD, the tracker's next number and
``RepositoryMigrated``, with the task's ``done``, in one transaction; then its Git LFS
objects are recorded.  A name taken meanwhile fails the migration cleanly.
"""
from __future__ import annotations

import importlib.util

from chalicelib import clock, issues, releases, repo_admin, repos
from chalicelib.errors import ConditionFailed, ConflictError
from chalicelib.migrations.service import unwritten_repo
from chalicelib.migrations.turn import Run, commit


def git(run: Run) -> None:
    task = run.task
    username, password, token = _secrets(run)
    remote = repo_admin.MigrationRemote(url=task.clone_addr,
                                        username=username or ("oauth2" if token else ""),
                                        password=password or token)
    repo = unwritten_repo(task, run.owner)
    fetched = repo_admin.import_git(repo, remote, actor=run.doer,
                                    pull_refs="pull_requests" in task.wanted,
                                    lfs_url=task.lfs_url or "")
    run.state.update(default_branch=fetched.head or run.state.get("default_branch") or
                     repo.default_branch,
                     quota_size=int(run.state.get("quota_size", 0)) + int(repo.quota_size or 0),
                     size=int(repo.size or 0), empty=bool(repo.empty))
    if fetched.lfs_stored or fetched.lfs_held:
        run.state["lfs_stored"] = {**run.state.get("lfs_stored", {}), **fetched.lfs_stored}
        run.state["lfs_held"] = {**run.state.get("lfs_held", {}), **fetched.lfs_held}
        run.counts["lfs_objects"] = len(run.state["lfs_held"])
    commit(run, run.next_step)


def _secrets(run: Run) -> tuple[str, str, str]:
    from chalicelib.migrations.service import credentials

    return credentials(run.task)


def wiki(run: Run) -> None:
    url = run.source.wiki_clone_url() if hasattr(run.source, "wiki_clone_url") else ""
    available = importlib.util.find_spec("chalicelib.wiki") is not None
    if not url or not available:
        run.counts["wiki"] = 0
        run.state["wiki"] = "none at the source" if not url else \
            "not brought: this instance has no wiki"
        commit(run, run.next_step)
        return
    from chalicelib import wiki as wiki_domain
    from chalicelib.repo_admin import MigrationRemote

    username, password, token = _secrets(run)
    repo = unwritten_repo(run.task, run.owner)
    target = wiki_domain.open_wiki_git(repo)
    remote = MigrationRemote(url=url, username=username or ("oauth2" if token else ""),
                             password=password or token)
    refs = repo_admin.fetch_wiki_refs(remote, target)
    wiki_domain.set_wiki_refs(repo, refs, run.doer, repo_written=False)
    run.state["has_wiki_contents"] = bool(getattr(repo, "has_wiki_contents", False))
    run.counts["wiki"] = len(refs)
    commit(run, run.next_step)


def finish(run: Run) -> None:
    """The repository record, then its Git LFS objects.  With objects to record, the
    record's transaction leaves the task running at ``finish`` with ``repo_written``
    in its state, and only their recording marks it done: a worker that dies between
    the two leaves a task that the next turn (the stale-task job, a restart) finishes
    by recording them (idempotent: an object recorded already is not written again)."""
    task = run.task
    repo = unwritten_repo(task, run.owner)
    state = run.state
    lfs_stored, lfs_held = state.get("lfs_stored") or {}, state.get("lfs_held") or {}
    if state.get("repo_written"):
        _record_lfs(run, repo, lfs_stored, lfs_held)
        return
    repo.quota_size = int(state.get("quota_size", 0))
    repo.size = int(state.get("size", 0))
    repo.empty = bool(state.get("empty", True))
    repo.has_wiki_contents = bool(state.get("has_wiki_contents", False))
    if _has_tracker(run):
        repo.num_open_issues, repo.num_open_pulls = issues.import_open_totals(run.repo_id)
    repo.num_releases = releases.imported_published_count(run.repo_id)
    highest = int(state.get("max_number", 0))
    now = clock.seconds()

    pending_lfs = bool(lfs_stored or lfs_held)

    def stage() -> None:
        if highest:
            issues.stage_import_next_number(run.repo_id, highest)
        repo_admin.stage_finished_repo(repo, actor=run.doer)
        if pending_lfs:
            run.state["repo_written"] = True
            run.advance(step="finish")
        else:
            run.advance(status="done", step="finish", finished=now, lease_until=0)

    try:
        commit(run, stage)
    except ConditionFailed as failed:
        run.state.pop("repo_written", None)
        if failed.label in (repos.REPO_CHANGED, repos.REPO_ID_TAKEN):
            raise ConflictError("The repository with the same name already exists.") \
                from None
        raise
    run.finished_repo = repo
    if pending_lfs:
        _record_lfs(run, repo, lfs_stored, lfs_held)


def _record_lfs(run: Run, repo, stored: dict, held: dict) -> None:
    """Record the Git LFS objects of a repository written (again, after a crash: the
    recording skips what is recorded), then the task's ``done``."""
    repo_admin.record_imported_lfs(repo, stored, held)
    commit(run, lambda: run.advance(status="done", step="finish", finished=clock.seconds(),
                                    lease_until=0))


def _has_tracker(run: Run) -> bool:
    wanted = run.task.wanted or ""
    return any(part in wanted for part in ("labels", "milestones", "issues", "pull_requests"))

