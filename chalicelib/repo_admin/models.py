"""The repo_admin domain's items in the table: its models (and key layouts).

Only this domain's modules import this module; other domains reach these items
through the domain's face (``chalicelib/repo_admin/__init__.py``).
"""
from __future__ import annotations

from pynamodb.attributes import BooleanAttribute, NumberAttribute, UnicodeAttribute

from chalicelib.store.keys import keys as shared_keys
from chalicelib.store.table import Item


class MirrorDue(Item, discriminator="mirrordue"):
    """A pull mirror's next sync time; the schedule is one small partition."""
    repo_pk = UnicodeAttribute(default="")
    due = NumberAttribute(default=0)


class MirrorLfsPending(Item, discriminator="mirrorlfspending"):
    objects = UnicodeAttribute(default="")


class PushMirror(Item, discriminator="pushmirror"):
    """A push mirror, in its repository's partition (``PUSHMIRROR#<remote name>``); the
    credentials are encrypted (``repo_admin/secrets.py``)."""
    remote_address = UnicodeAttribute(default="")     # without credentials
    credentials = UnicodeAttribute(default="")        # encrypted JSON, "" for none
    interval = NumberAttribute(default=0)             # seconds; 0: only on commit
    sync_on_commit = BooleanAttribute(default=False)
    branch_filter = UnicodeAttribute(default="")
    created = NumberAttribute(default=0)
    last_update = NumberAttribute(default=0)
    last_error = UnicodeAttribute(default="")
    due = NumberAttribute(default=0)                  # its schedule entry's time, 0: none


class PushMirrorDue(Item, discriminator="pushmirrordue"):
    """A push mirror's next scheduled sync: the sort key begins with the time, so the
    job reads only the due ones."""
    repo_pk = UnicodeAttribute(default="")


class RepoRedirect(Item, discriminator="reporedirect"):
    """An old name of a transferred or renamed repository under an owner, leading to it
    (Forgejo's ``repo_redirect``): keyed by the owner's id and the old lower name, so it
    still answers after the owner is renamed, and a request that found no repository
    there finds the redirect with one read."""
    repo_id = NumberAttribute()
    created = NumberAttribute(default=0)


class keys(shared_keys):
    """Key layouts of the repo_admin domain's items (docs/data-model.md)."""

    # By owner id; the first layout (``REPOREDIRECT#<owner name>/<name>``) is never read.
    @staticmethod
    def repo_redirect(owner_id: int, repo_lower: str) -> tuple[str, str]:
        return f"REPOREDIRECTS#{int(owner_id)}", f"NAME#{repo_lower}"

    MIRROR_SCHEDULE = "MIRRORS"

    @staticmethod
    def mirror_due(repo_id: int) -> tuple[str, str]:
        return "MIRRORS", f"{repo_id:015d}"

    PUSH_MIRROR_SCHEDULE = "PUSHMIRRORS"
    PUSH_MIRROR_PREFIX = "PUSHMIRROR#"

    @staticmethod
    def push_mirror(repo_id: int, remote_name: str) -> tuple[str, str]:
        return f"R#{int(repo_id)}", f"PUSHMIRROR#{remote_name}"

    @staticmethod
    def push_mirror_due(due: int, repo_id: int, remote_name: str) -> tuple[str, str]:
        return "PUSHMIRRORS", f"{int(due):012d}#{int(repo_id):015d}#{remote_name}"
