"""The request bodies of the webhooks domain, declared once: the edge checks them
(``hook_option``) and ``/swagger.v1.json`` publishes them (``http.options``).

A hook's type and config are required, but an empty or null one reaches the rule,
which answers "Required"; the type's and the events' names are the rules' too (their
own messages, the events case-insensitive)."""
from __future__ import annotations

from typing import Any, ClassVar, Mapping, TypeVar

from chalicelib.errors import InvalidInput
from chalicelib.http.options import UNSET, Option, UnsetType, decode

# Text limits (``http.input_rules``), the same for a field and its config copy.
_HOOK = {"url": 2048, "content_type": 16, "secret": 255, "branch_filter": 1024,
         "authorization_header": 1024, "type": 32, "events": 64}
_ONE_LINE_HOOK = ("type", "events", "branch_filter", "authorization_header", "content_type")
HOOK_MAXIMA = dict(_HOOK, **{f"config.{k}": v for k, v in _HOOK.items()})
HOOK_ONE_LINE = frozenset((*_ONE_LINE_HOOK, *(f"config.{k}" for k in _ONE_LINE_HOOK)))


class CreateHookOption(Option):
    """repoCreateHook, orgCreateHook, adminCreateHook."""
    max_lengths: ClassVar[Mapping[str, int]] = HOOK_MAXIMA
    single_line: ClassVar[frozenset[str]] = HOOK_ONE_LINE

    type: str | None
    config: dict[str, str] | None
    events: list[str] | None | UnsetType = UNSET
    branch_filter: str | None | UnsetType = UNSET
    authorization_header: str | None | UnsetType = UNSET
    active: bool | None | UnsetType = UNSET


class EditHookOption(Option):
    """repoEditHook, orgEditHook, adminEditHook: the config's keys change when sent;
    events, branch filter and authorization header are rewritten whatever was sent (left
    out, they are reset); ``active`` changes when sent."""
    max_lengths: ClassVar[Mapping[str, int]] = HOOK_MAXIMA
    single_line: ClassVar[frozenset[str]] = HOOK_ONE_LINE

    config: dict[str, str] | None | UnsetType = UNSET
    events: list[str] | None | UnsetType = UNSET
    branch_filter: str | None | UnsetType = UNSET
    authorization_header: str | None | UnsetType = UNSET
    active: bool | None | UnsetType = UNSET


H = TypeVar("H", CreateHookOption, EditHookOption)


def hook_option(cls: type[H], body: dict[str, Any]) -> H:
    """A hook's body as ``cls``.  A config that is not an object of strings, and events
    that are not all strings, are refused naming the whole field, as the hooks' rules
    always said (not the element, as the decoder says: a config's value is labelled
    "[Config[.]]" there)."""
    try:
        return decode(cls, body)
    except InvalidInput as refused:
        if refused.message.startswith("[Config") and ": expected " in refused.message:
            raise InvalidInput("[Config]: expected an object of strings") from None
        if refused.message == "[Events]: expected a string":
            raise InvalidInput("[Events]: expected a list of strings") from None
        raise
