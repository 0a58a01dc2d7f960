"""The repository index in the table: its entries (``models.RepoEntry``) in the sort
lists and gram lists, each repository's list of its entries, and the reads a search
page makes.

Writes: ``stage_index`` replaces a repository's entries as every index does
(``entry_store``: the document first, on condition of the version read).  Entries are keyed by values the index
decides (names, times), so they live outside the repository's partition.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from chalicelib.search import entry_store, terms
from chalicelib.search.models import RepoEntry, RepoIndexDoc, keys
from chalicelib.store import unit_of_work
from chalicelib.store.table import Item

DOC = "search index"       # label of the document's compare-and-swap
SORT_LIST_PREFIX = keys.sort_list("")


@dataclass(frozen=True)
class Facts:
    """What the index keeps of a repository (from the repository and its owner)."""
    repo_id: int
    repo_pk: str
    lname: str
    ldesc: str
    topics: tuple[str, ...]
    owner_id: int
    vis: str
    private: bool
    fork: bool
    mirror: bool
    template: bool
    archived: bool
    updated: int
    size: int


@dataclass(frozen=True)
class Filter:
    """What a search keeps, decided by DynamoDB's filter on each entry read."""
    keyword: str = ""
    in_description: bool = False
    topic_only: bool = False                # the keyword is a topic's whole name
    visibility: tuple[str, ...] | None = None      # None: every entry (site admins)
    # Entries outside ``visibility`` kept too (each checked by the read rule after):
    # those of these owners (the caller, their organizations), these repositories
    # (what they collaborate on).
    owners: tuple[int, ...] = ()
    repos: tuple[int, ...] = ()
    private: bool | None = None
    fork: bool | None = None
    mirror: bool | None = None
    template: bool | None = None
    archived: bool | None = None


def entries_for(facts: Facts) -> list[RepoEntry]:
    """The entries a repository has: one per sort list, two per gram of its name and
    its topics (one per gram order), one per topic."""
    ltopics = f"|{'|'.join(facts.topics)}|" if facts.topics else ""
    fields = dict(repo_id=facts.repo_id, repo_pk=facts.repo_pk, lname=facts.lname,
                  ltopics=ltopics,
                  owner_id=facts.owner_id, vis=facts.vis, private=facts.private,
                  fork=facts.fork, mirror=facts.mirror, template=facts.template,
                  archived=facts.archived, updated=facts.updated, size=facts.size)
    sort = dict(lname=facts.lname, repo_id=facts.repo_id, updated=facts.updated,
                size=facts.size)
    found = [RepoEntry(keys.sort_list(order), terms.sort_key(order, **sort), **fields,
                       ldesc=facts.ldesc)
             for order in terms.ORDERS]
    by_name = terms.sort_key("name", **sort)
    grams = set(terms.grams(facts.lname))
    for topic in facts.topics:
        grams |= terms.grams(topic)
    found += [RepoEntry(keys.gram_list(gram, order), terms.sort_key(order, **sort), **fields)
              for order in terms.GRAM_ORDERS for gram in sorted(grams)]
    found += [RepoEntry(keys.topic_list(topic), by_name, **fields) for topic in facts.topics]
    return found


def doc_of(repo_id: int) -> RepoIndexDoc | None:
    return unit_of_work.get(RepoIndexDoc, keys.doc(repo_id), consistent=True)


def stage_index(facts: Facts, doc: RepoIndexDoc | None) -> None:
    """The repository's entries as ``facts`` say, replacing what ``doc`` lists."""
    entry_store.stage_entries(RepoIndexDoc(*keys.doc(facts.repo_id)), doc, entries_for(facts),
                             RepoEntry, label=DOC, entry_label="search entry")


def stage_remove(repo_id: int, doc: RepoIndexDoc) -> None:
    """A deleted repository leaves the index."""
    entry_store.stage_removal(doc, RepoEntry, label=DOC, entry_label="search entry")


def _condition(wanted: Filter):
    """DynamoDB's filter for ``wanted`` (None when it keeps everything)."""
    parts = []
    if wanted.keyword and not wanted.topic_only:
        matches = RepoEntry.lname.contains(wanted.keyword) | \
            RepoEntry.ltopics.contains(wanted.keyword)
        if wanted.in_description:
            matches = matches | RepoEntry.ldesc.contains(wanted.keyword)
        parts.append(matches)
    if wanted.visibility is not None:
        parts.append(_findable(wanted))
    for name in ("private", "fork", "mirror", "template", "archived"):
        value = getattr(wanted, name)
        if value is not None:
            parts.append(getattr(RepoEntry, name) == value)
    condition = None
    for part in parts:
        condition = part if condition is None else condition & part
    return condition


def _findable(wanted: Filter):
    """Entries the visibility shows, or of the owners or repositories named (DynamoDB
    takes at most 100 values in one IN)."""
    visible = [RepoEntry.vis.is_in(*wanted.visibility)] if wanted.visibility else []
    owners, repos = list(wanted.owners), list(wanted.repos)
    visible += [RepoEntry.owner_id.is_in(*owners[i:i + 100]) for i in range(0, len(owners), 100)]
    visible += [RepoEntry.repo_id.is_in(*repos[i:i + 100]) for i in range(0, len(repos), 100)]
    if not visible:
        return RepoEntry.vis == "-"        # nothing
    condition = visible[0]
    for part in visible[1:]:
        condition = condition | part
    return condition


def list_for(keyword: str, order: str, *, in_description: bool,
             topic_only: bool = False) -> tuple[str, bool]:
    """The list a search reads and whether it is in the wanted order: a topic's list is
    in name order, a keyword's gram list in name or creation order (the wanted one, or
    name order read whole for the others); without one (or a one-letter keyword, or
    descriptions searched too) the sort list of the wanted order."""
    if topic_only and keyword:
        return keys.topic_list(keyword), order == "name"
    gram = terms.gram_for(keyword) if keyword and not in_description else None
    if gram is None:
        return keys.sort_list(order), True
    if order in terms.GRAM_ORDERS:
        return keys.gram_list(gram, order), True
    return keys.gram_list(gram), False


def read(list_pk: str, wanted: Filter, *, descending: bool = False,
         page_size: int | None = None) -> Iterator[RepoEntry]:
    """The entries of one list that ``wanted`` keeps, in the list's order (or reversed),
    read a DynamoDB page at a time (``page_size`` entries, or up to 1 MB, filtered
    there), as far as the caller iterates."""
    for item in Item.query(list_pk, filter_condition=_condition(wanted),
                           scan_index_forward=not descending, page_size=page_size):
        if isinstance(item, RepoEntry):
            yield item
