"""Pull requests brought in by a project migration (``chalicelib.migrations``): their own
fields as the source had them, and their head ref.

A pull request is an issue item (``issues.import_store`` puts it under its number); this
module gives its ``pull`` JSON and stages ``refs/pull/<n>/head``.  The migration's git
step fetched the source's ``refs/pull/*/head`` already; where the source had none (or
it named another commit), the ref is set to the head commit the source reports, when
that commit came with the fetch.  A merged pull request keeps its merge commit and
time; its head branch, once gone, is named by ``refs/pull/<n>/head`` (``head_gone``),
as Forgejo names it.  An open one is examined against its base as a new one is, so its
mergeability is true from the start; a closed one keeps what the source says.
"""
from __future__ import annotations

from dataclasses import dataclass

from chalicelib.pulls import checks as pull_checks
from chalicelib.pulls.service import pull_ref
from chalicelib.pulls.store import MERGEABLE, PullFields
from chalicelib.store import unit_of_work

ZERO = "0" * 40


@dataclass(frozen=True)
class ImportedPull:
    head_branch: str
    head_sha: str
    base_branch: str
    base_sha: str
    open: bool
    merged: bool = False
    merged_at: int = 0
    merge_commit_sha: str = ""
    verdicts: tuple = ()         # its imported reviews' standing verdicts (reviews domain)


def _has(git, sha: str) -> bool:
    try:
        return bool(sha) and sha.encode() in git.object_store
    except (ValueError, KeyError):
        return False


def pull_fields(git, repo_id: int, imported: ImportedPull) -> str:
    """The pull request's fields (JSON for ``issues.ImportedIssue.pull``)."""
    refs = git.refs
    head_ref = f"refs/heads/{imported.head_branch}".encode()
    head_sha = imported.head_sha
    pull = PullFields(head_repo_id=int(repo_id), head_branch=imported.head_branch,
                      head_sha=head_sha, base_branch=imported.base_branch,
                      base_sha=imported.base_sha, status=MERGEABLE,
                      merged=bool(imported.merged), merged_at=int(imported.merged_at),
                      merge_commit_sha=imported.merge_commit_sha,
                      head_gone=refs.read_loose_ref(head_ref) is None,
                      verdicts=[dict(v) for v in imported.verdicts])
    base_tip = refs.read_loose_ref(f"refs/heads/{imported.base_branch}".encode())
    if imported.open and base_tip and _has(git, head_sha):
        found = pull_checks.examine(git.object_store, base_tip.decode(), head_sha)
        pull.base_sha, pull.merge_base = found.base_sha, found.merge_base
        pull.status, pull.conflicted = found.status, list(found.conflicted)
        pull.additions, pull.deletions = found.additions, found.deletions
        pull.changed_files, pull.commits = found.changed_files, found.commits
    return pull.dumps()


def head_ref_change(git, number: int, head_sha: str) -> tuple[str, str, str] | None:
    """``refs/pull/<n>/head`` to ``head_sha`` when it is not there yet and the commit is
    in the store: (ref, old, new) for ``stage_head_ref``; None when nothing to do."""
    ref = pull_ref(number)
    current = git.refs.read_loose_ref(ref.encode())
    if current is not None or not _has(git, head_sha):
        return None     # fetched from the source already (its truth), or nothing to name
    return ref, ZERO, head_sha


def stage_head_ref(git, change: tuple[str, str, str]) -> None:
    """Stage the ref change (compare-and-swap) in the current unit of work; call
    ``git.refs.refresh()`` after the commit."""
    uow = unit_of_work.current()
    git.refs.stage_updates(uow, git.refs.checked_updates([change]), {})
