"""chalicelib.gitops: trees from edits, (signed) commits, merges, diff stats and archives,
checked against C git where git has an answer (fsck, verify-commit, merge-tree, diff
--numstat, bundle verify).  In-memory stores where storage does not matter; the S3
store under moto where it does (one pack per operation, nothing on failure)."""
from __future__ import annotations

import functools
import io
import os
import random
import shutil
import subprocess
import tarfile
import warnings
import zipfile

import pytest
from dulwich.object_store import MemoryObjectStore, iter_tree_contents
from dulwich.objects import Blob

from chalicelib.errors import ConflictError, InvalidInput, NotFoundError
from chalicelib.gitops import archives, commits, diff, errors, linecount, merge, objects, trees

GIT = shutil.which("git")
GPG = shutil.which("gpg")
needs_git = pytest.mark.skipif(not GIT, reason="needs the git CLI")
ME = commits.Identity("Ada Lovelace", "ada@example.com", 1_700_000_000, 3600)


def commit(store, parent, *edits, message="change"):
    return commits.commit_edits(store, parent=parent, edits=list(edits), author=ME,
                                message=message).id


def files_of(store, tree_id) -> dict[str, tuple[int, bytes]]:
    return {e.path.decode(): (e.mode, store[e.sha].data)
            for e in iter_tree_contents(store, tree_id)}


def git_env(tmp_path) -> dict:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
            "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "GNUPGHOME": str(tmp_path / "gnupg")}


def export(store, tmp_path):
    """A bare C-git repository holding every object of ``store``; returns a runner."""
    from dulwich.repo import Repo

    path = tmp_path / "check.git"
    local = Repo.init_bare(str(path), mkdir=True)
    local.object_store.add_objects([(store[sha], None) for sha in store])
    env = git_env(tmp_path)

    def run(*args, check=True):
        done = subprocess.run([GIT, *args], cwd=path, env=env, capture_output=True,
                              timeout=60)
        if check:
            assert done.returncode == 0, done.stderr.decode()
        return done
    return run


# --- trees ---------------------------------------------------------------------------------

def test_tree_from_edits_nested_paths_and_modes():
    store = MemoryObjectStore()
    tree = trees.build_tree(store, None, [
        trees.write("README.md", b"# hi\n"),
        trees.create("src/pkg/main.py", b"print(1)\n"),
        trees.create("bin/run", b"#!/bin/sh\n", mode=trees.EXECUTABLE),
        trees.create("link", b"README.md", mode=trees.SYMLINK),
        trees.create("/docs//a.md/", b"a\n"),          # empty components are dropped
    ])
    assert files_of(store, tree) == {
        "README.md": (trees.REGULAR, b"# hi\n"), "src/pkg/main.py": (trees.REGULAR, b"print(1)\n"),
        "bin/run": (trees.EXECUTABLE, b"#!/bin/sh\n"), "link": (trees.SYMLINK, b"README.md"),
        "docs/a.md": (trees.REGULAR, b"a\n")}
    blob_id = Blob.from_string(b"print(1)\n").id.decode()
    edited = trees.build_tree(store, tree, [
        trees.update("bin/run", b"#!/bin/sh\nexit 0\n"),                 # keeps +x
        trees.update("src/app.py", b"print(2)\n", from_path="src/pkg/main.py", sha=blob_id),
        trees.delete("docs/a.md"),                                       # docs/ goes too
        trees.write("README.md", b"# hello\n"),
    ])
    assert files_of(store, edited) == {
        "README.md": (trees.REGULAR, b"# hello\n"), "src/app.py": (trees.REGULAR, b"print(2)\n"),
        "bin/run": (trees.EXECUTABLE, b"#!/bin/sh\nexit 0\n"),
        "link": (trees.SYMLINK, b"README.md")}
    assert trees.entry_at(store, edited, "docs") is None
    assert trees.entry_at(store, edited, "src")[0] == trees.DIRECTORY
    assert trees.entry_at(store, edited, "src/app.py/x") is None
    # Nothing edited, nothing new: the same tree.
    assert trees.build_tree(store, edited, []) == edited


def test_tree_edit_errors():
    store = MemoryObjectStore()
    base = trees.build_tree(store, None, [trees.write("a/b.txt", b"b\n"), trees.write("f", b"f")])
    cases = [
        (trees.create("a/b.txt", b"x"), errors.FileAlreadyExists,
         "repository file already exists [path: a/b.txt]"),
        (trees.update("a/nope", b"x"), errors.FileMissing,
         "repository file does not exist [path: a/nope]"),
        (trees.delete("a"), errors.FileMissing, "repository file does not exist [path: a]"),
        (trees.delete("f/g"), errors.FileMissing, "repository file does not exist [path: f/g]"),
        (trees.update("a/b.txt", b"x", sha="0" * 40), errors.ShaMismatch,
         f"sha does not match [given: {'0' * 40}, expected: "
         f"{Blob.from_string(b'b' + bytes([10])).id.decode()}]"),
        (trees.create("f/g", b"x"), errors.PathConflict,
         "a file exists where you're trying to create a subdirectory [path: f/g]"),
        (trees.write("a", b"x"), errors.PathConflict,
         "a directory exists where you're trying to create a file [path: a]"),
        (trees.update("f", b"x", from_path="a/b.txt"), errors.FileAlreadyExists,
         "repository file already exists [path: f]"),
    ]
    for edit, kind, message in cases:
        with pytest.raises(kind) as caught:
            trees.build_tree(store, base, [edit])
        assert caught.value.message == message, edit
    for bad in ("", "/", "a/../b", "./a", ".git/config", "x/.GIT/y", "nul\x00"):
        with pytest.raises(errors.InvalidPath):
            trees.build_tree(store, base, [trees.write(bad, b"x")])
    with pytest.raises(InvalidInput):
        trees.write("x", b"", mode=0o100600)
    # The errors are domain kinds: the API answers 422 / 404 / 409 without knowing git.
    assert issubclass(errors.FileAlreadyExists, InvalidInput)
    assert issubclass(errors.FileMissing, NotFoundError)
    assert issubclass(errors.ShaMismatch, ConflictError)


@needs_git
def test_trees_pass_git_fsck(tmp_path):
    store = MemoryObjectStore()
    head = commit(store, None, trees.write("z", b"z\n"), trees.write("a-b/c", b"c\n"),
                  trees.write("a/c", b"c\n"), trees.write("a.b", b"ab\n"))
    head = commit(store, head, trees.delete("z"), trees.write("a/d/e", b"e\n"))
    run = export(store, tmp_path)
    run("fsck", "--strict", "--no-dangling", head.decode())
    listed = run("ls-tree", "-r", "--name-only", head.decode()).stdout.decode().split()
    assert listed == ["a-b/c", "a.b", "a/c", "a/d/e"]  # git's order: trees sort as "a/"


# --- commits -------------------------------------------------------------------------------

def test_commit_fields():
    store = MemoryObjectStore()
    author = commits.Identity("Ada", "ada@example.com", 1_600_000_000, -7 * 3600)
    committer = commits.Identity("Nimbus", "noreply@nimbus.invalid", 1_600_000_100, 0)
    root = commits.commit_edits(store, parent=None, edits=[trees.write("a", b"a")],
                                author=author, committer=committer, message="first")
    assert root.parents == [] and root.message == b"first\n"
    assert (root.author, root.author_time, root.author_timezone) == (
        b"Ada <ada@example.com>", 1_600_000_000, -7 * 3600)
    assert (root.committer, root.commit_time) == (b"Nimbus <noreply@nimbus.invalid>", 1_600_000_100)
    assert root.gpgsig is None
    child = commits.write_commit(store, tree=root.tree, parents=[root.id], author=ME,
                                 message=b"kept as is\n\nbody\n", sign=lambda payload: None)
    assert child.parents == [root.id] and child.message == b"kept as is\n\nbody\n"
    assert child.gpgsig is None  # the signer declined
    assert store[child.id].as_raw_string() == child.as_raw_string()
    assert commits.Identity.parse(b"Ada Lovelace <ada@example.com>") == commits.Identity(
        "Ada Lovelace", "ada@example.com")


def _pgp_signer():
    from chalicelib.signing import service as signing

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgpy
        armored = signing.generate_pgp_key("Nimbus", "noreply@nimbus.invalid")
        key, _ = pgpy.PGPKey.from_blob(armored)
    instance = signing.InstanceKey(format="openpgp", key_id=key.fingerprint.keyid,
                                   name="Nimbus", email="noreply@nimbus.invalid",
                                   public_text=str(key.pubkey), private=key, public=key.pubkey)
    return key, functools.partial(signing.sign_payload, instance)


def test_signed_commit_verifies_openpgp(tmp_path):
    key, sign = _pgp_signer()
    store = MemoryObjectStore()
    signed = commits.commit_edits(store, parent=None, edits=[trees.write("a", b"a\n")],
                                  author=ME, message="signed", sign=sign)
    assert signed.gpgsig.startswith(b"-----BEGIN PGP SIGNATURE-----")
    stored = store[signed.id]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgpy
        signature = pgpy.PGPSignature.from_blob(stored.gpgsig.decode())
        assert key.pubkey.verify(stored.raw_without_sig(), signature)
    if not (GIT and GPG):
        return
    env = git_env(tmp_path)
    (tmp_path / "gnupg").mkdir(mode=0o700)
    (tmp_path / "key.asc").write_text(str(key.pubkey))
    done = subprocess.run([GPG, "--batch", "--import", str(tmp_path / "key.asc")], env=env,
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    done = export(store, tmp_path)("verify-commit", signed.id.decode(), check=False)
    assert done.returncode == 0 and b"Good signature" in done.stderr, done.stderr


def test_signed_commit_verifies_ssh():
    from cryptography.hazmat.primitives.asymmetric import ed25519

    from chalicelib.signing import ssh as signing_ssh

    private = ed25519.Ed25519PrivateKey.generate()
    store = MemoryObjectStore()
    signed = commits.commit_edits(
        store, parent=None, edits=[trees.write("a", b"a\n")], author=ME, message="ssh",
        sign=lambda payload: signing_ssh.sign(private, payload).encode())
    stored = store[signed.id]
    signer = signing_ssh.verify(stored.gpgsig.decode(), stored.raw_without_sig())
    assert signer == signing_ssh.public_blob(private.public_key())


# --- staging on the S3 store ---------------------------------------------------------------

@pytest.fixture
def s3_git(aws, tmp_path, monkeypatch):
    monkeypatch.setenv("NIMBUS_CACHE_DIR", str(tmp_path / "cache"))
    from chalicelib.gitstore import repo as gitrepo

    return gitrepo.init_repo(7001, 7001, "main")


def _pack_count(pool_id) -> int:
    from chalicelib.gitstore import packdb

    return len(packdb.list_packs(pool_id))


def test_staged_objects_are_written_as_one_pack(s3_git):
    with objects.staged(s3_git.object_store) as staged:
        first = commit(staged, None, *[trees.write(f"dir{i}/file{i}.txt", b"%d\n" % i)
                                       for i in range(20)])
        assert _pack_count(7001) == 0  # nothing leaves before the block ends
        second = commit(staged, first, trees.delete("dir3/file3.txt"))
    assert _pack_count(7001) == 1
    assert files_of(s3_git.object_store, s3_git[second].tree)["dir4/file4.txt"][1] == b"4\n"
    with pytest.raises(errors.FileMissing):
        with objects.staged(s3_git.object_store) as staged:
            commit(staged, second, trees.write("new.txt", b"n"), trees.delete("dir3/file3.txt"))
    assert _pack_count(7001) == 1  # a refused edit wrote nothing
    with pytest.raises(errors.ObjectMissing):
        objects.read_commit(s3_git.object_store, "1" * 40)
    with pytest.raises(errors.WrongObjectType):
        objects.read_commit(s3_git.object_store, s3_git[second].tree)


def test_merges_on_the_s3_store_write_nothing_until_asked(s3_git):
    store = s3_git.object_store
    with objects.staged(store) as staged:
        base = commit(staged, None, trees.write("a.txt", b"1\n2\n3\n4\n5\n"))
        ours = commit(staged, base, trees.write("a.txt", b"1\nours\n3\n4\n5\n"))
        theirs = commit(staged, base, trees.write("a.txt", b"1\n2\n3\n4\ntheirs\n"))
        clash = commit(staged, base, trees.write("a.txt", b"1\nclash\n3\n4\n5\n"))
    assert _pack_count(7001) == 1
    assert merge.merge_commits(store, ours, clash).conflicts[0].path == "a.txt"
    assert _pack_count(7001) == 1
    with objects.staged(store) as staged:
        result = merge.merge_commits(staged, ours, theirs)
        merged = commits.write_commit(staged, tree=result.tree, parents=[ours, theirs],
                                      author=ME, message="Merge")
    assert _pack_count(7001) == 2  # merged blob, tree and merge commit: one pack
    assert files_of(store, store[merged.id].tree)["a.txt"][1] == b"1\nours\n3\n4\ntheirs\n"


def test_auto_init_writes_one_pack_and_creates_the_branch(api):
    from chalicelib.gitstore import repo as gitrepo
    from chalicelib.repos import store as repo_store

    api.create_user("ada")
    token = api.create_token("ada")
    assert api.post("/user/repos", token=token, json={
        "name": "init", "auto_init": True, "license": "MIT", "gitignores": "Python,Go",
        "description": "about"}).status == 201
    repo = repo_store.get("ada", "init")
    assert _pack_count(int(repo.pool_id)) == 1
    git = gitrepo.open_repo(int(repo.id), int(repo.pool_id))
    head = git[git.refs[b"refs/heads/main"]]
    assert head.message == b"Initial commit\n" and head.parents == []
    assert head.author == head.committer == b"ada <ada@example.com>"
    found = files_of(git.object_store, head.tree)
    assert sorted(found) == [".gitignore", "LICENSE", "README.md"]
    assert found["README.md"][1] == b"# init\n\nabout\n"
    assert b"__pycache__/" in found[".gitignore"][1] and b"/vendor/" in found[".gitignore"][1]


# --- merge ---------------------------------------------------------------------------------

def _history():
    """base -> ours / theirs / clash / gone, and a criss-cross pair."""
    store = MemoryObjectStore()
    base = commit(store, None, trees.write("a.txt", b"1\n2\n3\n4\n5\n6\n7\n"),
                  trees.write("lib/x.py", b"x = 1\n"), trees.write("lib/y.py", b"y = 1\n"),
                  trees.write("doc/z.md", b"z\n"))
    ours = commit(store, base, trees.write("a.txt", b"1\nOURS\n3\n4\n5\n6\n7\n"),
                  trees.write("lib/x.py", b"x = 2\n"), trees.write("new-ours", b"o\n"))
    theirs = commit(store, base, trees.write("a.txt", b"1\n2\n3\n4\n5\n6\nTHEIRS\n"),
                    trees.write("lib/y.py", b"y = 2\n"), trees.delete("doc/z.md"))
    clash = commit(store, base, trees.write("a.txt", b"1\nCLASH\n3\n4\n5\n6\n7\n"),
                   trees.delete("lib/x.py"), trees.write("new-ours", b"other\n"),
                   trees.update("lib/y.py", b"y = 1\n", mode=trees.EXECUTABLE))
    return store, base, ours, theirs, clash


def test_merge_base_and_ancestry():
    store, base, ours, theirs, _ = _history()
    assert merge.merge_base(store, ours, theirs) == base
    assert merge.merge_bases(store, ours, base) == [base]
    assert merge.is_ancestor(store, base, ours) and not merge.is_ancestor(store, ours, theirs)
    assert merge.is_ancestor(store, ours, ours)
    lonely = commit(store, None, trees.write("other", b"x"))
    assert merge.merge_base(store, ours, lonely) is None
    with pytest.raises(errors.ObjectMissing):
        merge.merge_base(store, ours, "2" * 40)


def test_clean_merge():
    store, base, ours, theirs, _ = _history()
    result = merge.merge_commits(store, ours, theirs)
    assert result.clean and result.bases == (base,)
    assert files_of(store, result.tree) == {
        "a.txt": (trees.REGULAR, b"1\nOURS\n3\n4\n5\n6\nTHEIRS\n"),
        "lib/x.py": (trees.REGULAR, b"x = 2\n"), "lib/y.py": (trees.REGULAR, b"y = 2\n"),
        "new-ours": (trees.REGULAR, b"o\n")}
    # The same through merge_trees.
    by_trees = merge.merge_trees(store, store[base].tree, store[ours].tree, store[theirs].tree)
    assert by_trees.tree == result.tree


def test_conflicting_merge_lists_every_conflict():
    store, base, ours, _, clash = _history()
    before = set(store)
    result = merge.merge_commits(store, ours, clash)
    assert not result.clean and result.tree is None
    found = {c.path: c for c in result.conflicts}
    assert {path: c.kind for path, c in found.items()} == {
        "a.txt": "content", "lib/x.py": "modify/delete", "new-ours": "add/add"}
    x = found["lib/x.py"]
    assert x.base == (trees.REGULAR, Blob.from_string(b"x = 1\n").id.decode())
    assert x.ours == (trees.REGULAR, Blob.from_string(b"x = 2\n").id.decode())
    assert x.theirs is None
    assert found["new-ours"].base is None
    assert set(store) == before  # a conflicting merge adds nothing to the store
    mode_only = commit(store, base, trees.update("lib/y.py", b"y = 1\n", mode=0o120000))
    kinds = {c.path: c.kind for c in merge.merge_commits(store, clash, mode_only).conflicts}
    assert kinds["lib/y.py"] == "mode"


def test_directory_deleted_on_one_side_merges_file_by_file():
    store = MemoryObjectStore()
    base = commit(store, None, trees.write("d/keep.txt", b"k\n"), trees.write("d/e/f.txt", b"f\n"),
                  trees.write("top", b"t\n"))
    removed = commit(store, base, trees.delete("d/keep.txt"), trees.delete("d/e/f.txt"))
    added = commit(store, base, trees.write("d/e/new.txt", b"n\n"))
    changed = commit(store, base, trees.write("d/e/f.txt", b"F\n"))
    clean = merge.merge_commits(store, added, removed)
    assert clean.clean and sorted(files_of(store, clean.tree)) == ["d/e/new.txt", "top"]
    result = merge.merge_commits(store, removed, changed)
    assert [(c.path, c.kind) for c in result.conflicts] == [("d/e/f.txt", "delete/modify")]


@needs_git
def test_merges_agree_with_git_merge_tree(tmp_path):
    store, base, ours, theirs, clash = _history()
    deep = commit(store, base, trees.write("lib/sub/z.py", b"z\n"), trees.write("a.txt",
                  b"0\n1\n2\n3\n4\n5\n6\n7\n"))
    run = export(store, tmp_path)
    for left, right in ((ours, theirs), (theirs, ours), (ours, deep), (theirs, deep)):
        done = run("merge-tree", "--write-tree", left.decode(), right.decode())
        assert merge.merge_commits(store, left, right).tree.decode() == \
            done.stdout.decode().split()[0]
    done = run("merge-tree", "--write-tree", "--name-only", ours.decode(), clash.decode(),
               check=False)
    assert done.returncode == 1
    git_conflicts = set(done.stdout.decode().split("\n\n")[0].split("\n")[1:])
    assert {c.path for c in merge.merge_commits(store, ours, clash).conflicts} == git_conflicts


# --- diff ----------------------------------------------------------------------------------

def test_line_counts():
    count = linecount.count_changes
    assert count(b"", b"a\nb\n") == (2, 0)
    assert count(b"a\nb\n", b"") == (0, 2)
    assert count(b"a\nb", b"a\nb\n") == (1, 1)           # the missing final newline
    assert count(b"a\r\nb\r\n", b"a\nb\r\n") == (1, 1)   # CR belongs to the line
    assert count(b"a\nb\nc\n", b"a\nX\nc\n") == (1, 1)
    assert count(b"x\n" * 5, b"x\n" * 7) == (2, 0)
    assert linecount.split_lines(b"a\rb\nc") == [b"a\rb\n", b"c"]
    # A rewrite past the exact budget is counted in greedy steps: consistent, near-minimal.
    rng = random.Random(3)
    old, new = ([b"w%d\n" % rng.randrange(40) for _ in range(3000)] for _ in range(2))
    added, deleted = count(b"".join(old), b"".join(new))
    assert added == deleted and 2000 < added < 2600


def test_diff_stats_and_statuses():
    store = MemoryObjectStore()
    old = commit(store, None, trees.write("keep", b"1\n2\n3\n"), trees.write("gone", b"g\n"),
                 trees.write("move/from.txt", b"".join(b"line %d\n" % i for i in range(20))),
                 trees.write("bin", b"\x00\x01"), trees.write("x.sh", b"run\n"))
    new = commit(store, old, trees.write("keep", b"1\nTWO\n3\n4\n"), trees.delete("gone"),
                 trees.update("moved/to.txt", b"".join(b"line %d\n" % i for i in range(21)),
                              from_path="move/from.txt"),
                 trees.write("bin", b"\x00\x02"), trees.write("added", b"a\nb\n"),
                 trees.update("x.sh", b"run\n", mode=trees.EXECUTABLE))
    stats = diff.diff_commits(store, old, new)
    rows = {f.path: (f.status, f.additions, f.deletions, f.previous_path) for f in stats.files}
    assert rows == {"added": ("added", 2, 0, None), "bin": ("modified", 0, 0, None),
                    "gone": ("deleted", 0, 1, None), "keep": ("modified", 2, 1, None),
                    "moved/to.txt": ("renamed", 1, 0, "move/from.txt"),
                    "x.sh": ("modified", 0, 0, None)}
    assert [f.path for f in stats.files] == sorted(rows)
    assert (stats.additions, stats.deletions, stats.total, stats.files_changed) == (5, 2, 7, 6)
    assert next(f for f in stats.files if f.path == "bin").binary
    no_renames = diff.diff_commits(store, old, new, find_renames=False)
    assert {f.path: f.status for f in no_renames.files}["move/from.txt"] == "deleted"
    root = diff.commit_stats(store, old)
    assert root.files_changed == 5 and root.deletions == 0 and root.additions == 25


def _random_text(rng, lines):
    words = ["alpha", "beta", "", "}", "{", "return x", "gamma", "delta", "    pass"]
    return [rng.choice(words) + "\n" for _ in range(lines)]


def _mutate(rng, lines):
    out = list(lines)
    for _ in range(rng.randint(1, 8)):
        at = rng.randint(0, len(out))
        action = rng.choice(("insert", "delete", "replace"))
        if action == "insert":
            out[at:at] = _random_text(rng, rng.randint(1, 4))
        elif out:
            del out[at:at + rng.randint(1, 3)]
            if action == "replace":
                out[at:at] = _random_text(rng, rng.randint(1, 3))
    return out


@needs_git
def test_diff_stats_match_git_numstat(tmp_path):
    rng = random.Random(9)
    store = MemoryObjectStore()
    contents = {f"f{i}.txt": _random_text(rng, rng.randint(0, 40)) for i in range(25)}
    old = commit(store, None, *[trees.write(p, "".join(t).encode()) for p, t in contents.items()])
    edits = []
    for path, text in contents.items():
        roll = rng.random()
        if roll < 0.1:
            edits.append(trees.delete(path))
        elif roll < 0.8:
            edits.append(trees.write(path, "".join(_mutate(rng, text)).encode().rstrip(b"\n")
                                     if roll < 0.15 else "".join(_mutate(rng, text)).encode()))
    edits.append(trees.write("brand/new.txt", b"n\n" * 3))
    edits.append(trees.write("data.bin", b"\x00binary"))
    new = commit(store, old, *edits)
    run = export(store, tmp_path)
    for flag, renames in (("--no-renames", False), ("-M", True)):
        out = run("diff", "--numstat", flag, old.decode(), new.decode()).stdout.decode()
        expected = {}
        for line in out.splitlines():
            added, deleted, path = line.split("\t")
            expected[path] = tuple(int(n) if n != "-" else 0 for n in (added, deleted))
        stats = diff.diff_commits(store, old, new, find_renames=renames)
        assert {f.path: (f.additions, f.deletions) for f in stats.files} == expected


@needs_git
def test_renames_match_git(tmp_path):
    store = MemoryObjectStore()
    body = b"".join(b"line number %d\n" % i for i in range(30))
    old = commit(store, None, trees.write("a/orig.txt", body),
                 trees.write("exact.txt", body + b"e\n"))
    new = commit(store, old, trees.delete("a/orig.txt"), trees.write("b/renamed.txt",
                 body.replace(b"line number 7\n", b"changed\n")),
                 trees.update("moved.txt", body + b"e\n", from_path="exact.txt"))
    out = export(store, tmp_path)("diff", "--numstat", "-M", "-z", old.decode(), new.decode())
    fields = out.stdout.decode().split("\0")
    git_rows = {}
    while len(fields) > 2:
        counts, old_path, new_path, *fields = fields
        added, deleted = counts.split("\t")[:2]
        git_rows[new_path] = (old_path, int(added), int(deleted))
    stats = diff.diff_commits(store, old, new)
    assert {f.path: (f.previous_path, f.additions, f.deletions) for f in stats.files
            if f.status == "renamed"} == git_rows


# --- archives ------------------------------------------------------------------------------

def _archive_commit():
    store = MemoryObjectStore()
    tree = trees.build_tree(store, None, [
        trees.write("README.md", b"# r\n"), trees.write("src/deep/x.py", b"x\n"),
        trees.write("run.sh", b"#!/bin/sh\n", mode=trees.EXECUTABLE)])
    # A submodule entry: archives leave it out.
    tree_obj = store[tree]
    tree_obj.add(b"vendored", trees.SUBMODULE, b"3" * 40)
    store.add_object(tree_obj)
    head = commits.write_commit(store, tree=tree_obj.id, author=ME, message="files")
    return store, head


def test_zip_and_tar_archives_are_readable():
    store, head = _archive_commit()
    with zipfile.ZipFile(io.BytesIO(archives.build_archive(store, head.id, "zip", "r/"))) as zf:
        assert sorted(zf.namelist()) == ["r/README.md", "r/run.sh", "r/src/deep/x.py"]
        assert zf.read("r/src/deep/x.py") == b"x\n"
        assert (zf.getinfo("r/run.sh").external_attr >> 16) & 0o111
    data = archives.build_archive(store, head.id, "tar.gz", "r/")
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tf:
        names = {m.name for m in tf.getmembers() if m.isfile()}
        assert names == {"r/README.md", "r/run.sh", "r/src/deep/x.py"}
        assert tf.extractfile("r/README.md").read() == b"# r\n"
        assert tf.getmember("r/run.sh").mode & 0o111
    with pytest.raises(ValueError):
        archives.build_archive(store, head.id, "rar", "r/")


@needs_git
def test_bundle_archive_verifies_with_git(tmp_path):
    store, head = _archive_commit()
    data = archives.build_archive(store, head.id, "bundle", "")
    assert data.startswith(b"# v2 git bundle\n")
    path = tmp_path / "r.bundle"
    path.write_bytes(data)
    run = export(MemoryObjectStore(), tmp_path)
    heads = run("bundle", "list-heads", str(path)).stdout.decode()
    assert f"{head.id.decode()} refs/heads/bundle" in heads
    run("bundle", "verify", str(path))
