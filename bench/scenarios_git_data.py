"""Git data scenarios for bench/aws_calls.py (imported there): a tree (flat and
recursive), a blob, all refs and the refs under a prefix, an annotated tag and a note, all
read from one repository pushed once with a branch, an annotated tag and a notes ref."""
from __future__ import annotations

import time
from io import BytesIO

from scenarios_git import ZERO, pkt
from scene import Req

# Each reads the preload (token and repository), then the pool's pack list; the packs
# themselves come from the warm local cache.
BUDGETS = {
    ("GetTree", "anon"): 4,
    ("GetTree", "token"): 4,
    ("GetBlob", "anon"): 4,
    ("GetBlob", "token"): 4,
    ("repoListAllGitRefs", "anon"): 4,
    ("repoListGitRefs", "anon"): 3,
    ("GetAnnotatedTag", "anon"): 3,
    # The note's commit record links its author and committer users by e-mail: one
    # batched read of the e-mail claims (the owner's account is already read).
    ("repoGetNote", "anon"): 5,
}


def _history(s) -> dict:
    """A repository with main (a commit with a file and a directory), an annotated tag
    v1 and a note on main's commit; its name and object ids."""
    from dulwich.object_format import DEFAULT_OBJECT_FORMAT
    from dulwich.objects import Blob, Commit, Tag, Tree
    from dulwich.pack import write_pack_objects

    now = int(time.time())

    def commit(tree, message: bytes) -> Commit:
        c = Commit()
        c.tree = tree.id
        c.author = c.committer = b"Bench <bench@example.com>"
        c.author_time = c.commit_time = now
        c.author_timezone = c.commit_timezone = 0
        c.message = message
        return c

    readme, inner = Blob.from_string(b"# bench\n"), Blob.from_string(b"print(1)\n")
    sub = Tree()
    sub.add(b"main.py", 0o100644, inner.id)
    root = Tree()
    root.add(b"README.md", 0o100644, readme.id)
    root.add(b"src", 0o040000, sub.id)
    main = commit(root, b"bench commit\n")
    tag = Tag()
    tag.object = (Commit, main.id)
    tag.name, tag.tagger, tag.message = b"v1", b"Bench <bench@example.com>", b"bench tag\n"
    tag.tag_time, tag.tag_timezone = now, 0
    note = Blob.from_string(b"bench note\n")
    notes_tree = Tree()
    notes_tree.add(main.id, 0o100644, note.id)
    notes = commit(notes_tree, b"Notes added by 'git notes add'\n")
    objects = [readme, inner, sub, root, main, tag, note, notes_tree, notes]
    pack = BytesIO()
    write_pack_objects(pack.write, objects, DEFAULT_OBJECT_FORMAT)
    updates = [(main.id, "refs/heads/main"), (tag.id, "refs/tags/v1"),
               (notes.id, "refs/notes/commits")]
    body = b"".join(pkt(f"{ZERO} {sha.decode()} {ref}" + ("\0report-status" if i == 0 else "")
                        + "\n") for i, (sha, ref) in enumerate(updates)) + b"0000"
    repo = s.new_repo()
    status, out = s.call("POST", f"/alice/{repo}.git/git-receive-pack", "token",
                         data=body + pack.getvalue(),
                         content_type="application/x-git-receive-pack-request")
    assert status == 200 and out.count(b"ok refs/") == 3, (status, out[:300])
    return {"path": f"/repos/alice/{repo}", "commit": main.id.decode(),
            "blob": readme.id.decode(), "tag": tag.id.decode()}


def history(s) -> dict:
    return s.once("git-data", lambda: _history(s))


def both(path: str) -> list[Req]:
    return [Req("GET", path), Req("GET", path, "token")]


def scenarios() -> dict:
    """operationId -> scenario, as in aws_calls.SCENARIOS."""
    return {
        "GetTree": lambda s: [*both(f"{history(s)['path']}/git/trees/main"),
                              Req("GET", f"{history(s)['path']}/git/trees/main?recursive=1")],
        "GetBlob": lambda s: both(f"{history(s)['path']}/git/blobs/{history(s)['blob']}"),
        "repoListAllGitRefs": lambda s: both(f"{history(s)['path']}/git/refs"),
        "repoListGitRefs": lambda s: both(f"{history(s)['path']}/git/refs/heads"),
        "GetAnnotatedTag": lambda s: both(f"{history(s)['path']}/git/tags/{history(s)['tag']}"),
        "repoGetNote": lambda s: both(f"{history(s)['path']}/git/notes/{history(s)['commit']}"),
    }
