"""Parsed expressions bound to one request's names and values, as Python closures.

``Binder`` resolves ``#names`` and ``:values`` once per request (and checks that each
one supplied is used, as DynamoDB does); ``condition`` turns a condition tree into a
function of an item, evaluated once per item a Query or Scan reads.  Items are dicts
of attribute name to wire-form value (``values.py``); a path is a tuple of attribute
names (str) and list indexes (int).

DynamoDB's rules for a condition: comparing with a missing attribute is false, except
``<>``, which is true (a missing value equals nothing); ``<``, ``<=``, ``>``, ``>=``
and BETWEEN hold only between two strings, two numbers or two binaries.
"""
from __future__ import annotations

from typing import Callable

from tests.twin import expressions, values
from tests.twin.errors import ServiceError, validation

TYPE_NAMES = frozenset(values.TYPES)
HUMAN = {"S": "STRING", "N": "NUMBER", "B": "BINARY", "BOOL": "BOOLEAN", "NULL": "NULL",
         "L": "LIST", "M": "MAP", "SS": "STRING SET", "NS": "NUMBER SET", "BS": "BINARY SET"}
Condition = Callable[[dict], bool]
Operand = Callable[[dict], "dict | None"]


def get_path(item: dict, path: tuple):
    value = item.get(path[0])
    for element in path[1:]:
        if value is None:
            return None
        if type(element) is int:
            inner = value.get("L")
            value = inner[element] if inner is not None and element < len(inner) else None
        else:
            inner = value.get("M")
            value = inner.get(element) if inner is not None else None
    return value


def show(path: tuple) -> str:
    """A path as DynamoDB's messages list it: ``[a, b, [2]]``."""
    return "[" + ", ".join(f"[{e}]" if type(e) is int else e for e in path) + "]"


class Binder:
    """One request's ExpressionAttributeNames and ExpressionAttributeValues."""

    def __init__(self, names: dict | None, supplied: dict | None):
        if names is not None and not names:
            raise validation("ExpressionAttributeNames must not be empty")
        if supplied is not None and not supplied:
            raise validation("ExpressionAttributeValues must not be empty")
        self.names = names or {}
        self.values = {}
        for key, value in (supplied or {}).items():
            try:
                self.values[key] = values.canonical(value)
            except ServiceError as exc:
                raise validation(f"ExpressionAttributeValues contains invalid value: "
                                 f"{exc.message} for key {key}") from None
        self.used_names: set[str] = set()
        self.used_values: set[str] = set()

    def parse(self, kind: str, text: str | None):
        return None if text is None else expressions.parse(kind, text)

    def path(self, node: tuple, kind: str) -> tuple:
        resolved = []
        for element in node[1]:
            tag, data = element
            if tag == "name":
                if data not in self.names:
                    raise validation(f"Invalid {kind}: An expression attribute name used in "
                                     f"the document path is not defined; attribute name: {data}")
                self.used_names.add(data)
                resolved.append(self.names[data])
            else:
                resolved.append(data)
        return tuple(resolved)

    def value(self, token: str, kind: str) -> dict:
        if token not in self.values:
            raise validation(f"Invalid {kind}: An expression attribute value used in "
                             f"expression is not defined; attribute value: {token}")
        self.used_values.add(token)
        return self.values[token]

    def finish(self) -> None:
        """Every supplied name and value must have been used (DynamoDB refuses extras)."""
        unused = sorted(set(self.names) - self.used_names)
        if unused:
            raise validation("Value provided in ExpressionAttributeNames unused in "
                             f"expressions: keys: {{{', '.join(unused)}}}")
        unused = sorted(set(self.values) - self.used_values)
        if unused:
            raise validation("Value provided in ExpressionAttributeValues unused in "
                             f"expressions: keys: {{{', '.join(unused)}}}")


def _size(value):
    if value is None:
        return None
    (k, v), = value.items()
    if k == "S":
        return {"N": str(len(v.encode("utf-8")))}
    if k == "B":
        return {"N": str(values.value_size(value))}
    if k in ("L", "M") or k in values.SETS:
        return {"N": str(len(v))}
    return None


def operand(node: tuple, b: Binder, kind: str) -> Operand:
    tag = node[0]
    if tag == "path":
        path = b.path(node, kind)
        if len(path) == 1:
            name = path[0]
            return lambda item: item.get(name)
        return lambda item: get_path(item, path)
    if tag == "value":
        constant = b.value(node[1], kind)
        return lambda item: constant
    if tag == "call" and node[1] == "size":
        inner = operand(node[2][0], b, kind)
        return lambda item: _size(inner(item))
    raise validation(f"Invalid {kind}: unsupported operand")


def _constant(node: tuple, b: Binder, kind: str):
    return b.value(node[1], kind) if node[0] == "value" else None


def _operand_type_error(kind: str, function: str, value: dict):
    raise validation(f"Invalid {kind}: Incorrect operand type for operator or function; "
                     f"operator or function: {function}, operand type: {values.kind(value)}")


def _ordered_pair(a, b):
    x, y = values.ordered(a), values.ordered(b)
    if x is None or y is None or x[0] != y[0]:
        return None
    return x[1], y[1]


_COMPARE = {
    "<": lambda x, y: x < y, "<=": lambda x, y: x <= y,
    ">": lambda x, y: x > y, ">=": lambda x, y: x >= y,
}


def condition(node: tuple, b: Binder, kind: str) -> Condition:
    tag = node[0]
    if tag == "and":
        left, right = condition(node[1], b, kind), condition(node[2], b, kind)
        return lambda item: left(item) and right(item)
    if tag == "or":
        left, right = condition(node[1], b, kind), condition(node[2], b, kind)
        return lambda item: left(item) or right(item)
    if tag == "not":
        inner = condition(node[1], b, kind)
        return lambda item: not inner(item)
    if tag == "cmp":
        return _comparison(node, b, kind)
    if tag == "between":
        x, low, high = (operand(n, b, kind) for n in node[1:])
        bounds = [_constant(n, b, kind) for n in node[2:]]
        if all(bounds):
            pair = _ordered_pair(*bounds)
            if pair and pair[0] > pair[1]:
                raise validation(
                    f"Invalid {kind}: The BETWEEN operator requires upper bound to be greater "
                    f"than or equal to lower bound; lower bound operand: AttributeValue: "
                    f"{{{values.kind(bounds[0])}:{bounds[0][values.kind(bounds[0])]}}}, upper "
                    f"bound operand: AttributeValue: {{{values.kind(bounds[1])}:"
                    f"{bounds[1][values.kind(bounds[1])]}}}")

        def between(item):
            value = values.ordered(x(item))
            lo, hi = values.ordered(low(item)), values.ordered(high(item))
            if value is None or lo is None or hi is None or not value[0] == lo[0] == hi[0]:
                return False
            return lo[1] <= value[1] <= hi[1]
        return between
    if tag == "in":
        x = operand(node[1], b, kind)
        options = [operand(n, b, kind) for n in node[2]]
        return lambda item: any(values.equal(x(item), o(item)) for o in options)
    if tag == "call":
        return _function(node, b, kind)
    raise validation(f"Invalid {kind}: unsupported condition")


def _comparison(node: tuple, b: Binder, kind: str) -> Condition:
    op = node[1]
    left, right = operand(node[2], b, kind), operand(node[3], b, kind)
    if op == "=":
        return lambda item: values.equal(left(item), right(item))
    if op == "<>":
        return lambda item: not values.equal(left(item), right(item))
    for side in node[2:]:
        constant = _constant(side, b, kind)
        if constant is not None and values.ordered(constant) is None:
            _operand_type_error(kind, op, constant)
    test = _COMPARE[op]

    def compare(item):
        pair = _ordered_pair(left(item), right(item))
        return pair is not None and test(*pair)
    return compare


def _function(node: tuple, b: Binder, kind: str) -> Condition:
    name, args = node[1], node[2]
    if name in ("attribute_exists", "attribute_not_exists"):
        path = b.path(args[0], kind)
        if name == "attribute_exists":
            return lambda item: get_path(item, path) is not None
        return lambda item: get_path(item, path) is None
    if name == "attribute_type":
        target = operand(args[0], b, kind)
        wanted = _constant(args[1], b, kind)
        if wanted is None or values.kind(wanted) != "S" or wanted["S"] not in TYPE_NAMES:
            shown = wanted and next(iter(wanted.values()))
            raise validation(f"Invalid {kind}: Invalid attribute type name found; type: "
                             f"{shown}, valid types: {{ B; NULL; SS; BOOL; L; BS; N; NS; S; M }}")
        type_name = wanted["S"]
        return lambda item: (value := target(item)) is not None and type_name in value
    first, second = operand(args[0], b, kind), operand(args[1], b, kind)
    if name == "begins_with":
        for arg in args:
            constant = _constant(arg, b, kind)
            if constant is not None and values.kind(constant) not in ("S", "B"):
                _operand_type_error(kind, name, constant)

        def begins_with(item):
            whole, prefix = first(item), second(item)
            if whole is None or prefix is None:
                return False
            (k, v), = whole.items()
            if k not in ("S", "B") or k not in prefix:
                return False
            if k == "S":
                return v.startswith(prefix["S"])
            return values.ordered(whole)[1].startswith(values.ordered(prefix)[1])
        return begins_with
    if name == "contains":
        return lambda item: _contains(first(item), second(item))
    raise validation(f"Invalid {kind}: The function is not allowed in a condition "
                     f"expression; function: {name}")


def _contains(whole, part) -> bool:
    if whole is None or part is None:
        return False
    (k, v), = whole.items()
    (pk, pv), = part.items()
    if k == "S":
        return pk == "S" and pv in v
    if k == "B":
        return pk == "B" and values.ordered(part)[1] in values.ordered(whole)[1]
    if k in values.SETS:
        return pk == values.SETS[k] and pv in v
    if k == "L":
        return any(values.equal(e, part) for e in v)
    return False


def projection(paths: tuple, b: Binder, kind: str = "ProjectionExpression") -> tuple:
    """Resolved paths of a projection, refusing overlaps as DynamoDB does."""
    resolved = tuple(b.path(p, kind) for p in paths)
    check_overlaps(resolved, kind)
    return resolved


def check_overlaps(paths, kind: str) -> None:
    ordered_paths = sorted(paths, key=lambda p: [(type(e) is int, e) for e in p])
    for one, two in zip(ordered_paths, ordered_paths[1:]):
        if two[:len(one)] == one:
            raise validation(f"Invalid {kind}: Two document paths overlap with each other; must "
                             f"remove or rewrite one of these paths; path one: {show(one)}, "
                             f"path two: {show(two)}")


def project(item: dict, paths: tuple) -> dict:
    """The parts of ``item`` that ``paths`` name; list elements keep their order."""
    tree: dict = {}
    for path in paths:
        node = tree
        for element in path[:-1]:
            node = node.setdefault(element, {})
            if node is None:
                break
        else:
            node[path[-1]] = None
    out = {}
    for name, sub in tree.items():
        value = item.get(name)
        if value is not None:
            picked = value if sub is None else _pick(value, sub)
            if picked is not None:
                out[name] = picked
    return out


def _pick(value: dict, tree: dict):
    if "M" in value:
        inner = value["M"]
        picked = {}
        for name, sub in tree.items():
            if type(name) is str and name in inner:
                got = inner[name] if sub is None else _pick(inner[name], sub)
                if got is not None:
                    picked[name] = got
        return {"M": picked} if picked else None
    if "L" in value:
        inner = value["L"]
        picked_list = []
        for index in sorted(e for e in tree if type(e) is int):
            if index < len(inner):
                sub = tree[index]
                got = inner[index] if sub is None else _pick(inner[index], sub)
                if got is not None:
                    picked_list.append(got)
        return {"L": picked_list} if picked_list else None
    return None
