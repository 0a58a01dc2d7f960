"""The languages domain's rules, on the in-memory twin (the fast layer): which language a
file counts towards (its name; what is vendored, generated, documentation, a dot-file or
configuration counts towards none), the root ``.gitattributes`` overrides, and the
statistics a repository shows: ``{}`` until the worker computes them, the default
branch's bytes per language, kept in step by a tree diff, never overwritten by a stale
computation."""
from __future__ import annotations

import base64

import pytest

from chalicelib import contents, languages, repos
from chalicelib.contents import service as contents_service
from chalicelib.contents.options import ChangeFileOperation, ChangeFilesOptions
from chalicelib.errors import ConditionFailed
from chalicelib.languages import detection, service, store
from tests import memory_scene as scene
from tests.conftest import drain_outbox


def sized(n: int, line: str = "x = 1\n") -> str:
    """Exactly ``n`` bytes of text."""
    return (line * (n // len(line) + 1))[:n]


def commit(view, account, files: dict[str, str | None], **fields):
    """One commit through the contents service: path -> new text (None deletes)."""
    fresh = repos.view_of(repos.repo_by_id(int(view.repo.id)), scene.caller(account))
    operations = []
    for path, text in files.items():
        if text is None:
            _, entry = contents_service.get_contents(fresh, path, fields.get("branch"))
            operations.append(ChangeFileOperation(operation="delete", path=path, sha=entry.sha))
        else:
            operations.append(ChangeFileOperation(
                operation="create", path=path, content=base64.b64encode(text.encode()).decode()))
    return contents_service.change_files(fresh, account, ChangeFilesOptions(
        files=operations, **fields))


def deliver_to_languages() -> None:
    """What the queue worker does with the events waiting: the language-stats consumer
    gets those it subscribes to."""
    for event in drain_outbox():
        if isinstance(event, languages.EVENT_TYPES):
            languages.on_event(event)


def shown(view) -> dict[str, int]:
    """What repoGetLanguages answers now (a request's fresh read)."""
    return service.cached(repos.view_of(repos.repo_by_id(int(view.repo.id)),
                                        scene.caller(None)))


@pytest.fixture
def alice(memory):
    return scene.user("alice")


@pytest.fixture
def proj(alice):
    """alice's public ``proj``: a README on ``main`` (documentation: no language)."""
    return scene.repo(alice, "proj", auto_init=True)


@pytest.mark.fast          # rules on paths alone: no AWS, twin or otherwise
@pytest.mark.parametrize("path, language", [
    ("src/main.py", "Python"), ("SRC/MAIN.PY", "Python"), ("a/b/Makefile", "Makefile"),
    ("Dockerfile", "Dockerfile"), ("CMakeLists.txt", "CMake"), ("go.mod", "Go Module"),
    ("lib/x.h", "C"), ("lib/x.ts", "TypeScript"), ("x.rs", "Rust"),
    ("Rakefile", "Ruby"), (".bashrc", None), ("notes", None), ("photo.png", None),
])
def test_a_file_s_language_is_decided_by_its_name(path, language):
    # Extensions several languages claim (".h", ".ts", ".rs") go to the one enry settles
    # on for ordinary files: the content is never read.
    assert detection.detect(path) == language


@pytest.mark.fast
def test_what_counts_towards_no_language():
    counted = {path: detection.counted_language(path, []) for path in (
        "app.py", "web/App.tsx", "vendor/dep/dep.go", "node_modules/x/index.js",
        "docs/conf.py", "README.md", "CHANGELOG.md", "web/app.min.js", "api_pb2.py",
        ".hidden.py", "settings.json", "config.yaml", "notes.txt", "data.csv",
        "web/index.html", "script.sh")}
    assert {path: lang for path, lang in counted.items() if lang} == {
        "app.py": "Python", "web/App.tsx": "TypeScript",         # TSX is grouped
        "web/index.html": "HTML", "script.sh": "Shell"}          # markup counts


@pytest.mark.fast
def test_the_root_gitattributes_override_the_rules():
    rules = detection.parse_attributes("\n".join([
        "# comments and other attributes are ignored", "*.c text eol=lf",
        "*.tpl linguist-language=visual-basic-.net", "vendor/** -linguist-vendored",
        "gen/** linguist-generated", "src/skip.go linguist-detectable=false",
        "*.csv linguist-detectable", "*.md linguist-documentation=false",
        "lib/*.rb linguist-vendored", "lib/keep.rb !linguist-vendored",
    ]))
    assert [detection.counted_language(path, rules) for path in (
        "view.tpl", "vendor/ours.go", "gen/model.py", "src/skip.go", "src/keep.go",
        "data.csv", "guide.md", "lib/dep.rb", "lib/keep.rb", "x.c")] == [
        "Visual Basic .NET", "Go", None, None, "Go", "CSV", "Markdown", None, "Ruby", "C"]


def test_figures_show_once_computed_for_the_default_branch(alice, proj):
    commit(proj, alice, {
        "main.py": sized(1200), "pkg/util.py": sized(300), "cmd/tool/main.go": sized(640),
        "Makefile": sized(25, "all:\n"), "vendor/dep/dep.go": sized(5000),
        "settings.json": "{}", ".hidden.py": sized(99)})
    assert shown(proj) == {}                                # the worker has not run yet
    figures = service.refresh(int(proj.repo.id))
    assert figures.sizes == {"Go": 640, "Makefile": 25, "Python": 1500}
    assert list(shown(proj)) == ["Go", "Makefile", "Python"]          # sorted by name
    assert service.refresh(int(proj.repo.id)).version == figures.version   # same tip: kept

def test_another_branch_counts_once_it_is_the_default_one(alice, proj):
    from chalicelib import repo_admin
    from chalicelib.repo_admin import service as repo_service

    commit(proj, alice, {"main.py": sized(40)})
    commit(proj, alice, {"lib.rs": sized(77)}, new_branch="dev")
    deliver_to_languages()
    assert shown(proj) == {"Python": 40}
    mine = repos.view_of(repos.repo_by_id(int(proj.repo.id)), scene.caller(alice))
    repo_service.edit_repo(scene.caller(alice), mine,
                           repo_admin.EditRepoOption(default_branch="dev"))
    deliver_to_languages()
    assert shown(proj) == {"Python": 40, "Rust": 77}


def test_a_push_to_the_default_branch_moves_the_figures_by_its_diff(alice, proj, monkeypatch):
    commit(proj, alice, {"a.py": sized(100), "b/b.py": sized(50), "c/c.go": sized(30)})
    first = service.refresh(int(proj.repo.id))
    commit(proj, alice, {"b/b.py": None, "c/c.go": None, "d/e.rs": sized(20)})

    def no_full_walk(*args):
        raise AssertionError("the figures were walked anew, not moved by the diff")

    monkeypatch.setattr(service, "full_walk", no_full_walk)
    deliver_to_languages()
    assert shown(proj) == {"Python": 100, "Rust": 20}                 # Go fell to 0: gone
    latest = store.get(int(proj.repo.id), consistent=True)
    tip = contents.branch_info(int(proj.repo.id), "main").commit_id
    assert (latest.version, latest.commit) == (first.version + 1, tip)


def test_a_stale_computation_never_overwrites_newer_figures(alice, proj):
    repo_id = int(proj.repo.id)
    commit(proj, alice, {"a.py": sized(10)})
    before = store.get(repo_id, consistent=True)                       # nothing computed
    newer = service.refresh(repo_id)
    with pytest.raises(ConditionFailed):
        store.save(repo_id, before, "0" * 40, {"Python": 999})        # a late worker
    assert (shown(proj), store.get(repo_id, consistent=True).version) == (
        {"Python": 10}, newer.version)


def test_an_empty_repository_has_no_figures(alice):
    empty = scene.repo(alice, "empty")
    assert service.refresh(int(empty.repo.id)) is None
    assert shown(empty) == {}
    assert store.get(int(empty.repo.id), consistent=True).version == 0
