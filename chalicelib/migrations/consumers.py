"""The internal consumer that runs a project migration's steps (``steps.run``): each
``MigrationStepDue`` is one turn of its task.  Registered by
``chalicelib/jobs/consumers.py`` as ``migration-steps``."""
from __future__ import annotations

from chalicelib import events as domain_events

EVENT_TYPES = (domain_events.MigrationStepDue,)


def wants_event(event: domain_events.Event) -> bool:
    return isinstance(event, domain_events.MigrationStepDue)


def on_event(event: domain_events.Event) -> None:
    from chalicelib.migrations import steps

    assert isinstance(event, domain_events.MigrationStepDue)
    steps.run(event.owner_login, event.repo_name, int(event.version))
