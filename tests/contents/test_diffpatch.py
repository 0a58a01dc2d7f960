"""repoApplyDiffPatch, and the patch applier under it.

The applier's rules (fast): what ``git diff`` writes applies to the file it was made
from, with the result git itself has (add, modify, delete, rename, copy, no newline at
the end, quoted names, hunks whose line numbers are off); context that does not match,
a file missing or already there, binary and mode patches are refused.  Through the API
(on the in-memory twin): the patch becomes one commit on the branch (or a new branch)
with Forgejo's default message, a bad patch answers 422 and writes nothing, only writers
may apply, and a file changed between the read and the commit is not overwritten."""
from __future__ import annotations

import base64
import subprocess

import pytest

from chalicelib.gitops import patches

pytestmark = pytest.mark.fast


def git_diff(tmp_path, before: dict[str, str], after: dict[str, str], *flags: str) -> bytes:
    """``git diff`` of two states of a small tree."""
    work = tmp_path / "w"
    work.mkdir()

    def run(*args):
        return subprocess.run(["git", *args], cwd=work, capture_output=True, check=True).stdout

    run("init", "-q")
    for name, text in before.items():
        (work / name).write_text(text)
    run("add", "-A")
    run("-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "before", "--allow-empty")
    for name in before:
        (work / name).unlink()
    for name, text in after.items():
        (work / name).write_text(text)
    run("add", "-A")
    return run("diff", "--cached", *flags)


def apply_all(before: dict[str, str], text: bytes) -> dict[str, str]:
    files = dict(before)
    for patch in patches.parse(text):
        old = files.get(patch.old_path, "").encode() if patch.old_path else b""
        result = patches.apply_hunks(patch, old)
        if patch.old_path and patch.old_path != patch.new_path and not patch.copy:
            files.pop(patch.old_path)
        if patch.new_path:
            files[patch.new_path] = result.decode()
    return files


LINES = "".join(f"line {n}\n" for n in range(1, 40))


@pytest.mark.parametrize("before, after, flags", [
    ({"a.txt": LINES}, {"a.txt": LINES.replace("line 3\n", "three\n").replace(
        "line 30\n", "line 30\nextra\n")}, ()),
    ({}, {"new.txt": "fresh\nfile\n"}, ()),
    ({"gone.txt": "bye\n", "keep.txt": "k\n"}, {"keep.txt": "k\n"}, ()),
    ({"old name.txt": LINES}, {"new name.txt": LINES.replace("line 9\n", "nine\n")}, ("-M",)),
    ({"src.txt": LINES}, {"src.txt": LINES, "copy.txt": LINES + "more\n"},
     ("-C", "--find-copies-harder")),
    ({"nonl.txt": "x\ny"}, {"nonl.txt": "x\nz"}, ()),
    ({"nl.txt": "x\ny\n"}, {"nl.txt": "x\ny"}, ()),
    ({"ünï cödé.txt": "a\n"}, {"ünï cödé.txt": "b\n"}, ()),
    ({"empty.txt": ""}, {"empty.txt": "now\n"}, ()),
])
def test_what_git_diff_writes_applies_as_git_would(tmp_path, before, after, flags):
    assert apply_all(before, git_diff(tmp_path, before, after, *flags)) == after


def test_hunks_whose_line_numbers_are_off_still_apply_where_they_fit():
    text = (b"--- a/f\n+++ b/f\n@@ -20,3 +20,3 @@\n line 4\n-line 5\n+five\n line 6\n")
    (patch,) = patches.parse(text)
    assert patches.apply_hunks(patch, LINES.encode()) == \
        LINES.replace("line 5\n", "five\n").encode()


def test_counts_are_recounted():
    text = (b"--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n line 1\n-line 2\n+two\n+2b\n line 3\n")
    (patch,) = patches.parse(text)
    assert patches.apply_hunks(patch, LINES.encode()).startswith(b"line 1\ntwo\n2b\nline 3\n")


@pytest.mark.parametrize("text, message", [
    (b"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n line 1\n-not there\n+x\n", "hunk #1"),
    (b"just some words\n", "not a patch"),
    (b"diff --git a/b b/b\nGIT binary patch\nliteral 1\n", None),
    (b"--- a/f\n+++ b/f\n@@ -x +1 @@\n", "corrupt patch"),
])
def test_refused(text, message):
    with pytest.raises(patches.PatchError, match=message):
        for patch in patches.parse(text):
            if patch.binary:
                raise patches.PatchError("binary")
            patches.apply_hunks(patch, LINES.encode())


# --- through the API -----------------------------------------------------------------

@pytest.fixture
def proj(fast_api):
    api = fast_api
    tokens = {name: (api.create_user(name), api.create_token(name))[1] for name in ("alice", "bob")}
    assert api.post("/user/repos", token=tokens["alice"],
                    json={"name": "proj", "auto_init": True}).status == 201
    r = api.post("/repos/alice/proj/contents/f.txt", token=tokens["alice"], json={
        "content": base64.b64encode(LINES.encode()).decode(), "message": "f"})
    assert r.status == 201
    return api, tokens


def patch_body(text: str, **fields) -> dict:
    return {"content": text, "sha": "ignored", **fields}


CHANGE = ("diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -2,3 +2,3 @@\n line 2\n"
          "-line 3\n+three\n line 4\n"
          "diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n"
          "@@ -0,0 +1 @@\n+new\n")


def test_a_patch_becomes_one_commit(proj):
    api, t = proj
    before = api.get("/repos/alice/proj/branches/main").json["commit"]["id"]
    r = api.post("/repos/alice/proj/diffpatch", token=t["alice"], json=patch_body(CHANGE))
    assert r.status == 200, r
    assert r.json["commit"]["message"] == "apply-patch\n"
    assert [p["sha"] for p in r.json["commit"]["parents"]] == [before]
    assert r.json["content"]["path"] == "f.txt"
    assert api.get("/repos/alice/proj/raw/f.txt").body == LINES.replace("line 3\n",
                                                                        "three\n").encode()
    assert api.get("/repos/alice/proj/raw/n.txt").body == b"new\n"
    r = api.post("/repos/alice/proj/diffpatch", token=t["alice"], json=patch_body(
        "--- a/n.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-new\n", message="drop n",
        new_branch="dropped", signoff=True))
    assert r.status == 200 and r.json["content"] is None
    assert r.json["commit"]["message"].startswith("drop n\n\nSigned-off-by: alice")
    assert api.get("/repos/alice/proj/raw/n.txt?ref=dropped").status == 404
    assert api.get("/repos/alice/proj/raw/n.txt").status == 200


@pytest.mark.parametrize("text", [
    "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n line 1\n-line 99\n+x\n",
    "--- a/missing.txt\n+++ b/missing.txt\n@@ -1 +1 @@\n-a\n+b\n",
    "--- /dev/null\n+++ b/f.txt\n@@ -0,0 +1 @@\n+again\n",
    "not a patch at all",
    "",
])
def test_a_bad_patch_answers_422_and_writes_nothing(proj, text):
    api, t = proj
    before = api.get("/repos/alice/proj/branches/main").json["commit"]["id"]
    r = api.post("/repos/alice/proj/diffpatch", token=t["alice"], json=patch_body(text))
    assert r.status == 422 and r.json["message"]
    assert api.get("/repos/alice/proj/branches/main").json["commit"]["id"] == before


def test_writers_only_and_missing_branch(proj):
    api, t = proj
    assert api.post("/repos/alice/proj/diffpatch", token=t["bob"],
                    json=patch_body(CHANGE)).status == 403
    assert api.post("/repos/alice/proj/diffpatch",
                    json=patch_body(CHANGE)).status in (401, 403)
    assert api.post("/repos/alice/proj/diffpatch", token=t["alice"],
                    json=patch_body(CHANGE, branch="nope")).status == 404


def test_a_file_changed_meanwhile_is_not_overwritten(proj, monkeypatch):
    from chalicelib.contents import patch_apply

    api, t = proj
    computed = patch_apply.changed_files

    def then_someone_edits(git, tree, text):
        files = computed(git, tree, text)
        sha = api.get("/repos/alice/proj/contents/f.txt").json["sha"]
        assert api.put("/repos/alice/proj/contents/f.txt", token=t["alice"], json={
            "content": base64.b64encode(b"rewritten\n").decode(), "sha": sha}).status == 200
        return files

    monkeypatch.setattr(patch_apply, "changed_files", then_someone_edits)
    r = api.post("/repos/alice/proj/diffpatch", token=t["alice"], json=patch_body(CHANGE))
    assert r.status in (409, 422), r
    assert api.get("/repos/alice/proj/raw/f.txt").body == b"rewritten\n"
    assert api.get("/repos/alice/proj/raw/n.txt").status == 404
