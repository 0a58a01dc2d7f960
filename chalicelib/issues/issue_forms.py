"""YAML read as Forgejo reads issue templates and the issue config, and the rules of an
issue form's ``body`` (Forgejo's ``modules/issue/template``), with its messages.

Forgejo decodes YAML into typed records: a scalar read where text is expected is that
text, a list or mapping there is an "unmarshal error", a null is the empty value.  Here
``yaml.safe_load`` builds plain values and ``text``/``string_list``/``mapping`` apply the
same rules.  Two differences are PyYAML's own: YAML 1.1 reads ``yes``/``no``/``on``/
``off`` as booleans (an attribute ``multiple: yes`` passes here, Forgejo wants
``true``), and a scalar read as text is re-spelled from its value (``0x10`` is ``16``).

Everything shown to a client goes through ``plain``: JSON-safe values (dates as ISO
text, non-text keys as text), in bounded work — YAML aliases may repeat a node
thousands of times ("billion laughs") where PyYAML shares one object, and the answer
would repeat it.  PyYAML is imported here only, on first use: never at cold start.
"""
from __future__ import annotations

import datetime
import math
import re

# Forgejo's ids: ASCII letters, digits, '-' and '_' (go-chi binding's AlphaDash).
ID_PATTERN = re.compile(r"^[0-9A-Za-z_-]+$")
FIELD_TYPES = ("markdown", "textarea", "input", "dropdown", "checkboxes")
VISIBLE_FORM, VISIBLE_CONTENT = "form", "content"
# Values a document may expand to (aliases counted each time they are used), and how
# deeply it may nest: far above any real template, far below what hurts.
MAX_NODES = 100_000
MAX_DEPTH = 64

_TAGS = ((bool, "!!bool"), (int, "!!int"), (float, "!!float"), (str, "!!str"),
         (list, "!!seq"), (dict, "!!map"), (datetime.date, "!!timestamp"),
         (bytes, "!!binary"), (set, "!!set"))


class TemplateError(ValueError):
    """Why a template or config file is not valid, in Forgejo's words."""


def load(text: str):
    """The YAML document in ``text`` as plain values (None for an empty document)."""
    import yaml

    try:
        loaded = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f"line {mark.line + 1}: " if mark is not None else ""
        raise TemplateError(f"yaml: {line}{exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        raise TemplateError(f"yaml: {exc}") from None
    except RecursionError:
        raise TemplateError("yaml: exceeded max depth") from None
    return plain(loaded)


def plain(value):
    """``value`` as JSON can carry it, within ``MAX_NODES`` and ``MAX_DEPTH``."""
    budget = [MAX_NODES]
    return _plain(value, budget, 0)


def _plain(value, budget: list[int], depth: int):
    budget[0] -= 1
    if budget[0] < 0:
        raise TemplateError("yaml: document contains excessive aliasing")
    if depth > MAX_DEPTH:
        raise TemplateError("yaml: exceeded max depth")
    if isinstance(value, dict):
        return {_key(k): _plain(v, budget, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v, budget, depth + 1) for v in value]
    if isinstance(value, set):
        return {_key(k): None for k in value}
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)   # JSON has no NaN or infinity
    return value


def _key(key) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    return "null" if key is None else str(_plain(key, [MAX_NODES], 0))


def tag_of(value) -> str:
    if value is None:
        return "!!null"
    return next((tag for kind, tag in _TAGS if isinstance(value, kind)), "!!str")


def unmarshal_error(value, into: str) -> TemplateError:
    """Forgejo's words when a value does not fit where it is read into."""
    shown = f" `{value}`" if not isinstance(value, (dict, list)) else ""
    return TemplateError(f"yaml: unmarshal errors:\n  cannot unmarshal {tag_of(value)}"
                         f"{shown} into {into}")


def text(value) -> str:
    """A scalar read where text is expected: its text; null: empty."""
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        raise unmarshal_error(value, "string")
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def string_list(value, into: str) -> list[str] | None:
    """Forgejo's label and assignee lists: a list of texts, or one comma-separated text
    (blank items dropped); None when nothing is given."""
    if value is None:
        return None
    if isinstance(value, list):
        return [text(item) for item in value]
    if isinstance(value, dict):
        raise TemplateError(f"cannot unmarshal !!map into {into}")
    items = [part.strip() for part in text(value).split(",")]
    return [item for item in items if item] or None


def mapping(value, into: str) -> dict | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise unmarshal_error(value, into)
    return value


def form_fields(value) -> list[dict] | None:
    """A template's ``body`` as Forgejo decodes it: each field's type, id, attributes,
    validations and visibility (None when absent)."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise unmarshal_error(value, "[]*structs.IssueFormField")
    fields = []
    for item in value:
        entry = mapping(item, "structs.IssueFormField") or {}
        visible = entry.get("visible")
        if visible is not None and not isinstance(visible, list):
            raise unmarshal_error(visible, "[]structs.IssueFormFieldVisible")
        fields.append({
            "type": text(entry.get("type")),
            "id": text(entry.get("id")),
            "attributes": mapping(entry.get("attributes"), "map[string]interface {}"),
            "validations": mapping(entry.get("validations"), "map[string]interface {}"),
            "visible": None if visible is None else [text(v) for v in visible],
        })
    return fields


def fill_defaults(fields: list[dict]) -> None:
    """What Forgejo fills in on a form's fields: the position as id, and visibility on
    the form and (but for markdown) in the issue's content."""
    for index, field in enumerate(fields):
        if not field["id"]:
            field["id"] = str(index)
        if field["visible"] is None:
            field["visible"] = [VISIBLE_FORM] + (
                [] if field["type"] == "markdown" else [VISIBLE_CONTENT])


# ---- the rules of a form's body (validateYaml) -------------------------------------------

def validate_form(fields: list[dict] | None) -> None:
    """Raise ``TemplateError`` with Forgejo's message for the first broken rule."""
    if not fields:
        raise TemplateError("'body' is required")
    ids: set[str] = set()
    for index, field in enumerate(fields):
        kind = field["type"]
        at = f"body[{index}]({kind})"
        attributes = field["attributes"] or {}
        validations = field["validations"] or {}
        if kind != "markdown":
            _check_id(at, field["id"], ids)
            _string_items(at, attributes, True, "label")
        if kind == "markdown":
            _string_items(at, attributes, True, "value")
        elif kind == "textarea":
            _string_items(at, attributes, False, "description", "placeholder", "value",
                          "render")
        elif kind == "input":
            _string_items(at, attributes, False, "description", "placeholder", "value")
            _bool_items(at, validations, "is_number")
            _string_items(at, validations, False, "regex")
        elif kind == "dropdown":
            _string_items(at, attributes, False, "description")
            _bool_items(at, attributes, "multiple", "list")
            _check_options(at, kind, attributes)
            _check_default(at, attributes)
        elif kind == "checkboxes":
            _string_items(at, attributes, False, "description")
            _check_options(at, kind, attributes)
        else:
            raise TemplateError(f"{at}: unknown type")
        if kind not in ("markdown", "checkboxes"):
            _bool_items(at, validations, "required")
            if validations.get("required") is True and not _on_form(field["visible"]):
                raise TemplateError(f"{at}: can not require a hidden field")


def _on_form(visible: list[str] | None) -> bool:
    return not visible or VISIBLE_FORM in visible


def _check_id(at: str, field_id: str, ids: set[str]) -> None:
    if not field_id:
        raise TemplateError(f"{at}: 'id' is required")
    if not ID_PATTERN.match(field_id):
        raise TemplateError(f"{at}: 'id' should contain only alphanumeric, '-' and '_'")
    if field_id in ids:
        raise TemplateError(f"{at}: 'id' should be unique")
    ids.add(field_id)


def _string_items(at: str, values: dict, required: bool, *names: str) -> None:
    # As Forgejo's: the first name that is absent ends the check.
    for name in names:
        if name not in values:
            if required:
                raise TemplateError(f"{at}: '{name}' is required")
            return
        value = values[name]
        if not isinstance(value, str):
            raise TemplateError(f"{at}: '{name}' should be a string")
        if required and not value.strip():
            raise TemplateError(f"{at}: '{name}' is required")


def _bool_items(at: str, values: dict, *names: str) -> None:
    for name in names:
        if name not in values:
            return
        if not isinstance(values[name], bool):
            raise TemplateError(f"{at}: '{name}' should be a bool")


def _check_options(at: str, kind: str, attributes: dict) -> None:
    options = attributes.get("options")
    if not isinstance(options, list) or not options:
        raise TemplateError(f"{at}: 'options' is required and should be a array")
    for index, option in enumerate(options):
        where = f"{at}, option[{index}]"
        if kind == "dropdown":
            if not isinstance(option, str):
                raise TemplateError(f"{where}: should be a string")
            continue
        if not isinstance(option, dict):
            raise TemplateError(f"{where}: should be a dictionary")
        label = option.get("label")
        if not isinstance(label, str) or not label:
            raise TemplateError(f"{where}: 'label' is required and should be a string")
        visible = option.get("visible")
        if "visible" in option:
            if not isinstance(visible, list):
                raise TemplateError(f"{where}: 'visible' should be list")
            if any(v not in (VISIBLE_FORM, VISIBLE_CONTENT) for v in visible):
                raise TemplateError(f"{where}: 'visible' list can only contain strings of "
                                    "'form' and 'content'")
        if "required" in option:
            if not isinstance(option["required"], bool):
                raise TemplateError(f"{where}: 'required' should be a bool")
            if "visible" in option and VISIBLE_FORM not in visible:
                raise TemplateError(f"{where}: can not require a hidden checkbox")


def _check_default(at: str, attributes: dict) -> None:
    if "default" not in attributes:
        return
    default = attributes["default"]
    if type(default) is not int:
        raise TemplateError(f"{at}: 'default' should be an int")
    if not 0 <= default < len(attributes["options"]):
        raise TemplateError(f"{at}: the value of 'default' is out of range")
