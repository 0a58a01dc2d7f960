"""The wiki's rules on the in-memory twin (the fast layer): page names as Forgejo spells
them, create, edit, rename, delete, revisions, who may write, ``has_wiki_contents``, a
deleted repository's wiki, the refs a migration sets, and two concurrent writes."""
from __future__ import annotations

import pytest

from chalicelib import repos, wiki
from chalicelib.errors import (
    ArchivedRepository,
    BadInput,
    NotFoundError,
    PermissionDenied,
)
from chalicelib.wiki import gitrepo, names, service
from tests import memory_scene as scene

# -- names -----------------------------------------------------------------------------

@pytest.mark.parametrize("title,web,git_path", [
    ("Home", "Home", "Home.md"),
    ("Home Page", "Home-Page", "Home-Page.md"),
    ("2000-01-02 meeting", "2000-01-02+meeting.-", "2000-01-02 meeting.-.md"),
    ("100% Free", "100%25-Free", "100%25-Free.md"),
    ("a/b", "a%2Fb", "a%2Fb.md"),
    ("notes.md", "notes.md.-", "notes.md.-.md"),
    ("  ", "unnamed", "unnamed.md"),
    ("Ünïcode title", "%C3%9Cn%C3%AFcode-title", "%C3%9Cn%C3%AFcode-title.md"),
])
def test_titles_become_web_paths_and_files_as_forgejo_spells_them(title, web, git_path):
    name = names.from_title(title)
    assert (name.web, name.git_path) == (web, git_path)
    if title.strip():
        assert name.title == title.strip()
    # The file reads back as the same page.
    assert names.from_git_path(git_path) == name


def test_request_paths_decoded_once_name_the_same_page():
    # The address carries sub_url; API Gateway decodes it once before routing.
    assert names.from_request("100%-Free") == names.from_title("100% Free")
    assert names.from_request("100%25-Free") == names.from_title("100% Free")
    assert names.from_request("Home-Page") == names.from_title("Home Page")
    assert names.from_request("2000-01-02+meeting.-") == names.from_title("2000-01-02 meeting")
    assert names.from_request("") == names.PageName("Home")
    assert names.from_request("Raw.md").git_path == "Raw.md"
    assert names.from_git_path("image.png") is None


def test_reserved_titles_are_refused():
    for title in ("_pages", "_new", "_edit", "raw"):
        with pytest.raises(BadInput, match="reserved"):
            names.from_title(title).check_not_reserved()
    names.from_title("_Sidebar").check_not_reserved()


def test_go_quote_quotes_as_go_does():
    assert names.go_quote('say "hi"\n') == '"say \\"hi\\"\\n"'


# -- pages -----------------------------------------------------------------------------

@pytest.fixture
def shared(memory):
    people, view = scene.shared_repo("proj")
    return people, view


def as_seen(people, who, view):
    return repos.view_of(repos.repo_by_id(int(view.repo.id)), scene.caller(people[who]))


def test_create_read_edit_rename_delete_and_revisions(shared):
    people, view = shared
    alice = people["alice"]
    assert repos.repo_by_id(int(view.repo.id)).has_wiki_contents is False
    name = service.create_page(view, alice, "Home", b"# Welcome\n")
    assert name.web == "Home"
    assert repos.repo_by_id(int(view.repo.id)).has_wiki_contents is True
    page = service.get_page(as_seen(people, "carol", view), names.from_request("Home"))
    assert page.content == b"# Welcome\n" and page.commit_count == 1
    assert page.last_commit.message == b'Add "Home"\n'
    assert page.sidebar is None and page.footer is None

    service.create_page(view, alice, "_Sidebar", b"side")
    with pytest.raises(BadInput, match="already exists"):
        service.create_page(view, people["bob"], "Home", b"again")
    with pytest.raises(BadInput, match="emptyTitle"):
        service.create_page(view, alice, "  ", b"x")

    service.edit_page(view, people["bob"], names.from_title("Home"), None, b"# Welcome!\n")
    page = service.get_page(view, names.from_title("Home"))
    assert page.content == b"# Welcome!\n" and page.commit_count == 2
    assert page.sidebar == b"side"
    assert page.last_commit.author.startswith(b"bob <bob@example.com>")

    renamed = service.edit_page(view, alice, names.from_title("Home"), "Start Here", b"moved")
    assert renamed.web == "Start-Here"
    with pytest.raises(NotFoundError):
        service.get_page(view, names.from_title("Home"))
    assert service.get_page(view, renamed).content == b"moved"

    commits, count = service.revisions(view, renamed, 1)
    assert count == 1 and commits[0].message == b'Update "Start-Here"\n'
    listing = service.list_pages(view, 0, 30)
    assert [n.web for n, _ in listing.pages] == ["Start-Here", "_Sidebar"]
    assert listing.total == 2
    assert [n.title for n in service.search_titles(view, "here")] == ["Start Here"]

    service.delete_page(view, alice, renamed)
    with pytest.raises(NotFoundError):
        service.delete_page(view, alice, renamed)
    assert [n.web for n in service.page_names(view)] == ["_Sidebar"]


def test_readers_read_writers_write_and_a_switched_off_wiki_is_absent(shared):
    people, view = shared
    with pytest.raises(NotFoundError):
        service.get_page(view, names.from_title("Home"))    # no wiki yet
    with pytest.raises(PermissionDenied):
        service.create_page(as_seen(people, "carol", view), people["carol"], "Home", b"x")
    with pytest.raises(PermissionDenied):
        service.create_page(view, None, "Home", b"x")
    service.create_page(as_seen(people, "bob", view), people["bob"], "Home", b"x")
    with service_repo_fields(view, archived=True) as archived, \
            pytest.raises(ArchivedRepository):
        service.edit_page(archived, people["alice"], names.from_title("Home"), None, b"y")
    with service_repo_fields(view, has_wiki=False) as off, pytest.raises(NotFoundError):
        service.get_page(off, names.from_title("Home"))


class service_repo_fields:
    """The repository stored with ``fields`` for the block, as a view; then as before."""

    def __init__(self, view, **fields):
        self.view, self.fields = view, fields

    def __enter__(self):
        from chalicelib.store import unit_of_work

        repo = repos.repo_by_id(int(self.view.repo.id))
        self.before = {k: getattr(repo, k) for k in self.fields}
        with unit_of_work.writing():
            repos.stage_repo_fields(repo, self.fields)
        return repos.view_of(repos.repo_by_id(int(repo.id)), scene.caller(self.view.owner))

    def __exit__(self, *exc):
        from chalicelib.store import unit_of_work

        repo = repos.repo_by_id(int(self.view.repo.id))
        with unit_of_work.writing():
            repos.stage_repo_fields(repo, self.before)


def test_two_concurrent_writes_both_land(shared, monkeypatch):
    """A write whose tip moved between its read and its ref move is made again on the
    new tip: with an unconditional ref write, bob's page would be lost."""
    people, view = shared
    service.create_page(view, people["alice"], "Home", b"home")
    raced = []

    def bob_writes_first():
        if not raced:
            raced.append(True)
            service.create_page(view, people["bob"], "Bob", b"bob's")

    monkeypatch.setattr(service, "before_ref_move", bob_writes_first)
    service.edit_page(view, people["alice"], names.from_title("Home"), None, b"home v2")
    monkeypatch.setattr(service, "before_ref_move", None)
    assert raced
    assert sorted(n.web for n in service.page_names(view)) == ["Bob", "Home"]
    assert service.get_page(view, names.from_title("Home")).content == b"home v2"
    git = gitrepo.open_wiki_git(view.repo)
    assert len(gitrepo.history(git, gitrepo.tip(git, view.repo), "Home.md")) == 2


def test_a_create_racing_a_create_of_the_same_page_finds_it_exists(shared, monkeypatch):
    people, view = shared
    raced = []

    def bob_creates_it():
        if not raced:
            raced.append(True)
            service.create_page(view, people["bob"], "Home", b"bob's")

    monkeypatch.setattr(service, "before_ref_move", bob_creates_it)
    with pytest.raises(BadInput, match="already exists"):
        service.create_page(view, people["alice"], "Home", b"alice's")
    monkeypatch.setattr(service, "before_ref_move", None)
    assert service.get_page(view, names.from_title("Home")).content == b"bob's"


def test_migration_sets_refs_and_a_deleted_repository_takes_its_wiki(shared):
    people, view = shared
    service.create_page(view, people["alice"], "Home", b"home")
    source = gitrepo.open_wiki_git(view.repo)
    tip = gitrepo.tip(source, view.repo).decode()
    target = scene.repo(people["alice"], "copy")
    # The objects arrive as a migration's fetch brings them (here: the same pack).
    dest = wiki.open_wiki_git(target.repo)
    dest.object_store.add_objects([(source[tip.encode()], None),
                                   (source[source[tip.encode()].tree], None),
                                   (source[source[source[tip.encode()].tree][b"Home.md"][1]],
                                    None)])
    wiki.set_wiki_refs(target.repo, {"refs/heads/master": tip}, people["alice"])
    stored = repos.repo_by_id(int(target.repo.id))
    assert stored.has_wiki_contents is True
    fresh = gitrepo.open_wiki_git(stored)
    assert gitrepo.tip(fresh, stored).decode() == tip            # master renamed to main
    assert fresh.refs.read_ref(b"HEAD") == b"ref: refs/heads/main"
    with pytest.raises(Exception, match="does not hold"):
        wiki.set_wiki_refs(target.repo, {"refs/heads/main": "1" * 40}, None)

    from chalicelib.gitstore import refdb
    wiki.delete_wiki(int(view.repo.id))
    assert refdb.load_refs(gitrepo.wiki_id(view.repo)) == {}
