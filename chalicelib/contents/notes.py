"""Git notes written and removed through the API (Forgejo's repoSetNote,
repoRemoveNote); ``git_data.note`` reads them.

A note is a blob in the tree of ``refs/notes/commits``, named by the commit id it
annotates, as ``git notes`` keeps them: a note that exists is replaced where it is; a
new one goes below the two-hex-digit directories the tree already fans out into (git
reads either), so a tree ``git notes`` fanned out stays readable by it.  Each change is
a commit on the notes ref (parent: the ref's tip), by the caller, with git's own
message, and the ref moves by compare-and-swap from the tip that was read (a change
meanwhile answers 409, nothing moves).  No push event is raised: Forgejo runs ``git
notes`` without its hooks.

Who: the repository's writers (not on an archived repository or a mirror).
"""
from __future__ import annotations

import stat
from collections.abc import Mapping
from typing import ClassVar

from chalicelib.contents import files as repo_files
from chalicelib.contents import pushes
from chalicelib.contents.authorship import identity
from chalicelib.contents.git_data import INVALID_REF, NOTES_REF
from chalicelib.errors import InvalidInput, NotFoundError
from chalicelib.http.options import UNSET, Option, UnsetType
from chalicelib.repos import Caller, RepoView

ADDED = "Notes added by 'git notes add'\n"
REMOVED = "Notes removed by 'git notes remove'\n"
MAX_NOTE = 1 << 20


class NoteOptions(Option):
    """repoSetNote."""
    max_lengths: ClassVar[Mapping[str, int]] = {"message": MAX_NOTE}

    message: str | None | UnsetType = UNSET


def _notes_tip(git) -> bytes | None:
    try:
        return git.refs[NOTES_REF]
    except KeyError:
        return None


def note_path(git, tree_id: bytes | None, commit_id: str) -> tuple[str, bool]:
    """Where the note of ``commit_id`` is (True), or would go (False): down the fan-out
    directories the tree has."""
    if tree_id is None:
        return commit_id, False
    tree = git.object_store[tree_id]
    path, rest = "", commit_id
    while len(rest) > 2:
        if rest.encode() in tree and not stat.S_ISDIR(tree[rest.encode()][0]):
            return path + rest, True
        try:
            sub = tree[rest[:2].encode()]
        except KeyError:
            break
        if not stat.S_ISDIR(sub[0]):
            break
        tree = git.object_store[sub[1]]
        path, rest = path + rest[:2] + "/", rest[2:]
    return path + rest, False


def _commit_id(git, repo, sha: str) -> str:
    if not sha or INVALID_REF.search(sha):
        raise InvalidInput(f"no valid ref or sha: {sha}")
    return repo_files.resolve(git, repo, sha).decode()


def _write(caller: Caller, view: RepoView, sha: str, message: str | None) -> str:
    """Set (``message``) or remove (None) the note; the annotated commit's id."""
    from chalicelib import signing
    from chalicelib.gitops import commits, objects, trees

    pushes.require_ref_writer(caller, view, "notes")
    repo, user = view.repo, caller.user
    git = repo_files.open_git(repo)
    commit_id = _commit_id(git, repo, sha)
    tip = _notes_tip(git)
    tree = git.object_store[tip].tree if tip is not None else None
    path, exists = note_path(git, tree, commit_id)
    if message is None:
        if not exists:
            raise NotFoundError(f"no note for {sha}")
        edit, text = trees.delete(path), REMOVED
    else:
        body = message if message.endswith("\n") or not message else message + "\n"
        edit, text = trees.write(path, body.encode("utf-8")), ADDED
    who = identity(user)
    with objects.staged(git.object_store) as staged:
        made = commits.commit_edits(staged, parent=tip, edits=[edit], author=who,
                                    committer=who, message=text,
                                    sign=signing.commit_signer("CRUD_ACTIONS", user))
    old = tip.decode() if tip is not None else pushes.ZERO
    change = pushes.prepare(repo, git, [(NOTES_REF.decode(), old, made.id.decode())],
                            actor=user, announce=False)
    pushes.commit(change)
    return commit_id


def set_note(caller: Caller, view: RepoView, sha: str, option: NoteOptions) -> str:
    """repoSetNote: the note of ``sha`` is now the message (``git notes add -f``; git
    takes no empty note, so neither does this)."""
    message = option.message if isinstance(option.message, str) else ""
    if not message.strip():
        raise InvalidInput("[Message]: Required")
    return _write(caller, view, sha, message)


def remove_note(caller: Caller, view: RepoView, sha: str) -> None:
    """repoRemoveNote: 404 when the commit has no note."""
    _write(caller, view, sha, None)
