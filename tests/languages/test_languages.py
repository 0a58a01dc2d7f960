"""Language statistics (``repoGetLanguages``), in-process under moto: the events worker
computes them after pushes to the default branch (run here synchronously, as the queue
worker would), the route answers from the cached figures."""
from __future__ import annotations

import base64

import pytest

from chalicelib import events
from chalicelib.errors import ConditionFailed
from chalicelib.jobs import consumers
from chalicelib.languages import service as languages
from chalicelib.languages import store as language_store
from tests.conftest import drain_outbox

R = "/repos/alice/proj"


def b64(data: bytes | str) -> str:
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


def deliver_events() -> list:
    found = drain_outbox()
    for event in found:
        consumers.handle_message(events.to_message(event))
    return found


def change(api, token, files: dict[str, str | None], repo: str = "proj", **extra) -> dict:
    """One commit through the contents API: path -> new text (None deletes)."""
    current = {}
    ops = []
    for path, text in files.items():
        found = api.get(f"/repos/alice/{repo}/contents/{path}", token=token)
        if found.status == 200:
            current[path] = found.json["sha"]
        if text is None:
            ops.append({"operation": "delete", "path": path, "sha": current[path]})
        elif path in current:
            ops.append({"operation": "update", "path": path, "content": b64(text),
                        "sha": current[path]})
        else:
            ops.append({"operation": "create", "path": path, "content": b64(text)})
    r = api.post(f"/repos/alice/{repo}/contents", token=token, json={"files": ops, **extra})
    assert r.status == 201, r
    return r.json


def sized(n: int, line: str = "x = 1\n") -> str:
    """Exactly ``n`` bytes of text."""
    return (line * (n // len(line) + 1))[:n]


@pytest.fixture
def scene(api):
    """alice owns public ``proj`` (README.md on main) and private ``secret``; carol is
    a stranger."""
    tokens = {name: (api.create_user(name), api.create_token(name))[1]
              for name in ("alice", "carol")}
    for name, private in (("proj", False), ("secret", True)):
        assert api.post("/user/repos", token=tokens["alice"], json={
            "name": name, "private": private, "auto_init": True}).status == 201
    deliver_events()
    return tokens


def test_bytes_per_language_without_vendored_docs_dotfiles_or_config(api, scene):
    alice = scene["alice"]
    change(api, alice, {
        "main.py": sized(1200), "pkg/util.py": sized(300), "cmd/tool/main.go": sized(640),
        "web/index.html": sized(90, "<p>\n"), "web/site.css": sized(70, "a{}\n"),
        "Makefile": sized(25, "all:\n"), "scripts/run.sh": sized(33, "echo\n"),
        # None of these count:
        "vendor/dep/dep.go": sized(5000), "node_modules/x/index.js": sized(800),
        "docs/conf.py": sized(400), "CHANGELOG.md": "x", "settings.json": "{}",
        "config.yaml": "a: 1\n", ".hidden.py": sized(99), "web/app.min.js": sized(300),
        "notes.txt": "plain text\n", "image.png": "\x89PNG",
    })
    assert api.get(f"{R}/languages").json == {}       # not computed yet
    deliver_events()
    r = api.get(f"{R}/languages")
    assert r.status == 200
    assert r.json == {"CSS": 70, "Go": 640, "HTML": 90, "Makefile": 25, "Python": 1500,
                      "Shell": 33}


def test_gitattributes_overrides(api, scene):
    alice = scene["alice"]
    change(api, alice, {
        ".gitattributes": "\n".join([
            "# linguist overrides",
            "*.tpl linguist-language=Python",
            "*.pp linguist-language=objective-c",
            "vendor/** -linguist-vendored",
            "docs/*.py linguist-documentation=false",
            "gen/** linguist-generated",
            "src/skip.go linguist-detectable=false",
            "*.csv linguist-detectable",
            "third/* !linguist-vendored",
            "lib/*.rb linguist-vendored",
            "*.md linguist-documentation=false",
        ]) + "\n",
        "view.tpl": sized(40), "mod.pp": sized(11), "vendor/ours.go": sized(100),
        "docs/example.py": sized(60), "gen/model.py": sized(500), "src/skip.go": sized(700),
        "src/keep.go": sized(20), "data.csv": sized(13, "a,b\n"), "third/x.rb": sized(9),
        "lib/dep.rb": sized(300), "guide.md": sized(17, "# t\n"),
    })
    deliver_events()
    readme = api.get(f"{R}/contents/README.md").json["size"]     # *.md counts now
    assert api.get(f"{R}/languages").json == {
        "CSV": 13, "Go": 120, "Markdown": 17 + readme, "Objective-C": 11, "Python": 100,
        "Ruby": 9}


def test_push_updates_incrementally_from_the_tree_diff(api, scene, monkeypatch):
    alice = scene["alice"]
    change(api, alice, {"a.py": sized(100), "b/b.py": sized(50), "c/c.go": sized(30),
                        "d/e/f.rs": sized(20)})
    deliver_events()
    assert api.get(f"{R}/languages").json == {"Go": 30, "Python": 150, "Rust": 20}
    first = language_store.get(int(api.get(R).json["id"]))

    walks = []
    real_walk = languages.full_walk
    monkeypatch.setattr(languages, "full_walk",
                        lambda *a: walks.append(a) or real_walk(*a))
    change(api, alice, {"a.py": sized(10), "c/c.go": None, "d/e/g.rs": sized(5),
                        "b/new.js": sized(44)})
    deliver_events()
    assert api.get(f"{R}/languages").json == {"JavaScript": 44, "Python": 60, "Rust": 25}
    assert walks == []                         # from the diff, not a walk
    second = language_store.get(first and int(api.get(R).json["id"]))
    assert second.version == first.version + 1
    assert second.commit == api.get(f"{R}/branches/main").json["commit"]["id"]

    # A changed .gitattributes re-walks the tree (what it says may move any file).
    change(api, alice, {".gitattributes": "*.js linguist-vendored\n"})
    deliver_events()
    assert len(walks) == 1
    assert api.get(f"{R}/languages").json == {"Python": 60, "Rust": 25}


def test_other_branches_do_not_count_until_they_become_default(api, scene):
    alice = scene["alice"]
    change(api, alice, {"a.py": sized(10)})
    deliver_events()
    change(api, alice, {"b.go": sized(7)}, new_branch="side")
    deliver_events()
    assert api.get(f"{R}/languages").json == {"Python": 10}
    assert api.patch(R, token=alice, json={"default_branch": "side"}).status == 200
    deliver_events()
    assert api.get(f"{R}/languages").json == {"Go": 7, "Python": 10}


def test_private_repository_is_hidden_from_strangers(api, scene):
    alice, carol = scene["alice"], scene["carol"]
    change(api, alice, {"x.go": sized(12)}, repo="secret")
    deliver_events()
    path = "/repos/alice/secret/languages"
    assert api.get(path, token=carol).status == 404
    assert api.get(path).status == 404
    assert api.get(path, token=alice).json == {"Go": 12}
    assert api.get("/repos/alice/nothing/languages").status == 404


def test_empty_repository_answers_an_empty_object(api, scene):
    alice = scene["alice"]
    assert api.post("/user/repos", token=alice, json={"name": "bare"}).status == 201
    deliver_events()
    assert api.get("/repos/alice/bare/languages").json == {}


def test_a_stale_computation_never_overwrites_newer_figures(api, scene):
    alice = scene["alice"]
    repo_id = int(api.get(R).json["id"])
    change(api, alice, {"a.py": sized(10)})
    deliver_events()
    old = language_store.get(repo_id)
    change(api, alice, {"a.py": sized(30)})
    newest = deliver_events()
    assert api.get(f"{R}/languages").json == {"Python": 30}
    # A worker that started from the older figures loses the swap...
    with pytest.raises(ConditionFailed):
        language_store.save(repo_id, old, old.commit, {"Python": 10})
    # ... and a redelivered or late event recomputes for the tip as it is.
    pushed = [e for e in newest if isinstance(e, events.RepositoryPushed)]
    languages.on_push(repo_id, pushed[0].ref)
    assert api.get(f"{R}/languages").json == {"Python": 30}


def test_refresh_starts_again_after_losing_a_race(api, scene, monkeypatch):
    alice = scene["alice"]
    repo_id = int(api.get(R).json["id"])
    change(api, alice, {"a.py": sized(10)})
    drain_outbox()
    real_save = language_store.save
    raced = []

    def racing_save(rid, read, commit, sizes):
        if not raced:           # another worker writes first
            raced.append(real_save(rid, read, commit, {"Python": 1}))
        return real_save(rid, read, commit, sizes)

    monkeypatch.setattr(language_store, "save", racing_save)
    result = languages.refresh(repo_id)
    assert raced and result is not None
    # The second attempt started from the winner's figures, which describe the tip.
    assert result.version == raced[0].version
    assert api.get(f"{R}/languages").json == {"Python": 1}


def test_blob_sizes_from_delta_entries(api, scene, tmp_path):
    """A pushed pack with deltified blobs: sizes come from the entry headers."""
    import io

    from dulwich.object_format import get_object_format
    from dulwich.pack import OFS_DELTA, REF_DELTA, write_pack_objects
    from dulwich.protocol import pkt_line

    from chalicelib.gitstore.object_sizes import ObjectSizes
    from chalicelib.contents import files as repo_files
    from chalicelib.repos import store as repo_store
    from tests.contents.test_commits import commit_at

    alice = scene["alice"]
    base = "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(300))
    files = {"one.py": base.encode(), "two.py": (base + "# tail\n").encode(),
             "three.py": base.replace("return", "yield").encode()}
    tip = api.get(f"{R}/branches/main").json["commit"]["id"]
    commit, objects = commit_at(None, files, "deltas", 1_700_000_000)
    commit.parents = [tip.encode()]
    pack = io.BytesIO()
    write_pack_objects(pack.write, [(o, None) for o in objects], get_object_format("sha1"),
                       deltify=True)
    body = pkt_line(f"{tip} {commit.id.decode()} refs/heads/main".encode()
                    + b"\x00report-status\n") + b"0000" + pack.getvalue()
    r = api.post("/alice/proj.git/git-receive-pack", body=body, token=alice, raw=True,
                 headers={"Content-Type": "application/x-git-receive-pack-request"})
    assert r.status == 200 and b"ok refs/heads/main" in r.body, r
    deliver_events()
    assert api.get(f"{R}/languages").json == {"Python": sum(len(v) for v in files.values())}

    repo = repo_store.get_by_id(int(api.get(R).json["id"]))
    store = repo_files.open_git(repo).object_store
    kinds = set()
    for blob in objects[:3]:
        for p in store.packs:
            try:
                offset = p.index.object_offset(blob.id)
            except KeyError:
                continue
            kinds.add(p.data.get_unpacked_object_at(offset).pack_type_num)
        with ObjectSizes(store) as sizes:
            assert sizes.size(blob.id) == len(blob.as_raw_string())
    assert kinds & {OFS_DELTA, REF_DELTA}, kinds

    # Read by ranges (a big pack not in the local cache): the entries' own bytes only,
    # the pack is not downloaded whole.
    from chalicelib.gitstore.cache import DiskCache
    from chalicelib.gitstore.objects import S3ObjectStore

    ranged = S3ObjectStore(int(repo.pool_id), cache=DiskCache(str(tmp_path), 1 << 30),
                           ranged_min_bytes=0)
    with ObjectSizes(ranged) as sizes:
        for blob in objects[:3]:
            assert sizes.size(blob.id) == len(blob.as_raw_string())
    assert not any(p.data.materialized for p in ranged.packs if hasattr(p.data, "materialized"))


def test_the_api_function_never_loads_the_language_tables():
    import subprocess
    import sys

    code = ("import sys, app; from chalicelib.http import routes; routes.load_routes(); "
            "loaded = [m for m in ('chalicelib.languages.detection', "
            "'programming_languages', 'dulwich.diff_tree') if m in sys.modules]; "
            "print(loaded)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout.strip().splitlines()[-1]
    assert out == "[]", out
