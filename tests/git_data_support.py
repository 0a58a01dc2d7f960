"""The scene the git data API's tests read (tests/contents/test_git_trees.py, tests/contents/test_git_data.py):
alice's repositories built here with dulwich and pushed through the smart HTTP route, in
one moto world per test module, and helpers to look into the stored packs."""
from __future__ import annotations

import contextlib
import io

import pytest

from tests.conftest import ADMIN, ApiClient
from tests.repos.test_events_repos import ZERO, push

R = "/repos/alice/proj"
API = "http://nimbus.test/api/v1" + R
T0 = 1_700_000_000
ALICE = b"Alice <alice@example.com>"
SUBMODULE = "5" * 40


def push_deltified(api, token, repo: str, old: str, new: str, objects: list, *,
                   ref: str = "refs/heads/main") -> str:
    """``push`` of one ref with a pack whose similar objects are stored as deltas (as git's
    own packs store them); the report."""
    from dulwich.object_format import get_object_format
    from dulwich.pack import write_pack_objects
    from dulwich.protocol import pkt_line

    pack = io.BytesIO()
    write_pack_objects(pack.write, [(o, None) for o in objects], get_object_format("sha1"),
                       deltify=True)
    body = pkt_line(f"{old} {new} {ref}".encode() + b"\x00report-status\n") + b"0000"
    r = api.post(f"/alice/{repo}.git/git-receive-pack", body=body + pack.getvalue(),
                 token=token, raw=True,
                 headers={"Content-Type": "application/x-git-receive-pack-request"})
    assert r.status == 200, r
    return r.body.decode("utf-8", "replace")


def pack_kinds(store, shas) -> set[int]:
    """How the objects ``shas`` are stored in ``store``'s packs: the entries' type numbers
    (a whole object, or an offset or ref delta)."""
    kinds = set()
    for sha in shas:
        for pack in store.packs:
            try:
                offset = pack.index.object_offset(sha)
            except KeyError:
                continue
            kinds.add(pack.data.get_unpacked_object_at(offset).pack_type_num)
    return kinds


def tree_of(entries: dict, objects: list):
    """A tree from {name: bytes | dict | (mode, sha)}; subtrees and blobs go to objects."""
    from dulwich.objects import Blob, Tree

    tree = Tree()
    for name, value in entries.items():
        if isinstance(value, dict):
            sub = tree_of(value, objects)
            tree.add(name.encode(), 0o040000, sub.id)
        elif isinstance(value, tuple):
            tree.add(name.encode(), value[0], value[1])
        else:
            blob = Blob.from_string(value)
            objects.append(blob)
            tree.add(name.encode(), 0o100644, blob.id)
    objects.append(tree)
    return tree


def commit_of(tree, parents, message: str, when: int, objects: list):
    from dulwich.objects import Commit

    c = Commit()
    c.tree = tree.id
    c.parents = [p.id for p in parents]
    c.author = c.committer = ALICE
    c.author_time = c.commit_time = when
    c.author_timezone = c.commit_timezone = 0
    c.message = message.encode() + b"\n"
    objects.append(c)
    return c


def tag_of(target, name: str, message: str, objects: list, signature: bytes | None = None):
    from dulwich.objects import Commit, Tag

    t = Tag()
    t.object = (Commit, target.id)
    t.name = name.encode()
    t.tagger = ALICE
    t.tag_time = T0 + 50
    t.tag_timezone = 3600
    t.message = message.encode()
    if signature:
        t.signature = signature
    objects.append(t)
    return t


@pytest.fixture(scope="module", name="api")
def module_api():
    """``api`` for a whole test module: one moto world (the scene takes seconds to build;
    the tests only read it, or make repositories of their own)."""
    from moto import mock_aws

    from chalicelib.local.aws_requests import serialized_mock_aws

    with mock_aws(), serialized_mock_aws():
        from app import app
        from chalicelib import aws
        from chalicelib.accounts.service import ensure_admin
        from chalicelib.store import ids, table
        from infra.bootstrap import ensure_resources

        aws.reset_clients()
        table.configure()
        ids.reset()
        ensure_resources()
        ensure_admin(ADMIN[0], ADMIN[1], "root@example.com")
        yield ApiClient(app)
        aws.reset_clients()
        table.configure()


@pytest.fixture(scope="module", name="scene")
def module_scene(api) -> dict:
    """alice's public ``proj``: c1 (README.md, a symlink, a submodule, src/ nested two
    levels, many/ with 25 files), c2 (README.md changed); tags v1 (annotated, on c1),
    light (lightweight), signed (annotated, bad signature); notes for c1 (fanned out)
    and c2 (flat) in two notes commits.  ``secret`` is private; carol is a stranger."""
    tokens = {n: (api.create_user(n), api.create_token(n))[1] for n in ("alice", "carol")}
    for name, private in (("proj", False), ("secret", True)):
        assert api.post("/user/repos", token=tokens["alice"],
                        json={"name": name, "private": private}).status == 201
    from dulwich.objects import Blob

    link = Blob.from_string(b"README.md")
    objects: list = [link]
    many = {f"f{i:02d}.txt": f"file {i}\n".encode() for i in range(25)}
    files = {"README.md": b"# proj\n", "link": (0o120000, link.id),
             "mod": (0o160000, SUBMODULE.encode()),
             "src": {"main.py": b"print('hi')\n", "lib": {"util.py": b"x = 1\n"}},
             "many": many}
    c1 = commit_of(tree_of(files, objects), [], "first", T0, objects)
    c2 = commit_of(tree_of({**files, "README.md": b"# proj, again\n"}, objects), [c1],
                   "second", T0 + 100, objects)
    v1 = tag_of(c1, "v1", "release one\n", objects)
    signed = tag_of(c2, "signed", "signed one\n", objects,
                    signature=b"-----BEGIN PGP SIGNATURE-----\n\nbm90IGEgc2lnbmF0dXJl\n"
                              b"-----END PGP SIGNATURE-----\n")
    c1_hex, c2_hex = c1.id.decode(), c2.id.decode()
    n1 = commit_of(tree_of({c1_hex[:2]: {c1_hex[2:]: b"note on one\n"}}, objects), [],
                   "Notes added by 'git notes add'", T0 + 200, objects)
    n2 = commit_of(tree_of({c1_hex[:2]: {c1_hex[2:]: b"note on one\n"},
                            c2_hex: b"note on two\n"}, objects), [n1],
                   "Notes added by 'git notes add'", T0 + 300, objects)
    report = push(api, tokens["alice"], "proj", [
        (ZERO, c2_hex, "refs/heads/main"), (ZERO, c1_hex, "refs/heads/old"),
        (ZERO, v1.id.decode(), "refs/tags/v1"), (ZERO, c1_hex, "refs/tags/light"),
        (ZERO, signed.id.decode(), "refs/tags/signed"),
        (ZERO, n2.id.decode(), "refs/notes/commits")], objects)
    assert "ok refs/heads/main" in report and "ok refs/notes/commits" in report, report
    assert "ok refs/heads/main" in push(api, tokens["alice"], "secret",
                                        [(ZERO, c1_hex, "refs/heads/main")], objects)
    return dict(tokens, c1=c1, c2=c2, v1=v1, signed=signed, n1=n1, n2=n2,
                many=sorted(many))


@contextlib.contextmanager
def store_of(name: str):
    """The object store of alice's repository ``name``."""
    from chalicelib.contents import files as repo_files
    from chalicelib.repos import store as repo_store
    from chalicelib.store import unit_of_work

    with unit_of_work.start():
        yield repo_files.open_git(repo_store.get("alice", name)).object_store

