"""Topics' rules, on the in-memory twin (the fast layer): Forgejo's names and limits, the
counts the topic index keeps (one per repository listing the topic, the topic gone with
its last one), the races the conditions settle, the search's pages, and a deleted
repository's topics counted down by the cleanup consumer."""
from __future__ import annotations

import pytest

from chalicelib import repos
from chalicelib.errors import NotFoundError, PermissionDenied
from chalicelib.repos import topic_store, topics
from chalicelib.repos.models import RepoTopic, Topic, keys
from chalicelib.store import unit_of_work
from chalicelib.store.table import Item
from tests import memory_scene as scene


def fresh(view):
    """The view with the repository as stored now."""
    return repos.view_of(topic_store.fresh_repo(view.repo), scene.caller(view.owner))


def counts() -> dict[str, int]:
    """Every topic item's count (the index, read whole: a test's handful)."""
    return {t.name: int(t.repo_count) for t in Item.gsi2.query(keys.ALL_TOPICS_GSI)
            if isinstance(t, Topic)}


def links(view) -> list[str]:
    return sorted(link.name for link in topic_store.links_of(int(view.repo.id)))


@pytest.fixture
def alice(memory):
    return scene.user("alice")


def test_names_are_trimmed_lower_cased_and_checked_as_forgejo_does():
    valid, invalid = topics.sanitized([" Go ", "go", "", "web-dev.2", "-dash", "a" * 36,
                                       "a" * 35, "ünï", "under_score"])
    assert valid == ["go", "web-dev.2", "a" * 35]
    assert invalid == ["-dash", "a" * 36, "ünï", "under_score"]


def test_replace_add_and_delete_keep_the_set_the_links_and_the_counts(alice):
    view = scene.repo(alice, "proj")
    topics.replace_topics(view, ["Python", "web", "python", ""])
    view = fresh(view)
    assert topics.list_topics(view) == ["python", "web"]
    assert links(view) == ["python", "web"] and counts() == {"python": 1, "web": 1}

    other = scene.repo(alice, "other")
    topics.add_topic(other, "python")
    topics.add_topic(fresh(other), "python")                 # again: nothing changes
    assert counts() == {"python": 2, "web": 1}

    topics.replace_topics(view, ["web", "api"])
    assert topics.list_topics(fresh(view)) == ["api", "web"]
    assert counts() == {"python": 1, "web": 1, "api": 1}

    topics.delete_topic(fresh(other), "PYTHON")
    assert counts() == {"web": 1, "api": 1}                 # its last repository: gone
    with pytest.raises(NotFoundError):
        topics.delete_topic(fresh(other), "python")
    topics.replace_topics(fresh(view), [])
    assert counts() == {} and links(view) == [] and fresh(view).repo.topics is None


def test_invalid_names_and_limits_answer_forgejo_s_shapes(alice):
    view = scene.repo(alice, "proj")
    with pytest.raises(topics.InvalidTopics) as refused:
        topics.replace_topics(view, ["ok", "Not OK", "-no"])
    assert refused.value.body() == {"invalidTopics": ["not ok", "-no"],
                                    "message": "Topic names are invalid"}
    with pytest.raises(topics.InvalidTopics) as refused:
        topics.replace_topics(view, [f"t{n}" for n in range(26)])
    assert refused.value.body() == {"invalidTopics": None,
                                    "message": "Exceeding maximum number of topics per repo"}
    with pytest.raises(topics.InvalidTopics) as refused:
        topics.add_topic(view, "no way")
    assert refused.value.body() == {"invalidTopics": "no way", "message": "Topic name is invalid"}
    assert counts() == {}                                    # nothing half-written

    topics.replace_topics(view, [f"t{n}" for n in range(25)])
    with pytest.raises(topics.InvalidTopics) as refused:
        topics.add_topic(fresh(view), "t0")                  # even one it has, as Forgejo
    assert refused.value.body() == {"message": "Exceeding maximum allowed topics per repo."}


def test_only_admins_change_topics(alice):
    bob = scene.user("bob")
    view = scene.repo(alice, "proj")
    as_bob = repos.view_of(view.repo, scene.caller(bob))
    assert topics.list_topics(as_bob) == []
    for change in (lambda: topics.add_topic(as_bob, "x"),
                   lambda: topics.replace_topics(as_bob, ["x"]),
                   lambda: topics.delete_topic(as_bob, "x")):
        with pytest.raises(PermissionDenied):
            change()


def test_two_adds_from_the_same_read_never_pass_the_limit(alice):
    """Both read 24 topics: without the size condition both would land (26)."""
    view = scene.repo(alice, "proj")
    topics.replace_topics(view, [f"t{n}" for n in range(24)])
    stale = fresh(view)
    topics.add_topic(stale, "first")
    with pytest.raises(topics.InvalidTopics):
        topics.add_topic(stale, "second")       # its condition fails, the fresh read says 25
    assert len(fresh(view).repo.topics) == 25
    assert "second" not in counts() and counts()["first"] == 1


def test_a_replace_racing_an_add_loses_no_count(alice, monkeypatch):
    """An add lands between the replace's read of the topic items and its commit: the
    replace's condition (the set as read) fails, it runs again on a fresh read, and
    every count still equals the repositories that list the topic."""
    view = scene.repo(alice, "proj")
    topics.replace_topics(view, ["a"])
    stale = fresh(view)
    read = topic_store.topics_by_name
    raced = []

    def read_then_add(names):
        found = read(names)
        if not raced:
            raced.append(True)
            topics.add_topic(stale, "b")        # after the read, before the replace commits
        return found

    monkeypatch.setattr(topic_store, "topics_by_name", read_then_add)
    topics.replace_topics(stale, ["a", "c"])
    assert topics.list_topics(fresh(view)) == ["a", "c"]
    assert counts() == {"a": 1, "c": 1} and links(view) == ["a", "c"]


def test_the_last_repository_leaving_races_a_new_one_joining(alice, monkeypatch):
    """The delete read the topic at count 1 and deletes it on that condition; another
    repository adds it meanwhile: the delete fails, reads again and counts down."""
    view, other = scene.repo(alice, "proj"), scene.repo(alice, "other")
    topics.add_topic(view, "shared")
    read = topic_store.topics_by_name
    raced = []

    def read_then_join(names):
        found = read(names)
        if not raced:
            raced.append(True)
            topics.add_topic(other, "shared")
        return found

    monkeypatch.setattr(topic_store, "topics_by_name", read_then_join)
    topics.delete_topic(fresh(view), "shared")
    assert counts() == {"shared": 1}
    assert topics.list_topics(fresh(other)) == ["shared"]


def test_replacing_25_topics_by_25_others_commits_in_two_transactions(alice):
    view = scene.repo(alice, "proj")
    topics.replace_topics(view, [f"old{n}" for n in range(25)])
    topics.replace_topics(fresh(view), [f"new{n}" for n in range(25)])
    assert topics.list_topics(fresh(view)) == sorted(f"new{n}" for n in range(25))
    assert counts() == {f"new{n}": 1 for n in range(25)}


def test_search_matches_inside_names_prefixes_first_and_pages(alice):
    view = scene.repo(alice, "proj")
    topics.replace_topics(view, ["golang", "django", "go", "rust", "cargo"])
    other = scene.repo(alice, "other")
    topics.add_topic(other, "go")
    page, total = topics.search("GO", 0, 10)
    assert [t.name for t in page] == ["go", "golang", "cargo", "django"] and total == 4
    assert [int(t.repo_count) for t in page] == [2, 1, 1, 1]
    page, total = topics.search("go", 1, 2)
    assert [t.name for t in page] == ["golang", "cargo"] and total == 4
    page, total = topics.search("", 0, 2)
    assert [t.name for t in page] == ["cargo", "django"] and total == 5
    assert topics.search("zzz", 0, 10) == ([], 0)


def test_search_reads_at_most_its_pages(alice, monkeypatch):
    """With pages of 2 evaluated topics (instead of 1 MB), a keyword found only past the
    second page is not found, and the total says there is more."""
    view = scene.repo(alice, "proj")
    topics.replace_topics(view, ["aa", "ab", "ac", "ad", "xz-b"])
    query = Item.gsi2.query
    monkeypatch.setattr(Item.gsi2, "query", lambda *a, **kw: query(*a, **kw, page_size=2))
    page, total = topics.search("z", 0, 10)
    assert page == [] and total == 1          # the prefix page, then one filtered page
    page, total = topics.search("a", 0, 10)
    assert [t.name for t in page][:2] == ["aa", "ab"] and total > 2


def test_a_deleted_repository_s_topics_are_counted_down_once(alice):
    view, other = scene.repo(alice, "proj"), scene.repo(alice, "other")
    topics.replace_topics(view, ["solo", "shared"])
    topics.add_topic(other, "shared")
    assert topics.forget_repo_topics(int(view.repo.id)) == 2
    assert counts() == {"shared": 1}
    assert topics.forget_repo_topics(int(view.repo.id)) == 0   # a redelivery: nothing
    assert counts() == {"shared": 1}


@pytest.mark.usefixtures("immediate_deletion")   # what deleting removes at once
def test_the_cleanup_consumer_counts_down_before_the_partition_goes(alice):
    from chalicelib import events
    from chalicelib.repo_admin.consumers import on_repository_deleted
    from chalicelib.repo_admin.service import delete_repo
    from tests.conftest import drain_outbox

    view, other = scene.repo(alice, "proj"), scene.repo(alice, "other")
    topics.replace_topics(view, ["solo", "shared"])
    topics.add_topic(other, "shared")
    drain_outbox()
    delete_repo(scene.caller(alice), fresh(view))
    deleted = [e for e in drain_outbox() if isinstance(e, events.RepositoryDeleted)]
    on_repository_deleted(deleted[0])
    on_repository_deleted(deleted[0])                            # redelivered: no harm
    assert counts() == {"shared": 1} and links(view) == []


def test_a_link_left_by_a_half_done_cleanup_is_found_again(alice):
    view = scene.repo(alice, "proj")
    topics.add_topic(view, "x")
    with unit_of_work.writing():
        unit_of_work.current().delete(Topic(*keys.topic("x")))   # lost (a drift)
    assert topics.forget_repo_topics(int(view.repo.id)) == 1
    assert counts() == {} and unit_of_work.get(
        RepoTopic, keys.repo_topic(int(view.repo.id), "x"), consistent=True) is None
