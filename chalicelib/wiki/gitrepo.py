"""Where a repository's wiki lives in git, and reading it.

The wiki is a second git repository of its own, in the same storage as every
repository (``chalicelib.gitstore``): its refs under ``REFS#wiki-<repository id>`` and
its objects in the pool ``wiki-<repository id>``.  Repository and pool ids are numbers,
so the "wiki-" prefix never names a real repository's refs or pool; the S3 packs go
under ``packs/wiki-<id>/``.  Keyed by the repository's id, the wiki follows a rename or
a transfer without moving.  The wiki's history is its own: forks do not share it.

Reads here take a ``NimbusRepo`` (one Query of its refs, the pack list once) and read
only what they need: the tip's root tree for the list of pages, the page's blob, and a
first-parent walk for a page's history.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib.settings import get_settings
from chalicelib.wiki import names

if TYPE_CHECKING:
    from chalicelib.gitstore.repo import NimbusRepo
    from chalicelib.repos import Repo

ID_PREFIX = "wiki-"
# A page's history and its last change come from a first-parent walk of at most this
# many commits (as the contents API's listing bounds its walk).
HISTORY_LIMIT = 1000
ZERO = "0" * 40


def wiki_id(repo: Repo) -> str:
    """The id of the wiki's refs and of its object pool."""
    return f"{ID_PREFIX}{int(repo.id)}"


def wiki_id_of(repo_id: int) -> str:
    return f"{ID_PREFIX}{int(repo_id)}"


def branch_of(repo: Repo) -> str:
    """The wiki's branch: the repository's ``wiki_branch``, else the instance's default
    branch (Forgejo's GetWikiBranchName)."""
    return getattr(repo, "wiki_branch", "") or get_settings().repository.DEFAULT_BRANCH


def branch_ref(repo: Repo) -> str:
    return f"refs/heads/{branch_of(repo)}"


def open_wiki_git(repo: Repo) -> NimbusRepo:
    """The wiki's dulwich repository (no AWS call until something is read)."""
    from chalicelib.gitstore import repo as gitrepo

    return gitrepo.open_repo(wiki_id(repo), wiki_id(repo), getattr(repo, "object_format", None)
                             or "sha1")


def tip(git: NimbusRepo, repo: Repo) -> bytes | None:
    """The wiki branch's commit id, None while the wiki has none."""
    try:
        return git.refs[branch_ref(repo).encode()]
    except KeyError:
        return None


@dataclass(frozen=True)
class Entry:
    """A file at the root of the wiki's tree."""
    name: str
    sha: bytes
    regular: bool


def root_entries(git: NimbusRepo, commit_id: bytes) -> list[Entry]:
    """The root tree's entries in git's order (Forgejo lists only the root)."""
    import stat

    tree = git[git[commit_id].tree]
    return [Entry(item.path.decode("utf-8", "replace"), item.sha,
                  stat.S_ISREG(item.mode) and not stat.S_ISLNK(item.mode))
            for item in tree.iteritems()]


def find_file(git: NimbusRepo, commit_id: bytes, paths: list[str]) -> tuple[str, bytes] | None:
    """The first of ``paths`` (root-level file names) the commit holds: (name, blob id)."""
    tree = git[git[commit_id].tree]
    for path in paths:
        try:
            _mode, sha = tree[path.encode("utf-8")]
        except KeyError:
            continue
        return path, sha
    return None


def read_blob(git: NimbusRepo, sha: bytes) -> bytes:
    return git[sha].as_raw_string()


def _entry_sha(git: NimbusRepo, commit, path: bytes) -> bytes | None:
    try:
        return git[commit.tree][path][1]
    except KeyError:
        return None


def history(git: NimbusRepo, commit_id: bytes, path: str, *, limit: int = HISTORY_LIMIT) -> list:
    """The commits (newest first, first-parent) that changed the file ``path``."""
    raw = path.encode("utf-8")
    found = []
    commit = git[commit_id]
    for _ in range(limit):
        parent = git[commit.parents[0]] if commit.parents else None
        mine = _entry_sha(git, commit, raw)
        if mine != (_entry_sha(git, parent, raw) if parent is not None else None):
            found.append(commit)
        if parent is None:
            break
        commit = parent
    return found


def last_changes(git: NimbusRepo, commit_id: bytes, paths: list[str], *,
                 limit: int = HISTORY_LIMIT) -> dict[str, object]:
    """The commit that last changed each of ``paths`` (one first-parent walk for them
    all); a path whose change lies past the walk gets the oldest commit read."""
    wanted = {p: p.encode("utf-8") for p in paths}
    found: dict[str, object] = {}
    commit = git[commit_id]
    for _ in range(limit):
        open_paths = [p for p in paths if p not in found]
        if not open_paths:
            break
        parent = git[commit.parents[0]] if commit.parents else None
        for p in open_paths:
            if parent is None or _entry_sha(git, commit, wanted[p]) != _entry_sha(
                    git, parent, wanted[p]):
                found[p] = commit
        if parent is None:
            break
        commit = parent
    for p in paths:
        found.setdefault(p, commit)
    return found


def page_files(entries: list[Entry]) -> list[tuple[Entry, names.PageName]]:
    """The entries that are pages, with their names."""
    pages = []
    for entry in entries:
        name = names.from_git_path(entry.name) if entry.regular else None
        if name is not None:
            pages.append((entry, name))
    return pages


def compact_wiki(repo_id: int) -> bool:
    """Repack a repository's wiki like a repository's pool (each wiki commit writes one
    pack); False when there was nothing to do.  The wiki's refs are the only ones that
    reach its pool, so nothing else needs naming."""
    from chalicelib.gitstore import compaction

    return bool(compaction.compact_pool(wiki_id_of(repo_id), [wiki_id_of(repo_id)]))
