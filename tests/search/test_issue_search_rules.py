"""Issue search through the index, on the in-memory twin (the fast layer): results equal
a full filter of every issue on a sample of queries (words of titles, bodies and
comments in any case, several words, state, kind, labels, the caller's own), private
repositories' issues only for those who may read them, two indexings of one issue
racing, and the words an issue is listed under."""
from __future__ import annotations

import itertools
import json

import pytest

from chalicelib import issues, repos, search
from chalicelib.search import issue_index_store, issue_indexing, issue_search, issue_terms
from chalicelib.search.models import IssueEntry
from chalicelib.store.table import Item
from tests import memory_scene as scene
from tests.conftest import search_kept_current

TEXTS = ("Crash in parser", "parser docs", "Build fails on ARM", "arm64 crash report",
         "Typo", "flaky test in parser", "Crash again", "release notes")


@pytest.fixture
def world(memory):
    """alice's public ``open`` and private ``secret``, the limited user lim's public
    ``limproj``; issues by alice and bob in each, some closed, one mentioning carol, and
    a comment adding words; the index kept current as each commit lands."""
    with search_kept_current():
        yield make_world()


def make_world() -> dict:
    people = {name: scene.user(name) for name in ("alice", "bob", "carol")}
    lim = scene.user("lim", visibility="limited")
    people["lim"] = lim
    made = {"open": scene.repo(people["alice"], "open").repo,
            "secret": scene.repo(people["alice"], "secret", private=True).repo,
            "limproj": scene.repo(lim, "limproj").repo}
    trackers = {}
    for name, repo in made.items():
        tracker = scene.Tracker()
        tracker.people = {**people}
        tracker.repo_id = int(repo.id)
        trackers[name] = tracker
    owners = {"open": "alice", "secret": "alice", "limproj": "lim"}
    for n, (text, name) in enumerate(zip(TEXTS * 2, itertools.cycle(made))):
        who = owners[name]
        body = f"seen by @carol in {text.lower()}" if n == 3 else f"details {n}"
        issue = trackers[name].open(who, f"{text} {n}", body)
        if n % 3 == 2:
            ctx = trackers[name].ctx(who)
            issues.edit_issue(ctx, int(issue.number), issues.EditIssueOption(state="closed"))
    trackers["open"].comment("alice", 1, "bisected to the scheduler")
    return {"people": {k: scene.fresh(v) for k, v in people.items()},
            "root": scene.user("root", admin=True), "repos": made}


def every_issue(world) -> list[tuple[str, object, set[str]]]:
    """Every issue with the words of its title, body and comments (read once)."""
    if "every" not in world:
        world["every"] = []
        for name, repo in world["repos"].items():
            for issue in issues.query_all_issues(int(repo.id), "oc", "ip"):
                comments = issues.comments_of_issue(int(issue.repo_id), int(issue.number))
                listed = set(issue_terms.words(str(issue.number), issue.title, issue.body,
                                               *(c.body for c in comments)))
                world["every"].append((name, issue, listed))
    return world["every"]


def full_filter(world, caller, query: issue_search.IssueSearch) -> list[str]:
    """What a search must answer: every issue the caller may read, filtered in Python."""
    readable = {int(v.repo.id) for v in repos.list_visible(
        caller, list(world["repos"].values()))}
    words = issue_terms.keyword_words(query.keyword)
    kept = []
    for name, issue, listed in every_issue(world):
        if int(issue.repo_id) not in readable:
            continue
        if not all(w in listed for w in words):
            continue
        if query.state != "all" and issue.state != query.state:
            continue
        if "created" in query.mine and int(issue.poster_id) != int(caller.user.id):
            continue
        if "mentioned" in query.mine and f"@{caller.user.login}" not in issue.body:
            continue
        kept.append((int(issue.created), int(issue.id), f"{name}#{issue.title}"))
    return [title for *_, title in sorted(kept, reverse=True)]


def found(world, caller, query: issue_search.IssueSearch, limit: int = 50) -> list[str]:
    names = {int(r.id): n for n, r in world["repos"].items()}
    page, _ = issue_search.search_issues(caller, query, 0, limit)
    return [f"{names[int(ctx.repo_id)]}#{issue.title}" for ctx, issue in page]


KEYWORDS = ("", "crash", "CRASH", "parser", "crash parser", "arm", "arm64", "scheduler",
            "pars", "nothing", "5", "docs")


def test_results_equal_a_full_filter(world):
    people = world["people"]
    callers = {"anonymous": scene.caller(None), "alice": scene.caller(people["alice"]),
               "carol": scene.caller(people["carol"]), "root": scene.caller(world["root"]),
               "alice public-only": scene.caller(people["alice"], public_only=True)}
    for state, (who, caller), keyword in itertools.product(("open", "closed", "all"),
                                                           callers.items(), KEYWORDS):
        query = issue_search.IssueSearch(state=state, keyword=keyword)
        expected = full_filter(world, caller, query)
        if who in ("anonymous", "alice public-only"):
            expected = [t for t in expected if not t.startswith(("secret#", "limproj#"))]
        assert found(world, caller, query) == expected, (who, keyword)


def test_the_callers_own_and_paging(world):
    carol = scene.caller(world["people"]["carol"])
    alice = scene.caller(world["people"]["alice"])
    query = issue_search.IssueSearch(state="all", mine=("mentioned",))
    assert found(world, carol, query) == full_filter(world, carol, query) != []
    query = issue_search.IssueSearch(state="all", mine=("created",))
    assert found(world, alice, query) == full_filter(world, alice, query)
    every = found(world, alice, issue_search.IssueSearch(state="all"))
    pages = [issue_search.search_issues(alice, issue_search.IssueSearch(state="all"),
                                        offset, 3) for offset in range(0, len(every), 3)]
    names = {int(r.id): n for n, r in world["repos"].items()}
    assert [f"{names[int(c.repo_id)]}#{i.title}" for page, _ in pages for c, i in page] == every
    assert pages[0][1] == 4          # the page's end and one more: another page follows


def test_private_issues_leave_with_the_repository_visibility(world):
    alice = world["people"]["alice"]
    anonymous = scene.caller(None)
    query = issue_search.IssueSearch(state="all", keyword="crash")
    before = found(world, anonymous, query)
    assert before and not any(t.startswith("secret#") for t in before)
    view = repos.find_repo(scene.caller(alice), "alice", "open")
    from chalicelib import repo_admin
    from chalicelib.repo_admin import service as repo_service
    repo_service.edit_repo(scene.caller(alice), view, repo_admin.EditRepoOption(private=True))
    entries = [e for e in Item.query("SRCHI#word#crash") if isinstance(e, IssueEntry)
               and int(e.repo_id) == int(world["repos"]["open"].id)]
    assert entries and {e.vis for e in entries} == {"hid"}
    assert not any(t.startswith("open#") for t in found(world, anonymous, query))


def test_two_indexings_of_one_issue_race_to_the_current_state(world, monkeypatch):
    """The first indexing reads the issue, then another edits it and indexes it; the
    first's document write is refused and it reads again: no entry of the old title is
    left behind."""
    repo = world["repos"]["open"]
    alice = scene.caller(world["people"]["alice"])
    ctx = issues.issue_context(alice, repos.find_repo(alice, "alice", "open"))
    real = issue_indexing.issue_facts
    calls = {"n": 0}

    def interleaved(issue, repo_, owner):
        calls["n"] += 1
        facts = real(issue, repo_, owner)
        if calls["n"] == 1:
            issues.edit_issue(ctx, 1, issues.EditIssueOption(title="Renamed entirely"))
        return facts

    monkeypatch.setattr(issue_indexing, "issue_facts", interleaved)
    search.index_issue(int(repo.id), 1)
    assert calls["n"] >= 3          # stale attempt, the edit's own indexing, the retry
    doc = issue_index_store.doc_of(int(repo.id), int(issues.issue_item(int(repo.id), 1).id))
    listed = {pk for pk, _ in json.loads(doc.entries)}
    assert "SRCHI#word#renamed" in listed and "SRCHI#word#crash" not in listed
    assert not [e for e in Item.query("SRCHI#word#crash") if isinstance(e, IssueEntry)
                and int(e.repo_id) == int(repo.id) and int(e.number) == 1]


def test_words_an_issue_is_listed_under():
    assert issue_terms.words("Fix the Parser's crash_report", "v2 a #12") == [
        "fix", "the", "parser", "crash", "report", "v2", "12"]
    assert issue_terms.keyword_words("  Crash  parser crash a ") == ["parser", "crash"]
    assert issue_terms.mentioned_names("hi @Carol and a@b.c, `@x`") == {"carol"}
    assert len(issue_terms.words(" ".join(f"w{n}" for n in range(5000)))) == \
        issue_terms.MAX_WORDS
