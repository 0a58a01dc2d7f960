"""A repository's wiki (Forgejo's services/wiki and routers/api/v1/repo/wiki.go): read,
list, create, edit (and rename), delete pages, a page's revisions, and the title search.

Who: the repository's readers read (a private repository stays a 404 to strangers),
its writers write (Forgejo's wiki unit: write access; an archived repository is
read-only, 423).  A repository whose wiki is switched off (``has_wiki`` false) answers
404 for every page.

A write reads the branch's tip, builds the new tree and commit without a work tree
(``chalicelib.gitops``, the objects stored as one pack), and moves the branch by
compare-and-swap from that tip (``store.stage_ref_changes``).  When another write moved
it first, the change is made again on the new tip (``ATTEMPTS`` times; then 409), so
two concurrent edits never lose one: the second sees the first's page (a create of the
same page then finds it exists).  Commits are not signed: Forgejo's ``[repository.signing]
WIKI`` is "never" by default.
"""
from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib import contents
from chalicelib.errors import (
    ArchivedRepository,
    BadInput,
    ConditionFailed,
    ConflictError,
    NotFoundError,
    PermissionDenied,
)
from chalicelib.gitstore import refdb
from chalicelib.wiki import gitrepo, names, store
from chalicelib.wiki.names import PageName

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.repos import Repo, RepoView

ATTEMPTS = 5
# Forgejo's setting.API.DefaultMaxBlobSize: a larger page's content is answered empty.
MAX_BLOB_SIZE = 10 * 1024 * 1024
# Forgejo's setting.Git.CommitsRangeSize: revisions per page.
REVISIONS_PAGE = 50
# Tests set this to run between a write's read of the tip and its ref move (races).
before_ref_move: Callable[[], None] | None = None


@dataclass(frozen=True)
class Page:
    """A page as the API's WikiPage shows it."""
    name: PageName
    content: bytes | None          # None: too large to answer
    commit_count: int
    last_commit: object
    sidebar: bytes | None
    footer: bytes | None


# -- who may ---------------------------------------------------------------------------

def readable(view: RepoView) -> RepoView:
    """The wiki of a repository the caller sees (``current_repo`` decided that), unless
    it is switched off."""
    if not getattr(view.repo, "has_wiki", True):
        raise NotFoundError("wiki is disabled for this repository")
    return view


def writable(view: RepoView, user: Account | None) -> RepoView:
    readable(view)
    if user is None or not view.can_write:
        raise PermissionDenied("user should have a permission to write to a repo")
    if view.repo.archived:
        raise ArchivedRepository("repository is archived")
    return view


# -- reads -----------------------------------------------------------------------------

def _tip_or_404(git, repo: Repo) -> bytes:
    commit_id = gitrepo.tip(git, repo)
    if commit_id is None:
        raise NotFoundError("wiki does not exist")
    return commit_id


def _blob_or_none(git, sha: bytes) -> bytes | None:
    obj = git[sha]
    return None if obj.raw_length() > MAX_BLOB_SIZE else obj.as_raw_string()


def _optional_page(git, commit_id: bytes, name: PageName) -> bytes | None:
    found = gitrepo.find_file(git, commit_id, name.candidates())
    return _blob_or_none(git, found[1]) if found is not None else None


def get_page(view: RepoView, name: PageName, *, git=None) -> Page:
    """repoGetWikiPage: the page, its revision count and last change, the sidebar and
    footer pages' contents ("" when absent)."""
    readable(view)
    git = git or gitrepo.open_wiki_git(view.repo)
    commit_id = _tip_or_404(git, view.repo)
    found = gitrepo.find_file(git, commit_id, name.candidates())
    if found is None:
        raise NotFoundError(f"wiki page does not exist [name: {name.web}]")
    path, sha = found
    changes = gitrepo.history(git, commit_id, path)
    return Page(name, _blob_or_none(git, sha), len(changes),
                changes[0] if changes else git[commit_id],
                _optional_page(git, commit_id, names.from_title(names.SIDEBAR)),
                _optional_page(git, commit_id, names.from_title(names.FOOTER)))


@dataclass(frozen=True)
class Listing:
    """One page of the page list: the pages with their last change, and how many
    entries the wiki's root holds (Forgejo's X-Total-Count)."""
    pages: list[tuple[PageName, object]]
    total: int


def list_pages(view: RepoView, offset: int, limit: int) -> Listing:
    """repoGetWikiPages.  As Forgejo: the window is taken over the root's entries, then
    what is not a page is left out, and the total counts the entries."""
    readable(view)
    git = gitrepo.open_wiki_git(view.repo)
    commit_id = _tip_or_404(git, view.repo)
    entries = gitrepo.root_entries(git, commit_id)
    window = gitrepo.page_files(entries[offset:offset + limit])
    last = gitrepo.last_changes(git, commit_id, [entry.name for entry, _ in window])
    return Listing([(name, last[entry.name]) for entry, name in window], len(entries))


def page_names(view: RepoView) -> list[PageName]:
    """Every page of the wiki (one read of the root tree); [] while it has none."""
    readable(view)
    git = gitrepo.open_wiki_git(view.repo)
    commit_id = gitrepo.tip(git, view.repo)
    if commit_id is None:
        return []
    return [name for _, name in gitrepo.page_files(gitrepo.root_entries(git, commit_id))]


def search_titles(view: RepoView, keyword: str) -> list[PageName]:
    """The pages whose title holds ``keyword`` (case-insensitive), by title."""
    word = keyword.strip().lower()
    found = [name for name in page_names(view) if word in name.title.lower()]
    return sorted(found, key=lambda name: name.title.lower())


def revisions(view: RepoView, name: PageName, page: int) -> tuple[list, int]:
    """repoGetWikiPageRevisions: one page of the commits that changed the page (newest
    first, ``REVISIONS_PAGE`` a page) and how many there are."""
    readable(view)
    git = gitrepo.open_wiki_git(view.repo)
    commit_id = _tip_or_404(git, view.repo)
    found = gitrepo.find_file(git, commit_id, name.candidates())
    if found is None:
        raise NotFoundError(f"wiki page does not exist [name: {name.web}]")
    changes = gitrepo.history(git, commit_id, found[0])
    start = (max(page, 1) - 1) * REVISIONS_PAGE
    return changes[start:start + REVISIONS_PAGE], len(changes)


# -- writes ----------------------------------------------------------------------------

def decode_content(text: str | None) -> bytes:
    """``content_base64`` as Forgejo decodes it (standard alphabet, padded)."""
    try:
        return base64.b64decode((text or "").encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise BadInput("invalid base64 encoding of content") from None


def _commit(view: RepoView, user: Account, message: str,
            edits_on: Callable[[object, bytes | None], list]) -> None:
    """Commit the edits ``edits_on(git, tip)`` gives on the wiki branch's tip, again on
    a fresh tip whenever another write moved it first."""
    from chalicelib.gitops import commits, objects

    repo = view.repo
    author = contents.identity(user)
    for _ in range(ATTEMPTS):
        git = gitrepo.open_wiki_git(repo)
        try:
            head = gitrepo.tip(git, repo)
            edits = edits_on(git, head)
            with objects.staged(git.object_store) as staged:
                made = commits.commit_edits(staged, parent=head, edits=edits, author=author,
                                            message=message)
            if before_ref_move is not None:
                before_ref_move()
            old = head.decode() if head is not None else gitrepo.ZERO
            try:
                store.commit_ref_changes(repo, [(gitrepo.branch_ref(repo), old,
                                                 made.id.decode())])
            except ConditionFailed as failed:
                if failed.label == store.WIKI_REPO:
                    raise NotFoundError("repository does not exist") from None
                if refdb.stale_refs(failed) is None:
                    raise
                continue
            repo.has_wiki_contents = True
            return
        finally:
            git.close()
    raise ConflictError("the wiki changed meanwhile; try again")


def _existing(git, head: bytes | None, name: PageName) -> str | None:
    if head is None:
        return None
    found = gitrepo.find_file(git, head, name.write_candidates())
    return found[0] if found is not None else None


def create_page(view: RepoView, user: Account | None, title: str, content: bytes,
                message: str = "") -> PageName:
    """repoCreateWikiPage: a new page; 400 when the title is empty or reserved, or a
    page of that name exists."""
    from chalicelib.gitops import trees

    writable(view, user)
    if not title.strip():
        raise BadInput("emptyTitle")
    name = names.from_title(title)
    name.check_not_reserved()

    def edits(git, head):
        taken = _existing(git, head, name)
        if taken is not None:
            raise BadInput(f"wiki page already exists [title: {taken}]")
        return [trees.write(name.git_path, content)]

    _commit(view, user, message or f"Add {names.go_quote(title)}", edits)
    return name


def edit_page(view: RepoView, user: Account | None, old: PageName, title: str | None,
              content: bytes, message: str = "") -> PageName:
    """repoEditWikiPage: the page's new content, renamed when ``title`` is given.  As
    Forgejo, an edit of a page that does not exist writes it."""
    from chalicelib.gitops import trees

    writable(view, user)
    new = names.from_title(title) if title and title.strip() else old
    new.check_not_reserved()

    def edits(git, head):
        changes = []
        before = _existing(git, head, old)
        target = _existing(git, head, new) if new != old else before
        path = target or new.git_path
        if before is not None and before != path:
            changes.append(trees.delete(before))
        changes.append(trees.write(path, content))
        return changes

    _commit(view, user, message or f"Update {names.go_quote(new.web)}", edits)
    return new


def delete_page(view: RepoView, user: Account | None, name: PageName) -> None:
    """repoDeleteWikiPage: 404 when there is no such page."""
    from chalicelib.gitops import trees

    writable(view, user)

    def edits(git, head):
        path = _existing(git, head, name)
        if path is None:
            raise NotFoundError(f"wiki page does not exist [name: {name.web}]")
        return [trees.delete(path)]

    _commit(view, user, f"Delete page {names.go_quote(name.web)}", edits)


def push_ref_changes(repo: Repo, updates: list) -> None:
    """A git push's ref changes to the wiki (``git push …/{repo}.wiki.git``), all or
    nothing by compare-and-swap, refused as git's stale refs when one moved."""
    from chalicelib.gitstore.errors import RefUpdateFailed

    try:
        store.commit_ref_changes(repo, updates)
    except ConditionFailed as failed:
        stale = refdb.stale_refs(failed)
        if stale is not None:
            raise stale from None
        raise RefUpdateFailed("the repository was deleted meanwhile", []) from None


# -- for migrations ---------------------------------------------------------------------

def set_wiki_refs(repo: Repo, refs: dict[str, str], actor: Account | None = None, *,
                  repo_written: bool = True) -> None:
    """Make the wiki's refs equal ``refs`` ({ref name: sha}) after a migration fetched
    their objects into ``gitrepo.open_wiki_git(repo)``: each ref by compare-and-swap from
    what it holds, HEAD to the wiki's branch, ``has_wiki_contents`` set.  A source wiki
    whose branch has another name ("master" from an older Gitea) has it renamed to the
    wiki's branch, as Forgejo's migration normalizes it.  ``actor``: who migrates (the
    ref items record no author; kept for the caller's symmetry with other writers).
    ``repo_written=False``: the repository record is not written yet (a project
    migration writes it, with ``repo.has_wiki_contents`` as set here, at its end)."""
    from chalicelib.errors import InvalidInput

    wanted = {name: sha for name, sha in refs.items() if name != "HEAD"}
    branch = gitrepo.branch_ref(repo)
    heads = sorted(name for name in wanted if name.startswith("refs/heads/"))
    if heads and branch not in wanted:
        source = next((h for h in ("refs/heads/master", "refs/heads/main") if h in wanted),
                      heads[0])
        wanted[branch] = wanted.pop(source)
    git = gitrepo.open_wiki_git(repo)
    try:
        missing = sorted(name for name, sha in wanted.items() if sha.encode() not in git)
    finally:
        git.close()
    if missing:
        raise InvalidInput(f"wiki refs name objects the wiki does not hold: {', '.join(missing)}")
    try:
        store.set_refs(repo, wanted, repo_written=repo_written)
    except ConditionFailed as failed:
        if failed.label == store.WIKI_REPO:
            raise NotFoundError("repository does not exist") from None
        raise ConflictError("the wiki changed meanwhile; try again") from None
    repo.has_wiki_contents = branch in wanted
