"""UpdateExpression: bound once per request, applied to the item it finds.

DynamoDB computes every operand from the item as it was before the update (``SET a =
b, b = a`` swaps), then writes; ADD to a missing attribute starts from 0 or an empty
set; DELETE of every member removes the attribute.  Errors that depend on the data
(``UpdateError``) are ValidationExceptions for UpdateItem and a ``ValidationError``
cancellation reason inside a transaction, so they carry their message separately.
"""
from __future__ import annotations

from tests.twin import values
from tests.twin.errors import validation
from tests.twin.evaluate import HUMAN, Binder, check_overlaps, get_path, operand

KIND = "UpdateExpression"
INVALID_PATH = "The document path provided in the update expression is invalid for update"
MISSING = "The provided expression refers to an attribute that does not exist in the item"
WRONG_TYPE = "An operand in the update expression has an incorrect data type"


class UpdateError(Exception):
    """A data-dependent refusal (message as DynamoDB words it)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _operand_type(function: str, value: dict):
    raise validation(f"Invalid {KIND}: Incorrect operand type for operator or function; "
                     f"operator or function: {function}, operand type: {values.kind(value)}")


def _value_of(node: tuple, b: Binder):
    """A function of the old item giving the value an update operand stands for."""
    tag = node[0]
    if tag in ("+", "-"):
        left, right = _value_of(node[1], b), _value_of(node[2], b)
        for side in node[1:]:
            if side[0] == "value" and values.kind(b.value(side[1], KIND)) != "N":
                _operand_type(tag, b.value(side[1], KIND))
        sign = 1 if tag == "+" else -1

        def arithmetic(item):
            x, y = left(item), right(item)
            if "N" not in x or "N" not in y:
                raise UpdateError(WRONG_TYPE)
            return {"N": values.add_numbers(x["N"], y["N"], sign)}
        return arithmetic
    if tag == "call" and node[1] == "if_not_exists":
        path = b.path(node[2][0], KIND)
        fallback = _value_of(node[2][1], b)
        return lambda item: get_path(item, path) or fallback(item)
    if tag == "call" and node[1] == "list_append":
        first, second = (_value_of(n, b) for n in node[2])
        for side in node[2]:
            if side[0] == "value" and values.kind(b.value(side[1], KIND)) != "L":
                _operand_type("list_append", b.value(side[1], KIND))

        def list_append(item):
            x, y = first(item), second(item)
            if "L" not in x or "L" not in y:
                raise UpdateError(WRONG_TYPE)
            return {"L": x["L"] + y["L"]}
        return list_append
    read = operand(node, b, KIND)

    def present(item):
        value = read(item)
        if value is None:
            raise UpdateError(MISSING)
        return value
    return present


class Update:
    """One request's update: ``apply(old)`` gives the new item (``old`` is untouched)."""

    def __init__(self, tree: dict, b: Binder, key_names: tuple):
        self.sets = [(b.path(p, KIND), _value_of(v, b)) for p, v in tree.get("SET", ())]
        self.removes = [b.path(p, KIND) for p in tree.get("REMOVE", ())]
        self.adds = [(b.path(p, KIND), b.value(v[1], KIND)) for p, v in tree.get("ADD", ())]
        self.deletes = [(b.path(p, KIND), b.value(v[1], KIND))
                        for p, v in tree.get("DELETE", ())]
        for _, value in self.adds:
            if values.kind(value) != "N" and values.kind(value) not in values.SETS:
                raise validation(f"Invalid {KIND}: Incorrect operand type for operator or "
                                 f"function; operator: ADD, operand type: "
                                 f"{HUMAN[values.kind(value)]}, typeSet: ALLOWED_FOR_ADD_OPERAND")
        for _, value in self.deletes:
            if values.kind(value) not in values.SETS:
                raise validation(f"Invalid {KIND}: Incorrect operand type for operator or "
                                 f"function; operator: DELETE, operand type: "
                                 f"{HUMAN[values.kind(value)]}, "
                                 "typeSet: ALLOWED_FOR_DELETE_OPERAND")
        self.paths = ([p for p, _ in self.sets] + self.removes + [p for p, _ in self.adds]
                      + [p for p, _ in self.deletes])
        check_overlaps(self.paths, KIND)
        for path in self.paths:
            if path[0] in key_names:
                raise validation("One or more parameter values were invalid: Cannot update "
                                 f"attribute {path[0]}. This attribute is part of the key")

    def apply(self, old: dict) -> dict:
        writes = [(path, compute(old)) for path, compute in self.sets]
        for path, value in self.adds:
            writes.append((path, _added(get_path(old, path), value)))
        for path, value in self.deletes:
            current = get_path(old, path)
            if current is None:
                continue
            if values.kind(current) != values.kind(value):
                raise UpdateError(WRONG_TYPE)
            gone = set(value[values.kind(value)])
            kept = [m for m in current[values.kind(current)] if m not in gone]
            writes.append((path, {values.kind(current): kept} if kept else None))
        new = dict(old)
        for path, value in writes:
            if value is None:
                _remove(new, path)
            else:
                _set(new, path, value)
        # List elements go last, highest index first, so earlier removals do not shift them.
        for path in sorted(self.removes, key=lambda p: [(type(e) is int, e) for e in p],
                           reverse=True):
            _remove(new, path)
        return new


def _added(current, value: dict) -> dict:
    k = values.kind(value)
    if current is None:
        return value
    if values.kind(current) != k:
        raise UpdateError(WRONG_TYPE)
    if k == "N":
        return {"N": values.add_numbers(current["N"], value["N"])}
    have = current[k]
    known = set(have)
    return {k: have + [m for m in value[k] if m not in known]}


def _set(item: dict, path: tuple, value: dict) -> None:
    if len(path) == 1:
        item[path[0]] = value
        return
    parent = item.get(path[0])
    if parent is None:
        raise UpdateError(INVALID_PATH)
    item[path[0]] = _set_in(parent, path[1:], value)


def _set_in(container: dict, rest: tuple, value: dict) -> dict:
    element = rest[0]
    if type(element) is int:
        if "L" not in container:
            raise UpdateError(INVALID_PATH)
        items = list(container["L"])
        if len(rest) == 1:
            if element >= len(items):
                items.append(value)     # past the end: DynamoDB appends
            else:
                items[element] = value
        elif element < len(items):
            items[element] = _set_in(items[element], rest[1:], value)
        else:
            raise UpdateError(INVALID_PATH)
        return {"L": items}
    if "M" not in container:
        raise UpdateError(INVALID_PATH)
    members = dict(container["M"])
    if len(rest) == 1:
        members[element] = value
    elif element in members:
        members[element] = _set_in(members[element], rest[1:], value)
    else:
        raise UpdateError(INVALID_PATH)
    return {"M": members}


def _remove(item: dict, path: tuple) -> None:
    if len(path) == 1:
        item.pop(path[0], None)
        return
    parent = item.get(path[0])
    if parent is not None:
        item[path[0]] = _remove_in(parent, path[1:])


def _remove_in(container: dict, rest: tuple) -> dict:
    element = rest[0]
    if type(element) is int:
        if "L" not in container:
            raise UpdateError(INVALID_PATH)
        items = list(container["L"])
        if element < len(items):
            if len(rest) == 1:
                del items[element]
            else:
                items[element] = _remove_in(items[element], rest[1:])
        return {"L": items}
    if "M" not in container:
        raise UpdateError(INVALID_PATH)
    members = dict(container["M"])
    if element in members:
        if len(rest) == 1:
            del members[element]
        else:
            members[element] = _remove_in(members[element], rest[1:])
    return {"M": members}
