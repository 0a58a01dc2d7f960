"""The request bodies of the statuses domain, declared once: the edge checks them
(``ApiRequest.option``) and ``/swagger.v1.json`` publishes them (``http.options``)."""
from __future__ import annotations

from typing import ClassVar, Literal, Mapping

from chalicelib.http.options import UNSET, Option, UnsetType

# Forgejo's CommitStatusState, in its order.
State = Literal["pending", "success", "error", "failure", "warning", "skipped"]


class CreateStatusOption(Option):
    """repoCreateStatus.  Forgejo's description marks no field required; a status
    without a state is refused all the same."""
    max_lengths: ClassVar[Mapping[str, int]] = {"state": 16, "target_url": 2048, "description": 1024, "context": 255}
    single_line: ClassVar[frozenset[str]] = frozenset({"state", "context"})
    swagger_required = ()

    state: State
    target_url: str | None | UnsetType = UNSET
    description: str | None | UnsetType = UNSET
    context: str | None | UnsetType = UNSET
