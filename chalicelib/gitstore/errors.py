"""Errors of the git storage engine.

Each also derives from the matching service error (``chalicelib/errors.py``), so the API
layer maps them to a status code without knowing about git.  No dulwich here.
"""
from __future__ import annotations

from chalicelib.errors import BadInput, ConflictError, InvalidInput, ServiceError


class GitStoreError(Exception):
    """Base class of every error raised by chalicelib.gitstore."""


class InvalidName(GitStoreError, InvalidInput):
    """A pool id, repository id or ref name cannot be stored."""


class TooManyRefUpdates(GitStoreError, InvalidInput):
    """More ref changes than one DynamoDB transaction can carry."""

    def __init__(self, count: int, limit: int):
        super().__init__(f"{count} ref updates in one push; at most {limit} can be applied "
                         "atomically - push fewer refs at a time")
        self.count = count
        self.limit = limit


class RefUpdateFailed(GitStoreError, ConflictError):
    """A ref transaction was refused; ``refs`` names the refs at fault (may be empty)."""

    def __init__(self, message: str, refs: list[str]):
        super().__init__(message)
        self.refs = refs


class StaleRefs(RefUpdateFailed):
    """Some refs no longer hold the old value the caller expected: nothing was changed."""

    def __init__(self, refs: list[str]):
        super().__init__("stale old value for " + ", ".join(refs), refs)


class RefsBusy(RefUpdateFailed):
    """Concurrent transactions kept conflicting on the same refs; nothing was changed."""

    def __init__(self, refs: list[str]):
        super().__init__("refs are being updated concurrently, try again", refs)


class MissingObjects(GitStoreError, BadInput):
    """A pushed pack (or ref) refers to objects the repository does not have."""

    def __init__(self, shas: list[str]):
        shown = ", ".join(shas[:5]) + (" ..." if len(shas) > 5 else "")
        super().__init__(f"missing necessary objects: {shown}")
        self.shas = shas


class PackNotFound(GitStoreError, ServiceError):
    """A pack file that should exist in S3 does not."""


class PackListChanged(GitStoreError, ConflictError):
    """The live pack list changed under a compaction (another compaction ran)."""


class PackBeingDeleted(GitStoreError, ConflictError):
    """A pack with this content is being deleted by the sweeper; publish again later."""


class ProtocolError(GitStoreError, BadInput):
    """The client spoke the git protocol wrongly, or asked for an unknown service."""
