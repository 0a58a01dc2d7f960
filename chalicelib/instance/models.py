"""The instance domain's items in the table: its models (key layouts in ``cron_store``).

Only this domain's modules import this module; other packages reach these items through
the domain's face (``chalicelib/instance/__init__.py``).
"""
from __future__ import annotations

from pynamodb.attributes import NumberAttribute, UnicodeAttribute

from chalicelib.store.table import Item


class CronTaskItem(Item, discriminator="crontask"):
    """One cron task's runs: what adminCronList answers and the health check reads."""
    prev = NumberAttribute(null=True)          # start of the last run, scheduled or manual
    scheduled = NumberAttribute(null=True)     # start of the last run its schedule made
    first = NumberAttribute(null=True)         # start of the first run ever recorded
    exec_times = NumberAttribute(default=0)
    # The run in progress: its id and until when it holds the task (0: none runs).
    run_id = UnicodeAttribute(null=True)
    running_until = NumberAttribute(default=0)
    finished = NumberAttribute(null=True)      # end of the last run that ended
    outcome = UnicodeAttribute(null=True)      # finished | failed
    failure = UnicodeAttribute(null=True)      # the exception's type when it failed
