"""Scenarios for a repository's tools (issue 39): push mirrors (list, add, get, delete,
and a sync that pushes one new commit to C git's ``git http-backend`` on loopback, so
they run with ``[migrations] ALLOW_LOCALNETWORKS``), fork sync, a diff applied as a
commit, git notes written and removed, and several blobs read at once.

Each write gets a repository (or mirror) of its own, so it measures a change, not a
repeat.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

from scenarios_git import LOCAL_REMOTES, push
from scenarios_git_data import history
from scene import Req, Scene, settings_in_force


def target(s: Scene) -> str:
    """An empty bare repository served by `git http-backend`, taking pushes."""
    def make() -> str:
        from tests.git_backend import serve_http_backend

        root = Path(s.workdir) / "mirrors"
        root.mkdir()
        subprocess.run(["git", "init", "-q", "--bare", str(root / "target.git")], check=True)
        subprocess.run(["git", "-C", str(root / "target.git"), "config", "http.receivepack",
                        "true"], check=True)
        server, url = serve_http_backend(root)
        s.cleanups.append(server.shutdown)
        return f"{url}/target.git"

    return s.once("push_target", make)


def mirrored_repo(s: Scene) -> tuple[str, str]:
    """A repository with one commit and a push mirror; (repository, remote name)."""
    repo = s.new_repo()
    push(s, repo, {"a.txt": b"one\n"}, None)
    with settings_in_force(LOCAL_REMOTES):
        name = s.must("POST", f"/repos/alice/{repo}/push_mirrors", "token",
                      {"remote_address": target(s), "interval": "8h"}, 200)["remote_name"]
    return repo, name


def shared_mirror(s: Scene) -> tuple[str, str]:
    return s.once("mirrored_repo", lambda: mirrored_repo(s))


NEW_FILE_PATCH = "--- /dev/null\n+++ b/patched.txt\n@@ -0,0 +1 @@\n+patched\n"


def fork_behind(s: Scene) -> str:
    """alice's repository forked by the site admin, then one commit ahead of the fork;
    the fork's name (under root)."""
    import base64

    repo = s.new_repo(auto_init=True)
    s.must("POST", f"/repos/alice/{repo}/forks", "admin", {}, 202)
    s.must("POST", f"/repos/alice/{repo}/contents/new.txt", "token",
           {"content": base64.b64encode(b"new\n").decode(), "message": "new"})
    return repo


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    def add(s: Scene) -> list[Req]:
        target(s)
        return [Req("POST", f"/repos/alice/{s.new_repo()}/push_mirrors", "token",
                    {"remote_address": target(s), "remote_username": "u",
                     "remote_password": "p-123456", "interval": "8h"}, 200,
                    settings=LOCAL_REMOTES)]

    def remove_note(s: Scene) -> list[Req]:
        repo = s.new_repo(auto_init=True)
        s.must("POST", f"/repos/alice/{repo}/git/notes/main", "token", {"message": "x"}, 200)
        return [Req("DELETE", f"/repos/alice/{repo}/git/notes/main", "token", None, 204)]

    def delete(s: Scene) -> list[Req]:
        repo, name = mirrored_repo(s)
        return [Req("DELETE", f"/repos/alice/{repo}/push_mirrors/{name}", "token", None, 204)]

    def sync(s: Scene) -> list[Req]:
        repo, _ = mirrored_repo(s)
        return [Req("POST", f"/repos/alice/{repo}/push_mirrors-sync", "token", None, 200,
                    settings=LOCAL_REMOTES)]

    return {
        "repoListPushMirrors": lambda s: [Req(
            "GET", f"/repos/alice/{shared_mirror(s)[0]}/push_mirrors", "token")],
        "repoGetPushMirrorByRemoteName": lambda s: [Req(
            "GET", "/repos/alice/{}/push_mirrors/{}".format(*shared_mirror(s)), "token")],
        "repoAddPushMirror": add,
        "repoDeletePushMirror": delete,
        "repoPushMirrorSync": sync,
        "repoSyncForkDefaultInfo": lambda s: [Req(
            "GET", f"/repos/root/{s.once('fork_behind', lambda: fork_behind(s))}/sync_fork",
            "token")],
        "repoSyncForkBranchInfo": lambda s: [Req(
            "GET", f"/repos/root/{s.once('fork_behind', lambda: fork_behind(s))}/sync_fork/main",
            "token")],
        "repoSyncForkDefault": lambda s: [Req(
            "POST", f"/repos/root/{fork_behind(s)}/sync_fork", "admin", None, 204)],
        "repoApplyDiffPatch": lambda s: [Req(
            "POST", f"/repos/alice/{s.new_repo(auto_init=True)}/diffpatch", "token",
            {"content": NEW_FILE_PATCH, "sha": "unused"}, 200)],
        "repoSetNote": lambda s: [Req("POST", "/repos/alice/demo/git/notes/main", "token",
                                      {"message": s.unique("note ")})],
        "repoRemoveNote": remove_note,
        "GetBlobs": lambda s: [Req(
            "GET", f"{history(s)['path']}/git/blobs?shas={history(s)['blob']},"
                   f"{history(s)['blob']}", "token")],
        "repoSyncForkBranch": lambda s: [Req(
            "POST", f"/repos/root/{fork_behind(s)}/sync_fork/main", "admin", None, 204)],
    }


# (operationId, auth) -> most AWS calls allowed for that request.
BUDGETS = {
    # The preload (two batches), then the mirrors (one Query).
    ("repoListPushMirrors", "token"): 3,
    # The preload, the mirror.
    ("repoGetPushMirrorByRemoteName", "token"): 3,
    # The preload, the instance secret (SSM: read once per container, and made by the
    # first use of all), one transaction (the mirror, its schedule entry, the
    # repository's on-commit count or its existence).
    ("repoAddPushMirror", "token"): 5,
    # The preload, the mirror, one transaction.
    ("repoDeletePushMirror", "token"): 4,
    # The preload, the mirrors (a Query), the instance secret once per container, the
    # refs and the pool's packs (S3) for the pack sent, then one update of the mirror.
    ("repoPushMirrorSync", "token"): 8,
    # The preload, the parent, the fork's and the parent's refs, the pool's packs.
    ("repoSyncForkDefaultInfo", "token"): 8,
    ("repoSyncForkBranchInfo", "token"): 8,
    # The same, then one transaction (the ref, its branch record, the push events).
    ("repoSyncForkDefault", "admin"): 10,
    ("repoSyncForkBranch", "admin"): 10,
    # The preload, the refs and the pool's packs, the tree and blobs the patch reads,
    # the new pack put, then the commit's transaction (as repoCreateFile).
    ("repoApplyDiffPatch", "token"): 12,
    # The preload, the refs and the pool's packs, the notes tree, the new pack put, one
    # transaction (the ref by compare-and-swap); the note read back as repoGetNote.
    ("repoSetNote", "token"): 12,
    ("repoRemoveNote", "token"): 10,
    # The preload, the refs, the pool's packs (pack entry headers, then the contents):
    # as GetBlob, whatever the number of shas.
    ("GetBlobs", "token"): 4,
}
