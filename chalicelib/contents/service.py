"""The contents API (issue 14 item 1): reading a path at a ref as Forgejo's
ContentsResponse data, and changing files in one commit per request.

Reading resolves the ref, walks the tree to the path and finds the last commit that
changed each entry shown (first-parent history, bounded).  Writing builds one commit
with ``chalicelib.gitops`` (signed per ``[repository.signing] CRUD_ACTIONS``) and moves
the branch by compare-and-swap through ``pushes.apply_ref_updates``: a concurrent
writer of the same branch makes the request fail with 409 and nothing is written.
"""
from __future__ import annotations

import base64
import binascii
import io
import posixpath
import stat
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from chalicelib import lfs
from chalicelib.contents import files as repo_files
from chalicelib.contents.options import (ChangeFileOperation, ChangeFilesOptions,
                                         CommitDateOptions, CommitFields, CreateFileOptions,
                                         DeleteFileOptions, Identity, UpdateFileOptions)
from chalicelib.errors import ArchivedRepository, InvalidInput, NotFoundError, PermissionDenied

if TYPE_CHECKING:
    from chalicelib.repos import RepoView

HISTORY_LIMIT = 500      # commits walked back to find an entry's last change
OPERATIONS = ("create", "update", "delete")


@dataclass(frozen=True)
class Entry:
    """One path at a commit: what a ContentsResponse shows."""
    path: str
    kind: str                      # file, dir, symlink, submodule
    sha: str                       # blob, tree or (submodule) commit id
    size: int
    content: bytes | None = None   # files (not in a directory listing)
    target: str | None = None      # symlinks
    submodule_url: str | None = None
    last_commit_sha: str = ""
    last_commit_time: int = 0
    last_commit_tz: int = 0
    # The last commit's subject line and author name (pages show them; the API record
    # carries the sha and time only), and whether the bounded walk found the change:
    # False when HISTORY_LIMIT ran out first and the commit is only the oldest one read.
    last_commit_subject: str = ""
    last_commit_author: str = ""
    last_commit_exact: bool = True
    # A Git LFS pointer (read from the blob, no AWS call): its download is /media's.
    lfs_pointer: bool = False

    @property
    def name(self) -> str:
        return posixpath.basename(self.path)

    @property
    def object_type(self) -> str:
        return {"dir": "tree", "submodule": "commit"}.get(self.kind, "blob")


@dataclass(frozen=True)
class At:
    """The ref a read or write is at: its name as given, its kind (branch/tag/commit)."""
    ref: str
    ref_type: str
    commit_id: str


@dataclass
class Written:
    """The outcome of a write: the commit, the branch and the files as now stored."""
    commit: object                 # dulwich Commit
    at: At
    files: list[Entry | None] = field(default_factory=list)


MAX_NAME_BYTES = 255     # a file name longer than this cannot be checked out anywhere
MAX_PATH_BYTES = 4096


def _clean(path: str) -> str:
    return "/".join(part for part in (path or "").split("/") if part)


def _written_path(path: str, label: str) -> str:
    """A path to write: cleaned, and short enough for every file system to check out."""
    clean = _clean(path)
    if not clean:
        raise InvalidInput(f"[{label}]: Required")
    if len(clean.encode("utf-8", "surrogatepass")) > MAX_PATH_BYTES or any(
            len(part.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES
            for part in clean.split("/")):
        raise InvalidInput(f"file name is too long [path: {clean[:100]}...]")
    return clean


def _ref_type(git, name: str, commit_id: bytes) -> str:
    if f"refs/heads/{name}".encode() in git.refs:
        return "branch"
    if f"refs/tags/{name}".encode() in git.refs:
        return "tag"
    return "commit"


def _at(git, repo, ref: str | None) -> At:
    name = ref or repo.default_branch
    commit_id = repo_files.resolve(git, repo, name)
    return At(name, _ref_type(git, name, commit_id), commit_id.decode())


def _entry_id(git, tree_id: bytes, path: str):
    from chalicelib.gitops import trees

    if not path:
        return stat.S_IFDIR, tree_id
    return trees.entry_at(git.object_store, tree_id, path)


def _last_changes(git, commit_id: bytes, paths: list[str],
                  exact: set[str] | None = None) -> dict[str, object]:
    """The commit (first-parent history) that last changed each of ``paths``; the
    paths whose change the walk found go into ``exact`` (the others, past
    HISTORY_LIMIT, get the oldest commit read)."""
    found: dict[str, object] = {}
    commit = git[commit_id]
    ids = {p: _entry_id(git, commit.tree, p) for p in paths}
    for _ in range(HISTORY_LIMIT):
        open_paths = [p for p in paths if p not in found]
        if not open_paths:
            break
        parent = git[commit.parents[0]] if commit.parents else None
        for p in open_paths:
            if parent is None or _entry_id(git, parent.tree, p) != ids[p]:
                found[p] = commit
        if parent is None:
            break
        commit = parent
    if exact is not None:
        exact.update(found)
    for p in paths:
        found.setdefault(p, commit)
    return found


def _submodule_url(git, tree_id: bytes, path: str) -> str | None:
    from dulwich.config import ConfigFile, parse_submodules

    found = _entry_id(git, tree_id, ".gitmodules")
    if found is None:
        return None
    try:
        config = ConfigFile.from_file(io.BytesIO(git[found[1]].as_raw_string()))
        for sub_path, url, _ in parse_submodules(config):
            if sub_path.decode("utf-8", "replace") == path:
                return url.decode("utf-8", "replace")
    except (NotFoundError, ValueError, KeyError):
        return None
    return None


def _entry(git, tree_id: bytes, path: str, mode: int, sha: bytes, last, *,
           with_content: bool, exact: bool = True) -> Entry:
    common = dict(path=path, sha=sha.decode(), **_last_fields(last, exact))
    if stat.S_ISDIR(mode):
        return Entry(kind="dir", size=0, **common)
    if mode == 0o160000:
        return Entry(kind="submodule", size=0,
                     submodule_url=_submodule_url(git, tree_id, path), **common)
    data = git[sha].as_raw_string()
    if stat.S_ISLNK(mode):
        return Entry(kind="symlink", size=len(data), target=data.decode("utf-8", "replace"),
                     **common)
    return Entry(kind="file", size=len(data), content=data if with_content else None,
                 lfs_pointer=lfs.parse_pointer(data) is not None, **common)


def _last_fields(last, exact: bool) -> dict:
    subject = last.message.split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    author = last.author.split(b" <", 1)[0].decode("utf-8", "replace")
    return dict(last_commit_sha=last.id.decode(), last_commit_time=int(last.commit_time),
                last_commit_tz=int(last.commit_timezone), last_commit_subject=subject,
                last_commit_author=author, last_commit_exact=exact)


@dataclass(frozen=True)
class Listing:
    """A directory as its page shows it: the entries, and the directory itself as an
    Entry (its ``last_commit_*``: the latest commit that changed anything below it)."""
    at: At
    entries: list[Entry]
    directory: Entry


def _find(view: RepoView, path: str, ref: str | None, git, *, dirs_only: bool = False):
    """(git, at, commit id, tree id, clean path, (mode, object id)): what ``path`` names
    at ``ref`` (the default branch when None); NotFoundError when nothing is there, or
    with ``dirs_only`` no directory.  ``git``: the repository already opened by the
    caller (its refs and pack list are read once per open), else it is opened here."""
    repo = view.repo
    git = git if git is not None else repo_files.open_git(repo)
    at = _at(git, repo, ref)
    commit_id = at.commit_id.encode()
    tree_id = git[commit_id].tree
    path = _clean(path)
    try:
        found = _entry_id(git, tree_id, path)
    except InvalidInput:
        found = None
    if found is None or (dirs_only and not stat.S_ISDIR(found[0])):
        raise NotFoundError(f"object does not exist [id: , rel_path: {path}]")
    return git, at, commit_id, tree_id, path, found


def list_directory(view: RepoView, path: str, ref: str | None, *, git=None) -> Listing:
    """``get_contents`` of a directory, with the directory's own last commit found by
    the same walk (one more path looked up per commit read, no second walk)."""
    git, at, commit_id, tree_id, path, (_, sha) = _find(view, path, ref, git, dirs_only=True)
    entries, lasts, exact = _children(git, commit_id, tree_id, path, sha, with_self=True)
    directory = Entry(path=path, kind="dir", sha=sha.decode(), size=0,
                      **_last_fields(lasts[path], path in exact))
    return Listing(at, entries, directory)


def _children(git, commit_id: bytes, tree_id: bytes, path: str, sha: bytes, *,
              with_self: bool = False) -> tuple[list[Entry], dict, set]:
    children = sorted(git[sha].iteritems(), key=lambda e: e.path)
    paths = [posixpath.join(path, e.path.decode("utf-8", "replace")) for e in children]
    exact: set[str] = set()
    lasts = _last_changes(git, commit_id, paths + ([path] if with_self else []), exact)
    return [_entry(git, tree_id, p, e.mode, e.sha, lasts[p], with_content=False,
                   exact=p in exact)
            for p, e in zip(paths, children)], lasts, exact


def get_contents(view: RepoView, path: str, ref: str | None, *,
                 git=None) -> tuple[At, Entry | list[Entry]]:
    """The entry at ``path`` (a file with its content), or a directory's entries.
    ``git``: the repository already opened by the caller, else it is opened here."""
    git, at, commit_id, tree_id, path, (mode, sha) = _find(view, path, ref, git)
    if not stat.S_ISDIR(mode):
        exact: set[str] = set()
        last = _last_changes(git, commit_id, [path], exact)[path]
        return at, _entry(git, tree_id, path, mode, sha, last, with_content=True,
                          exact=bool(exact))
    return at, _children(git, commit_id, tree_id, path, sha)[0]


# Writing ------------------------------------------------------------------------------

def _decode(text: str | None, field_name: str) -> bytes:
    if not text:
        return b""
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidInput(f"[{field_name}]: invalid base64 content") from None


def _date(text, label: str) -> tuple[int | None, int]:
    """A commit date: any value read as text (an empty one is none)."""
    if not text:
        return None, 0
    try:
        parsed = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(f"[Dates.{label}]: invalid date {text!r}") from None
    offset = parsed.utcoffset()
    return int(parsed.timestamp()), int(offset.total_seconds()) if offset else 0


def _named(person) -> tuple[str, str] | None:
    """(name, e-mail) of a given identity, read as texts; one with neither, or anything
    but an object, counts as not given."""
    if isinstance(person, Identity) and (person.name or person.email):
        return str(person.name or ""), str(person.email or "")
    return None


def _identities(option: CommitFields, user):
    """(author, committer): one given is used for both; neither given, the caller."""
    from chalicelib.contents.authorship import identity
    from chalicelib.gitops import commits

    me = identity(user)
    author, committer = _named(option.author), _named(option.committer)
    author = author or committer
    committer = committer or author
    dates = option.dates if isinstance(option.dates, CommitDateOptions) else CommitDateOptions()
    a_time, a_tz = _date(dates.author, "Author")
    c_time, c_tz = _date(dates.committer, "Committer")

    def make(pair, when, tz):
        name, email = pair or (me.name, me.email)
        return commits.Identity(name or me.name, email or me.email, when, tz)
    return make(author, a_time, a_tz), make(committer, c_time, c_tz)


def default_message(files: list[dict]) -> str:
    """Forgejo's default: "Add 'a'", "Update 'b'", "Delete 'c'", one line per kind."""
    lines = []
    for op, verb in (("create", "Add"), ("update", "Update"), ("delete", "Delete")):
        paths = [f"'{f['path']}'" for f in files if f["operation"] == op]
        if paths:
            lines.append(f"{verb} {', '.join(paths)}")
    return "\n".join(lines)


def _edits(files: list[dict]):
    from chalicelib.gitops import trees

    edits = []
    for f in files:
        if f["operation"] == "create":
            edits.append(trees.create(f["path"], f["content"]))
        elif f["operation"] == "update":
            edits.append(trees.update(f["path"], f["content"], sha=f["sha"],
                                      from_path=f.get("from_path") or None))
        else:
            edits.append(trees.delete(f["path"], sha=f["sha"]))
    return edits


def parse_files(items: list[ChangeFileOperation] | Any) -> list[dict]:
    """The operations, checked: operation, path, base64 content, sha."""
    if not isinstance(items, list) or not items:
        raise InvalidInput("[Files]: Required")
    files = []
    for item in items:
        op = item.operation
        if op not in OPERATIONS:
            raise InvalidInput(f"[Files.Operation]: must be one of {', '.join(OPERATIONS)}")
        if not isinstance(item.path, str):      # left out or null
            raise InvalidInput("[Files.Path]: Required")
        sha = item.sha or None
        if op != "create" and not sha:
            raise InvalidInput("[Files.SHA]: Required for update and delete")
        files.append({"operation": op, "path": _written_path(item.path, "Files.Path"),
                      "sha": sha, "from_path": _from_path(item.from_path),
                      "content": _decode(item.content or None, "Files.ContentBase64")})
    return files


def _from_path(value) -> str | None:
    """A rename's source: a text (one that is not is ignored)."""
    return _clean(value) if isinstance(value, str) and value else None


def _require_writer(view: RepoView, user) -> None:
    if user is None or not view.can_write:
        raise PermissionDenied("user should have a permission to write to a repo")
    if view.repo.archived:
        raise ArchivedRepository("repository is archived")


def change_files(view: RepoView, user, option: ChangeFilesOptions) -> Written:
    """repoChangeFiles: one commit with the body's ``files``."""
    _require_writer(view, user)
    return _commit_files(view, user, option, parse_files(option.files))


def _commit_files(view: RepoView, user, option: CommitFields, files: list[dict]) -> Written:
    """One commit with ``files`` applied on ``branch`` (or a ``new_branch`` from it)."""
    from chalicelib import lfs, signing
    from chalicelib.contents import pushes
    from chalicelib.contents.authorship import validate_branch_name
    from chalicelib.gitops import commits, objects

    repo = view.repo
    # Git LFS locks of other users (Forgejo's ErrLFSFileLocked): no read without locks.
    lfs.refuse_locked(repo, user, [p for f in files for p in (f["path"], f.get("from_path"))])
    git = repo_files.open_git(repo)
    branch = str(option.branch or repo.default_branch)
    new_branch = str(option.new_branch or "")
    try:
        head = git.refs[f"refs/heads/{branch}".encode()]
    except KeyError:
        head = None
    if head is None and not (repo.empty and branch == repo.default_branch):
        raise NotFoundError(f"branch does not exist [name: {branch}]")
    target, replaced = branch, None
    if new_branch and new_branch != branch:
        try:
            validate_branch_name(new_branch)
        except InvalidInput:
            raise InvalidInput(f"[NewBranchName]: invalid branch name {new_branch!r}") from None
        try:
            replaced = git.refs[f"refs/heads/{new_branch}".encode()]
        except KeyError:
            replaced = None
        if replaced is not None and not option.force_overwrite_new_branch:
            raise InvalidInput(f"branch already exists [name: {new_branch}]")
        target = new_branch
    author, committer = _identities(option, user)
    message = str(option.message or "") or default_message(files)
    if option.signoff:
        message = message.rstrip("\n") + f"\n\nSigned-off-by: {committer.name} <{committer.email}>"
    with objects.staged(git.object_store) as staged:
        made = commits.commit_edits(
            staged, parent=head, edits=_edits(files), author=author, committer=committer,
            message=message, sign=signing.commit_signer("CRUD_ACTIONS", user))
    # The ref moves by compare-and-swap from what this request read: the branch's tip,
    # or the overwritten new branch's (force_overwrite_new_branch), else absent.
    old = head.decode() if head is not None and target == branch else None
    if target != branch and replaced is not None:
        old = replaced.decode()
    pushes.apply_ref_updates(repo, git, [(f"refs/heads/{target}", old, made.id.decode())],
                             actor=user)
    at = At(target, "branch", made.id.decode())
    shown: list[Entry | None] = []
    for f in files:
        if f["operation"] == "delete":
            shown.append(None)
            continue
        found = _entry_id(git, made.tree, f["path"])
        mode, sha = found
        shown.append(_entry(git, made.tree, f["path"], mode, sha, made, with_content=True))
    return Written(made, at, shown)


def change_one(view: RepoView, user,
               option: CreateFileOptions | UpdateFileOptions | DeleteFileOptions,
               path: str) -> Written:
    """repoCreateFile / repoUpdateFile / repoDeleteFile (POST/PUT/DELETE
    /contents/{filepath}): one file's operation, which the option's kind says."""
    _require_writer(view, user)
    if isinstance(option, CreateFileOptions):
        operation, content, sha, from_path = "create", option.content, None, None
    elif isinstance(option, UpdateFileOptions):
        operation, content, sha, from_path = ("update", option.content, option.sha,
                                              option.from_path)
    else:
        operation, content, sha, from_path = "delete", None, option.sha, None
    # An empty content is an empty file; only one left out (or null) is missing.
    if operation != "delete" and not isinstance(content, str):
        raise InvalidInput("[ContentBase64]: Required")
    if operation != "create" and not sha:
        raise InvalidInput("[SHA]: Required")
    files = [{"operation": operation, "path": _written_path(path, "FilePath"),
              "sha": sha or None, "from_path": _from_path(from_path),
              "content": _decode(content or None, "ContentBase64")}]
    return _commit_files(view, user, option, files)
