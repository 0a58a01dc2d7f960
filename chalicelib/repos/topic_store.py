"""Repository topics in the table.

| item | pk | sk | written |
|---|---|---|---|
| the repository's ``topics`` | ``REPO#<owner>/<name>`` | ``REPO`` | ADD/DELETE on the string set, or SET on condition it holds what was read |
| topic | ``TOPIC#<name>`` | ``TOPIC`` (gsi2 ``TOPICS`` / name) | ``repo_count`` ADD ±1; deleted on condition it is at most 1 |
| link | ``R#<repo id>`` | ``TOPIC#<name>`` | put with the topic, deleted with it |

Every change stages the three together, in the caller's unit of work (one transaction):
the repository's set, the link, and the topic's count.  The repository's condition
(``TOPICS``) makes each change count once: adding needs the topic absent and fewer than
``MAX_TOPICS`` (``size`` on the set), removing needs it present, replacing needs the set
exactly as read.  A topic whose count would reach 0 is deleted instead, on condition
that it is at most 1 (``COUNT``): a concurrent add of the same topic elsewhere fails
one of the two, which runs again on fresh reads.  The links are what the
repository-cleanup consumer counts down once the repository item is gone
(``stage_forget``), each on condition it is still there, so a redelivery counts nothing
twice.

``search`` reads gsi2 ``TOPICS`` in name order, at most ``SEARCH_PAGES`` DynamoDB
pages (see its docstring for what that bounds).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator

from pynamodb.expressions.condition import size

from chalicelib.repos.models import Repo, RepoTopic, Topic, keys
from chalicelib.store import pages, unit_of_work
from chalicelib.store.table import Item

if TYPE_CHECKING:
    from pynamodb.expressions.condition import Condition

MAX_TOPICS = 25
# Labels of staged writes whose condition can fail (``ConditionFailed.label``).
TOPICS = "topics"           # the repository's topics are not as read (or it is gone)
COUNT = "topic count"       # the topic's count is not the one the write expected
LINK = "topic link"         # the link is gone already (cleanup: counted down before)
# At most this many DynamoDB pages (1 MB each, some thousands of topics) per search.
SEARCH_PAGES = 2
# Matches counted past the page asked for, for X-Total-Count (as user and org lists).
COUNT_AHEAD = 1000


# Reads ----------------------------------------------------------------------------------

def topics_of(repo: Repo) -> list[str]:
    """The repository's topics, by name (as Forgejo lists them)."""
    return sorted(repo.topics or ())


def topics_by_name(names: Iterable[str]) -> dict[str, Topic]:
    """The topic items of ``names`` that exist, read consistently in one batch."""
    wanted = [keys.topic(name) for name in dict.fromkeys(names)]
    if not wanted:
        return {}
    return {item.name: item for item in Item.batch_get(wanted, consistent_read=True)
            if isinstance(item, Topic)}


def fresh_repo(repo: Repo) -> Repo | None:
    """The repository item as it is now (after a lost condition), None when it is gone
    or its name now belongs to another repository."""
    found = unit_of_work.get(Repo, (repo.pk, repo.sk), consistent=True)
    return found if found is not None and int(found.id) == int(repo.id) else None


def links_of(repo_id: int) -> list[RepoTopic]:
    return list(Item.query(keys.repo_partition(repo_id),
                           Item.sk.startswith(keys.REPO_TOPIC_PREFIX), consistent_read=True))


def search(keyword: str, offset: int, limit: int) -> tuple[list[Topic], int]:
    """One page of the topics whose name contains ``keyword`` (every topic when it is
    empty), and how many matches were seen.

    Those whose name starts with the keyword come first (one Query on the sort key,
    wherever they are in the index), then the others that contain it, filtered by
    DynamoDB (``contains``) from the index in name order: together at most
    ``SEARCH_PAGES`` pages of the index, whatever its size.  So a keyword found only
    inside names past the first pages (some thousands of topics) is not found there,
    and the order is by name, not by repository count as Forgejo's.  The count is
    exact when the matches end within what was read; otherwise one more than seen, so
    a client still gets a ``next`` link."""
    keyword = keyword.strip().lower()
    wanted = offset + limit + COUNT_AHEAD
    found: list[Topic] = []
    more = False
    if not keyword:
        more = _collect(found, wanted, None, None, SEARCH_PAGES)
    else:
        more = _collect(found, wanted, Item.gsi2sk.startswith(keyword), None, 1)
        if len(found) < wanted:
            more = _collect(found, wanted, None, Item.gsi2sk.contains(keyword)
                            & ~Item.gsi2sk.startswith(keyword), SEARCH_PAGES - 1) or more
    page, seen = pages.window(iter(found), offset, limit, ahead=COUNT_AHEAD)
    return page, seen + (1 if more else 0)


def _collect(found: list[Topic], wanted: int, key_condition: Condition | None,
             filter_condition: Condition | None, max_pages: int) -> bool:
    """Append what at most ``max_pages`` pages of the index hold; True when the index
    holds more than was read."""
    results = Item.gsi2.query(keys.ALL_TOPICS_GSI, key_condition,
                              filter_condition=filter_condition)
    for number, page in enumerate(_pages(results), start=1):
        found.extend(page)
        if len(found) >= wanted:
            del found[wanted:]
            return True
        if results.page_iter.last_evaluated_key is None:
            return False
        if number >= max_pages:
            return True
    return False


def _pages(results) -> Iterator[list[Topic]]:
    """A query's DynamoDB pages, each read only when the previous one was used."""
    for raw_page in results.page_iter:
        yield [item for item in (Item.from_raw_data(raw) for raw in raw_page.get("Items", ()))
               if isinstance(item, Topic)]


# Writes ---------------------------------------------------------------------------------

def _same_repo(repo: Repo) -> Condition:
    return Repo.id == int(repo.id)


def stage_add(repo: Repo, name: str, *, topic_id: int, now: int) -> None:
    """Add ``name`` to the repository's topics: on condition it is not there yet and
    the repository has fewer than ``MAX_TOPICS`` (``TOPICS``)."""
    room = Repo.topics.does_not_exist() | (~Repo.topics.contains(name)
                                           & (size(Repo.topics) < MAX_TOPICS))
    unit_of_work.current().update(Repo(repo.pk, repo.sk), [Repo.topics.add({name})],
                                  label=TOPICS, condition=_same_repo(repo) & room)
    _stage_linked(repo, name, topic_id=topic_id, now=now)


def stage_remove(repo: Repo, name: str, topic: Topic | None, *, now: int) -> None:
    """Remove ``name`` from the repository's topics, on condition it is there
    (``TOPICS``); ``topic``: its item as read (which way its count goes down)."""
    unit_of_work.current().update(Repo(repo.pk, repo.sk), [Repo.topics.delete({name})],
                                  label=TOPICS,
                                  condition=_same_repo(repo) & Repo.topics.contains(name))
    _stage_unlinked(int(repo.id), name, topic, now=now)


def stage_replace(repo: Repo, read: set[str], wanted: set[str], topics: dict[str, Topic],
                  new_ids: dict[str, int], *, now: int) -> None:
    """The repository's topics from ``read`` (as read) to ``wanted``, on condition they
    are still exactly ``read`` (``TOPICS``); ``topics``: the items of the topics that
    change, as read; ``new_ids``: an id for each added topic that has no item."""
    unchanged = _same_repo(repo)
    if read:
        unchanged &= size(Repo.topics) == len(read)
        for name in sorted(read):
            unchanged &= Repo.topics.contains(name)
    else:
        unchanged &= Repo.topics.does_not_exist()
    action = Repo.topics.set(set(wanted)) if wanted else Repo.topics.remove()
    unit_of_work.current().update(Repo(repo.pk, repo.sk), [action], label=TOPICS,
                                  condition=unchanged)
    for name in sorted(read - wanted):
        _stage_unlinked(int(repo.id), name, topics.get(name), now=now)
    for name in sorted(wanted - read):
        known = topics.get(name)
        _stage_linked(repo, name, topic_id=int(known.id) if known else new_ids[name], now=now)


def replace_size(read: set[str], wanted: set[str]) -> int:
    """How many items ``stage_replace`` stages (a transaction takes at most 100)."""
    return 1 + 2 * len(read ^ wanted)


def stage_forget(link: RepoTopic, topic: Topic | None, *, now: int) -> None:
    """A deleted repository's link, on condition it is still there (``LINK``), and its
    topic counted down."""
    unit_of_work.current().delete(link, label=LINK, condition=RepoTopic.pk.exists())
    _stage_count_down(link.name, topic, now=now)


def _stage_linked(repo: Repo, name: str, *, topic_id: int, now: int) -> None:
    uow = unit_of_work.current()
    uow.put(RepoTopic(*keys.repo_topic(int(repo.id), name), name=name), label=TOPICS)
    # An upsert: the first repository creates the topic (its id and creation time stay).
    uow.update(Topic(*keys.topic(name)), [
        Topic.kind.set(Topic), Topic.name.set(name), Topic.repo_count.add(1),
        Topic.id.set(Topic.id | topic_id), Topic.created.set(Topic.created | now),
        Topic.updated.set(now), Topic.gsi2pk.set(keys.ALL_TOPICS_GSI), Topic.gsi2sk.set(name),
    ], label=COUNT)


def _stage_unlinked(repo_id: int, name: str, topic: Topic | None, *, now: int) -> None:
    unit_of_work.current().delete(RepoTopic(*keys.repo_topic(repo_id, name)), label=TOPICS)
    _stage_count_down(name, topic, now=now)


def _stage_count_down(name: str, topic: Topic | None, *, now: int) -> None:
    """One repository fewer: the last one deletes the topic (on condition nobody added
    it meanwhile), others count down (on condition they are not the last)."""
    uow = unit_of_work.current()
    item = Topic(*keys.topic(name))
    if topic is None or int(topic.repo_count) <= 1:
        uow.delete(item, label=COUNT,
                   condition=Topic.pk.does_not_exist() | (Topic.repo_count <= 1))
    else:
        uow.update(item, [Topic.repo_count.add(-1), Topic.updated.set(now)], label=COUNT,
                   condition=Topic.repo_count > 1)
