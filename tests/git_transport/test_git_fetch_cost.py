"""What a small fetch costs: the refs read for several ``ref-prefix`` ranges at once
(``refdb.load_prefixed``), the sparse tree walk of a fetch (only the paths that changed
are opened), and the DynamoDB calls of a whole protocol v2 ``git fetch`` of one new
commit, counted with the real git CLI against the local runtime."""
from __future__ import annotations

import threading

import pytest

from tests.git_transport.test_git_http import git, git_env  # noqa: F401 - git_env: a fixture
from tests.pulls.test_pulls_git import call, remote, server  # noqa: F401 - server: a fixture

SHA = "1" * 40
TAG_SHA = "2" * 40


@pytest.fixture
def query_log(aws, monkeypatch):
    """[(key condition, refs read)] of every ref Query; refs read counts the items the
    Query returned, in or out of the ranges asked for."""
    from chalicelib.gitstore import refdb

    log: list[list] = []
    real = refdb._query_refs

    def wrapped(*args, **kwargs):
        entry = [args[1] if len(args) > 1 else None, 0]
        log.append(entry)
        for page, resume in real(*args, **kwargs):
            entry[1] += len(page)
            yield page, resume

    monkeypatch.setattr(refdb, "_query_refs", wrapped)
    return log


def put_refs(repo_id: int, names: list[str], sha: str = SHA) -> None:
    from chalicelib.gitstore.models import GitRef, gitkeys

    with GitRef.batch_write() as batch:
        for name in names:
            batch.save(GitRef(gitkeys.refs_pk(repo_id), name, sha=sha, peeled=sha))


def test_outermost_prefixes_drop_what_another_covers():
    from chalicelib.gitstore.refdb import outermost_prefixes

    assert outermost_prefixes(["refs/tags/", "refs/heads/main", "refs/heads/", "HEAD",
                               "refs/heads/"]) == ["HEAD", "refs/heads/", "refs/tags/"]
    assert outermost_prefixes(["refs/heads/main", "refs/heads/mainline"]) == [
        "refs/heads/main"]


def test_several_ranges_of_a_small_repository_are_one_query(query_log):
    from chalicelib.gitstore import refdb

    refdb.put_symref(1, "HEAD", "refs/heads/main")
    put_refs(1, ["refs/heads/main", "refs/heads/dev", "refs/notes/commits",
                 "refs/pull/1/head"])
    put_refs(1, ["refs/tags/v1"], TAG_SHA)
    found = refdb.load_prefixed(1, ["HEAD", "refs/heads/", "refs/heads/main", "refs/tags/"])
    assert list(found) == ["HEAD", "refs/heads/dev", "refs/heads/main", "refs/tags/v1"]
    assert found["HEAD"].symref == "refs/heads/main"
    assert found["refs/tags/v1"].sha == TAG_SHA
    assert len(query_log) == 1
    # One range is one Query of that range only.
    query_log.clear()
    assert list(refdb.load_prefixed(1, ["refs/tags/"])) == ["refs/tags/v1"]
    assert [reads for _, reads in query_log] == [1]


def test_thousands_of_pull_refs_between_the_ranges_are_not_read(query_log):
    from chalicelib.gitstore import refdb

    put_refs(2, ["refs/heads/main", "refs/heads/main2"])
    put_refs(2, [f"refs/pull/{n}/head" for n in range(1000)])
    put_refs(2, ["refs/tags/v1", "refs/tags/v2"], TAG_SHA)
    # A want-ref's exact name as a prefix, and the tags of include-tag.
    found = refdb.load_prefixed(2, ["refs/heads/main", "refs/tags/"])
    assert list(found) == ["refs/heads/main", "refs/heads/main2", "refs/tags/v1",
                           "refs/tags/v2"]
    # The probe, then the tags: at most PROBE_REFS refs read in all outside the ranges.
    assert len(query_log) == 2
    assert sum(reads for _, reads in query_log) <= refdb.PROBE_REFS + len(found)


def test_a_range_longer_than_the_probe_resumes_where_it_stopped(query_log):
    from chalicelib.gitstore import refdb

    branches = sorted(f"refs/heads/b{n:04d}" for n in range(refdb.PROBE_REFS + 50))
    put_refs(3, branches)
    put_refs(3, [f"refs/pull/{n}/head" for n in range(300)])
    put_refs(3, ["refs/tags/v1"], TAG_SHA)
    refdb.put_symref(3, "HEAD", branches[0])
    found = refdb.load_prefixed(3, ["HEAD", "refs/heads/", "refs/tags/"])
    assert list(found) == ["HEAD", *branches, "refs/tags/v1"]
    # Probe (HEAD and the first branches), the rest of the branches, the tags; no ref
    # was read twice and no pull ref at all.
    assert len(query_log) == 3
    assert sum(reads for _, reads in query_log) == len(found)


def test_ls_refs_with_an_empty_prefix_lists_every_ref(aws):
    from chalicelib.gitstore import refdb
    from chalicelib.gitstore.protocol_v2 import refs_under

    put_refs(4, ["refs/heads/main", "refs/pull/1/head"])
    assert list(refs_under(4, ["", "refs/heads/"])) == ["refs/heads/main", "refs/pull/1/head"]
    with pytest.raises(ValueError):
        refdb.load_prefixed(4, [""])


# -- the sparse tree walk ---------------------------------------------------------------

def _tree(store_objects: list, entries: dict) -> bytes:
    """A tree of ``entries`` ({name: bytes content or a nested dict}), its objects
    appended to ``store_objects``; returns its id."""
    from dulwich.objects import Blob, Tree

    tree = Tree()
    for name, value in entries.items():
        if isinstance(value, dict):
            tree.add(name.encode(), 0o040000, _tree(store_objects, value))
        else:
            blob = Blob.from_string(value)
            store_objects.append(blob)
            tree.add(name.encode(), 0o100644, blob.id)
    store_objects.append(tree)
    return tree.id


def _commit(store, files: dict, parents=()) -> bytes:
    from dulwich.objects import Commit

    objects: list = []
    commit = Commit()
    commit.tree = _tree(objects, files)
    commit.parents = list(parents)
    commit.author = commit.committer = b"T <t@example.com>"
    commit.author_time = commit.commit_time = 1_700_000_000 + len(parents)
    commit.author_timezone = commit.commit_timezone = 0
    commit.message = b"m\n"
    objects.append(commit)
    store.add_objects([(obj, None) for obj in objects])
    return commit.id


def test_a_fetch_opens_only_the_trees_along_the_changed_path(aws, tmp_path, monkeypatch):
    from chalicelib.gitstore.objects import S3ObjectStore
    from chalicelib.gitstore.repo import open_repo
    from chalicelib.gitstore.upload_pack import objects_to_send

    monkeypatch.setenv("NIMBUS_CACHE_DIR", str(tmp_path / "cache"))
    files = {f"dir{d}": {f"file{f}.txt": f"{d}/{f}\n".encode() for f in range(5)}
             for d in range(20)}
    files["top.txt"] = b"top\n"
    repo = open_repo(5, 5)
    old = _commit(repo.object_store, files)
    files["dir3"] = {**files["dir3"], "file1.txt": b"changed\n"}
    new = _commit(repo.object_store, files, [old])

    read: list[bytes] = []
    real = S3ObjectStore.__getitem__
    monkeypatch.setattr(S3ObjectStore, "__getitem__",
                        lambda self, sha: read.append(sha) or real(self, sha))
    objects, known = objects_to_send(repo, [new], [old])
    store = repo.object_store
    new_tree, old_tree = store[new].tree, store[old].tree
    new_dir3 = dict((e.path, e.sha) for e in store[new_tree].iteritems())[b"dir3"]
    old_dir3 = dict((e.path, e.sha) for e in store[old_tree].iteritems())[b"dir3"]
    changed = dict((e.path, e.sha) for e in store[new_dir3].iteritems())[b"file1.txt"]
    previous = dict((e.path, e.sha) for e in store[old_dir3].iteritems())[b"file1.txt"]
    assert set(objects) == {new, new_tree, new_dir3, changed}
    # The client's version of the changed file is known: a delta base for a thin pack.
    assert {old, old_tree, old_dir3, previous} <= known
    # Two commits, two root trees, two dir3 trees: none of the 19 unchanged folders.
    trees_read = {sha for sha in read if sha not in (new, old, changed)}
    assert trees_read <= {new_tree, old_tree, new_dir3, old_dir3}


def test_a_fetch_after_a_move_still_gives_a_complete_history(aws, tmp_path, monkeypatch):
    from chalicelib.gitstore.repo import open_repo
    from chalicelib.gitstore.upload_pack import objects_to_send

    monkeypatch.setenv("NIMBUS_CACHE_DIR", str(tmp_path / "cache"))
    repo = open_repo(6, 6)
    old = _commit(repo.object_store, {"a": {"x.txt": b"x\n", "y.txt": b"y\n"}})
    new = _commit(repo.object_store, {"b": {"x.txt": b"x\n"}, "a": {"y.txt": b"y\n"}}, [old])
    objects, known = objects_to_send(repo, [new], [old])
    store = repo.object_store
    # Every object of the new commit is either sent or one the client has.
    pending, reachable = [store[new].tree], set()
    while pending:
        sha = pending.pop()
        reachable.add(sha)
        for entry in store[sha].iteritems():
            if entry.mode == 0o040000:
                pending.append(entry.sha)
            else:
                reachable.add(entry.sha)
    assert reachable <= set(objects) | known
    assert new in objects


# -- a whole git fetch ------------------------------------------------------------------

def test_v2_fetch_of_one_commit_costs_three_queries_beyond_the_preloads(
        server, env_for_fetch, tmp_path):  # noqa: F811
    from chalicelib import aws

    env, clone, writer = env_for_fetch
    calls: list[str] = []
    counting = [True]

    def hook(model, **_):
        # Only the threads serving HTTP requests: background work is not the fetch's.
        if counting[0] and "process_request_thread" in threading.current_thread().name:
            calls.append(f"{model.service_model.service_name}:{model.name}")

    aws.add_call_hook(hook)
    trace = tmp_path / "trace"
    try:
        git({**env, "GIT_TRACE_PACKET": str(trace)}, "-c", "protocol.version=2", "fetch",
            "-q", cwd=clone)
    finally:
        counting[0] = False
    text = trace.read_text()
    assert "want-ref refs/heads/main" in text and "fetch< ready" in text
    assert git(env, "rev-parse", "origin/main", cwd=clone).stdout == \
        git(env, "rev-parse", "HEAD", cwd=writer).stdout
    git(env, "fsck", "--no-progress", cwd=clone)
    # Three requests (info/refs, ls-refs, fetch) each pay the preload (2 batch reads);
    # beyond it: the refs of ls-refs, the want-ref and tags of the fetch (one Query each
    # in a repository of few refs), the pack list.  No read of the object pool's owner:
    # a want-ref's value is a tip of the repository's own refs.
    assert calls.count("dynamodb:Query") == 3, calls
    assert "dynamodb:GetItem" not in calls, calls
    assert len(calls) <= 9, calls


@pytest.fixture
def env_for_fetch(server, git_env, tmp_path):  # noqa: F811
    """A repository with a few commits in nested folders, a clone of it, and one more
    commit pushed from another clone: (git env, the first clone, the writer)."""
    env = git_env
    assert call(server, "POST", "/user/repos", json={"name": "fetchcost"}).status_code == 201
    work = tmp_path / "work"
    git(env, "init", "-q", "-b", "main", str(work))
    for n in range(3):
        (work / f"dir{n}").mkdir()
        (work / f"dir{n}" / "file.txt").write_text(f"{n}\n")
        git(env, "add", "-A", cwd=work)
        git(env, "commit", "-q", "-m", f"c{n}", cwd=work)
    git(env, "tag", "-a", "-m", "v1", "v1", cwd=work)
    git(env, "push", "-q", remote(server, "fetchcost"), "main", "v1", cwd=work)
    clone = tmp_path / "clone"
    git(env, "clone", "-q", remote(server, "fetchcost"), str(clone))
    (work / "dir1" / "file.txt").write_text("changed\n")
    git(env, "commit", "-q", "-am", "one more", cwd=work)
    git(env, "push", "-q", remote(server, "fetchcost"), "main", cwd=work)
    return env, clone, work


def test_names_by_offset_reads_the_offset_table_as_the_index_lists_it(git_env, tmp_path):  # noqa: F811
    import glob

    from dulwich.object_format import DEFAULT_OBJECT_FORMAT
    from dulwich.pack import PackIndex2, load_pack_index

    from chalicelib.gitstore.upload_pack import names_by_offset

    work = tmp_path / "packed"
    git(git_env, "init", "-q", str(work))
    for n in range(30):
        (work / "grow.txt").write_text("".join(f"line {i}\n" for i in range(n * 20)))
        git(git_env, "add", "grow.txt", cwd=work)
        git(git_env, "commit", "-q", "-m", f"c{n}", cwd=work)
    git(git_env, "gc", "-q", cwd=work)
    (path,) = glob.glob(str(work / ".git" / "objects" / "pack" / "*.idx"))
    index = load_pack_index(path, DEFAULT_OBJECT_FORMAT)
    assert isinstance(index, PackIndex2) and len(index) == 90
    name_at = names_by_offset(index)
    assert all(name_at(offset) == name for name, offset, _ in index.iterentries())
    with pytest.raises(KeyError):
        name_at(1)
