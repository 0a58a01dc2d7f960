"""Domain errors, below every layer; the API layer maps each kind to a status code.

Keeping them HTTP-free lets services be used by the CLI and scheduled jobs too.
"""
from __future__ import annotations


class ServiceError(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class NotFoundError(ServiceError):
    """The thing does not exist, or the caller may not know that it does."""


class PermissionDenied(ServiceError):
    """The caller can see the thing but may not do this."""


class RefProtected(PermissionDenied):
    """A branch or tag protection rule refuses a ref change (Forgejo's pre-receive
    refusal); ``ref`` is the full ref name.  Each path says it in its own words: git
    push in Forgejo's message, the API with the status and text Forgejo answers there."""

    def __init__(self, message: str, ref: str = ""):
        super().__init__(message)
        self.ref = ref


class InvalidInput(ServiceError):
    """Input breaks a rule (422 in Forgejo's terms)."""


class BadInput(ServiceError):
    """Input is malformed in a way Forgejo answers 400 to."""


class AlreadyExists(ServiceError):
    """A unique name or key is taken (422 or 409 depending on the operation)."""


class ConflictError(ServiceError):
    """State changed under the caller (a lost compare-and-swap)."""


class NotAllowed(ServiceError):
    """The thing is in a state where this cannot be done (Forgejo's 405: merging a
    merged or unmergeable pull request)."""


class DependenciesLeft(NotAllowed):
    """An issue that still depends on open issues may not close (Forgejo answers the API
    412; the pages show it as they show a 405)."""


class ArchivedRepository(ServiceError):
    """The repository is archived: read-only (423)."""


class TooLarge(ServiceError):
    """The input is larger than allowed (413): an attachment over ``[attachment]
    MAX_SIZE``."""


class ConditionFailed(ConflictError):
    """A staged write's condition failed at commit (``label`` names it); nothing of that
    transaction was written.  ``exists`` is set when a must-not-exist put found its key
    taken.  Services turn the labels they expect into their own errors; one that escapes
    is a lost race, answered 409."""

    def __init__(self, label: str, *, exists: bool = False):
        super().__init__("the change conflicts with a concurrent change; try again")
        self.label = label
        self.exists = exists


class QuotaExceeded(ServiceError):
    """The owner is over a quota for what the caller is about to store (413, with the
    owner named as Forgejo names it)."""

    def __init__(self, user_id: int, username: str = ""):
        super().__init__("quota exceeded")
        self.user_id = int(user_id)
        self.username = username
