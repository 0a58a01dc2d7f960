"""End-to-end: the real git CLI against chalicelib.gitstore's smart-HTTP runners.

A throwaway threaded HTTP server (127.0.0.1, random port, no auth) maps
``/<name>.git/info/refs``, ``/<name>.git/git-upload-pack`` and
``/<name>.git/git-receive-pack`` to ``advertise``/``upload_pack``/``receive_pack``;
``<name>`` is both repo id and pool id unless a test maps it (forks).
"""
from __future__ import annotations

import gzip
import os
import re
import subprocess
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import pytest

GIT_TIMEOUT = 60


@pytest.fixture
def serial_aws(aws, monkeypatch):
    """Make each moto call atomic, as each AWS call is: moto's DynamoDB transactions
    check, apply and roll back without a lock, so concurrent threads could interleave
    inside one call.  Races between calls - what the tests exercise - remain."""
    from botocore.client import BaseClient

    lock = threading.RLock()
    original = BaseClient._make_api_call

    def locked(self, operation_name, api_params):
        with lock:
            return original(self, operation_name, api_params)

    monkeypatch.setattr(BaseClient, "_make_api_call", locked)


_errors: list[str] = []  # server-side tracebacks, shown when a git command fails


class GitServer:
    def __init__(self):
        self.repos: dict[str, tuple[str, str]] = {}   # name -> (repo id, pool id)
        self.before_commit = None
        self.check_update = None
        self.pushes: list[list[tuple[str, str, str]]] = []
        self.errors = _errors
        _errors.clear()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.daemon_threads = True
        self.httpd.git = self
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/{name}.git"

    def open(self, name: str):
        from chalicelib.gitstore import refdb
        from chalicelib.gitstore.repo import init_repo, open_repo

        repo_id, pool_id = self.repos.setdefault(name, (name, name))
        if "HEAD" not in refdb.load_refs(repo_id):
            init_repo(repo_id, pool_id, "main").close()
        return open_repo(repo_id, pool_id)

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        from chalicelib.gitstore.smart_http import advertise

        path, _, query = self.path.partition("?")
        match = re.fullmatch(r"/([\w.-]+)\.git/info/refs", path)
        service = parse_qs(query).get("service", [""])[0]
        if not match or service not in ("git-upload-pack", "git-receive-pack"):
            return self._reply(404, "text/plain", b"not found")
        with self.server.git.open(match.group(1)) as repo:
            body = advertise(repo, service)
        self._reply(200, f"application/x-{service}-advertisement", body)

    def do_POST(self):
        from chalicelib.gitstore.smart_http import receive_pack, upload_pack

        match = re.fullmatch(r"/([\w.-]+)\.git/(git-upload-pack|git-receive-pack)", self.path)
        if not match:
            return self._reply(404, "text/plain", b"not found")
        body = self._read_body()
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        git = self.server.git
        service = match.group(2)
        try:
            with git.open(match.group(1)) as repo:
                if service == "git-upload-pack":
                    out = upload_pack(repo, body)
                else:
                    out = receive_pack(repo, body, before_commit=git.before_commit,
                                       check_update=git.check_update,
                                       on_updated=git.pushes.append)
        except Exception:  # noqa: BLE001 - what an HTTP layer would do: 500
            git.errors.append(traceback.format_exc())
            return self._reply(500, "text/plain", b"internal error")
        self._reply(200, f"application/x-{service}-result", out)

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            parts = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def _reply(self, status: int, content_type: str, body: bytes):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def server(serial_aws, tmp_path, monkeypatch):
    monkeypatch.setenv("NIMBUS_CACHE_DIR", str(tmp_path / "cache"))
    git_server = GitServer()
    yield git_server
    git_server.close()


@pytest.fixture
def git(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Tester\n\temail = tester@example.com\n"
        "[init]\n\tdefaultBranch = main\n[protocol]\n\tversion = 0\n"
        "[advice]\n\tdetachedHead = false\n")
    env = {"HOME": str(home), "PATH": os.environ["PATH"], "GIT_TERMINAL_PROMPT": "0",
           "GIT_CONFIG_NOSYSTEM": "1", "LANG": "C"}

    def run(*args, cwd=None, check=True) -> subprocess.CompletedProcess:
        proc = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True,
                              text=True, timeout=GIT_TIMEOUT)
        if check and proc.returncode:
            raise AssertionError(f"git {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}"
                                 + "".join(_errors))
        return proc

    return run


def commit(git, work, name: str, content: str, message: str | None = None) -> str:
    path = os.path.join(work, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(content)
    git("add", name, cwd=work)
    git("commit", "-q", "-m", message or f"edit {name}", cwd=work)
    return git("rev-parse", "HEAD", cwd=work).stdout.strip()


def remote_refs(git, url) -> dict[str, str]:
    out = git("ls-remote", url).stdout
    return {line.split("\t")[1]: line.split("\t")[0] for line in out.splitlines()}


def source_text(i: int) -> str:
    return "".join(f"def function_{i}_{n}(x):\n    return x * {n} + {i}\n\n" for n in range(300))


def test_push_fetch_clone_branches_tags_shallow(server, git, tmp_path):
    from chalicelib.gitstore import packdb

    url = server.url("demo")
    work = str(tmp_path / "work")
    git("init", "-q", work)
    for i in range(5):
        commit(git, work, f"src/mod{i}.py", source_text(i))
    first = git("rev-parse", "HEAD", cwd=work).stdout.strip()
    git("push", "-q", url, "main", cwd=work)                          # first push: full pack
    assert remote_refs(git, url) == {"HEAD": first, "refs/heads/main": first}

    with open(os.path.join(work, "src/mod1.py"), "a") as f:
        f.write("# a small change\n")
    git("commit", "-qam", "small change", cwd=work)
    second = git("rev-parse", "HEAD", cwd=work).stdout.strip()
    first_pack = set(packdb.list_packs("demo"))
    git("push", "-q", url, "main", cwd=work)                          # thin pack
    (second_pack,) = set(packdb.list_packs("demo")) - first_pack
    with _store("demo") as store:
        old_blob = store[store[first.encode()].tree][b"src"]
        old_blob = store[old_blob[1]][b"mod1.py"][1]
        # git sent the new blob as a delta against the old one, which the server
        # appended to complete the thin pack: both are in the second pack.
        assert old_blob in store.pack_by_name(second_pack)

    git("checkout", "-q", "-b", "feature", cwd=work)
    feature = commit(git, work, "feature.txt", "feature\n")
    git("push", "-q", url, "feature", cwd=work)                       # new branch
    git("tag", "-a", "v1.0", "-m", "release", second, cwd=work)
    git("push", "-q", url, "v1.0", cwd=work)                          # annotated tag
    tag_id = git("rev-parse", "v1.0", cwd=work).stdout.strip()
    git("push", "-q", url, "main:refs/heads/doomed", cwd=work)        # branch at an old commit
    refs = remote_refs(git, url)
    assert refs["refs/heads/feature"] == feature and refs["refs/heads/doomed"] == second
    assert refs["refs/tags/v1.0"] == tag_id and refs["refs/tags/v1.0^{}"] == second
    git("push", "-q", url, ":doomed", cwd=work)                       # delete a branch
    assert "refs/heads/doomed" not in remote_refs(git, url)

    clone = str(tmp_path / "clone")
    git("clone", "-q", url, clone)
    assert git("rev-parse", "HEAD", "origin/feature", "v1.0^{}", cwd=clone).stdout.split() == [
        second, feature, second]
    git("fsck", "--strict", cwd=clone)

    shallow = str(tmp_path / "shallow")
    git("clone", "-q", "--depth", "1", url, shallow)
    assert git("rev-parse", "--is-shallow-repository", cwd=shallow).stdout.strip() == "true"
    assert git("rev-list", "--count", "HEAD", cwd=shallow).stdout.strip() == "1"

    git("checkout", "-q", "main", cwd=work)
    third = commit(git, work, "src/mod2.py", source_text(2) + "# more\n")
    git("push", "-q", url, "main", cwd=work)
    git("pull", "-q", "--ff-only", cwd=clone)                        # incremental fetch
    assert git("rev-parse", "HEAD", cwd=clone).stdout.strip() == third
    git("fetch", "-q", "--depth", "3", cwd=shallow)                   # deepen a shallow clone
    assert git("rev-list", "--count", "origin/main", cwd=shallow).stdout.strip() == "3"
    assert not server.errors
    assert [u[0][0] for u in server.pushes][:2] == ["refs/heads/main", "refs/heads/main"]


def test_protocol_v2_client_falls_back(server, git, tmp_path):
    work = str(tmp_path / "work")
    git("init", "-q", work)
    sha = commit(git, work, "a.txt", "a\n")
    git("push", "-q", server.url("v2"), "main", cwd=work)
    clone = str(tmp_path / "clone")
    git("-c", "protocol.version=2", "clone", "-q", server.url("v2"), clone)
    assert git("rev-parse", "HEAD", cwd=clone).stdout.strip() == sha


def test_non_fast_forward_refused_unless_forced(server, git, tmp_path):
    url = server.url("nff")
    alice, bob = str(tmp_path / "alice"), str(tmp_path / "bob")
    git("init", "-q", alice)
    base = commit(git, alice, "a.txt", "base\n")
    git("push", "-q", url, "main", cwd=alice)
    git("clone", "-q", url, bob)
    mine = commit(git, alice, "a.txt", "alice\n")
    git("push", "-q", url, "main", cwd=alice)
    theirs = commit(git, bob, "b.txt", "bob\n")

    refused = git("push", url, "main", cwd=bob, check=False)
    assert refused.returncode != 0 and "rejected" in refused.stderr
    assert remote_refs(git, url)["refs/heads/main"] == mine

    git("push", "-q", "--force", url, "main", cwd=bob)
    assert remote_refs(git, url)["refs/heads/main"] == theirs
    assert server.pushes[-1] == [("refs/heads/main", mine, theirs)]
    assert base != mine


def test_stale_old_value_is_refused_per_ref(server, git, tmp_path):
    """Every update carries the old value the client saw; if a ref moved since (another
    push landed between advertisement and update), the whole push is refused."""
    from chalicelib.gitstore import refdb

    url = server.url("cas")
    work = str(tmp_path / "work")
    git("init", "-q", work)
    base = commit(git, work, "a.txt", "1\n")
    git("checkout", "-q", "-b", "side", cwd=work)
    side = commit(git, work, "b.txt", "side\n")
    git("checkout", "-q", "main", cwd=work)
    git("push", "-q", url, "main", "side", "main:refs/heads/second", cwd=work)
    mine = commit(git, work, "a.txt", "2\n")

    def someone_else_pushes_first(updates):
        server.before_commit = None
        refdb.commit_updates("cas", [("refs/heads/main", base, side)])

    server.before_commit = someone_else_pushes_first
    res = git("push", url, "main", "main:refs/heads/second", cwd=work, check=False)
    assert res.returncode != 0
    assert "main (stale old value" in res.stderr
    assert "second (atomic transaction failed)" in res.stderr
    refs = remote_refs(git, url)
    assert refs["refs/heads/main"] == side and refs["refs/heads/second"] == base
    git("push", "-q", "--force", url, "main", "main:refs/heads/second", cwd=work)
    assert remote_refs(git, url)["refs/heads/second"] == mine


def test_service_can_refuse_single_updates(server, git, tmp_path):
    url = server.url("policy")
    work = str(tmp_path / "work")
    git("init", "-q", work)
    commit(git, work, "a.txt", "1\n")
    git("push", "-q", url, "main", "main:refs/heads/extra", cwd=work)
    server.check_update = lambda ref, old, new: (
        "the default branch cannot be deleted"
        if ref == "refs/heads/main" and not new.strip("0") else None)
    res = git("push", url, ":main", ":extra", cwd=work, check=False)
    assert res.returncode != 0 and "the default branch cannot be deleted" in res.stderr
    assert set(remote_refs(git, url)) == {"HEAD", "refs/heads/main"}   # extra went
    res = git("push", "--atomic", url, ":main", "main:refs/heads/extra", cwd=work, check=False)
    assert res.returncode != 0 and "atomic push failed" in res.stderr
    assert "refs/heads/extra" not in remote_refs(git, url)


def test_concurrent_pushes_race_on_one_branch(server, git, tmp_path):
    url = server.url("race")
    seed = str(tmp_path / "seed")
    git("init", "-q", seed)
    commit(git, seed, "a.txt", "seed\n")
    git("push", "-q", url, "main", cwd=seed)
    clones, commits = [], []
    for i in range(8):
        path = str(tmp_path / f"c{i}")
        git("clone", "-q", url, path)
        commits.append(commit(git, path, f"file{i}.txt", f"writer {i}\n" * 50))
        clones.append(path)

    def push(path):
        return git("push", url, "main", cwd=path, check=False)

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(push, clones))
    accepted = [c for c, r in zip(commits, results) if r.returncode == 0]
    for r in results:
        if r.returncode:
            assert "rejected" in r.stderr or "stale old value" in r.stderr, r.stderr
    head = remote_refs(git, url)["refs/heads/main"]
    assert len(accepted) == 1 and head == accepted[0]
    check = str(tmp_path / "check")
    git("clone", "-q", url, check)
    git("fsck", "--strict", cwd=check)
    assert not server.errors


def test_crash_between_pack_and_refs_leaves_refs_untouched(server, git, tmp_path):
    from chalicelib.gitstore import packdb

    url = server.url("crash")
    work = str(tmp_path / "work")
    git("init", "-q", work)
    first = commit(git, work, "a.txt", "1\n")
    git("push", "-q", url, "main", cwd=work)
    commit(git, work, "a.txt", "2\n")

    def crash(updates):
        raise RuntimeError("Lambda timed out")

    server.before_commit = crash
    res = git("push", url, "main", cwd=work, check=False)
    assert res.returncode != 0
    assert remote_refs(git, url)["refs/heads/main"] == first
    assert len(packdb.list_packs("crash")) == 2        # only an unreferenced pack remains
    server.before_commit = None
    git("push", "-q", url, "main", cwd=work)            # and a retry lands
    head = git("rev-parse", "HEAD", cwd=work).stdout.strip()
    assert remote_refs(git, url)["refs/heads/main"] == head


def test_compaction_keeps_history_and_clones(server, git, tmp_path, monkeypatch):
    from chalicelib.gitstore import packdb
    from chalicelib.gitstore.compaction import compact_pool

    url = server.url("proj")
    server.repos["fork"] = ("fork", "proj")            # a fork shares the parent's pool
    work = str(tmp_path / "work")
    git("init", "-q", work)
    for i in range(4):
        commit(git, work, "src/big.py", source_text(1) + f"# revision {i}\n" * (i + 1))
        git("push", "-q", url, "main", cwd=work)
    git("tag", "v1", cwd=work)
    git("checkout", "-q", "-b", "topic", cwd=work)
    topic = commit(git, work, "topic.txt", "topic\n")
    git("push", "-q", url, "v1", "topic", cwd=work)
    git("checkout", "-q", "-b", "forked", "main", cwd=work)
    forked = commit(git, work, "fork.txt", "only in the fork\n")
    git("push", "-q", server.url("fork"), "forked", cwd=work)
    git("checkout", "-q", "-b", "gone", "main", cwd=work)
    gone = commit(git, work, "gone.txt", "soon unreachable\n")
    git("push", "-q", url, "gone", cwd=work)
    git("push", "-q", url, ":gone", cwd=work)
    before = remote_refs(git, url)
    assert len(packdb.list_packs("proj")) == 7   # one per push that sent objects

    result = compact_pool("proj", ["proj", "fork"], min_age_seconds=0, grace_seconds=600)
    live = packdb.list_packs("proj")
    assert {i.role for i in live.values()} == {"compacted", "garbage"} and len(live) == 2
    assert result.deltas > 0 and result.garbage_objects >= 2 and not result.deleted
    assert remote_refs(git, url) == before
    assert not compact_pool("proj", ["proj", "fork"], min_age_seconds=0)  # nothing to do

    # Files of retired packs stay for in-flight readers until the grace period ends.
    swept = packdb.sweep_pool("proj", grace_seconds=600, now=time.time() + 601)
    assert sorted(swept) == sorted(result.retired)
    monkeypatch.setenv("NIMBUS_CACHE_DIR", str(tmp_path / "cold-cache"))  # read from S3
    clone = str(tmp_path / "clone")
    git("clone", "-q", url, clone)
    git("fsck", "--strict", cwd=clone)
    assert git("rev-list", "--count", "main", cwd=clone).stdout.strip() == "4"
    assert git("rev-parse", "origin/topic", cwd=clone).stdout.strip() == topic
    fork_clone = str(tmp_path / "fork-clone")
    git("clone", "-q", "-b", "forked", server.url("fork"), fork_clone)
    assert git("rev-parse", "HEAD", cwd=fork_clone).stdout.strip() == forked
    # The deleted branch's commit survives as garbage for one grace period, then goes.
    assert gone.encode() in _store("proj")
    again = compact_pool("proj", ["proj", "fork"], min_age_seconds=0, grace_seconds=600,
                         now=time.time() + 601)
    assert again.dropped_objects >= 2 and gone.encode() not in _store("proj")
    # A push after compaction (thin, against compacted bases) still works.
    git("checkout", "-q", "main", cwd=work)
    commit(git, work, "src/big.py", source_text(1) + "# after compaction\n")
    git("push", "-q", url, "main", cwd=work)
    git("pull", "-q", "--ff-only", cwd=clone)
    git("fsck", "--strict", cwd=clone)
    assert not server.errors


def _store(pool):
    from chalicelib.gitstore.objects import S3ObjectStore

    return _Closing(S3ObjectStore(pool))


class _Closing:
    """An object store usable in ``with`` and in ``in`` checks, closed when done."""

    def __init__(self, store):
        self.store = store

    def __enter__(self):
        return self.store

    def __exit__(self, *exc):
        self.store.close()

    def __contains__(self, sha):
        try:
            return sha in self.store
        finally:
            self.store.close()


def test_clone_s3_reads_cold_and_warm(server, git, tmp_path, monkeypatch):
    from chalicelib import aws as aws_clients

    url = server.url("cost")
    work = str(tmp_path / "work")
    git("init", "-q", work)
    for i in range(3):
        commit(git, work, f"m{i}.py", source_text(i))
        git("push", "-q", url, "main", cwd=work)
    gets: list[str] = []
    client = aws_clients.client("s3")
    hook = lambda model, **_: gets.append(model.name)  # noqa: E731
    client.meta.events.register("before-call.s3.GetObject", hook)
    try:
        monkeypatch.setenv("NIMBUS_CACHE_DIR", str(tmp_path / "cold"))
        git("clone", "-q", url, str(tmp_path / "c1"))
        cold = len(gets)
        gets.clear()
        git("clone", "-q", url, str(tmp_path / "c2"))
        warm = len(gets)
    finally:
        client.meta.events.unregister("before-call.s3.GetObject", hook)
    assert cold == 6 and warm == 0      # 3 packs: .idx + .pack each, once
