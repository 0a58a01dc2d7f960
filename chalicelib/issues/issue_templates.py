"""Issue templates and the issue config, as Forgejo reads them from a repository
(``modules/issue/template``, ``services/issue/template.go``): where they live, how a
file becomes an IssueTemplate record, which files are valid, and the config's rules and
messages.  Pure functions of a file's name and bytes; ``template_files`` reads git.

- A ``.md`` template is YAML front matter (``name``, ``title``, ``about`` or
  ``description``, ``labels``, ``ref``) between ``---`` lines, then the issue's text.
  Without front matter that parses, the whole file is the text, the file's name the
  template's name and its first 80 bytes the ``about``.
- A ``.yaml``/``.yml`` template is an issue form: the same keys and a ``body`` of
  fields (``form_fields``), checked by ``issue_forms.validate_form``.
- A template needs a ``name`` and an ``about``; an invalid one is left out of the list.
- ``ref`` not starting with ``refs/`` names a branch: ``refs/heads/`` is put before it
  (an empty one too, as Forgejo does).
- ``config.yaml``/``config.yml`` is never a template; the first config found in
  ``CONFIG_FILES`` order is the repository's (``blank_issues_enabled``, default true;
  ``contact_links``, each with a name, an http(s) url and an about).
"""
from __future__ import annotations

import posixpath
from urllib.parse import urlsplit

from chalicelib.issues import issue_forms
from chalicelib.issues.issue_forms import TemplateError

# Forgejo's directories, in its order (the list answers them in this order).
TEMPLATE_DIRS = ("ISSUE_TEMPLATE", "issue_template",
                 ".forgejo/ISSUE_TEMPLATE", ".forgejo/issue_template",
                 ".gitea/ISSUE_TEMPLATE", ".gitea/issue_template",
                 ".github/ISSUE_TEMPLATE", ".github/issue_template",
                 ".gitlab/ISSUE_TEMPLATE", ".gitlab/issue_template",
                 "docs/ISSUE_TEMPLATE", "docs/issue_template")
# The config files, in the order Forgejo looks for them: the first that exists counts.
CONFIG_FILES = tuple(f"{d}/config{ext}" for d in (
    ".forgejo/ISSUE_TEMPLATE", ".forgejo/issue_template", ".gitea/ISSUE_TEMPLATE",
    ".gitea/issue_template", ".github/ISSUE_TEMPLATE", ".github/issue_template",
    "docs/ISSUE_TEMPLATE", "docs/issue_template") for ext in (".yaml", ".yml"))
# Larger files are not parsed (Forgejo: MaxDisplayFileSize, 8 MiB; PyYAML is pure
# Python on the Lambda, so this is Gitea's config limit instead).
MAX_FILE_BYTES = 1024 * 1024
ABOUT_BYTES = 80
BRANCH_PREFIX = "refs/heads/"


def kind_of(path: str) -> str:
    """"md", "yaml", or "" for a file that cannot be a template (Forgejo's Type())."""
    name = posixpath.basename(path)
    if name in ("config.yaml", "config.yml"):
        return ""
    extension = posixpath.splitext(name)[1]
    if extension == ".md":
        return "md"
    return "yaml" if extension in (".yaml", ".yml") else ""


def too_large(size: int) -> TemplateError:
    return TemplateError(f"too large: {size} > MaxDisplayFileSize")


def parse_template(path: str, content: bytes) -> dict:
    """The IssueTemplate record of the file at ``path``, or ``TemplateError``."""
    if len(content) > MAX_FILE_BYTES:
        raise too_large(len(content))
    kind = kind_of(path)
    if kind == "md":
        record = _markdown(path, content.decode("utf-8", "replace"))
    elif kind == "yaml":
        record = _form(path, _utf8(content))
    else:
        raise TemplateError(f"{path} is not an issue template")
    if not record["name"].strip():
        raise TemplateError("'name' is required")
    if not record["about"].strip():
        raise TemplateError("'about' is required")
    if kind == "yaml":
        issue_forms.validate_form(record["body"])
    for field in record["body"] or ():
        if not field["visible"]:
            del field["visible"]    # Forgejo leaves an empty or missing list out
    if not record["ref"].startswith("refs/"):
        record["ref"] = BRANCH_PREFIX + record["ref"]
    return record


def _utf8(content: bytes) -> str:
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError:
        raise TemplateError("yaml: invalid leading UTF-8 octet") from None


def _record(path: str, meta: dict, content: str) -> dict:
    """The record's fields from a template's decoded keys (``TemplateError`` when a key
    does not hold what Forgejo reads there)."""
    about = issue_forms.text(meta.get("about"))
    if not about:   # "description" is read as "about" too
        try:
            about = issue_forms.text(meta.get("description"))
        except TemplateError:
            about = ""
    return {
        "name": issue_forms.text(meta.get("name")),
        "title": issue_forms.text(meta.get("title")),
        "about": about,
        "labels": issue_forms.string_list(meta.get("labels"), "IssueTemplateStringSlice"),
        "ref": issue_forms.text(meta.get("ref")),
        "content": content,
        "body": issue_forms.form_fields(meta.get("body")),
        "file_name": path,
    }


def _document(text: str) -> dict:
    loaded = issue_forms.load(text)
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise issue_forms.unmarshal_error(loaded, "structs.IssueTemplate")
    return loaded


def _form(path: str, text: str) -> dict:
    record = _record(path, _document(text), "")
    if record["body"] is not None:
        issue_forms.fill_defaults(record["body"])
    return record


def _markdown(path: str, text: str) -> dict:
    parts = front_matter(text)
    if parts is not None:
        try:
            return _record(path, _document(parts[0]), parts[1])
        except TemplateError:
            pass    # front matter that does not parse: the whole file is the text
    return _record(path, {"name": posixpath.basename(path),
                          "about": split_at_byte(text, ABOUT_BYTES)}, text)


def _padding(char: str) -> bool:
    # Forgejo's: an ASCII space, or any non-ASCII white space (a tab or "\r" is not).
    return char == " " or (ord(char) >= 0x80 and char.isspace())


def _separator(line: str) -> bool:
    """A front matter line: padding, three or more dashes, padding."""
    start = 0
    while start < len(line) and _padding(line[start]):
        start += 1
    end = start
    while end < len(line) and line[end] == "-":
        end += 1
    return end - start >= 3 and all(_padding(char) for char in line[end:])


def front_matter(text: str) -> tuple[str, str] | None:
    """(the YAML between the first two separator lines, the text after them), or None
    when the file does not start with front matter or it is empty."""
    lines = text.split("\n")
    if not _separator(lines[0]):
        return None
    for index in range(1, len(lines)):
        if _separator(lines[index]):
            front = "\n".join(lines[1:index]) + "\n"
            if index == 1:
                return None
            return front, "\n".join(lines[index + 1:])
    return None


def split_at_byte(text: str, limit: int) -> str:
    """The first ``limit`` bytes of ``text`` (whole characters), with an ellipsis when
    cut, as Forgejo shortens a template's text into its ``about``."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    cut = data[:limit - 3].decode("utf-8", "ignore")
    return cut + "…"


# ---- the config --------------------------------------------------------------------------

def default_config() -> dict:
    return {"blank_issues_enabled": True, "contact_links": []}


def parse_config(content: bytes) -> dict:
    """The IssueConfig record of a config file, or ``TemplateError`` with Forgejo's
    message (the list and the config answer the default then)."""
    if len(content) > MAX_FILE_BYTES:
        raise too_large(len(content))
    loaded = issue_forms.load(_utf8(content))
    config = default_config()
    if loaded is None:
        return config
    if not isinstance(loaded, dict):
        raise issue_forms.unmarshal_error(loaded, "structs.IssueConfig")
    if "blank_issues_enabled" in loaded:
        enabled = loaded["blank_issues_enabled"]
        if enabled is not None and not isinstance(enabled, bool):
            raise issue_forms.unmarshal_error(enabled, "bool")
        config["blank_issues_enabled"] = bool(enabled)
    links = loaded.get("contact_links")
    if links is not None and not isinstance(links, list):
        raise issue_forms.unmarshal_error(links, "[]structs.IssueConfigContactLink")
    for position, link in enumerate(links or [], start=1):
        entry = issue_forms.mapping(link, "structs.IssueConfigContactLink") or {}
        found = {key: issue_forms.text(entry.get(key)) for key in ("name", "url", "about")}
        for key in ("name", "url", "about"):
            if not found[key]:
                raise TemplateError(f"contact_link at position {position} is missing "
                                    f"{key} key")
        if not web_url(found["url"]):
            raise TemplateError(f"{found['url']} is not a valid URL")
        config["contact_links"].append(found)
    return config


def web_url(url: str) -> bool:
    """An absolute http(s) URL: what a page may link to (Forgejo takes any request URI;
    a ``javascript:`` link would run script on the new-issue page)."""
    if any(c.isspace() or ord(c) < 0x20 for c in url):
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)
