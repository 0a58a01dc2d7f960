"""git upload-pack as a client sees it, with the real git CLI against the local
runtime: partial clones (``--filter``) and their lazy fetches, protocol v2 (``ls-refs``
with prefixes on a repository of 5,000 refs, ``fetch`` with shallow, deepen, want-ref)
next to protocol v0, each checked with ``git fsck``."""
from __future__ import annotations

import os

import httpx
import pytest

from chalicelib.gitstore import refdb
from chalicelib.gitstore.models import GitRef, gitkeys
from tests.git_transport.test_git_http import TIMEOUT, git, git_env  # noqa: F401 - git_env: a fixture
from tests.pulls.test_pulls_git import call, remote, server  # noqa: F401 - server: a fixture

BIG = "x" * 5000 + "\n"


@pytest.fixture(scope="module")
def source(server, tmp_path_factory):  # noqa: F811
    """A repository ``history`` with two branches, nested trees and big and small files,
    pushed to the server; returns (local work tree, git environment)."""
    home = tmp_path_factory.mktemp("home")
    (home / ".gitconfig").write_text("[user]\n\tname = Alice\n\temail = alice@example.com\n"
                                     "[init]\n\tdefaultBranch = main\n")
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
           "HOME": str(home), "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "/bin/false"}
    assert call(server, "POST", "/user/repos", json={"name": "history"}).status_code == 201
    work = tmp_path_factory.mktemp("history")
    git(env, "init", "-q", str(work))
    for n in range(1, 4):
        (work / "dir" / "sub").mkdir(parents=True, exist_ok=True)
        (work / "small.txt").write_text(f"small {n}\n")
        (work / "dir" / "big.bin").write_text(BIG + str(n))
        (work / "dir" / "sub" / "deep.txt").write_text(f"deep {n}\n")
        git(env, "add", "-A", cwd=work)
        git(env, "commit", "-q", "-m", f"commit {n}", cwd=work,
            ).check_returncode()
    git(env, "checkout", "-q", "-b", "other", cwd=work)
    (work / "other.txt").write_text("only on other\n")
    git(env, "add", "-A", cwd=work)
    git(env, "commit", "-q", "-m", "on other", cwd=work)
    git(env, "checkout", "-q", "main", cwd=work)
    git(env, "tag", "-a", "-m", "first release", "v1", "main~1", cwd=work)
    git(env, "push", "-q", remote(server, "history"), "main", "other", "v1", cwd=work)
    return work, env


def missing(env, clone) -> set[str]:
    """Objects a partial clone knows of but does not have."""
    out = git(env, "rev-list", "--objects", "--all", "--missing=print", cwd=clone).stdout
    return {line[1:].split()[0] for line in out.splitlines() if line.startswith("?")}


def ids(env, work, *specs) -> set[str]:
    return {git(env, "rev-parse", spec, cwd=work).stdout.strip() for spec in specs}


@pytest.mark.parametrize("version", ["0", "2"])
def test_blob_none_clone_fetches_blobs_lazily(server, source, tmp_path, version):  # noqa: F811
    work, env = source
    clone = tmp_path / "clone"
    git(env, "-c", f"protocol.version={version}", "clone", "-q", "--filter=blob:none",
        "--no-checkout", remote(server, "history"), str(clone))
    git(env, "config", "protocol.version", version, cwd=clone)
    # Every blob of every commit was left out, trees and commits were not.
    assert missing(env, clone) == ids(env, work, *(f"{rev}:{path}" for rev in
                                                   ("main", "main~1", "main~2", "other")
                                                   for path in ("small.txt", "dir/big.bin",
                                                                "dir/sub/deep.txt"))
                                      ) | ids(env, work, "other:other.txt")
    # Checking out fetches the blobs it needs by id (unadvertised objects).
    git(env, "checkout", "-q", "other", cwd=clone)
    assert (clone / "other.txt").read_text() == "only on other\n"
    assert (clone / "dir" / "sub" / "deep.txt").read_text() == "deep 3\n"
    log = git(env, "log", "-p", "main", cwd=clone).stdout
    assert "+small 1" in log and "-deep 1" in log and "+deep 2" in log
    assert missing(env, clone) == set()
    git(env, "fsck", "--no-progress", cwd=clone)


def test_blob_limit_leaves_out_big_blobs_only(server, source, tmp_path):  # noqa: F811
    work, env = source
    clone = tmp_path / "clone"
    git(env, "-c", "protocol.version=2", "clone", "-q", "--filter=blob:limit=1k",
        "--no-checkout", remote(server, "history"), str(clone))
    assert missing(env, clone) == ids(env, work, "main:dir/big.bin", "main~1:dir/big.bin",
                                      "main~2:dir/big.bin")
    git(env, "-c", "protocol.version=0", "checkout", "-q", "main", cwd=clone)
    assert (clone / "dir" / "big.bin").read_text() == BIG + "3"
    git(env, "fsck", "--no-progress", cwd=clone)


def test_tree_zero_then_checkout(server, source, tmp_path):  # noqa: F811
    work, env = source
    clone = tmp_path / "clone"
    git(env, "-c", "protocol.version=2", "clone", "-q", "--filter=tree:0", "--no-checkout",
        remote(server, "history"), str(clone))
    roots = ids(env, work, "main^{tree}", "main~1^{tree}", "other^{tree}")
    assert roots <= missing(env, clone)
    assert git(env, "rev-list", "--count", "--all", cwd=clone).stdout.strip() == "4"
    git(env, "-c", "protocol.version=2", "checkout", "-q", "other", cwd=clone)
    assert (clone / "dir" / "sub" / "deep.txt").read_text() == "deep 3\n"
    assert (clone / "other.txt").read_text() == "only on other\n"


def test_unsupported_filter_is_refused(server, source, tmp_path):  # noqa: F811
    work, env = source
    blob = ids(env, work, "main:small.txt").pop()
    for version in ("0", "2"):
        done = git(env, "-c", f"protocol.version={version}", "clone", "-q",
                   f"--filter=sparse:oid={blob}", remote(server, "history"),
                   str(tmp_path / f"c{version}"), check=False)
        assert done.returncode != 0
        assert "filter 'sparse:oid' not supported" in done.stderr


def test_v2_and_v0_clones_agree(server, source, tmp_path):  # noqa: F811
    work, env = source
    refs = {}
    for version in ("0", "2"):
        clone = tmp_path / f"v{version}"
        trace = tmp_path / f"trace{version}"
        git({**env, "GIT_TRACE_PACKET": str(trace)}, "-c", f"protocol.version={version}",
            "clone", "-q", "--mirror", remote(server, "history"), str(clone))
        spoke_v2 = "git< version 2" in trace.read_text()
        assert spoke_v2 == (version == "2")
        git(env, "fsck", "--no-progress", "--strict", cwd=clone)
        shallow = tmp_path / f"shallow{version}"
        git(env, "-c", f"protocol.version={version}", "clone", "-q", "--depth", "1",
            remote(server, "history"), str(shallow))
        git(env, "-c", f"protocol.version={version}", "fetch", "-q", "--depth", "2",
            cwd=shallow)
        assert git(env, "rev-list", "--count", "origin/main", cwd=shallow).stdout == "2\n"
        git(env, "fsck", "--no-progress", cwd=shallow)
        refs[version] = git(env, "show-ref", "--head", cwd=clone).stdout
        assert git(env, "symbolic-ref", "HEAD", cwd=clone).stdout.strip() == "refs/heads/main"
    assert refs["0"] == refs["2"]
    assert "refs/tags/v1" in refs["2"] and "refs/heads/other" in refs["2"]


def test_v2_shallow_clone_deepen_and_since(server, source, tmp_path):  # noqa: F811
    work, env = source
    v2 = ("-c", "protocol.version=2")
    clone = tmp_path / "shallow"
    git(env, *v2, "clone", "-q", "--depth", "1", "--no-tags", remote(server, "history"),
        str(clone))
    assert git(env, "rev-parse", "--is-shallow-repository", cwd=clone).stdout.strip() == "true"
    assert git(env, "rev-list", "--count", "HEAD", cwd=clone).stdout.strip() == "1"
    git(env, *v2, "fetch", "-q", "--deepen", "1", cwd=clone)
    assert git(env, "rev-list", "--count", "origin/main", cwd=clone).stdout.strip() == "2"
    git(env, *v2, "fetch", "-q", "--unshallow", cwd=clone)
    assert git(env, "rev-list", "--count", "origin/main", cwd=clone).stdout.strip() == "3"
    git(env, "fsck", "--no-progress", cwd=clone)
    # --shallow-since: the commits from the second one on (commit times are ours).
    since = git(env, "log", "-1", "--format=%ct", "main~1", cwd=work).stdout.strip()
    dated = tmp_path / "dated"
    git(env, *v2, "clone", "-q", f"--shallow-since={since}", "--single-branch",
        remote(server, "history"), str(dated))
    expected = git(env, "rev-list", "--count", f"--since={since}", "main", cwd=work).stdout
    assert git(env, "rev-list", "--count", "HEAD", cwd=dated).stdout == expected
    # --shallow-exclude: what the tag v1 (main~1) does not reach.
    excluded = tmp_path / "excluded"
    git(env, *v2, "clone", "-q", "--shallow-exclude=v1", "--single-branch",
        remote(server, "history"), str(excluded))
    assert git(env, "rev-list", "HEAD", cwd=excluded).stdout.split() == \
        [ids(env, work, "main").pop()]


def test_v2_fetch_of_one_new_commit(server, source, tmp_path):  # noqa: F811
    work, env = source
    v2 = ("-c", "protocol.version=2")
    assert call(server, "POST", "/user/repos", json={"name": "growing"}).status_code == 201
    git(env, "push", "-q", remote(server, "growing"), "main", cwd=work)
    clone = tmp_path / "clone"
    git(env, *v2, "clone", "-q", remote(server, "growing"), str(clone))
    writer = tmp_path / "writer"
    git(env, "clone", "-q", remote(server, "growing"), str(writer))
    (writer / "small.txt").write_text("new\n")
    git(env, "commit", "-q", "-am", "one more", cwd=writer)
    git(env, "push", "-q", "origin", "main", cwd=writer)
    before = git(env, "count-objects", "-v", cwd=clone).stdout
    assert "count: 0" in before
    trace = tmp_path / "trace"
    git({**env, "GIT_TRACE_PACKET": str(trace)}, *v2, "fetch", "-q", cwd=clone)
    assert "fetch< ready" in trace.read_text()
    # Exactly the new commit, its root tree and the changed blob came over.
    assert "count: 3" in git(env, "count-objects", "-v", cwd=clone).stdout
    assert git(env, "rev-parse", "origin/main", cwd=clone).stdout == \
        git(env, "rev-parse", "HEAD", cwd=writer).stdout
    git(env, "fsck", "--no-progress", cwd=clone)


def _repo_id(server, name: str) -> int:  # noqa: F811
    return int(call(server, "GET", f"/repos/alice/{name}").json()["id"])


def _put_refs(repo_id: int, refs: dict[str, str]) -> None:
    pk = gitkeys.refs_pk(repo_id)
    with GitRef.batch_write() as batch:
        for name, sha in refs.items():
            batch.save(GitRef(pk, name, sha=sha, peeled=sha))


def test_v2_ls_refs_prefix_on_5000_refs(server, source, tmp_path, monkeypatch):  # noqa: F811
    work, env = source
    assert call(server, "POST", "/user/repos", json={"name": "many"}).status_code == 201
    git(env, "push", "-q", remote(server, "many"), "main", "other", "v1", cwd=work)
    head = ids(env, work, "main").pop()
    _put_refs(_repo_id(server, "many"), {f"refs/pull/{n}/head": head for n in range(5000)})
    loads = []
    real = refdb.load_refs
    monkeypatch.setattr(refdb, "load_refs", lambda repo_id: loads.append(repo_id) or real(repo_id))
    v2 = ("-c", "protocol.version=2")
    heads = git(env, *v2, "ls-remote", "--heads", remote(server, "many")).stdout.splitlines()
    assert heads == [f"{head}\trefs/heads/main", f"{ids(env, work, 'other').pop()}\trefs/heads/other"]
    tags = git(env, *v2, "ls-remote", "--tags", remote(server, "many")).stdout.splitlines()
    assert tags == [f"{ids(env, work, 'v1').pop()}\trefs/tags/v1",
                    f"{ids(env, work, 'v1^{}').pop()}\trefs/tags/v1^{{}}"]
    # A prefix query reads only the refs under the prefix, never all 5,000.
    assert loads == []
    # A clone asks for HEAD, branches and tags only; refs/pull/* stay on the server.
    clone = tmp_path / "clone"
    git(env, *v2, "clone", "-q", remote(server, "many"), str(clone))
    assert not git(env, "show-ref", cwd=clone, check=False).stdout.count("refs/pull/")


def test_v2_want_ref_of_a_pull_head(server, source, tmp_path):  # noqa: F811
    work, env = source
    assert call(server, "POST", "/user/repos", json={"name": "pulled"}).status_code == 201
    git(env, "push", "-q", remote(server, "pulled"), "main", cwd=work)
    # A commit only a pull ref points at (the branch it came from is gone).
    git(env, "checkout", "-q", "-b", "gone", "main", cwd=work)
    (work / "gone.txt").write_text("gone\n")
    git(env, "add", "gone.txt", cwd=work)
    git(env, "commit", "-q", "-m", "gone", cwd=work)
    sha = ids(env, work, "gone").pop()
    git(env, "checkout", "-q", "main", cwd=work)
    git(env, "push", "-q", remote(server, "pulled"), "gone", cwd=work)
    _put_refs(_repo_id(server, "pulled"), {"refs/pull/7/head": sha})
    git(env, "push", "-q", remote(server, "pulled"), ":gone", cwd=work)
    clone = tmp_path / "clone"
    git(env, "clone", "-q", remote(server, "pulled"), str(clone))
    trace = tmp_path / "trace"
    git({**env, "GIT_TRACE_PACKET": str(trace)}, "-c", "protocol.version=2", "fetch", "-q",
        "origin", "refs/pull/7/head", cwd=clone)
    assert "want-ref refs/pull/7/head" in trace.read_text()
    assert git(env, "rev-parse", "FETCH_HEAD", cwd=clone).stdout.strip() == sha
    assert (git(env, "show", "FETCH_HEAD:gone.txt", cwd=clone).stdout) == "gone\n"


def _post(server, name: str, body: bytes, *, v2: bool) -> httpx.Response:  # noqa: F811
    host = server.url
    headers = {"Content-Type": "application/x-git-upload-pack-request",
               "Authorization": f"token {server.token}"}
    if v2:
        headers["Git-Protocol"] = "version=2"
    return httpx.post(f"{host}/alice/{name}.git/git-upload-pack", content=body,
                      headers=headers, timeout=TIMEOUT)


def _pkt(line: str) -> bytes:
    return f"{len(line) + 4:04x}".encode() + line.encode()


def test_wants_of_absent_objects_and_bad_requests_get_git_errors(server, source):  # noqa: F811
    absent = "1" * 40
    v2 = _pkt("command=fetch\n") + b"0001" + _pkt(f"want {absent}\n") + _pkt("done\n") + b"0000"
    answer = _post(server, "history", v2, v2=True)
    assert answer.status_code == 200
    assert answer.content == _pkt(f"ERR upload-pack: not our ref {absent}\n")
    v0 = _pkt(f"want {absent} side-band-64k thin-pack ofs-delta\n") + b"0000" + _pkt("done\n")
    assert _post(server, "history", v0, v2=False).content == \
        _pkt(f"ERR upload-pack: not our ref {absent}\n")
    unknown = _pkt("command=ls-refs\n") + b"0001" + _pkt("frobnicate\n") + b"0000"
    assert _post(server, "history", unknown, v2=True).content == \
        _pkt("ERR unexpected line: 'frobnicate'\n")
    nothing = _pkt("command=push\n") + b"0000"
    assert _post(server, "history", nothing, v2=True).content == \
        _pkt("ERR invalid command 'push'\n")
    info = httpx.get(f"{server.url}/alice/history.git/info/refs?service=git-upload-pack",
                     headers={"Git-Protocol": "version=2",
                              "Authorization": f"token {server.token}"}, timeout=TIMEOUT)
    assert info.headers["content-type"] == "application/x-git-upload-pack-advertisement"
    assert info.content.startswith(_pkt("version 2\n"))
    assert b"ls-refs=unborn\n" in info.content and info.content.endswith(b"0000")


def test_fork_serves_only_objects_its_refs_reach(server, source, tmp_path):  # noqa: F811
    """A fork shares its parent's object pool: a want by id is served only when the
    fork's own refs reach the object, so a commit pushed to the parent later stays
    out of the fork's fetches."""
    work, env = source
    assert call(server, "POST", "/user/repos", json={"name": "parent"}).status_code == 201
    git(env, "push", "-q", remote(server, "parent"), "main", cwd=work)
    made = call(server, "POST", "/repos/alice/parent/forks", json={"name": "child"})
    assert made.status_code == 202, made.text
    git(env, "checkout", "-q", "-b", "later", "main", cwd=work)
    (work / "later.txt").write_text("later\n")
    git(env, "add", "later.txt", cwd=work)
    git(env, "commit", "-q", "-m", "later", cwd=work)
    git(env, "checkout", "-q", "main", cwd=work)
    git(env, "push", "-q", remote(server, "parent"), "later", cwd=work)
    later = ids(env, work, "later").pop()
    for v2 in (False, True):
        body = (_pkt("command=fetch\n") + b"0001" + _pkt(f"want {later}\n") + _pkt("done\n")
                + b"0000") if v2 else (
            _pkt(f"want {later} side-band-64k thin-pack ofs-delta\n") + b"0000"
            + _pkt("done\n"))
        assert _post(server, "child", body, v2=v2).content == \
            _pkt(f"ERR upload-pack: not our ref {later}\n")
        assert b"PACK" in _post(server, "parent", body, v2=v2).content
    # What the fork's refs do reach is served by id: a partial clone of it works.
    clone = tmp_path / "clone"
    git(env, "-c", "protocol.version=2", "clone", "-q", "--filter=blob:none",
        remote(server, "child"), str(clone))
    assert (clone / "dir" / "sub" / "deep.txt").read_text() == "deep 3\n"


def test_v2_clone_of_an_empty_repository(server, source, tmp_path):  # noqa: F811
    _, env = source
    made = call(server, "POST", "/user/repos", json={"name": "void", "default_branch": "trunk"})
    assert made.status_code == 201
    clone = tmp_path / "void"
    done = git(env, "-c", "protocol.version=2", "clone", remote(server, "void"), str(clone))
    assert "cloned an empty repository" in done.stderr
    # ls-refs answered "unborn HEAD symref-target:refs/heads/trunk".
    assert git(env, "symbolic-ref", "HEAD", cwd=clone).stdout.strip() == "refs/heads/trunk"
