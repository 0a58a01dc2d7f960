"""One worker's turn on a project migration (``steps.py`` runs the turns): the task as
last written, the source, the turn's clock, how a source person becomes an author, and
the one way records are written with the task's cursor (``commit``)."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from chalicelib import accounts, clock
from chalicelib.errors import ConditionFailed
from chalicelib.migrations import store
from chalicelib.migrations.service import LEASE_SECONDS, steps_of
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.migrations.models import MigrationTask


class Stale(Exception):
    """Another worker holds the task now (the version moved): stop quietly."""


class Run:
    """One worker's turn on a task: the task as last written, the source, and the
    clock of the turn."""

    def __init__(self, task: MigrationTask, source, *, turn_seconds: float):
        self.task = task
        self.source = source
        self.deadline = time.monotonic() + turn_seconds
        self.doer = accounts.account_by_id(int(task.doer_id))
        self.owner = accounts.account_by_id(int(task.owner_id))
        self.cursor = store.loads(task.cursor)
        self.counts = store.loads(task.counts)
        self.state = store.loads(task.state)
        self._authors: dict[str, object] = {}
        # The repository record the finish step wrote in this turn (the request that
        # ran the turn answers with it), else None.
        self.finished_repo = None

    @property
    def repo_id(self) -> int:
        return int(self.task.repo_id)

    def out_of_time(self) -> bool:
        return time.monotonic() >= self.deadline

    def count(self, name: str, n: int = 1) -> None:
        self.counts[name] = int(self.counts.get(name, 0)) + n

    def highest(self, number: int) -> None:
        self.state["max_number"] = max(int(self.state.get("max_number", 0)), int(number))

    def advance(self, **fields) -> None:
        """Stage the task's new cursor, counts and state (and ``fields``) in the current
        unit of work, conditional on the version this worker holds."""
        values = dict(cursor=store.dumps(self.cursor), counts=store.dumps(self.counts),
                      state=store.dumps(self.state), updated=clock.seconds(),
                      lease_until=clock.seconds() + LEASE_SECONDS)
        values.update(fields)
        self.task = store.stage_change(self.task, **values)

    def next_step(self) -> None:
        """Stage the move to the step after the current one, its cursor empty."""
        steps = steps_of(self.task)
        position = steps.index(self.task.step) if self.task.step in steps else -1
        self.cursor = {}
        self.advance(step=steps[position + 1] if position + 1 < len(steps) else "finish")

    def author(self, person):
        """A source person as the importers name authors: matched by e-mail to a local
        user, else the migrating user with the source's login and id kept."""
        from chalicelib import issues

        key = f"{person.id}/{person.login}/{person.email}"
        if key not in self._authors:
            found = accounts.accounts_by_email([person.email]).get(person.email.lower()) \
                if person.email else None
            self._authors[key] = issues.ImportedAuthor(found) if found is not None else \
                issues.ImportedAuthor(self.doer, person.login or "ghost", int(person.id or 0))
        return self._authors[key]


def commit(run: Run, stage: Callable[[], None]) -> None:
    """``stage`` (the records and ``run.advance``) in one transaction; a lost race for
    the task's version means another worker has it (Stale)."""
    held = run.task
    try:
        with unit_of_work.writing():
            stage()
    except BaseException as exc:
        run.task = held         # not written: the task stays as this worker holds it
        if isinstance(exc, ConditionFailed) and exc.label == store.TASK:
            raise Stale() from None
        raise




def each_page(run: Run, read_page: Callable, one: Callable, fresh: dict) -> None:
    """The records of a paged list from the cursor (``page``, ``index``) on, ``one(run,
    record, position)`` each, until the turn runs out of time or the last page is done
    (then the next step); a finished page moves the cursor to the next, ``fresh``
    holding the rest of a new page's cursor.  At least one record per turn."""
    while True:
        page_no = int(run.cursor.get("page", 1))
        page = read_page(page_no)
        for position in range(int(run.cursor.get("index", 0)), len(page.items)):
            one(run, page.items[position], position)
            if run.out_of_time():
                return
        if page.last or not page.items:
            commit(run, run.next_step)
            return
        run.cursor = {"page": page_no + 1, "index": 0, **fresh}
        commit(run, run.advance)
        if run.out_of_time():
            return
