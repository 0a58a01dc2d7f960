"""Scenarios that move git data: smart HTTP (refs, fetch, push), migration and mirror
sync from a remote, and the editorconfig lookup (which needs a pushed ``.editorconfig``).

Pushes and fetches are built here with dulwich's objects and pack writer, so the
measured request is exactly one protocol round trip through the Lambda handler.  The
migration remote is C git's ``git http-backend`` on an ephemeral loopback port
(``tests/git_backend.py``, as the migration tests use it); loopback is refused as a
migration source unless ``[migrations] ALLOW_LOCALNETWORKS`` is on, so the requests that
reach it run with that setting.
"""
from __future__ import annotations

import time
from io import BytesIO
from pathlib import Path

from scene import Req, Scene, settings_in_force

DEMO = "/repos/alice/demo"
ZERO = "0" * 40
MAIN = "refs/heads/main"
LOCAL_REMOTES = {"NIMBUS__MIGRATIONS__ALLOW_LOCALNETWORKS": "true"}
EDITORCONFIG = b"root = true\n\n[*.py]\nindent_style = space\nindent_size = 4\n"


def pkt(line: str) -> bytes:
    data = line.encode()
    return f"{len(data) + 4:04x}".encode() + data


def commit_objects(files: dict[str, bytes], parent: str | None) -> list:
    """Blobs, tree and commit (last) of a commit holding ``files`` on top of ``parent``."""
    from dulwich.objects import Blob, Commit, Tree

    blobs = {name: Blob.from_string(content) for name, content in files.items()}
    tree = Tree()
    for name, blob in blobs.items():
        tree.add(name.encode(), 0o100644, blob.id)
    commit = Commit()
    commit.tree = tree.id
    commit.parents = [parent.encode()] if parent else []
    commit.author = commit.committer = b"Bench <bench@example.com>"
    commit.author_time = commit.commit_time = int(time.time())
    commit.author_timezone = commit.commit_timezone = 0
    commit.message = b"bench commit\n"
    return [*blobs.values(), tree, commit]


def receive_pack_body(files: dict[str, bytes], parent: str | None) -> bytes:
    """A push request (protocol v0, report-status) moving main from ``parent`` to a new
    commit holding ``files``; a new main when ``parent`` is None."""
    from dulwich.object_format import DEFAULT_OBJECT_FORMAT
    from dulwich.pack import write_pack_objects

    objects = commit_objects(files, parent)
    pack = BytesIO()
    write_pack_objects(pack.write, objects, DEFAULT_OBJECT_FORMAT)
    new = objects[-1].id.decode()
    return pkt(f"{parent or ZERO} {new} {MAIN}\0report-status agent=bench\n") + b"0000" \
        + pack.getvalue()


def upload_pack_body(want: str) -> bytes:
    """A clone request for one commit (protocol v0, no haves)."""
    return pkt(f"want {want} multi_ack_detailed side-band-64k thin-pack ofs-delta agent=bench\n") \
        + b"0000" + pkt("done\n")


def head_of(s: Scene, repo_path: str) -> str:
    return s.must("GET", f"{repo_path}/branches/main", "token", expect=200)["commit"]["id"]


def push(s: Scene, repo: str, files: dict[str, bytes], parent: str | None) -> None:
    status, out = s.call("POST", f"/alice/{repo}.git/git-receive-pack", "token",
                         data=receive_pack_body(files, parent),
                         content_type="application/x-git-receive-pack-request")
    assert status == 200 and f"ok {MAIN}".encode() in out, (status, out[:300])


def push_request(s: Scene) -> list[Req]:
    """A fast-forward push of one new commit to main of a fresh repository."""
    repo = s.new_repo(auto_init=True)
    body = receive_pack_body({"bench.txt": s.unique("pushed ").encode()},
                             head_of(s, f"/repos/alice/{repo}"))
    return [Req("POST", f"/alice/{repo}.git/git-receive-pack", "token", data=body,
                content_type="application/x-git-receive-pack-request",
                expect_body=f"ok {MAIN}".encode())]


def fetch_request(s: Scene) -> list[Req]:
    return [Req("POST", "/alice/demo.git/git-upload-pack", data=upload_pack_body(
        head_of(s, DEMO)), content_type="application/x-git-upload-pack-request",
        expect_body=b"PACK")]


def editorconfig_repo(s: Scene) -> str:
    """A repository whose main holds an .editorconfig (pushed into an empty repository)."""
    def make() -> str:
        repo = s.new_repo()
        push(s, repo, {".editorconfig": EDITORCONFIG}, None)
        return repo

    return s.once("editorconfig_repo", make)


# --- the migration remote ------------------------------------------------------------

def remote(s: Scene) -> dict:
    """A bare repository with one commit on main, served by `git http-backend`."""
    def make() -> dict:
        from dulwich.repo import Repo

        from tests.git_backend import serve_http_backend

        root = Path(s.workdir) / "served"
        root.mkdir()
        bare = Repo.init_bare(str(root / "src.git"), mkdir=True)
        remote = {"repo": bare, "url": None}
        add_remote_commit(remote)
        bare.refs.set_symbolic_ref(b"HEAD", MAIN.encode())
        server, url = serve_http_backend(root)
        s.cleanups.append(server.shutdown)
        remote["url"] = f"{url}/src.git"
        return remote

    return s.once("remote", make)


def add_remote_commit(remote: dict) -> None:
    repo = remote["repo"]
    parent = repo.refs[MAIN.encode()].decode() if MAIN.encode() in repo.refs else None
    objects = commit_objects({"hello.txt": f"hello {time.time_ns()}\n".encode()}, parent)
    for obj in objects:
        repo.object_store.add_object(obj)
    repo.refs[MAIN.encode()] = objects[-1].id


def migrate_option(s: Scene, *, mirror: bool = False) -> dict:
    option = {"clone_addr": remote(s)["url"], "repo_name": s.unique("migrated")}
    return {**option, "mirror": True, "mirror_interval": "10m"} if mirror else option


def mirror_sync_request(s: Scene) -> list[Req]:
    """A sync that brings one new commit from the remote into a mirror."""
    def make() -> str:
        with settings_in_force(LOCAL_REMOTES):
            return s.must("POST", "/repos/migrate", "token",
                          migrate_option(s, mirror=True))["name"]

    mirror = s.once("mirror", make)
    add_remote_commit(remote(s))
    return [Req("POST", f"/repos/alice/{mirror}/mirror-sync", "token",
                settings=LOCAL_REMOTES)]


# A large push's upload ticket: the preload only (the quota check reads the owner's
# usage from it); the URL is signed locally.
BUDGETS = {("createLargePush", "token"): 2}


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {
        "gitInfoRefs": lambda s: [Req("GET", "/alice/demo.git/info/refs?service=git-upload-pack")],
        "gitUploadPack": fetch_request,
        "gitReceivePack": push_request,
        "repoGetEditorConfig": lambda s: [Req(
            "GET", f"/repos/alice/{editorconfig_repo(s)}/editorconfig/a.py")],
        "repoMigrate": lambda s: [Req("POST", "/repos/migrate", "token", migrate_option(s), 201,
                                      settings=LOCAL_REMOTES)],
        "repoMirrorSync": mirror_sync_request,
        "createLargePush": lambda s: [Req("POST", "/repos/alice/demo/large-pushes", "token",
                                          {"size": 1 << 20}, 201)],
    }
