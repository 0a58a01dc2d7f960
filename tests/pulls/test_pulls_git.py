"""Pull requests against the local runtime with the real git CLI: every merge style on
every kind of history, checked on a fresh clone (``git log``, ``git rev-list
--parents``, ``git verify-commit``, ``git fsck``), eight merges racing into one base, and
``git fetch origin pull/<n>/head``."""
from __future__ import annotations

import concurrent.futures
import contextlib
import shutil
import subprocess
import time

import httpx
import pytest

from chalicelib.local.event_pipeline import EventPipeline
from chalicelib.local.runtime import LocalRuntime
from tests.environment import settings_env
from tests.git_transport.test_git_http import TIMEOUT, git, git_env  # noqa: F401 - git_env: a fixture

PASSWORD = "alice-password"
STYLES = ("merge", "rebase", "rebase-merge", "squash", "fast-forward-only")
SCENARIOS = ("clean", "conflict", "uptodate", "ff")
SIGN_MERGES = "NIMBUS__REPOSITORY_0X2E_SIGNING__MERGES"
SIGN_CRUD = "NIMBUS__REPOSITORY_0X2E_SIGNING__CRUD_ACTIONS"


@contextlib.contextmanager
def runtime_with_users(data_dir, settings: dict[str, str], *, users=("alice",),
                       events: bool = True):
    """The local runtime (with the event pipeline when ``events``) under ``settings``,
    an admin, and ``users`` each with password PASSWORD and an all-scope token
    (``runtime.tokens[name]``; ``runtime.token`` is the first user's)."""
    with settings_env(settings), LocalRuntime(port=0, data_dir=data_dir,
                                              access_log=False) as runtime:
        if events:
            for task in EventPipeline().tasks():
                runtime.add_background(task)
        from chalicelib.accounts.service import ensure_admin

        ensure_admin("boss", "boss-password", "boss@example.com")
        runtime.tokens = {}
        for name in users:
            httpx.post(f"{runtime.url}/api/v1/admin/users", auth=("boss", "boss-password"),
                       json={"username": name, "email": f"{name}@example.com",
                             "password": PASSWORD}, timeout=TIMEOUT).raise_for_status()
            runtime.tokens[name] = httpx.post(
                f"{runtime.url}/api/v1/users/{name}/tokens", auth=(name, PASSWORD),
                json={"name": "git", "scopes": ["all"]}, timeout=TIMEOUT).json()["sha1"]
        runtime.token = runtime.tokens[users[0]]
        yield runtime


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with runtime_with_users(tmp_path_factory.mktemp("pulls-git"),
                            {SIGN_MERGES: "always", SIGN_CRUD: "always"}) as runtime:
        yield runtime


def call(server, method, path, **kw):
    return httpx.request(method, f"{server.url}/api/v1{path}", timeout=TIMEOUT,
                         headers={"Authorization": f"token {server.token}"}, **kw)


@pytest.fixture
def env(git_env, tmp_path):  # noqa: F811 - the imported fixture
    """test_git_http's git environment (user Alice) with a keyring of its own."""
    (tmp_path / "gnupg").mkdir(mode=0o700)
    return {**git_env, "GNUPGHOME": str(tmp_path / "gnupg")}


def remote(server, name: str) -> str:
    host = server.url.split("://", 1)[1]
    return f"http://alice:{server.token}@{host}/alice/{name}.git"


def commit_file(env, work, path: str, content: str, message: str) -> str:
    (work / path).write_text(content)
    git(env, "add", path, cwd=work)
    git(env, "commit", "-q", "-m", message, cwd=work)
    return git(env, "rev-parse", "HEAD", cwd=work).stdout.strip()


def build_histories(env, work) -> dict[str, str]:
    """One pair of branches per scenario, all from C0: ``base-<s>`` and ``head-<s>``."""
    git(env, "init", "-q", str(work))
    shas = {"C0": commit_file(env, work, "shared.txt", "line\n", "initial")}

    def branch(name: str, *changes: tuple[str, str, str]) -> str:
        git(env, "checkout", "-q", "-b", name, shas["C0"], cwd=work)
        for path, content, message in changes:
            shas[f"{name}:{message}"] = commit_file(env, work, path, content, message)
        return git(env, "rev-parse", "HEAD", cwd=work).stdout.strip()

    shas["base-clean"] = branch("base-clean", ("main.txt", "main\n", "M1"))
    shas["head-clean"] = branch("head-clean", ("feature.txt", "f1\n", "H1"),
                                ("feature2.txt", "f2\n", "H2"))
    shas["base-conflict"] = branch("base-conflict", ("shared.txt", "base\n", "M1"))
    shas["head-conflict"] = branch("head-conflict", ("shared.txt", "head\n", "H1"))
    shas["base-uptodate"] = branch("base-uptodate", ("main.txt", "main\n", "M1"))
    shas["head-uptodate"] = branch("head-uptodate")
    shas["base-ff"] = branch("base-ff")
    shas["head-ff"] = branch("head-ff", ("feature.txt", "f1\n", "H1"),
                             ("feature2.txt", "f2\n", "H2"))
    return shas


def rev(env, clone, *args) -> list[str]:
    return git(env, "rev-list", *args, cwd=clone).stdout.split()


@pytest.mark.parametrize("style", STYLES)
def test_every_style_on_every_history(server, env, tmp_path, style):
    name = f"styles-{style}"
    assert call(server, "POST", "/user/repos", json={"name": name}).status_code == 201
    work = tmp_path / "work"
    shas = build_histories(env, work)
    git(env, "push", "-q", remote(server, name), "--all", cwd=work)
    numbers, outcome = {}, {}
    for scenario in SCENARIOS:
        r = call(server, "POST", f"/repos/alice/{name}/pulls", json={
            "head": f"head-{scenario}", "base": f"base-{scenario}", "title": f"PR {scenario}"})
        assert r.status_code == 201, r.text
        numbers[scenario] = r.json()["number"]
        assert r.json()["mergeable"] is (scenario != "conflict"), (scenario, r.json())
    for scenario in SCENARIOS:
        r = call(server, "POST", f"/repos/alice/{name}/pulls/{numbers[scenario]}/merge",
                 json={"Do": style})
        outcome[scenario] = r.status_code
    # Conflicts and nothing to merge are refused; fast-forward-only refuses a divergence.
    assert outcome["conflict"] == 405 and outcome["uptodate"] == 405
    assert outcome["ff"] == 200
    assert outcome["clean"] == (405 if style == "fast-forward-only" else 200)

    clone = tmp_path / "clone"
    git(env, "clone", "-q", "--mirror", remote(server, name), str(clone))
    assert git(env, "fsck", "--strict", "--no-dangling", cwd=clone).returncode == 0
    tip = {b: rev(env, clone, "-n1", b)[0] for b in (f"base-{s}" for s in SCENARIOS)}
    assert tip["base-conflict"] == shas["base-conflict"]
    assert tip["base-uptodate"] == shas["base-uptodate"]
    clean_parents = rev(env, clone, "--parents", "-n1", "base-clean")[1:]
    ff_parents = rev(env, clone, "--parents", "-n1", "base-ff")[1:]
    files = set(git(env, "ls-tree", "--name-only", "base-clean", cwd=clone).stdout.split())
    if style == "merge":
        assert clean_parents == [shas["base-clean"], shas["head-clean"]]
        assert ff_parents == [shas["C0"], shas["head-ff"]]           # always a merge commit
    elif style == "squash":
        assert clean_parents == [shas["base-clean"]]
        assert ff_parents == [shas["C0"]]
        author = git(env, "log", "-1", "--format=%an", "base-clean", cwd=clone).stdout.strip()
        assert author == "alice"                # the pull request's poster
    elif style == "rebase":
        # Both commits replayed on M1, linear, with their own authors and messages.
        assert rev(env, clone, "-n1", "base-clean~2") == [shas["base-clean"]]
        log = git(env, "log", "-2", "--format=%an|%s|%P", "base-clean", cwd=clone).stdout
        assert [line.split("|")[:2] for line in log.splitlines()] == [
            ["Alice", "H2"], ["Alice", "H1"]]
        assert all(len(line.split("|")[2].split()) == 1 for line in log.splitlines())
        assert tip["base-ff"] == shas["head-ff"]                     # a fast-forward
    elif style == "rebase-merge":
        assert clean_parents[0] == shas["base-clean"] and clean_parents[1] != shas["head-clean"]
        assert rev(env, clone, "-n1", f"{clean_parents[1]}~2") == [shas["base-clean"]]
        assert ff_parents == [shas["C0"], shas["head-ff"]]
    else:                                        # fast-forward-only
        assert tip["base-clean"] == shas["base-clean"]
        assert tip["base-ff"] == shas["head-ff"]
    if style != "fast-forward-only":
        assert {"feature.txt", "feature2.txt", "main.txt", "shared.txt"} <= files
    merged = {s: call(server, "GET", f"/repos/alice/{name}/pulls/{n}").json()
              for s, n in numbers.items()}
    assert merged["ff"]["merged"] and merged["ff"]["state"] == "closed"
    assert not merged["conflict"]["merged"] and not merged["uptodate"]["merged"]
    assert merged["ff"]["merge_commit_sha"] == tip["base-ff"]
    if style in ("merge", "squash", "rebase-merge"):
        assert_signed(server, env, clone, tip["base-clean"])
        branch = call(server, "GET", f"/repos/alice/{name}/branches/base-clean").json()
        assert branch["commit"]["verification"]["verified"] is True, branch["commit"]


def assert_signed(server, env, clone, sha: str) -> None:
    raw = git(env, "cat-file", "commit", sha, cwd=clone).stdout
    assert "gpgsig -----BEGIN PGP SIGNATURE-----" in raw
    if not shutil.which("gpg"):
        return
    key = httpx.get(f"{server.url}/api/v1/signing-key.gpg", timeout=TIMEOUT).content
    done = subprocess.run(["gpg", "--batch", "--import"], input=key, env=env,
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    done = git(env, "verify-commit", sha, cwd=clone, check=False)
    assert done.returncode == 0 and "Good signature" in done.stderr, done.stderr


def test_eight_merges_racing_into_one_base(server, env, tmp_path):
    name = "race"
    assert call(server, "POST", "/user/repos", json={"name": name}).status_code == 201
    work = tmp_path / "work"
    git(env, "init", "-q", str(work))
    base = commit_file(env, work, "README.md", "race\n", "initial")
    for n in range(8):
        git(env, "checkout", "-q", "-b", f"topic-{n}", base, cwd=work)
        commit_file(env, work, f"topic-{n}.txt", f"{n}\n", f"topic {n}")
    git(env, "push", "-q", remote(server, name), "--all", cwd=work)
    numbers = []
    for n in range(8):
        r = call(server, "POST", f"/repos/alice/{name}/pulls",
                 json={"head": f"topic-{n}", "base": "main", "title": f"topic {n}"})
        assert r.status_code == 201, r.text
        numbers.append(r.json()["number"])

    def merge(number):
        return call(server, "POST", f"/repos/alice/{name}/pulls/{number}/merge",
                    json={"Do": "merge"}).status_code

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(merge, numbers))
    assert statuses == [200] * 8, statuses
    clone = tmp_path / "clone"
    git(env, "clone", "-q", remote(server, name), str(clone))
    assert git(env, "fsck", "--strict", cwd=clone).returncode == 0
    assert {f"topic-{n}.txt" for n in range(8)} <= {p.name for p in clone.iterdir()}
    assert len(rev(env, clone, "--merges", "HEAD")) == 8
    for number in numbers:
        assert call(server, "GET", f"/repos/alice/{name}/pulls/{number}/merge").status_code == 204


def test_pull_head_ref_is_fetchable_and_follows_pushes(server, env, tmp_path):
    name = "fetchable"
    assert call(server, "POST", "/user/repos", json={"name": name,
                                                     "auto_init": True}).status_code == 201
    work = tmp_path / "work"
    git(env, "clone", "-q", remote(server, name), str(work))
    git(env, "checkout", "-q", "-b", "topic", cwd=work)
    first = commit_file(env, work, "t.txt", "1\n", "one")
    git(env, "push", "-q", "origin", "topic", cwd=work)
    number = call(server, "POST", f"/repos/alice/{name}/pulls", json={
        "head": "topic", "base": "main", "title": "topic"}).json()["number"]
    git(env, "fetch", "-q", "origin", f"pull/{number}/head:pr", cwd=work)
    assert rev(env, work, "-n1", "pr") == [first]
    second = commit_file(env, work, "t.txt", "2\n", "two")
    git(env, "push", "-q", "origin", "topic", cwd=work)
    # The push event reaches the pull request through the event pipeline.
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if call(server, "GET", f"/repos/alice/{name}/pulls/{number}").json()["head"]["sha"] \
                == second:
            break
        time.sleep(0.2)
    git(env, "fetch", "-q", "origin", f"+pull/{number}/head:pr", cwd=work)
    assert rev(env, work, "-n1", "pr") == [second]
    # refs/pull/ belongs to the server: a client cannot push there.
    done = git(env, "push", "origin", f"+{first}:refs/pull/{number}/head", cwd=work,
               check=False)
    assert done.returncode != 0 and "hidden ref" in done.stderr, done.stderr
    git(env, "fetch", "-q", "origin", f"+pull/{number}/head:pr", cwd=work)
    assert rev(env, work, "-n1", "pr") == [second]
