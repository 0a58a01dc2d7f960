"""Git notes written and removed through the API, against the local runtime: the note
reads back through repoGetNote and ``git notes show`` on a clone sees it; it replaces
a note where ``git notes`` put it (fanned out or not); removing it leaves the others;
writers only; a commit that does not exist is 404, a bad sha 422."""
from __future__ import annotations

import pytest

from chalicelib.local.runtime import LocalRuntime
from tests.local_server import ADMIN_PASSWORD, call, git, push_url

R = "/api/v1/repos/root/notes"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with LocalRuntime(port=0, data_dir=tmp_path_factory.mktemp("notes"),
                      access_log=False) as runtime:
        from chalicelib.accounts.service import ensure_admin

        ensure_admin("root", ADMIN_PASSWORD, "root@example.test")
        yield runtime


@pytest.fixture(scope="module")
def pushed(server, tmp_path_factory):
    """root/notes with two commits on main; (work tree, remote, [first, second])."""
    base = server.url
    assert call(base, "POST", "/api/v1/user/repos", {"name": "notes"})[0] == 201
    work = tmp_path_factory.mktemp("work")
    git("init", "-q", "-b", "main", str(work))
    shas = []
    for n in (1, 2):
        (work / f"f{n}.txt").write_text(f"{n}\n")
        git("add", ".", cwd=work)
        git("commit", "-q", "-m", f"commit {n}", cwd=work)
        shas.append(git("rev-parse", "HEAD", cwd=work))
    remote = push_url(base, "/root/notes.git")
    git("push", "-q", remote, "main", cwd=work)
    return work, remote, shas


def git_in(work, text: str) -> str:
    """``git mktree`` with ``text`` on its input."""
    import subprocess

    done = subprocess.run(["git", "mktree"], cwd=work, input=text, capture_output=True,
                          text=True, check=True)
    return done.stdout.strip()


def fetch_notes(work, remote) -> None:
    git("fetch", "-q", "-f", remote, "refs/notes/*:refs/notes/*", cwd=work)


def test_set_read_replace_and_remove(server, pushed):
    base, (work, remote, (first, second)) = server.url, pushed
    status, note = call(base, "POST", f"{R}/git/notes/{first}", {"message": "reviewed"})
    assert status == 200, note
    assert note["message"] == "reviewed\n" and note["commit"]["sha"]
    status, got = call(base, "GET", f"{R}/git/notes/{first}")
    assert status == 200 and got["message"] == "reviewed\n"
    fetch_notes(work, remote)
    assert git("notes", "show", first, cwd=work) == "reviewed"

    # Replaced, by a branch name too; the other commit's note added beside it.
    assert call(base, "POST", f"{R}/git/notes/main", {"message": "tip"})[0] == 200
    assert call(base, "POST", f"{R}/git/notes/{first}", {"message": "again"})[0] == 200
    fetch_notes(work, remote)
    assert git("notes", "show", first, cwd=work) == "again"
    assert git("notes", "show", second, cwd=work) == "tip"
    assert len(git("notes", "list", cwd=work).splitlines()) == 2

    assert call(base, "DELETE", f"{R}/git/notes/{first}")[0] == 204
    assert call(base, "GET", f"{R}/git/notes/{first}")[0] == 404
    assert call(base, "DELETE", f"{R}/git/notes/{first}")[0] == 404
    fetch_notes(work, remote)
    assert git("notes", "show", first, cwd=work, check=False) == ""
    assert git("notes", "show", second, cwd=work) == "tip"


def test_a_note_git_fanned_out_is_replaced_where_it_is(server, pushed):
    base, (work, remote, (first, _)) = server.url, pushed
    fetch_notes(work, remote)
    # git fans the tree out once it is large; a hand-made fanned-out tree stands in.
    git("notes", "add", "-f", "-m", "from git", first, cwd=work)
    tree = git("rev-parse", "refs/notes/commits^{tree}", cwd=work)
    entries = git("ls-tree", tree, cwd=work).splitlines()
    nested = {}
    for line in entries:
        meta, name = line.split("\t")
        nested.setdefault(name[:2], []).append(f"{meta}\t{name[2:]}")
    subtrees = []
    for prefix, lines in nested.items():
        sub = git_in(work, "\n".join(lines) + "\n")
        subtrees.append(f"040000 tree {sub}\t{prefix}")
    top = git_in(work, "\n".join(subtrees) + "\n")
    head = git("commit-tree", top, "-p", "refs/notes/commits", "-m", "fan out", cwd=work)
    git("update-ref", "refs/notes/commits", head, cwd=work)
    git("push", "-q", "-f", remote, "refs/notes/commits:refs/notes/commits", cwd=work)

    assert call(base, "GET", f"{R}/git/notes/{first}")[1]["message"] == "from git\n"
    assert call(base, "POST", f"{R}/git/notes/{first}", {"message": "from api"})[0] == 200
    fetch_notes(work, remote)
    assert git("notes", "show", first, cwd=work) == "from api"
    listed = git("ls-tree", "-r", "--name-only", "refs/notes/commits", cwd=work).splitlines()
    assert f"{first[:2]}/{first[2:]}" in listed and first not in listed


def test_who_and_what(server, pushed):
    base, (_, _, (first, _)) = server.url, pushed
    assert call(base, "POST", "/api/v1/admin/users", {
        "username": "reader", "password": "reader-pass-1", "email": "r@example.test",
        "must_change_password": False})[0] == 201
    reader = ("reader", "reader-pass-1")
    assert call(base, "POST", f"{R}/git/notes/{first}", {"message": "x"}, auth=reader)[0] == 403
    assert call(base, "DELETE", f"{R}/git/notes/{first}", auth=reader)[0] == 403
    assert call(base, "POST", f"{R}/git/notes/{'0' * 40}", {"message": "x"})[0] == 404
    assert call(base, "POST", f"{R}/git/notes/a..b", {"message": "x"})[0] == 422
    assert call(base, "POST", f"{R}/git/notes/{first}", {"message": "  "})[0] == 422


def test_a_note_written_meanwhile_is_not_lost(server, pushed, monkeypatch):
    from chalicelib.contents import notes

    base, (_, _, (first, second)) = server.url, pushed
    located = notes.note_path

    def then_another_note(git, tree_id, commit_id):
        found = located(git, tree_id, commit_id)
        monkeypatch.setattr(notes, "note_path", located)
        assert call(base, "POST", f"{R}/git/notes/{second}", {"message": "racer"})[0] == 200
        return found

    monkeypatch.setattr(notes, "note_path", then_another_note)
    assert call(base, "POST", f"{R}/git/notes/{first}", {"message": "late"})[0] == 409
    assert call(base, "GET", f"{R}/git/notes/{second}")[1]["message"] == "racer\n"
