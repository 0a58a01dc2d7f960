"""Where settings come from, before they are typed: the INI file, ``NIMBUS__`` environment
variables (with Gitea's ``_0X<hex>_`` escapes) and the conversion of one raw value to
its key's type (``chalicelib.settings`` declares the sections and reads these)."""
from __future__ import annotations

import configparser
import re
from typing import Any, Mapping

ENV_PREFIX = "NIMBUS__"
_ESCAPE = re.compile(r"_0X([0-9A-F]{2})_", re.IGNORECASE)


class SettingsError(ValueError):
    """A configuration value is missing or malformed."""


def convert(section: str, key: str, raw: str, kind: Any) -> Any:
    raw = raw.strip()
    if kind is bool or kind == "bool":
        lowered = raw.lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise SettingsError(f"[{section}] {key}: expected true or false, got {raw!r}")
    if kind is int or kind == "int":
        try:
            return int(raw)
        except ValueError:
            raise SettingsError(f"[{section}] {key}: expected an integer, got {raw!r}") from None
    return raw


def decode_env_name(name: str) -> str:
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), name)


def env_overrides(environ: Mapping[str, str]) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for name, value in environ.items():
        if not name.upper().startswith(ENV_PREFIX):
            continue
        rest = name[len(ENV_PREFIX):]
        if "__" not in rest:
            raise SettingsError(f"{name}: expected NIMBUS__<SECTION>__<KEY>")
        section, key = rest.split("__", 1)
        out.setdefault(decode_env_name(section).lower(), {})[decode_env_name(key).upper()] = value
    return out


def read_ini(path: str) -> dict[str, dict[str, str]]:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str.upper  # Gitea keys are upper-case; accept any case
    try:
        with open(path, encoding="utf-8") as fh:
            parser.read_file(fh)
    except OSError as exc:
        raise SettingsError(f"NIMBUS_CONFIG: cannot read {path}: {exc}") from None
    except configparser.Error as exc:
        raise SettingsError(f"NIMBUS_CONFIG: {path} is not valid INI: {exc}") from None
    return {s.lower(): dict(parser.items(s)) for s in parser.sections()}
