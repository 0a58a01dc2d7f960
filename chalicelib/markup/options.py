"""The request bodies of the markup domain, declared once: the edge checks them
(``markup_option``) and ``/swagger.v1.json`` publishes them (``http.options``).

The field names are Forgejo's Go names (its MarkdownOption and MarkupOption have no JSON
names), which Go's decoder matches in any case: ``text`` is ``Text``.  The mode stays a
text: an unknown one falls back to markdown (``/markdown``) or gets the rule's own
answer (``/markup``)."""
from __future__ import annotations

from typing import Any, ClassVar, Mapping, TypeVar

from chalicelib.http.options import UNSET, Option, UnsetType, decode, go_field


def _old_texts(texts: tuple[str, ...], flags: tuple[str, ...]) -> dict[tuple[str, str], str]:
    """The texts the rendering routes gave a wrong type, in Python's names ("expected a
    str", "expected a bool"), the field by its Go name ("[FilePath]")."""
    return {**{(go_field(name), "type"): f"[{name}]: expected a str" for name in texts},
            **{(go_field(name), "type"): f"[{name}]: expected a bool" for name in flags}}


class MarkdownOption(Option):
    """renderMarkdown (and the repository's ``/markdown``)."""
    max_lengths: ClassVar[Mapping[str, int]] = {"text": 1_048_576, "context": 1024, "mode": 16}
    single_line: ClassVar[frozenset[str]] = frozenset()

    texts = _old_texts(("Text", "Mode", "Context"), ("Wiki",))

    Text: str | None | UnsetType = UNSET
    Mode: str | None | UnsetType = UNSET
    Context: str | None | UnsetType = UNSET
    Wiki: bool | None | UnsetType = UNSET


class MarkupOption(Option):
    """renderMarkup (and the repository's ``/markup``)."""
    max_lengths: ClassVar[Mapping[str, int]] = {"text": 1_048_576, "context": 1024, "mode": 16, "filepath": 1024}
    single_line: ClassVar[frozenset[str]] = frozenset()

    texts = _old_texts(("Text", "Mode", "Context", "FilePath", "BranchPath"), ("Wiki",))

    Text: str | None | UnsetType = UNSET
    Mode: str | None | UnsetType = UNSET
    Context: str | None | UnsetType = UNSET
    Wiki: bool | None | UnsetType = UNSET
    FilePath: str | None | UnsetType = UNSET
    BranchPath: str | None | UnsetType = UNSET


M = TypeVar("M", MarkdownOption, MarkupOption)


def markup_option(cls: type[M], body: dict[str, Any]) -> M:
    """``body`` as ``cls``, its keys matched to the fields whatever their case (the
    last of two spellings of one field wins, as in Go)."""
    names = {name.lower(): name for name in cls.__struct_fields__}
    return decode(cls, {names.get(key.lower(), key): value for key, value in body.items()})
