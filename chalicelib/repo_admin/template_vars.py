"""The variables a template repository's files may use, as Forgejo documents them for
``.forgejo/template`` (or ``.gitea/template``): which files are expanded (the file's
glob patterns, one a line, ``#`` comments), the variables and their transformer
suffixes, and the expansion of a file's text and of its path.

- Variables: ``REPO_NAME``, ``REPO_OWNER``, ``REPO_DESCRIPTION``, ``REPO_LINK``,
  ``REPO_HTTPS_URL``, ``REPO_SSH_URL`` and the same six with ``TEMPLATE_`` for the
  template, plus ``YEAR``, ``MONTH``, ``MONTH_ENGLISH``, ``DAY``; written ``$NAME`` or
  ``${NAME}``.  A name that is no variable is left as written.
- Transformers (names, owners and the month's name): ``_SNAKE``, ``_KEBAB``,
  ``_CAMEL``, ``_PASCAL``, ``_LOWER``, ``_UPPER``, ``_TITLE``.
- Paths of matched files are expanded too, each value made safe for a file name first
  (no ``/``, ``\\``, ``..``, control or reserved characters: ``_`` instead).
- Globs as Forgejo's (gobwas, ``/`` the separator): ``*`` and ``?`` within one path
  segment, ``**`` across segments, ``[...]`` classes, ``{a,b}`` alternatives.

No I/O here: rules only, tested in ``tests/repo_admin/test_generate_rules.py``.
"""
from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from dataclasses import dataclass

# Where a template says which of its files to expand; the first that exists counts.
TEMPLATE_FILES = (".forgejo/template", ".gitea/template")

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9])|[A-Z]?[a-z0-9]+|[A-Z]+|[0-9]+")
_SEPARATOR = re.compile(r"[\s_\-]+")


def _words(text: str) -> list[str]:
    """Words of a name: split at spaces, ``_`` and ``-``, and where the case changes
    (``HTTPServer`` -> HTTP, Server); other characters stay with their word."""
    words = []
    for part in _SEPARATOR.split(text):
        if not part:
            continue
        found = _WORD.findall(part)
        words.extend(found if "".join(found) == part else [part])
    return words


def snake(text: str) -> str:
    return "_".join(word.lower() for word in _words(text))


def kebab(text: str) -> str:
    return "-".join(word.lower() for word in _words(text))


def pascal(text: str) -> str:
    return "".join(word[:1].upper() + word[1:] for word in _words(text))


def camel(text: str) -> str:
    joined = pascal(text)
    return joined[:1].lower() + joined[1:]


def title(text: str) -> str:
    """Each word's first letter upper-case, the rest lower-case (words split at
    anything that is not a letter or a digit, which stays)."""
    return re.sub(r"[A-Za-z0-9]+", lambda m: m.group(0)[:1].upper() + m.group(0)[1:].lower(),
                  text)


TRANSFORMERS: dict[str, Callable[[str], str]] = {
    "SNAKE": snake, "KEBAB": kebab, "CAMEL": camel, "PASCAL": pascal,
    "LOWER": str.lower, "UPPER": str.upper, "TITLE": title,
}


@dataclass(frozen=True)
class Side:
    """One repository's values: the generated one or the template."""
    owner: str
    name: str
    description: str
    link: str           # its web page, without the host (Forgejo's ``Link()``)
    https_url: str
    ssh_url: str


def variables(repo: Side, template: Side, today: datetime.date | None = None) -> dict[str, str]:
    """Every variable's value, transformed ones included."""
    today = today or datetime.date.today()
    transformed = {"REPO_NAME": repo.name, "TEMPLATE_NAME": template.name,
                   "REPO_OWNER": repo.owner, "TEMPLATE_OWNER": template.owner,
                   "MONTH_ENGLISH": today.strftime("%B")}
    plain = {"YEAR": str(today.year), "MONTH": f"{today.month:02d}", "DAY": f"{today.day:02d}",
             "REPO_DESCRIPTION": repo.description, "TEMPLATE_DESCRIPTION": template.description,
             "REPO_LINK": repo.link, "TEMPLATE_LINK": template.link,
             "REPO_HTTPS_URL": repo.https_url, "TEMPLATE_HTTPS_URL": template.https_url,
             "REPO_SSH_URL": repo.ssh_url, "TEMPLATE_SSH_URL": template.ssh_url}
    values = {**plain, **transformed}
    for name, value in transformed.items():
        for suffix, transform in TRANSFORMERS.items():
            values[f"{name}_{suffix}"] = transform(value)
    return values


_REFERENCE = re.compile(r"\$(?:\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+))")
_UNSAFE = re.compile(r"\.\.|[<>:\"/\\|?*\x00-\x1f]")
_RESERVED = re.compile(r"^(con|prn|aux|nul|com\d|lpt\d)$", re.IGNORECASE)


def expand(text: str, values: dict[str, str]) -> str:
    """``$NAME`` and ``${NAME}`` replaced by their values; others left as written."""
    def replace(match: re.Match) -> str:
        name = match.group(1) or match.group(2)
        return values.get(name, match.group(0))
    return _REFERENCE.sub(replace, text)


def safe_file_name(value: str) -> str:
    """A value made safe inside a path segment (Forgejo's ``fileNameSanitize``)."""
    return _RESERVED.sub("_", _UNSAFE.sub("_", value)).strip()


def expand_path(path: str, values: dict[str, str]) -> str:
    return expand(path, {name: safe_file_name(value) for name, value in values.items()})


def glob_pattern(glob: str) -> re.Pattern:
    """A glob of ``.forgejo/template`` as a regular expression over a whole path."""
    out, i = [], 0
    while i < len(glob):
        char = glob[i]
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = glob.find("]", i + 1)
            if end < 0:
                out.append(re.escape(char))
            else:
                body = glob[i + 1:end]
                negate = body.startswith("!")
                body = body[1:] if negate else body
                out.append(f"[{'^' if negate else ''}{body.replace(chr(92), chr(92) * 2)}]")
                i = end + 1
                continue
        elif char == "{":
            end = glob.find("}", i + 1)
            if end < 0:
                out.append(re.escape(char))
            else:
                options = glob[i + 1:end].split(",")
                out.append("(?:" + "|".join(glob_pattern(o).pattern[4:-3] for o in options) + ")")
                i = end + 1
                continue
        elif char == "\\" and i + 1 < len(glob):
            out.append(re.escape(glob[i + 1]))
            i += 2
            continue
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("(?s:" + "".join(out) + r")\Z")


def parse_globs(text: str) -> list[re.Pattern]:
    """The template file's patterns: one a line; blank lines and ``#`` comments skipped;
    a pattern that does not compile is skipped too (Forgejo logs and skips it)."""
    found = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            found.append(glob_pattern(line))
        except re.error:
            continue
    return found


def matches(globs: list[re.Pattern], path: str) -> bool:
    return any(glob.match(path) for glob in globs)
