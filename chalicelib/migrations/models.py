"""The migrations domain's items in the table: its models (and key layouts).

Only this domain's modules import this module; other domains reach these items
through the domain's face (``chalicelib/migrations/__init__.py``).
"""
from __future__ import annotations

from pynamodb.attributes import BooleanAttribute, NumberAttribute, UnicodeAttribute

from chalicelib.store.table import Item


class MigrationTask(Item, discriminator="migrationtask"):
    """A project migration under way, failed or done, keyed by the repository's address
    (``MIGRATION#<owner>/<name>``, lower case): it holds the name while the repository
    record does not exist yet.  While queued or running it is listed (gsi1
    ``MIGRATIONS`` / its lease's end) for the job that picks up a dead worker's task."""
    repo_id = NumberAttribute()
    pool_id = NumberAttribute()
    owner_id = NumberAttribute()
    doer_id = NumberAttribute()
    repo_name = UnicodeAttribute()
    description = UnicodeAttribute(default="")
    private = BooleanAttribute(default=False)
    created = NumberAttribute()                  # the repository's creation time
    service = UnicodeAttribute()
    clone_addr = UnicodeAttribute()              # as checked, without credentials
    lfs_url = UnicodeAttribute(default="")
    wanted = UnicodeAttribute(default="[]")      # JSON: the parts asked for
    credentials = UnicodeAttribute(default="")   # encrypted (repo_admin secrets), "" for none
    status = UnicodeAttribute(default="queued")  # queued | running | failed | done
    step = UnicodeAttribute(default="")
    cursor = UnicodeAttribute(default="{}")      # JSON: where the step stands
    counts = UnicodeAttribute(default="{}")      # JSON: records brought so far
    state = UnicodeAttribute(default="{}")       # JSON: what the git step learnt
    error = UnicodeAttribute(default="")         # redacted
    attempts = NumberAttribute(default=0)
    started = NumberAttribute(default=0)
    updated = NumberAttribute(default=0)
    finished = NumberAttribute(default=0)
    lease_until = NumberAttribute(default=0)
    version = NumberAttribute(default=1)


class keys:
    QUEUE = "MIGRATIONS"

    @staticmethod
    def task(owner_lower: str, repo_lower: str) -> tuple[str, str]:
        return f"MIGRATION#{owner_lower}/{repo_lower}", "MIGRATION"
