"""DynamoDB's typed values, kept in their wire form (``{"S": "x"}``, ``{"N": "1.5"}``).

Items are stored exactly as the JSON protocol spells them, so an answer is one
``json.dumps`` away; every value that enters is checked and put in canonical form
first (numbers normalised as DynamoDB returns them, binary re-encoded), so equal
values have equal spellings and most comparisons are plain ``==``.  Stored values are
never changed in place: an update builds new containers along the paths it touches.
"""
from __future__ import annotations

import base64
import binascii
import re
from decimal import Context, Decimal

from tests.twin.errors import validation

TYPES = frozenset(("S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS"))
SETS = {"SS": "S", "NS": "N", "BS": "B"}
# What DynamoDB's messages call each set ("An string set  may not be empty": sic).
_SET_WORDS = {"SS": "string", "NS": "number", "BS": "binary"}
MAX_ITEM_BYTES = 400 * 1024
MAX_DEPTH = 32
# Wide enough that no arithmetic on 38-digit numbers rounds before the digit check.
_WIDE = Context(prec=80)
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\Z")


def parse_number(text) -> Decimal:
    if type(text) is not str or not _NUMBER.match(text.strip()):
        raise validation("A value provided cannot be converted into a number")
    return check_number(Decimal(text.strip()))


def check_number(number: Decimal) -> Decimal:
    """``number`` if DynamoDB can store it (38 significant digits, 1E-130 to 1E+126)."""
    if not number:
        return Decimal(0)
    number = number.normalize(_WIDE)
    sign, digits, exponent = number.as_tuple()
    if len(digits) > 38:
        raise validation("Attempting to store more than 38 significant digits in a Number")
    magnitude = len(digits) + exponent - 1
    if magnitude > 125:
        raise validation("Number overflow. Attempting to store a number with magnitude "
                         "larger than supported range")
    if magnitude < -130:
        raise validation("Number underflow. Attempting to store a number with magnitude "
                         "smaller than supported range")
    return number


def number_text(number: Decimal) -> str:
    """The spelling DynamoDB answers with: no exponent, no trailing zeros."""
    return "0" if not number else format(number.normalize(_WIDE), "f")


def add_numbers(a: str, b: str, sign: int = 1) -> str:
    x, y = Decimal(a), Decimal(b)
    total = _WIDE.add(x, y) if sign > 0 else _WIDE.subtract(x, y)
    return number_text(check_number(total))


def canonical(value, depth: int = 0) -> dict:
    """A value from a request, checked and in canonical form (ValidationException)."""
    if type(value) is not dict or len(value) != 1:
        raise validation("Supplied AttributeValue is empty, must contain exactly one of the "
                         "supported datatypes")
    (kind, data), = value.items()
    if kind == "S":
        if type(data) is not str:
            raise validation("Invalid attribute value type")
        return value
    if kind == "N":
        return {"N": number_text(parse_number(data))}
    if kind == "B":
        return {"B": _binary(data)}
    if kind == "BOOL":
        if type(data) is not bool:
            raise validation("Invalid attribute value type")
        return value
    if kind == "NULL":
        if data is not True:
            raise validation("One or more parameter values were invalid: Null attribute value "
                             "types must have the value of true")
        return value
    if depth >= MAX_DEPTH and kind in ("L", "M"):
        raise validation("Nesting Levels have exceeded supported limits: Attributes in the "
                         "item have nested levels beyond supported limit")
    if kind == "L":
        if type(data) is not list:
            raise validation("Invalid attribute value type")
        return {"L": [canonical(v, depth + 1) for v in data]}
    if kind == "M":
        if type(data) is not dict:
            raise validation("Invalid attribute value type")
        return {"M": {k: canonical(v, depth + 1) for k, v in data.items()}}
    if kind in SETS:
        if type(data) is not list:
            raise validation("Invalid attribute value type")
        if not data:
            raise validation(f"One or more parameter values were invalid: An {_SET_WORDS[kind]} "
                             "set  may not be empty")
        members = [canonical({SETS[kind]: v})[SETS[kind]] for v in data]
        if len(set(members)) != len(members):
            raise validation(f"One or more parameter values were invalid: Input collection "
                             f"[{', '.join(map(str, data))}] contains duplicates.")
        return {kind: members}
    raise validation(f"Supplied AttributeValue has unknown data type: {kind}")


def _binary(data) -> str:
    try:
        return base64.b64encode(base64.b64decode(data, validate=True)).decode("ascii")
    except (binascii.Error, TypeError, ValueError):
        raise validation("Invalid Binary value: not Base64") from None


def canonical_item(item) -> dict:
    if type(item) is not dict:
        raise validation("Invalid item: not a map")
    return {name: canonical(value) for name, value in item.items()}


def kind(value: dict) -> str:
    for key in value:
        return key
    raise ValueError("empty attribute value")


def equal(a: dict | None, b: dict | None) -> bool:
    """DynamoDB equality: same type and value; sets compare without order."""
    if a is None or b is None:
        return False
    if a == b:
        return True
    (ka, va), = a.items()
    (kb, vb), = b.items()
    if ka != kb:
        return False
    if ka in SETS:
        return set(va) == set(vb)
    if ka == "L":
        return len(va) == len(vb) and all(equal(x, y) for x, y in zip(va, vb))
    if ka == "M":
        return va.keys() == vb.keys() and all(equal(va[k], vb[k]) for k in va)
    return False


def ordered(value: dict | None):
    """(type, Python value) for the types ``<`` applies to (S, N, B), else None.
    Python orders str by code point, which is the order of their UTF-8 bytes."""
    if value is None:
        return None
    (k, v), = value.items()
    if k == "S":
        return ("S", v)
    if k == "N":
        return ("N", Decimal(v))
    if k == "B":
        return ("B", base64.b64decode(v))
    return None


def key_order(value: dict):
    """A key attribute's value as a sort key (its type is fixed by the schema)."""
    (k, v), = value.items()
    if k == "N":
        return Decimal(v)
    if k == "B":
        return base64.b64decode(v)
    return v


def _text_size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def _number_size(text: str) -> int:
    # DynamoDB: 1 byte per two significant digits, plus 1.
    digits = text.lstrip("-").replace(".", "").strip("0") or "0"
    return (len(digits) + 1) // 2 + 1


def value_size(value: dict) -> int:
    (k, v), = value.items()
    if k == "S":
        return _text_size(v)
    if k == "N":
        return _number_size(v)
    if k == "B":
        return len(v) * 3 // 4 - v.count("=", -2)
    if k in ("BOOL", "NULL"):
        return 1
    if k == "SS":
        return sum(_text_size(s) for s in v)
    if k == "NS":
        return sum(_number_size(n) for n in v)
    if k == "BS":
        return sum(len(b) * 3 // 4 - b.count("=", -2) for b in v)
    if k == "L":
        return 3 + sum(1 + value_size(e) for e in v)
    return 3 + sum(1 + _text_size(name) + value_size(e) for name, e in v.items())


def item_size(item: dict) -> int:
    """DynamoDB's measure of an item (names and values), for the 400 KB limit."""
    return sum(_text_size(name) + value_size(value) for name, value in item.items())


def check_item_size(item: dict, message: str = "Item size has exceeded the maximum "
                                               "allowed size") -> None:
    if item_size(item) > MAX_ITEM_BYTES:
        raise validation(message)
