"""Repository topics (Forgejo's ``repo_topic``): list, replace, add, remove, and the
search across every repository's topics.

Forgejo's rules: a topic is lower-cased and trimmed, 1 to 35 characters matching
``^[a-z0-9][-.a-z0-9]*$``; a repository has at most 25.  Replacing drops empty and
repeated names and answers 422 listing the invalid ones (``invalidTopics``); adding
to a repository that has 25 is refused even when the topic is one of them; adding a
topic the repository has is no error; removing one it lacks is 404.  Readers of the
repository list its topics, its admins change them.

Each change is one transaction (``topic_store``) whose conditions make it count once;
a change whose conditions fail because another landed first runs again on fresh
reads, at most ``ATTEMPTS`` times (then 409).  Replacing 25 topics by 25 others would
stage 101 items: it commits the removals, then the additions, each on its own
condition (in between, the repository shows only the topics it keeps).
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable, Iterable

from chalicelib import clock, events
from chalicelib.errors import ConditionFailed, ConflictError, InvalidInput, NotFoundError, \
    PermissionDenied
from chalicelib.repos import topic_store as store
from chalicelib.store import ids, unit_of_work

if TYPE_CHECKING:
    from chalicelib.repos.models import Repo, Topic
    from chalicelib.repos.views import RepoView

MAX_TOPICS = store.MAX_TOPICS
MAX_LENGTH = 35
ATTEMPTS = 5
_PATTERN = re.compile(r"[a-z0-9][-.a-z0-9]*")


class InvalidTopics(InvalidInput):
    """422 in Forgejo's topics shape: ``{"invalidTopics": ..., "message": ...}``;
    ``invalid`` is a list (replacing), a name (adding, removing) or None (too many);
    ``listed``: whether the answer carries ``invalidTopics`` at all."""

    def __init__(self, message: str, invalid: list[str] | str | None = None, *,
                 listed: bool = True):
        super().__init__(message)
        self.invalid, self.listed = invalid, listed

    def body(self) -> dict:
        found: dict = {"invalidTopics": self.invalid} if self.listed else {}
        return {**found, "message": self.message}


def is_valid(name: str) -> bool:
    return len(name) <= MAX_LENGTH and _PATTERN.fullmatch(name) is not None


def normalized(name: str) -> str:
    return name.strip().lower()


def sanitized(names: Iterable[str]) -> tuple[list[str], list[str]]:
    """The valid topics (each once, in the order given) and the invalid ones, empty
    names dropped (Forgejo's SanitizeAndValidateTopics)."""
    valid: list[str] = []
    invalid: list[str] = []
    for raw in names:
        name = normalized(raw)
        if not name or name in valid:
            continue
        (valid if is_valid(name) else invalid).append(name)
    return valid, invalid


def _require_admin(view: RepoView) -> None:
    if not view.is_admin:
        raise PermissionDenied("user should be an owner or a collaborator with admin write "
                               "of a repository")


def _gone(repo: Repo) -> NotFoundError:
    return NotFoundError(f"repository does not exist [id: {repo.id}]")


def list_topics(view: RepoView) -> list[str]:
    """repoListTopics: the repository's topics by name (the item read for the request)."""
    return store.topics_of(view.repo)


def _changing(view: RepoView, change: Callable[[Repo], None], retry_on: tuple[str, ...]) -> None:
    """Run ``change`` on the repository as read, and again on a fresh read each time a
    concurrent change fails one of its conditions (``retry_on``), up to ``ATTEMPTS``."""
    repo = view.repo
    for _ in range(ATTEMPTS):
        try:
            change(repo)
            return
        except ConditionFailed as failed:
            if failed.label not in retry_on:
                raise
        repo = store.fresh_repo(repo)
        if repo is None:
            raise _gone(view.repo)
    raise ConflictError("the repository's topics changed concurrently; try again")


def add_topic(view: RepoView, raw_name: str) -> None:
    """repoAddTopic."""
    _require_admin(view)
    name = normalized(raw_name)
    if not is_valid(name):
        raise InvalidTopics("Topic name is invalid", name)

    def add(repo: Repo) -> None:
        have = set(repo.topics or ())
        if len(have) >= MAX_TOPICS:
            raise InvalidTopics("Exceeding maximum allowed topics per repo.", listed=False)
        if name not in have:
            with unit_of_work.writing():
                store.stage_add(repo, name, topic_id=ids.next_id("topic"), now=clock.seconds())
                _raise_changed(repo, have | {name})

    _changing(view, add, (store.TOPICS,))


def delete_topic(view: RepoView, raw_name: str) -> None:
    """repoDeleteTopic: 404 when the repository does not have the topic."""
    _require_admin(view)
    name = normalized(raw_name)
    if not is_valid(name):
        raise InvalidTopics("Topic name is invalid", name)

    def delete(repo: Repo) -> None:
        if name not in set(repo.topics or ()):
            raise NotFoundError(f"topic does not exist [name: {name}]")
        topic = store.topics_by_name([name]).get(name)
        with unit_of_work.writing():
            store.stage_remove(repo, name, topic, now=clock.seconds())
            _raise_changed(repo, set(repo.topics or ()) - {name})

    _changing(view, delete, (store.TOPICS, store.COUNT))


def replace_topics(view: RepoView, names: list[str] | None) -> None:
    """repoUpdateTopics: the repository's topics become exactly ``names``."""
    _require_admin(view)
    valid, invalid = sanitized(names or ())
    if len(valid) > MAX_TOPICS:
        raise InvalidTopics("Exceeding maximum number of topics per repo")
    if invalid:
        raise InvalidTopics("Topic names are invalid", invalid)
    wanted = set(valid)
    _changing(view, lambda repo: _replace(repo, set(repo.topics or ()), wanted),
              (store.TOPICS, store.COUNT))


def _replace(repo: Repo, read: set[str], wanted: set[str]) -> None:
    if read == wanted:
        return
    if store.replace_size(read, wanted) > unit_of_work.TRANSACTION_LIMIT:
        # Two transactions, each whole: the removals, then the additions.
        kept = read & wanted
        _commit_replace(repo, read, kept)
        _commit_replace(repo, kept, wanted)
        return
    _commit_replace(repo, read, wanted)


def _commit_replace(repo: Repo, read: set[str], wanted: set[str]) -> None:
    changing = read ^ wanted
    topics: dict[str, Topic] = store.topics_by_name(sorted(changing))
    new_ids = {name: ids.next_id("topic") for name in sorted(wanted - read)
               if name not in topics}
    with unit_of_work.writing():
        store.stage_replace(repo, read, wanted, topics, new_ids, now=clock.seconds())
        _raise_changed(repo, wanted)


def _raise_changed(repo: Repo, topics: set[str]) -> None:
    """With the change: what the search index lists the repository under follows."""
    unit_of_work.raise_event(events.RepositoryTopicsChanged(
        actor_id=None, repo_id=int(repo.id), repo=events.snapshot(repo),
        topics=tuple(sorted(topics))))


# The repository-cleanup consumer ----------------------------------------------------------

def forget_repo_topics(repo_id: int) -> int:
    """A deleted repository's topics counted down (each link once; idempotent); returns
    how many links this call removed.  Runs before its ``R#`` partition is purged."""
    removed = 0
    for link in store.links_of(int(repo_id)):
        for _ in range(ATTEMPTS):
            topic = store.topics_by_name([link.name]).get(link.name)
            try:
                with unit_of_work.writing():
                    store.stage_forget(link, topic, now=clock.seconds())
                removed += 1
                break
            except ConditionFailed as failed:
                if failed.label == store.LINK:
                    break           # a redelivery counted it down already
                if failed.label != store.COUNT:
                    raise
        else:
            raise ConflictError(f"topic {link.name!r} changed concurrently; try again")
    return removed


# Search ---------------------------------------------------------------------------------------

def search(keyword: str, offset: int, limit: int) -> tuple[list[Topic], int]:
    """topicSearch: one page of the topics whose name contains ``keyword``, and the
    (bounded) total; see ``topic_store.search`` for what it reads."""
    return store.search(keyword, offset, limit)
