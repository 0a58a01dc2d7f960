"""Which language a file of a repository counts towards, by its path and the
repository's root ``.gitattributes`` (what Forgejo's language statistics decide with
go-enry and the linguist attributes).

Names and types come from GitHub Linguist's language list as packaged on PyPI
(``programming-languages``, ``markup-languages``, ``data-languages``,
``prose-languages``: one JSON file each, regenerated from linguist's
``languages.yml``), so the names are the ones Forgejo users see.  Those packages carry
extensions only: the well-known file names, the tie-breaks between languages that
share an extension (enry decides those by content, which we do not read), and the
vendored/documentation/generated path rules (linguist's ``vendor.yml`` and
``documentation.yml``, the common part) are kept here.

Only the events worker imports this module: loading the language tables costs a few
milliseconds and the API never needs them.
"""
from __future__ import annotations

import functools
import posixpath
import re
from dataclasses import dataclass

PROGRAMMING, MARKUP, DATA, PROSE = "programming", "markup", "data", "prose"

# Extensions several linguist languages claim: the one enry settles on for ordinary
# files of that extension.
PREFERRED = {
    ".h": "C", ".inc": "PHP", ".cgi": "Shell", ".pl": "Perl", ".m": "Objective-C",
    ".rs": "Rust", ".v": "Verilog", ".d": "D", ".sql": "SQL", ".r": "R", ".cs": "C#",
    ".fs": "F#", ".php": "PHP", ".pro": "Prolog", ".l": "Lex", ".t": "Perl",
    ".ts": "TypeScript", ".md": "Markdown", ".html": "HTML", ".json": "JSON",
    ".xml": "XML", ".yml": "YAML", ".yaml": "YAML", ".toml": "TOML", ".txt": "Text",
    ".js": "JavaScript", ".css": "CSS", ".sh": "Shell", ".py": "Python",
    ".rb": "Ruby", ".java": "Java", ".kt": "Kotlin", ".go": "Go", ".c": "C",
    ".cc": "C++", ".cpp": "C++", ".hpp": "C++", ".swift": "Swift", ".scala": "Scala",
    ".mod": "Go Module", ".sum": "Go Checksums", ".ml": "OCaml", ".ex": "Elixir",
    ".lua": "Lua", ".bf": "Brainfuck", ".asm": "Assembly", ".s": "Unix Assembly",
}

# Linguist's file names (no extension of their own): name -> language.
FILENAMES = {
    "makefile": "Makefile", "gnumakefile": "Makefile", "dockerfile": "Dockerfile",
    "containerfile": "Dockerfile", "rakefile": "Ruby", "gemfile": "Ruby",
    "vagrantfile": "Ruby", "podfile": "Ruby", "jenkinsfile": "Groovy",
    "cmakelists.txt": "CMake", "meson.build": "Meson", "build": "Starlark",
    "build.bazel": "Starlark", "workspace": "Starlark", "justfile": "Just",
    "pkgbuild": "Shell", "sconstruct": "Python", "sconscript": "Python",
    "snakefile": "Python", "go.mod": "Go Module", "go.sum": "Go Checksums",
    "cargo.lock": "TOML", "pipfile": "TOML", "license": "Text", "copying": "Text",
}

# Linguist groups a few languages under another in statistics (enry GetLanguageGroup).
GROUPS = {"TSX": "TypeScript", "JSX": "JavaScript", "Cython": "Python",
          "Objective-C++": "Objective-C", "Shell Session": "Shell"}

# enry.IsConfiguration: these data languages, by extension, are configuration.
CONFIGURATION = {"JSON", "TOML", "YAML", "INI", "XML", "SQL"}

_VENDOR = re.compile("|".join((
    r"(^|/)cache/", r"^[Dd]ependencies/", r"(^|/)dist/", r"^deps/", r"(^|/)configure$",
    r"(^|/)config\.guess$", r"(^|/)config\.sub$", r"(^|/)node_modules/",
    r"(^|/)bower_components/", r"(^|/)[Vv]endor/", r"(^|/)vendors?/", r"(^|/)_?[Vv]endored/",
    r"(^|/)third[-_]?party/", r"(^|/)3rd[-_]?party/", r"(^|/)extern(al)?/",
    r"(^|/)\.yarn/", r"(^|/)Godeps/_workspace/", r"(^|/)\.bundle/", r"(^|/)bin/",
    r"(^|/)jquery([^.]*)\.js$", r"(^|/)jquery-\d\.\d+(\.\d+)?\.js$", r"\.min\.(js|css)$",
    r"-min\.(js|css)$", r"(^|/)bootstrap([^/.]*)\.(js|css|less|scss|styl)$",
    r"(^|/)gradlew(\.bat)?$", r"(^|/)gradle/wrapper/", r"(^|/)mvnw(\.cmd)?$",
    r"(^|/)\.mvn/wrapper/", r"(^|/)Carthage/", r"(^|/)Pods/", r"(^|/)venv/",
    r"(^|/)\.venv/", r"(^|/)site-packages/", r"(^|/)env/", r"(^|/)\.github/",
    r"(^|/)\.gitea/", r"(^|/)\.forgejo/", r"(^|/)\.vscode/", r"(^|/)\.idea/",
)))
_DOCUMENTATION = re.compile("|".join((
    r"^[Dd]ocs?/", r"(^|/)[Dd]ocumentation/", r"(^|/)[Gg]roovydoc/", r"(^|/)[Jj]avadoc/",
    r"^[Mm]an/", r"^[Ee]xamples/", r"^[Dd]emos?/", r"(^|/)inst/doc/",
    r"(^|/)CITATION(\.cff|(S?(\.(bib|md))?))$", r"(^|/)CHANGE(S|LOG)?(\.|$)",
    r"(^|/)CONTRIBUTING(\.|$)", r"(^|/)COPYING(\.|$)", r"(^|/)INSTALL(\.|$)",
    r"(^|/)LICEN[CS]E(\.|$)", r"(^|/)[Ll]icen[cs]e(\.|$)", r"(^|/)README(\.|$)",
    r"(^|/)[Rr]eadme(\.|$)", r"^[Ss]amples?/",
)))
_GENERATED = re.compile("|".join((
    r"\.min\.(js|css)$", r"\.map$", r"(^|/)package-lock\.json$", r"(^|/)yarn\.lock$",
    r"(^|/)pnpm-lock\.yaml$", r"(^|/)poetry\.lock$", r"(^|/)Cargo\.lock$",
    r"(^|/)composer\.lock$", r"(^|/)Gopkg\.lock$", r"(^|/)go\.sum$", r"\.pb\.go$",
    r"_pb2(_grpc)?\.py$", r"\.pb\.(cc|h)$", r"\.designer\.(cs|vb)$", r"\.g\.dart$",
    r"(^|/)__generated__/", r"\.generated\.\w+$", r"_generated\.go$", r"(^|/)zz_generated",
)))


@functools.lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """(extension -> language, lower-cased extension -> language, language -> type)."""
    import data_languages
    import markup_languages
    import programming_languages
    import prose_languages

    kinds: dict[str, str] = {}
    claims: dict[str, list[str]] = {}
    for kind, table in ((PROGRAMMING, programming_languages), (MARKUP, markup_languages),
                        (DATA, data_languages), (PROSE, prose_languages)):
        for name, entry in table.items():
            kinds.setdefault(name, kind)
            for ext in entry.get("extensions", ()):
                claims.setdefault(ext, []).append(name)
    exact = {ext: (PREFERRED.get(ext.lower()) if PREFERRED.get(ext.lower()) in names
                   else sorted(names)[0]) for ext, names in claims.items()}
    folded: dict[str, str] = {}
    for ext, name in sorted(exact.items()):
        folded.setdefault(ext.lower(), name)
    for ext, name in PREFERRED.items():
        if name in kinds:
            folded[ext] = name
    return exact, folded, kinds


def language_type(name: str) -> str | None:
    return _tables()[2].get(name)


def group_of(name: str) -> str:
    return GROUPS.get(name, name)


def _by_extension(name: str) -> str | None:
    exact, folded, _ = _tables()
    # Compound extensions first (".sh.in" before ".in"), as linguist does.
    dots = [i for i, ch in enumerate(name) if ch == "."]
    for i in dots:
        if i == 0 and len(dots) == 1:
            break                     # ".bashrc" is a dot-file, not an extension
        ext = name[i:]
        found = exact.get(ext) or folded.get(ext.lower())
        if found:
            return found
    return None


def detect(path: str) -> str | None:
    """The language of a file by its name (None: no language)."""
    base = posixpath.basename(path)
    named = FILENAMES.get(base.lower())
    return named or _by_extension(base)


def is_vendored(path: str) -> bool:
    return bool(_VENDOR.search(path))


def is_documentation(path: str) -> bool:
    return bool(_DOCUMENTATION.search(path))


def is_generated(path: str) -> bool:
    return bool(_GENERATED.search(path))


def is_dot_file(path: str) -> bool:
    return posixpath.basename(path).startswith(".")


def is_configuration(path: str) -> bool:
    base = posixpath.basename(path)
    if base in FILENAMES and FILENAMES[base] not in CONFIGURATION:
        return False
    return _by_extension(base) in CONFIGURATION


# .gitattributes ------------------------------------------------------------------------

LINGUIST = ("linguist-language", "gitlab-language", "linguist-vendored",
            "linguist-generated", "linguist-documentation", "linguist-detectable")
_TRUE = {"", "true", "set", "1", "yes"}


@dataclass(frozen=True)
class Rule:
    pattern: re.Pattern
    values: dict                     # attribute -> True | False | str


def _glob(pattern: str) -> re.Pattern:
    """A gitattributes pattern as a regex over the path from the root: a pattern with
    no slash (but a trailing one) matches the base name at any depth."""
    anchored = "/" in pattern.rstrip("/")
    pattern = pattern.lstrip("/")
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("/.*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 2:]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1:end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    prefix = "^" if anchored else r"(?:^|/)"
    return re.compile(prefix + "".join(out) + "$")


def parse_attributes(text: str) -> list[Rule]:
    """The linguist attributes of a ``.gitattributes`` (other attributes ignored)."""
    rules = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or line.startswith("[attr]"):
            continue
        pattern, *settings = line.split()
        values: dict = {}
        for setting in settings:
            if setting[:1] in "-!":
                name, value = setting[1:], False
            elif "=" in setting:
                name, _, text_value = setting.partition("=")
                value = text_value
            else:
                name, value = setting, True
            if name not in LINGUIST:
                continue
            if name.endswith("-language"):
                if isinstance(value, str) and value and value != "unspecified":
                    values["linguist-language"] = value
                continue
            values[name] = value.lower() in _TRUE if isinstance(value, str) else value
        if values:
            try:
                rules.append(Rule(_glob(pattern), values))
            except re.error:
                continue
    return rules


def attributes_for(rules: list[Rule], path: str) -> dict:
    """The linguist attributes of ``path``: the last matching line wins per attribute."""
    found: dict = {}
    for rule in rules:
        if rule.pattern.search(path):
            found.update(rule.values)
    return found


def counted_language(path: str, rules: list[Rule]) -> str | None:
    """The language whose bytes this file adds to, or None (what Forgejo skips)."""
    attrs = attributes_for(rules, path) if rules else {}
    detectable = attrs.get("linguist-detectable")
    if detectable is False:
        return None
    for name, check in (("linguist-vendored", is_vendored),
                        ("linguist-generated", is_generated),
                        ("linguist-documentation", is_documentation)):
        value = attrs.get(name)
        if value is True or (value is None and check(path)):
            return None
    if is_dot_file(path) or is_configuration(path):
        return None
    override = attrs.get("linguist-language")
    if override:
        return group_of(_canonical(override))
    language = detect(path)
    if language is None:
        return None
    language = group_of(language)
    kind = language_type(language)
    if kind in (PROGRAMMING, MARKUP) or detectable is True:
        return language
    if kind == PROSE and attrs.get("linguist-documentation") is False:
        return language
    return None


def _canonical(name: str) -> str:
    """Linguist matches names without regard to case, and a hyphen stands for a space
    (attribute values cannot hold one): ``linguist-language=visual-basic-.net``."""
    kinds = _tables()[2]
    if name in kinds:
        return name
    lowered = {known.lower(): known for known in kinds}
    for candidate in (name, name.replace("-", " ")):
        if candidate.lower() in lowered:
            return lowered[candidate.lower()]
    return name
