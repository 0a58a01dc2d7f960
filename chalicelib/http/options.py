"""Typed request bodies: one declaration per body, read twice.

Each request body is an ``Option`` subclass declared in its domain's ``options.py`` (a
``msgspec.Struct``: fields, types, which are required, enums as ``Literal``, formats as
``Meta(extra=…)``).  The gateway's ``ApiRequest.option()`` turns the parsed JSON into
that object once, at the edge, with Forgejo's 422 texts; the rules take the object and
never re-check a field's type.  ``swagger.py`` publishes the same declaration
(``definition``), so the description and the check cannot drift apart.

Absent and null differ: a field the client left out is ``UNSET`` (falsy), one it sent
as null is ``None``.  ``given(option, name)`` asks which; an edit applies only what
was given.

Limits (text lengths, single-line fields) are declared on the option too
(``max_lengths``, ``single_line``) and checked by ``input_rules`` on the raw body before
this conversion, so an oversized field is refused before anything reads it.
"""
from __future__ import annotations

import re
import typing
from typing import Annotated, Any, ClassVar, Mapping, TypeVar

import msgspec
from msgspec import UNSET, Meta, UnsetType

from chalicelib.errors import InvalidInput

__all__ = ["Option", "UNSET", "UnsetType", "Meta", "DateTime", "Email", "Int64", "given",
           "go_field", "decode", "option_type", "every_option", "definition", "given_fields"]

# Swagger's string and integer formats, carried on the declaration.
DateTime = Annotated[str, Meta(extra={"format": "date-time"})]
Email = Annotated[str, Meta(extra={"format": "email"})]
Int64 = Annotated[int, Meta(extra={"format": "int64"})]

_OPTIONS: dict[str, type["Option"]] = {}


class Option(msgspec.Struct, kw_only=True):
    """A request body.  Subclasses register under their class name, which is the
    Swagger definition's name (``CreateStatusOption``)."""

    # Forgejo publishes some fields as required that its handlers treat as optional
    # (and the other way round); the description follows Forgejo when this is set.
    swagger_required: ClassVar[tuple[str, ...] | None] = None

    # The 422 text a rule gave before the edge checked this body, where it differs from
    # the kernel's: {(field label, "type" | "enum" | "required"): text}, the label as in
    # the message ("Labels", "Files.ContentBase64").  Clients may match these texts.
    texts: ClassVar[dict[tuple[str, str], str]] = {}

    # False on a class that only gathers the fields several bodies share: it is not a
    # definition of its own (its subclasses are, unless they say otherwise).
    published: ClassVar[bool] = True

    # Fields the body takes that the Forgejo version this API describes does not
    # publish yet (a later Forgejo's): decoded and checked, left out of the definition.
    unpublished_fields: ClassVar[frozenset[str]] = frozenset()

    # The body's text limits, checked on the raw JSON before it is decoded
    # (``http.input_rules.check_body``): the longest text per field (lower-case JSON
    # names, "outer.inner" when nested; a list of strings limited per element), and
    # the fields that must hold one line (names, titles, refs, git identities).
    max_lengths: ClassVar[Mapping[str, int]] = {}
    single_line: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("published", True):
            _OPTIONS[cls.__name__] = cls


O = TypeVar("O", bound=Option)


def given(option: Option, name: str) -> bool:
    """Whether the client sent ``name`` (null counts as sent)."""
    return getattr(option, name) is not UNSET


def given_fields(option: Option) -> dict[str, Any]:
    """The fields the client sent, as plain values (what an edit applies)."""
    return {name: value for name in option.__struct_fields__
            if (value := getattr(option, name)) is not UNSET}


def go_field(name: str) -> str:
    """Forgejo names fields in 422 messages by their Go name: full_name -> FullName."""
    return "".join(part.capitalize() for part in name.split("_"))


def option_type(name: str) -> type[Option] | None:
    return _OPTIONS.get(name)


def every_option() -> dict[str, type[Option]]:
    """The declared options, by definition name (those of every imported domain)."""
    return dict(_OPTIONS)


# msgspec's validation texts -> Forgejo's: "[FullName]: expected a string".
_EXPECTED = re.compile(r"^Expected `(?P<kind>[^`]+)`, got `[^`]+`(?: - at `\$\.(?P<path>[^`]*)`)?$")
_MISSING = re.compile(r"^Object missing required field `(?P<field>[^`]+)`(?: - at `\$\.(?P<path>[^`]*)`)?$")
_ENUM = re.compile(r"^Invalid enum value (?P<value>.+?)(?: - at `\$\.(?P<path>[^`]*)`)?$")
_KIND = {"str": "a string", "int": "an integer", "bool": "true or false", "array": "a list",
         "object": "an object", "float": "a number"}


def _names(path: str | None) -> list[str]:
    """The field names along a path, without list indices or map keys (msgspec writes
    ``[0]`` and ``[...]``): ``files[0].path`` -> ``["files", "path"]``."""
    return [part for part in re.split(r"\[[^\]]*\]\.?|\.", path or "") if part]


def _label(names: list[str]) -> str:
    """Forgejo's name for a (nested) field: ``[Files.Path]``."""
    return ".".join(go_field(name) for name in names)


def _message(cls: type[Option], text: str) -> str:
    if found := _MISSING.match(text):
        label = _label(_names(found["path"]) + [found["field"]])
        return cls.texts.get((label, "required"), f"[{label}]: Required")
    if found := _ENUM.match(text):
        names = _names(found["path"])
        allowed = ", ".join(map(str, _literal_values(cls, names)))
        return cls.texts.get((_label(names), "enum"), f"[{_label(names)}]: must be one of {allowed}")
    if found := _EXPECTED.match(text):
        if not found["path"]:
            return "[]: the request body must be a JSON object"
        kinds = [k.strip() for k in found["kind"].split("|") if k.strip() != "null"]
        label = _label(_names(found["path"]))
        return cls.texts.get((label, "type"), f"[{label}]: expected {_KIND.get(kinds[0], kinds[0])}")
    return f"[]: {text}"


def _literal_values(cls: type, names: list[str]) -> tuple:
    """The allowed values of the ``Literal`` field at ``names`` (nested options
    followed through lists and unions), in their declared order."""
    hint: Any = cls
    for name in names:
        owner = _struct_in(hint)
        if owner is None:
            return ()
        hint = typing.get_type_hints(owner).get(name)
    stack = [hint]
    while stack:
        kind = stack.pop()
        if typing.get_origin(kind) is typing.Literal:
            return typing.get_args(kind)
        stack.extend(typing.get_args(kind))
    return ()


def _struct_in(hint: Any) -> type | None:
    """The Struct class a type hint holds, through ``list[...]``, unions, Annotated."""
    stack = [hint]
    while stack:
        kind = stack.pop()
        if isinstance(kind, type) and issubclass(kind, msgspec.Struct):
            return kind
        stack.extend(typing.get_args(kind))
    return None


def decode(cls: type[O], data: Any, *, from_form: bool = False) -> O:
    """``data`` (a parsed JSON object, or a form's strings) as ``cls``; a 422 in
    Forgejo's words when a field has the wrong type, an unknown enum value, or a
    required field is missing.  Unknown fields are ignored, as Forgejo's binding does.

    A missing required field is reported before any wrongly typed one (msgspec would
    report the first bad field in body order), as the rules did before the edge checked
    bodies: ``{"body": 5}`` on an issue is "[Title]: Required"."""
    if isinstance(data, dict):
        for field in msgspec.structs.fields(cls):
            if field.required and field.encode_name not in data:
                label = go_field(field.encode_name)
                raise InvalidInput(cls.texts.get((label, "required"), f"[{label}]: Required"))
    try:
        return msgspec.convert(data, cls, strict=not from_form)
    except msgspec.ValidationError as exc:
        raise InvalidInput(_message(cls, str(exc))) from None


def definition(cls: type[Option]) -> tuple[list[str], dict[str, dict]]:
    """The Swagger definition of ``cls``: (required fields, field schemas)."""
    import msgspec.inspect as inspect
    info = inspect.type_info(cls)
    fields = {f.encode_name: _schema(f.type) for f in info.fields
              if f.encode_name not in cls.unpublished_fields}
    for f in info.fields:   # enums in their declared order (inspect sorts them)
        if "enum" in fields.get(f.encode_name, ()) and \
                (declared := _literal_values(cls, [f.name])):
            fields[f.encode_name]["enum"] = list(declared)
    required = list(cls.swagger_required) if cls.swagger_required is not None \
        else [f.encode_name for f in info.fields if f.required and f.encode_name in fields]
    return required, fields


def _schema(kind) -> dict:
    import msgspec.inspect as inspect
    members = [k for k in _flatten_keep_meta(kind)
               if not isinstance(k, inspect.NoneType)]
    extra: dict = {}
    if len(members) == 1 and isinstance(members[0], inspect.Metadata):
        extra = dict(members[0].extra or {})
        members = [members[0].type]
    base = members[0] if members else inspect.AnyType()
    if isinstance(base, inspect.StrType):
        out = {"type": "string"}
    elif isinstance(base, inspect.BoolType):
        out = {"type": "boolean"}
    elif isinstance(base, inspect.IntType):
        out = {"type": "integer"}
    elif isinstance(base, inspect.FloatType):
        out = {"type": "number"}
    elif isinstance(base, inspect.LiteralType):
        out = {"type": "string", "enum": list(base.values)}
    elif isinstance(base, (inspect.ListType, inspect.SetType, inspect.FrozenSetType,
                           inspect.VarTupleType)):
        out = {"type": "array", "items": _schema(base.item_type)}
    elif isinstance(base, inspect.DictType):
        out = {"type": "object"}
        if not isinstance(base.value_type, inspect.AnyType):
            out["additionalProperties"] = _schema(base.value_type)
    elif isinstance(base, inspect.StructType):
        out = {"$ref": f"#/definitions/{base.cls.__name__}"}
    else:
        out = {"type": "object"}
    out.update(extra)
    return out


def _flatten_keep_meta(kind) -> list:
    import msgspec.inspect as inspect
    if isinstance(kind, inspect.UnionType):
        return [t for member in kind.types for t in _flatten_keep_meta(member)]
    return [kind]
