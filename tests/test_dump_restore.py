"""``admin dump`` and ``admin restore`` (chalicelib/backup, docs/operations.md "Backups")
end to end, through the command line, on local runtimes: the source in this process
(its event pipeline running, as on ``make run``), each target a fresh
``python -m chalicelib.local`` serving the same ROOT_URL.

- A source holding every kind of record is dumped and restored; the restored
  instance answers a list of GET endpoints exactly as the source did, with the same
  tokens; clones have the same refs and objects; Git LFS objects, attachments and
  avatars have the same bytes.
- A truncated, altered or unknown-version dump, and a restore into an instance that
  holds data, are refused and nothing is written.
- A dump taken while a thread pushes and opens issues restores to an instance whose
  every ref's commit is there (clones pass ``git fsck``) and whose counters are past
  every number used (new issues get new numbers and ids).
"""
from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import subprocess
import sys
import tarfile
import threading
from pathlib import Path

import boto3
import httpx
import pytest

from tests import local_server
from tests.git_cli import git_home_env, run_git
from tests.local_server import runtime_with_events, seat_people, served, wait_until

# The tests' ROOT_URL (tests/conftest.py): both instances serve their records under it.
ROOT_URL = "http://nimbus.test/"
TARGET_ENV = {"NIMBUS__SERVER__ROOT_URL": ROOT_URL,
              "NIMBUS__SECURITY__PASSWORD_HASH_COST": "1024"}
PASSWORDS = {"alice": "alice-password", "bob": "bob-password"}
LFS_MEDIA = "application/vnd.git-lfs+json"
TIMEOUT = 60
G = "/repos/alice/garden"


def _b64(data: bytes | str) -> str:
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


class Forge:
    """API calls to one instance as its people (tokens by name)."""

    def __init__(self, url: str, tokens: dict[str, str]):
        self.url, self.tokens = url, tokens

    def call(self, who: str | None, method: str, path: str, **kw) -> httpx.Response:
        headers = {"Authorization": f"token {self.tokens[who]}"} if who else {}
        return httpx.request(method, f"{self.url}/api/v1{path}", headers=headers,
                             timeout=TIMEOUT, **kw)

    def must(self, who: str, method: str, path: str, **kw):
        answer = self.call(who, method, path, **kw)
        assert answer.status_code < 300, (method, path, answer.status_code, answer.text)
        return answer.json() if answer.content else {}

    def bytes_at(self, url: str) -> bytes:
        """What a ROOT_URL link serves (followed to S3 when it redirects there)."""
        answer = httpx.get(url.replace(ROOT_URL, self.url + "/"), follow_redirects=True,
                           headers={"Authorization": f"token {self.tokens['alice']}"},
                           timeout=TIMEOUT)
        assert answer.status_code == 200, (url, answer.status_code)
        return answer.content


def cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "chalicelib.cli", "--data-dir", str(data_dir),
                           "admin", *args], cwd=local_server.REPO, capture_output=True,
                          text=True, timeout=300, check=False)


def aws_of(data_dir: Path, service: str):
    """A client of a running runtime's embedded moto (its runtime.json)."""
    endpoint = json.loads((data_dir / "runtime.json").read_text())["moto_endpoint"]
    return boto3.client(service, endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id="testing", aws_secret_access_key="testing")


def stored(data_dir: Path) -> tuple[list[str], list[str], list[str]]:
    """A runtime's items (as sorted JSON), object keys and SSM parameter names."""
    ddb, s3, ssm = (aws_of(data_dir, name) for name in ("dynamodb", "s3", "ssm"))
    found = sorted(json.dumps(item, sort_keys=True, default=str) for page in
                   ddb.get_paginator("scan").paginate(TableName="nimbus")
                   for item in page["Items"])
    keys = [o["Key"] for page in s3.get_paginator("list_objects_v2").paginate(
        Bucket="nimbus-data") for o in page.get("Contents", [])]
    names = [p["Name"] for p in ssm.describe_parameters().get("Parameters", [])]
    return found, sorted(keys), sorted(names)


def settle(timeout: float = 30) -> None:
    """Wait until the in-process runtime's event pipeline has run every event."""
    from chalicelib import clock
    from chalicelib.store import outbox

    wait_until(lambda: not list(outbox.pending(older_than=clock.now() + 60)),
               "the outbox to empty", timeout)


def mirror(git_env: dict, url: str, into: Path) -> tuple[str, str]:
    """A mirror clone's refs and objects (each sorted), after ``git fsck --full``."""
    run_git(git_env, "clone", "-q", "--mirror", url, str(into))
    run_git(git_env, "fsck", "--full", "--strict", cwd=into)
    refs = run_git(git_env, "for-each-ref", "--format=%(objectname) %(refname)", cwd=into)
    objects = run_git(git_env, "cat-file", "--batch-all-objects", "--batch-check", cwd=into)
    return refs.stdout, "".join(sorted(objects.stdout.splitlines(keepends=True)))


def clone_url(forge: Forge, path: str) -> str:
    host = forge.url.split("://", 1)[1]
    return f"http://alice:{forge.tokens['alice']}@{host}/{path}.git"


def lfs_batch(forge: Forge, repo: str, operation: str, oid: str, size: int) -> dict:
    answer = httpx.post(f"{forge.url}/{repo}.git/info/lfs/objects/batch", timeout=TIMEOUT,
                        headers={"Authorization": f"token {forge.tokens['alice']}",
                                 "Accept": LFS_MEDIA, "Content-Type": LFS_MEDIA},
                        json={"operation": operation, "objects": [{"oid": oid, "size": size}]})
    assert answer.status_code == 200, answer.text
    return answer.json()["objects"][0]["actions"]


def lfs_upload(forge: Forge, repo: str, data: bytes) -> str:
    """Upload ``data`` as the batch API's clients do; its pointer file."""
    oid = hashlib.sha256(data).hexdigest()
    actions = lfs_batch(forge, repo, "upload", oid, len(data))
    upload = actions["upload"]
    assert httpx.put(upload["href"], content=data, headers=upload.get("header", {}),
                     timeout=TIMEOUT).status_code == 200
    verify = actions["verify"]
    assert httpx.post(verify["href"].replace(ROOT_URL, forge.url + "/"), timeout=TIMEOUT,
                      headers={**verify.get("header", {}), "Content-Type": LFS_MEDIA},
                      json={"oid": oid, "size": len(data)}).status_code == 200
    return f"version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {len(data)}\n"


def lfs_download(forge: Forge, repo: str, data: bytes) -> bytes:
    oid = hashlib.sha256(data).hexdigest()
    download = lfs_batch(forge, repo, "download", oid, len(data))["download"]
    return httpx.get(download["href"], headers=download.get("header", {}),
                     timeout=TIMEOUT).content


def _png() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (8, 8), (30, 120, 60)).save(out, "PNG")
    return out.getvalue()


def _ssh_key() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    return ed25519.Ed25519PrivateKey.generate().public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH).decode()


def build_scene(forge: Forge, git_env: dict, work: Path) -> dict:
    """Every kind of record: people, keys, an organization with a team, repositories
    with history, a fork, issues with labels, a milestone, comments, reactions, an
    attachment, a dependency, tracked time and a pin, a pull request with a review, a
    release with an asset, Git LFS, avatars, a webhook, a protection rule, a wiki,
    topics, a status, an OAuth2 application."""
    must = forge.must
    must("alice", "POST", "/user/repos", json={"name": "garden", "auto_init": True,
                                               "description": "Plants"})
    must("alice", "POST", f"{G}/contents/app.py", json={"content": _b64("x = 1\n")})
    must("alice", "POST", f"{G}/contents/feature.txt", json={"content": _b64("work\n"),
                                                             "new_branch": "feature"})
    lfs_data = b"seed bank " * 3000
    pointer = lfs_upload(forge, "alice/garden", lfs_data)
    checkout = work / "garden"
    run_git(git_env, "clone", "-q", clone_url(forge, "alice/garden"), str(checkout))
    (checkout / ".gitattributes").write_text("*.bin filter=lfs diff=lfs merge=lfs -text\n")
    (checkout / "seeds.bin").write_text(pointer)
    run_git(git_env, "add", ".", cwd=checkout)
    run_git(git_env, "commit", "-q", "-m", "Seeds in LFS", cwd=checkout)
    run_git(git_env, "push", "-q", "origin", "main", cwd=checkout)
    must("alice", "POST", f"{G}/tags", json={"tag_name": "v1"})
    release = must("alice", "POST", f"{G}/releases", json={"tag_name": "v1", "name": "First"})
    asset_data = b"release notes in bytes\x00\x01" * 50
    asset = must("alice", "POST", f"{G}/releases/{release['id']}/assets?name=notes.bin",
                 files={"attachment": ("notes.bin", asset_data)})
    label = must("alice", "POST", f"{G}/labels", json={"name": "bug", "color": "#ee0701"})
    milestone = must("alice", "POST", f"{G}/milestones", json={"title": "Spring"})
    issue = must("alice", "POST", f"{G}/issues", json={
        "title": "Water the ferns", "body": "Dry.", "labels": [label["id"]],
        "milestone": milestone["id"], "assignees": ["alice"]})
    n = issue["number"]
    comment = must("bob", "POST", f"{G}/issues/{n}/comments", json={"body": "On it."})
    must("bob", "POST", f"{G}/issues/{n}/reactions", json={"content": "+1"})
    must("alice", "POST", f"{G}/issues/comments/{comment['id']}/reactions",
         json={"content": "heart"})
    photo = _png()
    attachment = must("alice", "POST", f"{G}/issues/{n}/assets",
                      files={"attachment": ("fern.png", photo)})
    other = must("alice", "POST", f"{G}/issues", json={"title": "Buy soil"})
    must("alice", "POST", f"{G}/issues/{n}/dependencies", json={
        "owner": "alice", "repo": "garden", "index": other["number"]})
    must("alice", "POST", f"{G}/issues/{n}/times", json={"time": 1800})
    must("alice", "POST", f"{G}/issues/{n}/pin")
    pull = must("alice", "POST", f"{G}/pulls", json={"head": "feature", "base": "main",
                                                     "title": "Add the feature"})
    review = must("bob", "POST", f"{G}/pulls/{pull['number']}/reviews", json={
        "event": "COMMENT", "body": "Looks fine", "comments": [
            {"path": "feature.txt", "body": "Nice line", "new_position": 1}]})
    sha = must("alice", "GET", f"{G}/branches/main")["commit"]["id"]
    must("alice", "POST", f"{G}/statuses/{sha}", json={"state": "success", "context": "ci"})
    must("alice", "POST", f"{G}/branch_protections", json={"rule_name": "main",
                                                           "required_approvals": 1})
    must("alice", "POST", f"{G}/hooks", json={"type": "gitea", "active": False, "events": [
        "push"], "config": {"url": "https://ci.example.com/hook", "content_type": "json"}})
    must("alice", "POST", f"{G}/keys", json={"title": "deploy", "key": _ssh_key(),
                                             "read_only": True})
    must("alice", "PUT", f"{G}/collaborators/bob", json={"permission": "write"})
    must("alice", "PUT", f"{G}/topics/plants")
    must("alice", "POST", f"{G}/wiki/new", json={"title": "Home",
                                                 "content_base64": _b64("# Garden wiki\n")})
    must("alice", "POST", "/orgs", json={"username": "acme", "full_name": "Acme"})
    team = must("alice", "POST", "/orgs/acme/teams", json={
        "name": "gardeners", "permission": "write", "units": ["repo.code", "repo.issues"]})
    must("alice", "PUT", f"/teams/{team['id']}/members/bob")
    must("alice", "POST", "/orgs/acme/repos", json={"name": "tools", "auto_init": True})
    must("alice", "PUT", f"/teams/{team['id']}/repos/acme/tools")
    must("bob", "POST", f"{G}/forks", json={})
    must("bob", "PUT", "/user/starred/alice/garden")
    must("bob", "PUT", f"{G}/subscription")
    must("bob", "PUT", "/user/following/alice")
    must("alice", "POST", "/user/keys", json={"title": "laptop", "key": _ssh_key()})
    must("alice", "POST", "/user/emails", json={"emails": ["alice.two@example.com"]})
    must("alice", "POST", "/user/avatar", json={"image": _b64(photo)})
    must("alice", "POST", f"{G}/avatar", json={"image": _b64(photo)})
    must("alice", "POST", f"{G}/issues/{n}/comments", json={"body": "Thanks, bob."})
    app = must("alice", "POST", "/user/applications/oauth2", json={
        "name": "Garden CI", "redirect_uris": ["https://ci.example.com/callback"]})
    return {"issue": n, "comment": comment["id"], "pull": pull["number"],
            "review": review["id"], "release": release["id"], "sha": sha,
            "team": team["id"], "app": app["id"], "lfs": lfs_data,
            "bytes": {asset["browser_download_url"]: asset_data,
                      attachment["browser_download_url"]: photo}}


def reads(scene: dict) -> list[tuple[str, str]]:
    """(who, path) of the GETs compared record by record."""
    i, p = scene["issue"], scene["pull"]
    alice = [
        "/user", "/user/emails", "/user/keys", "/user/repos", "/user/orgs", "/user/teams",
        "/user/followers", "/user/applications/oauth2", "/users/alice", "/users/bob",
        "/users/alice/heatmap", "/users/alice/activities/feeds", "/users/search?q=a",
        "/orgs", "/orgs/acme", "/orgs/acme/members", "/orgs/acme/teams", "/orgs/acme/repos",
        f"/teams/{scene['team']}/members", f"/teams/{scene['team']}/repos",
        "/repos/search?q=garden", "/repos/issues/search?q=ferns",
        G, f"{G}/branches", f"{G}/branches/main", f"{G}/tags", f"{G}/commits",
        f"{G}/git/refs", f"{G}/contents", f"{G}/contents/seeds.bin", f"{G}/topics",
        f"{G}/collaborators", f"{G}/forks", f"{G}/stargazers", f"{G}/subscribers",
        f"{G}/keys", f"{G}/hooks", f"{G}/branch_protections", f"{G}/labels",
        f"{G}/milestones", f"{G}/issues?state=all", f"{G}/issues/{i}",
        f"{G}/issues/{i}/comments", f"{G}/issues/{i}/timeline", f"{G}/issues/{i}/reactions",
        f"{G}/issues/{i}/assets", f"{G}/issues/comments/{scene['comment']}/reactions",
        f"{G}/issues/{i}/dependencies", f"{G}/issues/{i}/times", f"{G}/times",
        f"{G}/issues/pinned", "/user/times",
        f"{G}/pulls?state=all", f"{G}/pulls/{p}", f"{G}/pulls/{p}/reviews",
        f"{G}/pulls/{p}/reviews/{scene['review']}/comments", f"{G}/releases",
        f"{G}/releases/{scene['release']}/assets", f"{G}/statuses/{scene['sha']}",
        f"{G}/commits/main/statuses", f"{G}/wiki/pages", f"{G}/wiki/page/Home",
        "/repos/bob/garden", "/repos/acme/tools", "/repos/acme/tools/branches"]
    bob = ["/user", "/user/starred", "/user/subscriptions", "/notifications?all=true",
           "/users/bob/following", "/repos/bob/garden/branches"]
    return [("alice", path) for path in alice] + [("bob", path) for path in bob] + [
        ("boss", "/admin/users"), ("boss", "/admin/orgs")]


def answers(forge: Forge, wanted: list[tuple[str, str]]) -> dict:
    return {(who, path): (r.status_code, r.json()) for who, path in wanted
            for r in [forge.call(who, "GET", path)]}


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """The source instance with its scene, what it answered, its clones, and its dump."""
    folder = tmp_path_factory.mktemp("dump-source")
    git_env = git_home_env(folder)
    with runtime_with_events(folder / "data") as runtime:
        seat_people(runtime, PASSWORDS, boss_token=True)
        forge = Forge(runtime.url, runtime.tokens)
        scene = build_scene(forge, git_env, folder)
        settle()
        scene["answers"] = answers(forge, reads(scene))
        assert [key for key, (status, _) in scene["answers"].items() if status != 200] == []
        assert all(scene["answers"][key][1] for key in (
            ("bob", "/notifications?all=true"), ("alice", "/users/alice/activities/feeds"),
            ("alice", "/users/alice/heatmap"))), "the consumers ran"
        assert scene["answers"][("alice", "/repos/issues/search?q=ferns")][1]
        scene["clones"] = {path: mirror(git_env, clone_url(forge, path), folder / "clones" / path)
                           for path in ("alice/garden", "bob/garden", "acme/tools",
                                        "alice/garden.wiki")}
        scene["avatar"] = forge.bytes_at(scene["answers"][("alice", "/user")][1]["avatar_url"])
        done = cli(folder / "data", "dump", "--output", str(folder / "dump.tar"),
                   "--include-secrets")
        assert done.returncode == 0, done.stderr
        scene.update(folder=folder, dump=folder / "dump.tar", git_env=git_env,
                     tokens={**runtime.tokens, "reader": runtime.read_only})
    return scene


@pytest.fixture
def target(tmp_path):
    """A fresh, empty instance in its own process (no admin: it holds nothing)."""
    with served(tmp_path / "target", **TARGET_ENV) as (_, url):
        yield tmp_path / "target", url


def _rewritten(dump: Path, into: Path, change) -> Path:
    """A copy of the dump whose members' bytes ``change(name, data)`` returns."""
    with tarfile.open(dump) as tar, tarfile.open(into, "w", format=tarfile.PAX_FORMAT) as out:
        for info in tar:
            data = change(info.name, tar.extractfile(info).read())
            info.size = len(data)
            out.addfile(info, io.BytesIO(data))
    return into


def test_damaged_dumps_are_refused_and_nothing_is_written(source, target, tmp_path):
    data_dir, _ = target
    before = stored(data_dir)
    assert before[:2] == ([], [])
    blob = source["dump"].read_bytes()
    with tarfile.open(source["dump"]) as tar:
        members = {info.name: info for info in tar}
    pack = next(m for name, m in members.items() if name.endswith(".pack"))
    altered = bytearray(blob)
    altered[pack.offset_data + 20] ^= 0xFF
    version = {"FORMAT": b'{"format": "nimbus-dump", "version": 2}'}
    cases = {
        "cut.tar": (blob[:pack.offset_data + pack.size // 2], "truncated"),
        "no-manifest.tar": (blob[:members["manifest.json"].offset], "no manifest"),
        "altered.tar": (bytes(altered), "does not match the manifest"),
    }
    for name, (data, said) in cases.items():
        (tmp_path / name).write_bytes(data)
    cases["v2.tar"] = (None, "unknown dump format version 2")
    _rewritten(source["dump"], tmp_path / "v2.tar", lambda n, d: version.get(n, d))
    cases["cut.tar.gz"] = (None, "truncated or damaged")
    compressed = gzip.compress(blob)
    (tmp_path / "cut.tar.gz").write_bytes(compressed[:len(compressed) // 2])
    for name, (_, said) in cases.items():
        done = cli(data_dir, "restore", str(tmp_path / name))
        assert done.returncode == 1 and said in done.stderr, (name, done.stderr)
        assert stored(data_dir) == before, name


def first_difference(before, after, where: str = "") -> str:
    """Where two JSON answers first differ, and how (a failing comparison's message)."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after)):
            if before.get(key) != after.get(key):
                return first_difference(before.get(key), after.get(key), f"{where}.{key}")
    elif isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for i, (one, two) in enumerate(zip(before, after)):
            if one != two:
                return first_difference(one, two, f"{where}[{i}]")
    return f"{where}: {before!r} != {after!r}"


def test_a_restored_instance_answers_as_the_source_did(source, tmp_path):
    data_dir = tmp_path / "target"
    with served(data_dir, **TARGET_ENV):
        done = cli(data_dir, "restore", str(source["dump"]))
    assert done.returncode == 0, done.stderr
    # Restarted after the restore, as docs/operations.md says: a process that had looked
    # for a key before the restore brought it keeps its answer until it restarts.
    with served(data_dir, **TARGET_ENV) as (_, url):
        _answers_as_the_source(source, data_dir, url, done, tmp_path)


def _answers_as_the_source(source, data_dir, url, done, tmp_path) -> None:
    with tarfile.open(source["dump"]) as tar:
        manifest = json.loads(tar.extractfile("manifest.json").read())
    assert manifest["quiet"] and manifest["counts"]["outbox"] == 0
    # Every object an item names was found (the rules that name them are right).
    assert manifest["missing_objects"] == []
    assert f"restored {manifest['counts']['items']} items" in done.stdout
    assert sorted(manifest["counts"]["objects_by_prefix"]) == [
        "attachments/", "avatars/", "lfs/", "packs/"]
    forge = Forge(url, source["tokens"])
    for (who, path), (status, body) in source["answers"].items():
        answer = forge.call(who, "GET", path)
        assert (answer.status_code, answer.json()) == (status, body), (
            who, path, first_difference(body, answer.json()))
    # The same tokens, with the same scopes.
    assert forge.call("reader", "GET", G).status_code == 200
    assert forge.call("reader", "POST", f"{G}/issues", json={"title": "no"}).status_code == 403
    for path, (refs, objects) in source["clones"].items():
        assert mirror(source["git_env"], clone_url(forge, path), tmp_path / path) == (
            refs, objects), path
    assert lfs_download(forge, "alice/garden", source["lfs"]) == source["lfs"]
    for link, data in source["bytes"].items():
        assert forge.bytes_at(link) == data, link
    avatar = forge.call("alice", "GET", "/user").json()["avatar_url"]
    assert forge.bytes_at(avatar) == source["avatar"]
    # The keys came along: what the source signed, the target verifies the same way.
    assert set(stored(data_dir)[2]) >= {"/nimbus/signing-key"}
    # Into an instance that holds data: refused, nothing written.
    before = stored(data_dir)
    again = cli(data_dir, "restore", str(source["dump"]))
    assert again.returncode == 1 and "holds data" in again.stderr, again.stderr
    assert stored(data_dir) == before


def _numbers(items: list[dict], kind: str, attribute: str) -> list[int]:
    return [int(item[attribute]["N"]) for item in items
            if item.get("kind", {}).get("S") == kind and attribute in item]


def _push_while(stop: threading.Event, forge: Forge, git_env: dict, work: Path,
                turns: list) -> None:
    """Push to both repositories in turn (now and then a new branch), until ``stop``."""
    checkouts = {name: work / name for name in ("early", "late")}
    for name, checkout in checkouts.items():
        run_git(git_env, "clone", "-q", clone_url(forge, f"alice/{name}"), str(checkout))
    while not stop.is_set():
        turn = len(turns) + 1
        for name, checkout in checkouts.items():
            (checkout / f"file-{turn}.txt").write_text(f"turn {turn}\n")
            run_git(git_env, "add", ".", cwd=checkout)
            run_git(git_env, "commit", "-q", "-m", f"turn {turn}", cwd=checkout)
            branch = "main" if turn % 3 else f"topic-{turn}"
            run_git(git_env, "push", "-q", "origin", f"HEAD:{branch}", cwd=checkout)
        turns.append(turn)


def _create_while(stop: threading.Event, forge: Forge, made: list) -> None:
    """Open issues in ``late`` and make tokens, until ``stop``.  Tokens: their items'
    partitions come after the counters' in a moto Scan (keys in order), so a counter
    read before them would be behind their ids."""
    while not stop.is_set():
        forge.must("alice", "POST", "/repos/alice/late/issues", json={"title": "busy"})
        answer = httpx.post(f"{forge.url}/api/v1/users/alice/tokens", timeout=TIMEOUT,
                            auth=("alice", PASSWORDS["alice"]),
                            json={"name": f"busy-{len(made)}", "scopes": ["all"]})
        assert answer.status_code == 201, answer.text
        made.append(answer.json()["id"])


def test_a_dump_taken_while_writes_run_restores_consistently(tmp_path):
    git_env = git_home_env(tmp_path)
    with runtime_with_events(tmp_path / "busy") as runtime:
        seat_people(runtime, PASSWORDS)
        forge = Forge(runtime.url, runtime.tokens)
        forge.must("alice", "POST", "/user/repos", json={"name": "early", "auto_init": True})
        forge.must("alice", "POST", "/repos/alice/early/issues", json={"title": "first"})
        # Made after the issue sequence's counter: the scan meets it later.
        forge.must("alice", "POST", "/user/repos", json={"name": "late", "auto_init": True})
        stop, turns, made = threading.Event(), [], []
        writers = [threading.Thread(target=_push_while, daemon=True,
                                    args=(stop, forge, git_env, tmp_path, turns)),
                   threading.Thread(target=_create_while, daemon=True,
                                    args=(stop, forge, made))]
        for writer in writers:
            writer.start()
        wait_until(lambda: len(turns) >= 2 and len(made) >= 16, "the writers' first turns", 60)
        try:
            # Small pages: the scan takes many requests, and the writes land between them.
            before = len(turns), len(made)
            done = cli(tmp_path / "busy", "dump", "--output", str(tmp_path / "busy.tar.gz"),
                       "--page-size", "4")
            during = len(turns) - before[0], len(made) - before[1]
        finally:
            stop.set()
            for writer in writers:
                writer.join(60)
    assert done.returncode == 0, done.stderr
    assert "writes ran during the dump" in done.stdout and min(during) > 0, (during, done.stdout)
    with served(tmp_path / "restored", **TARGET_ENV) as (_, url):
        restored = cli(tmp_path / "restored", "restore", str(tmp_path / "busy.tar.gz"))
        assert restored.returncode == 0, restored.stderr
        assert "search index:" in restored.stdout
        target = Forge(url, forge.tokens)
        for name in ("early", "late"):
            # Every ref's commit is there: the clone and fsck of every ref pass.
            mirror(git_env, clone_url(target, f"alice/{name}"), tmp_path / "clones" / name)
        items = stored(tmp_path / "restored")[0]
        items = [json.loads(line) for line in items]
        # Counters (``UpdateItem ADD``: they have no kind) are past every id used.
        counters = {item["pk"]["S"]: int(item["value"]["N"]) for item in items
                    if item["pk"]["S"].startswith("SEQ#")}
        assert counters["SEQ#token"] >= max(_numbers(items, "token", "id"))
        assert counters["SEQ#issue"] >= max(_numbers(items, "issue", "id"))
        trackers = {item["pk"]["S"]: int(item["next_number"]["N"]) for item in items
                    if item.get("kind", {}).get("S") == "issuetracker"}
        for item in items:
            if item.get("kind", {}).get("S") == "issue":
                assert trackers[item["pk"]["S"]] >= int(item["number"]["N"])
        # New numbers and ids come after every one used (past those given out after the
        # scan read the repository: its tracker counts on from the later read).
        ids = set(_numbers(items, "issue", "id"))
        for name in ("early", "late"):
            numbers = [int(i["number"]["N"]) for i in items if i.get("kind", {}).get("S")
                       == "issue" and i["pk"]["S"] == f"R#{1 if name == 'early' else 2}"]
            made = target.must("alice", "POST", f"/repos/alice/{name}/issues",
                               json={"title": "after the restore"})
            assert made["number"] > max(numbers) and made["id"] not in ids
