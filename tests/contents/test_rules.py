"""The contents domain's rules, on the in-memory twin (the fast layer): a contents write is
one commit that moves its branch by compare-and-swap (a stale ``sha``, or a branch moved
meanwhile, is a conflict with nothing written), a write onto a new branch, who may
write, which names a branch may have, and creating, renaming and deleting branches (the
default branch is never deleted)."""
from __future__ import annotations

import base64

import pytest

from chalicelib import accounts, contents, repos
from chalicelib.contents import branch_admin, service
from chalicelib.contents.options import (CreateBranchRepoOption, CreateFileOptions,
                                         CreateTagOption, DeleteFileOptions,
                                         UpdateBranchRepoOption, UpdateFileOptions)
from chalicelib.errors import (ArchivedRepository, ConflictError, InvalidInput, NotFoundError,
                               PermissionDenied)
from chalicelib.repos import access
from chalicelib.repos.options import AddCollaboratorOption
from tests import memory_scene as scene


@pytest.fixture
def proj(memory):
    """alice's public ``proj`` (a README on ``main``); bob may read it."""
    alice, _ = scene.user("alice"), scene.user("bob")
    view = scene.repo(alice, "proj", auto_init=True)
    access.add_collaborator(alice, view, "bob", AddCollaboratorOption(permission="read"))
    return view


def as_user(view, name: str):
    """The repository as ``name`` sees it now (a request's view), and ``name``'s account."""
    user = accounts.account_by_name(name)
    return repos.view_of(repos.repo_by_id(int(view.repo.id)), scene.caller(user)), user


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def write(view, name: str, path: str, text: str, **fields) -> service.Written:
    mine, user = as_user(view, name)
    return service.change_one(mine, user, CreateFileOptions(content=b64(text), **fields), path)


def tip(view, branch: str = "main") -> str | None:
    """The branch's head commit as its record stores it (None: no such branch)."""
    info = contents.branch_info(int(view.repo.id), branch)
    return info.commit_id if info else None


def read(view, path: str, ref: str | None = None) -> bytes:
    _, entry = service.get_contents(as_user(view, "alice")[0], path, ref)
    return entry.content


def test_each_write_is_one_commit_on_top_of_the_branch(proj):
    first = tip(proj)
    made = write(proj, "alice", "notes.txt", "one\n")
    assert made.commit.parents == [first.encode()]
    assert made.commit.message == b"Add 'notes.txt'\n"
    assert tip(proj) == made.commit.id.decode() == made.at.commit_id
    assert read(proj, "notes.txt") == b"one\n"

    mine, alice = as_user(proj, "alice")
    updated = service.change_one(mine, alice, UpdateFileOptions(
        content=b64("two\n"), sha=made.files[0].sha), "notes.txt")
    assert updated.commit.parents == [made.commit.id]
    assert read(proj, "notes.txt") == b"two\n"

    service.change_one(as_user(proj, "alice")[0], alice,
                       DeleteFileOptions(sha=updated.files[0].sha), "notes.txt")
    with pytest.raises(NotFoundError, match="object does not exist"):
        read(proj, "notes.txt")
    # Creating a file that exists is refused, and the branch stays where it was.
    before = tip(proj)
    with pytest.raises(InvalidInput, match="repository file already exists"):
        write(proj, "alice", "README.md", "again")
    assert tip(proj) == before


def test_a_stale_sha_is_a_conflict_and_nothing_is_written(proj):
    v1 = write(proj, "alice", "f.txt", "v1").files[0].sha
    mine, alice = as_user(proj, "alice")
    service.change_one(mine, alice, UpdateFileOptions(content=b64("v2"), sha=v1), "f.txt")
    now = tip(proj)
    with pytest.raises(ConflictError, match=f"sha does not match \\[given: {v1}"):
        service.change_one(as_user(proj, "alice")[0], alice,
                           UpdateFileOptions(content=b64("v3"), sha=v1), "f.txt")
    with pytest.raises(ConflictError, match="sha does not match"):
        service.change_one(as_user(proj, "alice")[0], alice, DeleteFileOptions(sha=v1), "f.txt")
    assert tip(proj) == now
    assert read(proj, "f.txt") == b"v2"
    # Updating or deleting needs the sha the caller read.
    with pytest.raises(InvalidInput, match=r"\[SHA\]: Required"):
        service.change_one(as_user(proj, "alice")[0], alice,
                           UpdateFileOptions(content=b64("v3")), "f.txt")


def test_a_branch_moved_meanwhile_fails_the_write_by_compare_and_swap(proj, monkeypatch):
    from chalicelib.gitops import commits

    real = commits.commit_edits

    def another_writer_lands_first(*args, **kwargs):
        # Between this write reading the branch and moving it, another request moves it.
        monkeypatch.setattr(commits, "commit_edits", real)
        write(proj, "alice", "theirs.txt", "theirs")
        return real(*args, **kwargs)

    monkeypatch.setattr(commits, "commit_edits", another_writer_lands_first)
    with pytest.raises(ConflictError, match="stale old value for refs/heads/main"):
        write(proj, "alice", "mine.txt", "mine")
    assert read(proj, "theirs.txt") == b"theirs"
    with pytest.raises(NotFoundError):
        read(proj, "mine.txt")
    assert contents.branch_info(int(proj.repo.id), "main").message == "Add 'theirs.txt'\n"


def test_a_write_onto_a_new_branch_leaves_its_base_alone(proj):
    main = tip(proj)
    made = write(proj, "alice", "x.txt", "x", new_branch="topic")
    assert (tip(proj), tip(proj, "topic")) == (main, made.commit.id.decode())
    assert made.commit.parents == [main.encode()] and made.at.ref == "topic"
    with pytest.raises(InvalidInput, match=r"branch already exists \[name: topic\]"):
        write(proj, "alice", "y.txt", "y", new_branch="topic")
    # Unless it may be overwritten: it then starts from the base branch again.
    again = write(proj, "alice", "y.txt", "y", new_branch="topic",
                  force_overwrite_new_branch=True)
    assert again.commit.parents == [main.encode()] and tip(proj, "topic") == again.at.commit_id
    with pytest.raises(InvalidInput, match=r"\[NewBranchName\]: invalid branch name"):
        write(proj, "alice", "z.txt", "z", new_branch="bad..name")
    with pytest.raises(NotFoundError, match=r"branch does not exist \[name: nope\]"):
        write(proj, "alice", "z.txt", "z", branch="nope")
    assert sorted(b.name for b in contents.branch_infos(int(proj.repo.id))) == ["main", "topic"]


def test_only_writers_write_and_never_to_an_archived_repository(proj):
    before = tip(proj)
    with pytest.raises(PermissionDenied, match="permission to write"):
        write(proj, "bob", "b.txt", "b")                            # bob only reads
    mine, alice = as_user(proj, "alice")
    with pytest.raises(PermissionDenied):
        service.change_one(mine, None, CreateFileOptions(content=b64("c")), "c.txt")
    from chalicelib.repo_admin import EditRepoOption, service as repo_admin

    repo_admin.edit_repo(scene.caller(alice), mine, EditRepoOption(archived=True))
    with pytest.raises(ArchivedRepository, match="repository is archived"):
        write(proj, "alice", "a.txt", "a")
    assert tip(proj) == before


@pytest.mark.fast
@pytest.mark.parametrize("name", ["a..b", "-lead", "end/", "x.lock", "with space", "a~1",
                                  "q?", "star*", "at@{0}", "@", ".hidden", "a//b", "x" * 256])
def test_names_a_branch_may_not_have(name):
    with pytest.raises(InvalidInput, match="invalid branch name"):
        contents.validate_branch_name(name)


@pytest.mark.fast
@pytest.mark.parametrize("name", ["main", "feature/x", "release-1.0", "ünï", "a@b"])
def test_names_a_branch_may_have(name):
    assert contents.validate_branch_name(name) == name


def test_creating_a_branch_checks_its_name_start_and_writer(proj):
    mine, alice = as_user(proj, "alice")
    caller = scene.caller(alice)
    made = branch_admin.create_branch(caller, mine, CreateBranchRepoOption(
        new_branch_name="topic"))
    assert (made.name, made.commit_id) == ("topic", tip(proj))
    first = tip(proj)
    write(proj, "alice", "later.txt", "later")                 # main moves on
    from_commit = branch_admin.create_branch(caller, mine, CreateBranchRepoOption(
        new_branch_name="old", old_ref_name=first[:10]))
    assert from_commit.commit_id == first
    from chalicelib.contents import tags
    tags.create_tag(caller, as_user(proj, "alice")[0], CreateTagOption(tag_name="v1"))
    refusals = [("main", ConflictError, "branch already exists"),
                ("v1", ConflictError, "there is a tag with the same name"),
                ("a..b", InvalidInput, r"\[NewBranchName\]: invalid branch name"),
                ("  ", InvalidInput, r"\[NewBranchName\]: Required")]
    for name, kind, text in refusals:
        with pytest.raises(kind, match=text):
            branch_admin.create_branch(caller, as_user(proj, "alice")[0],
                                       CreateBranchRepoOption(new_branch_name=name))
    with pytest.raises(NotFoundError, match="the old ref does not exist"):
        branch_admin.create_branch(caller, mine, CreateBranchRepoOption(
            new_branch_name="x", old_ref_name="nope"))
    theirs, bob = as_user(proj, "bob")
    with pytest.raises(PermissionDenied):
        branch_admin.create_branch(scene.caller(bob), theirs,
                                   CreateBranchRepoOption(new_branch_name="bobs"))
    assert sorted(b.name for b in contents.branch_infos(int(proj.repo.id))) == [
        "main", "old", "topic"]


def test_deleting_and_renaming_branches_keep_a_default_branch(proj):
    mine, alice = as_user(proj, "alice")
    caller = scene.caller(alice)
    for name in ("gone", "kept"):
        branch_admin.create_branch(caller, mine, CreateBranchRepoOption(new_branch_name=name))
    branch_admin.delete_branch(caller, mine, "gone")
    assert contents.branch_info(int(proj.repo.id), "gone") is None
    with pytest.raises(NotFoundError, match=r"branch does not exist \[name: gone\]"):
        branch_admin.delete_branch(caller, mine, "gone")
    with pytest.raises(PermissionDenied, match="can not delete default branch"):
        branch_admin.delete_branch(caller, mine, "main")
    with pytest.raises(InvalidInput, match=r"branch already exists \[name: kept\]"):
        branch_admin.rename_branch(caller, mine, "main", UpdateBranchRepoOption(name="kept"))
    # Renaming the default branch moves the repository's default with it.
    main = tip(proj)
    branch_admin.rename_branch(caller, mine, "main", UpdateBranchRepoOption(name="trunk"))
    assert repos.repo_by_id(int(proj.repo.id)).default_branch == "trunk"
    assert (tip(proj, "main"), tip(proj, "trunk")) == (None, main)
    with pytest.raises(PermissionDenied, match="can not delete default branch"):
        branch_admin.delete_branch(caller, as_user(proj, "alice")[0], "trunk")
    assert sorted(b.name for b in contents.branch_infos(int(proj.repo.id))) == ["kept", "trunk"]
