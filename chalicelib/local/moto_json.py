"""moto's JSON response serializer for DynamoDB, with plans compiled once per shape.

moto 5.2.5 serializes every answer generically (``moto/core/serialize.py``): for each
member of each structure it asks six alias providers (``XFormedAttributePicker``) where
the value might be, so a Query answering 5,000 small items spent about 2 s there, once
per attribute of every item.

:class:`FastJSONSerializer` (``fast_serializer_class()``) writes the same JSON by a plan
compiled once per output shape, and takes a shortcut only where moto's alias lookup
provably finds each member under its own name: a plain ``dict`` whose keys are all
member names of a structure none of whose aliases (ShapeNameAlias, ShapePrefixAlias,
ClassPrefixAlias, ModelAlias, and their snake_case forms) is another member's name.
Anything else goes through moto's own code: objects, other mapping types, document
types, renamed list members or map values, timestamps, response transformers, pretty
printing, errors.  With ``NIMBUS_MOTO_VERIFY=1`` in the environment every answer is
also serialized by moto's code and a difference raises (the broad test suites can run
that way; tests/test_local_backend_speed.py does for one).

``chalicelib/local/moto_speed.py`` installs it for DynamoDB only.
"""
from __future__ import annotations

import functools
import json
import os
import threading
from enum import Enum
from typing import Any, Callable

# put(serializer, out, key, value): write ``value`` serialized under ``key`` into ``out``
# exactly as moto's ``serializer._serialize(out, value, shape, key)`` would.
Put = Callable[[Any, dict, Any, Any], None]


def verifying() -> bool:
    return os.environ.get("NIMBUS_MOTO_VERIFY", "") not in ("", "0")


def alias_providers_as_checked() -> bool:
    from moto.core import serialize as s

    return s.DEFAULT_ALIAS_PROVIDERS == [s.ExplicitAlias, s.ShapeNameAlias, s.NoAlias,
                                         s.ShapePrefixAlias, s.ClassPrefixAlias, s.ModelAlias]


@functools.cache
def fast_serializer_class():
    from moto.core.serialize import DEFAULT_ALIAS_PROVIDERS, JSONSerializer, XFormedAttributePicker

    class FastJSONSerializer(JSONSerializer):
        """moto's JSON serializer, with compiled plans for plain results (module doc)."""

        def _serialize_result(self, resp, result):
            picker = self._value_picker
            shape = self.operation_model.output_shape
            if (self.pretty_print or shape is None or type(result) is not dict
                    or type(picker) is not XFormedAttributePicker
                    or picker.response_transformers
                    or picker.alias_providers is not DEFAULT_ALIAS_PROVIDERS):
                return super()._serialize_result(resp, result)
            plan = _structure_plan(shape)
            if plan is None or not plan.members.issuperset(result):
                return super()._serialize_result(resp, result)
            serialized: dict = {}
            plan.fill(self, serialized, result)
            if verifying():
                _compare(self, result, serialized)
            return self._serialized_result_to_response(resp, result, shape, serialized)

    return FastJSONSerializer


def _compare(fast, result: dict, serialized: dict) -> None:
    from moto.core.serialize import JSONSerializer

    reference = JSONSerializer(fast.operation_model, pretty_print=False,
                               value_picker=fast._value_picker).serialize(result)["body"]
    mine = fast._serialize_body(serialized)
    if mine != reference:
        raise AssertionError(f"fast serializer differs from moto's for "
                             f"{fast.operation_model.name}: {mine[:300]!r} != {reference[:300]!r}")


def _shape_key(shape) -> tuple:
    """Shapes of one name behave alike unless the member reference changed their traits."""
    return (shape.name, shape.type_name, bool(shape.metadata.get("document")),
            json.dumps(shape.serialization, sort_keys=True, default=repr))


_plans: dict[tuple, Any] = {}
_plans_lock = threading.Lock()


def _put_of(shape) -> Put:
    key = _shape_key(shape)
    put = _plans.get(("put",) + key)
    if put is None:
        with _plans_lock:
            put = _compile(shape)
            _plans[("put",) + key] = put
    return put


def _generic(shape) -> Put:
    def put(ser, out, key, value):
        ser._serialize(out, value, shape, key)
    return put


def _compile(shape) -> Put:
    kind = shape.type_name
    name = shape.serialization.get("name")
    if kind == "structure":
        plan = _structure_plan(shape)
        return _generic(shape) if plan is None else plan.put(name)
    if kind == "list":
        return _list_put(shape, name)
    if kind == "map":
        return _map_put(shape, name)
    if kind == "timestamp":
        return _generic(shape)      # rare in DynamoDB answers; moto's own code is exact
    convert = _CONVERTERS.get(kind, _as_is)
    if convert is _string and name is None:
        def put_string(ser, out, key, value):
            out[key] = value if type(value) is str else _string(ser, value)
        return put_string

    def put(ser, out, key, value):
        out[key if name is None else name] = convert(ser, value)
    return put


def _as_is(ser, value):
    return value


def _string(ser, value):
    if type(value) is str:
        return value
    if isinstance(value, Enum):
        value = value.value
    return str(value) if value not in [None, {}, []] else value


_CONVERTERS: dict[str, Callable[[Any, Any], Any]] = {
    "string": _string,
    "integer": lambda ser, value: int(value),
    "long": lambda ser, value: int(value),
    "float": lambda ser, value: float(value),
    "double": lambda ser, value: float(value),
    "blob": lambda ser, value: ser._base64(value),
}


def _list_put(shape, name: str | None) -> Put:
    member = shape.member
    item_key = member.name
    if member.serialization.get("name", item_key) != item_key:
        return _generic(shape)      # moto then keeps the raw items: leave it to moto
    holder: list[Put] = []          # compiled on first use: shapes may be recursive

    def put(ser, out, key, value):
        if not holder:
            holder.append(_put_of(member))
        put_item = holder[0]
        items = []
        for item in value:
            wrapper: dict = {}
            put_item(ser, wrapper, item_key, item)
            items.append(wrapper[item_key] if item_key in wrapper else item)
        out[key if name is None else name] = items
    return put


def _map_put(shape, name: str | None) -> Put:
    value_shape = shape.value
    if "name" in value_shape.serialization:
        return _generic(shape)
    holder: list[Put] = []

    def put(ser, out, key, value):
        if not holder:
            holder.append(_put_of(value_shape))
        put_value = holder[0]
        serialized: dict = {}
        out[key if name is None else name] = serialized
        for sub_key, sub_value in value.items():
            put_value(ser, serialized, sub_key, sub_value)
    return put


class _StructurePlan:
    def __init__(self, shape):
        self.shape = shape
        self.members = frozenset(shape.members)
        self._puts: dict[str, Put] | None = None

    def _member_puts(self) -> dict[str, Put]:
        if self._puts is None:     # in member order, as moto writes them
            self._puts = {key: _put_of(member) for key, member in self.shape.members.items()}
        return self._puts

    def fill(self, ser, out: dict, value: dict) -> None:
        puts = self._member_puts()
        if len(value) == 1:        # an AttributeValue: one member, order is moot
            for key, member_value in value.items():
                if member_value is not None:
                    puts[key](ser, out, key, member_value)
            return
        for key, put in puts.items():
            member_value = value.get(key)
            if member_value is not None:
                put(ser, out, key, member_value)

    def put(self, name: str | None) -> Put:
        shape, members = self.shape, self.members

        def put(ser, out, key, value):
            # Only a non-empty key wraps the members (moto merges them into ``out``
            # otherwise); None, objects and foreign keys need moto's alias lookup.
            if not key or type(value) is not dict or not members.issuperset(value):
                ser._serialize(out, value, shape, key)
                return
            wrapper: dict = {}
            self.fill(ser, wrapper, value)
            out[key if name is None else name] = wrapper
        return put


def _structure_plan(shape) -> _StructurePlan | None:
    """A plan when, for a plain dict holding only member names, moto's alias lookup
    finds each member under its own name or not at all; else None.  (Document types
    are written as they are: moto's code does that.)"""
    key = ("plan",) + _shape_key(shape)
    if key in _plans:
        return _plans[key]
    plain = not shape.metadata.get("document") and _aliases_are_own_names(shape)
    plan = _StructurePlan(shape) if plain else None
    _plans[key] = plan
    return plan


def _aliases_are_own_names(shape) -> bool:
    from botocore import xform_name

    members = shape.members
    try:
        for key, member in members.items():
            for alias in _dict_aliases(shape, key, member):
                for candidate in (alias, xform_name(alias)):
                    if "." in candidate or (candidate != key and candidate in members):
                        return False
    except Exception:  # noqa: BLE001 - a shape this does not understand: moto's code
        return False
    return True


def _dict_aliases(parent, key: str, member) -> list[str]:
    """The names moto's ``XFormedAttributePicker`` tries for ``key`` on a plain dict, in
    order (moto/core/serialize.py: ExplicitAlias needs a ``Meta``, which a dict lacks)."""
    aliases = []
    if (member.type_name in ("list", "structure") and member.name not in parent.members
            and key != member.name):
        aliases.append(member.name)                                  # ShapeNameAlias
    aliases.append(key)                                              # NoAlias
    if key.lower().startswith(parent.name.lower()):
        short = key[len(parent.name):]
        if short not in parent.members:
            aliases.append(short)                                    # ShapePrefixAlias
    if key.lower().startswith("dict"):
        aliases.append(key[len("dict"):])                            # ClassPrefixAlias
    renamed = member.serialization.get("name", key)
    if renamed != key:
        aliases.append(renamed)                                      # ModelAlias
    return aliases
