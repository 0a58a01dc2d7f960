"""Migration tasks in the table (``models.MigrationTask``).

| item | pk | sk | gsi1pk / gsi1sk |
|---|---|---|---|
| task | ``MIGRATION#<owner>/<name>`` (lower case) | ``MIGRATION`` | ``MIGRATIONS`` / ``<lease end, 12 digits>`` while queued or running |

Every change of a task is conditional on its ``version`` as read and bumps it: the
worker that holds the task writes its cursor in the same transaction as the records
the cursor counts, and a second worker (a redelivered event, the stale-task job) loses
the race instead of writing twice.  Labels in ``ConditionFailed``: ``"migration"``.
"""
from __future__ import annotations

import json

from chalicelib.migrations.models import MigrationTask, keys
from chalicelib.store import unit_of_work

TASK = "migration"
ACTIVE = ("queued", "running")


def task_key(owner_login: str, repo_name: str) -> tuple[str, str]:
    return keys.task(owner_login.lower(), repo_name.lower())


def get(owner_login: str, repo_name: str, *, consistent: bool = True) -> MigrationTask | None:
    return unit_of_work.get(MigrationTask, task_key(owner_login, repo_name),
                            consistent=consistent)


def loads(text: str | None) -> dict:
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def dumps(value) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _listed(task: MigrationTask) -> None:
    """In the stale-task list while queued or running, by its lease's end."""
    if task.status in ACTIVE:
        task.gsi1pk, task.gsi1sk = keys.QUEUE, f"{int(task.lease_until):012d}"
    else:
        task.gsi1pk = task.gsi1sk = None


def new_task(owner_login: str, repo_name: str, **values) -> MigrationTask:
    return MigrationTask(*task_key(owner_login, repo_name), repo_name=repo_name, **values)


def stage_create(task: MigrationTask, *, replacing: MigrationTask | None) -> None:
    """A new task; ``replacing``: the done task of a repository deleted since, whose
    name this migration takes again (conditional on it being unchanged)."""
    _listed(task)
    uow = unit_of_work.current()
    if replacing is None:
        uow.put(task, label=TASK, must_not_exist=True)
    else:
        uow.put(task, label=TASK, condition=MigrationTask.version == replacing.version)


def stage_change(task: MigrationTask, **fields) -> MigrationTask:
    """Rewrite the task with ``fields`` if nobody changed it since it was read (its
    version as held); the copy returned is the task as written."""
    read_version = int(task.version)
    changed = MigrationTask.from_raw_data(task.serialize())
    for name, value in fields.items():
        setattr(changed, name, value)
    changed.version = read_version + 1
    _listed(changed)
    unit_of_work.current().put(changed, label=TASK,
                               condition=MigrationTask.version == read_version)
    return changed


def stage_delete(task: MigrationTask) -> None:
    unit_of_work.current().delete(task, label=TASK,
                                  condition=MigrationTask.version == task.version)


def active(limit: int = 200) -> list[MigrationTask]:
    """Every queued or running task, whatever its lease."""
    found = MigrationTask.gsi1.query(keys.QUEUE, limit=limit)
    return [t for t in found if isinstance(t, MigrationTask)]


def stale(now: float, limit: int = 50) -> list[MigrationTask]:
    """Queued or running tasks whose lease ended before ``now`` (their worker died)."""
    found = MigrationTask.gsi1.query(keys.QUEUE, MigrationTask.gsi1sk < f"{int(now):012d}",
                                     limit=limit)
    return [t for t in found if isinstance(t, MigrationTask)]
