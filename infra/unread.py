"""What in the Lambda package something reads, measured from the app's own modules.

``reach`` walks the import graph of a package tree from its roots (app.py, chalicelib,
Chalice's runtime module).  A module is reached

- *required*: by an ``import`` or ``from … import`` at any depth (inside a function
  too: a lazy import runs when its path does), ``import_module``/``__import__`` of a
  literal, or an extension module's own import as it loads (EXTENSION_IMPORTS, which
  Python source cannot show; tests/test_package.py measures them);
- *optional*: by such an import inside a ``try`` whose ``except`` takes ImportError,
  or from a package's list of submodules it imports one by one under such a ``try``
  (NAMED_LISTS: Pillow's drivers): the importer works without it;
- *by name*: by a string constant naming it (boto3's handlers registered by name, the
  tables Pygments and mistune load from): loaded when someone asks for that name.

Imports under ``if TYPE_CHECKING`` never run.  An import whose name is computed could
load anything: each one in a reached module is accounted for in DYNAMIC_IMPORTS, or
``Reach.unaccounted`` lists it.  The tree may hold modules the package does not carry
(the Lambda runtime's own SDK): they pass their imports on like any other.

``unread`` lists what nothing reads among the package's files: modules not reached,
shared libraries no reached extension links (ELF ``DT_NEEDED``, followed through the
libraries), data files whose reader is not reached (DATA_READERS), type stubs and C
sources, and the installers' part of a distribution's record.  Of ``*.dist-info`` the
package keeps ``METADATA`` (what ``importlib.metadata`` reads), the licence texts,
which must travel with the code they cover, and entry points of any group but the
installers' own.
"""
from __future__ import annotations

import ast
import fnmatch
import hashlib
import re
import struct
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

# An extension module's file: its name, then the ABI tag.
_EXTENSION = re.compile(r"^([A-Za-z_]\w*)\.(?:cpython-\d+-[\w-]+|abi3)\.so$")
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
# Part of each cached entry's key: changes when what edges() finds does.
_EDGES_VERSION = 1
_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}
_LICENCE = re.compile(r"(^|/)(LICEN[CS]E|COPYING|NOTICE|AUTHORS)[^/]*$", re.IGNORECASE)
# Entry point groups that only installers, setuptools and Babel read.
_INSTALL_GROUPS = {"console_scripts", "gui_scripts", "distutils.setup_keywords",
                   "distutils.commands", "babel.extractors", "egg_info.writers"}

# What an extension module imports as it loads.  cryptography's Rust bindings carry
# the cffi-built OpenSSL module, which loads cffi's binary backend.
EXTENSION_IMPORTS = {"cryptography.hazmat.bindings._rust": ("_cffi_backend",)}
# module: (package, name of a list in it): the module imports package.<name> for each
# name of the list, each under try/except ImportError.  Image.init() does so for
# PIL._plugins, on any upload that the first five drivers do not open.
NAMED_LISTS = {"PIL.Image": ("PIL", "_plugins")}
# Computed imports in modules the app reaches, and what they can load.
DYNAMIC_IMPORTS = {
    "PIL.Image": "the drivers listed in PIL._plugins (NAMED_LISTS)",
    "dulwich": "the targets of deprecated names, given as dotted strings (followed)",
    "jinja2.utils": "import_string() of names given to an environment: the app gives none",
    "jinja2.loaders": "PackageLoader and ModuleLoader; the app loads templates from files",
    "mistune.plugins": "plugins named in mistune.plugins.PLUGINS, dotted strings (followed)",
    "pygments.formatters": "modules named in its _mapping table, dotted strings (followed)",
    "pygments.lexers": "modules named in its _mapping table, dotted strings (followed)",
    "pygments.styles": "modules named in its _mapping table, dotted strings (followed)",
    "yaml.constructor": "classes named by !!python tags, which only the unsafe loaders "
                        "read (the app calls safe_load)",
    # The runtime's SDK, in the graph for what it imports from the zip.
    "boto3.utils": "the handlers boto3.session registers by name, dotted strings (followed)",
    "botocore.plugin": "plugins named by BOTOCORE_EXPERIMENTAL__PLUGINS, which no function sets",
    "botocore.vendored.six": "six.moves: standard library modules",
    "dateutil": "its own submodules, on first use of their names",
    "six": "six.moves: standard library modules",
}
# Data files (globs) and the module that opens them.
DATA_READERS = (
    ("data_languages/*.json", "data_languages"),
    ("markup_languages/*.json", "markup_languages"),
    ("programming_languages/*.json", "programming_languages"),
    ("prose_languages/*.json", "prose_languages"),
)


@dataclass(frozen=True)
class Edge:
    target: str
    kind: str               # "required" | "optional" | "by name" | "submodule"
    line: int


@dataclass
class Reach:
    """Modules reached, each under the strongest way it is: required, optional, by name."""
    kinds: dict[str, str] = field(default_factory=dict)
    via: dict[str, str] = field(default_factory=dict)       # module: first "module:line"
    unaccounted: list[str] = field(default_factory=list)    # computed imports
    imports: dict[str, list[Edge]] = field(default_factory=dict)   # of each module read
    keys: set[str] = field(default_factory=set)     # the entries of ``known`` it used

    def __contains__(self, module: str) -> bool:
        return module in self.kinds


def module_name(name: str) -> str | None:
    """The module a package file (a name in the zip) holds, or None for data."""
    head, _, tail = name.rpartition("/")
    if tail.endswith(".py"):
        dotted = (f"{head}/" if head else "") + tail[:-3]
    else:
        match = _EXTENSION.match(tail)
        if not match:
            return None
        dotted = (f"{head}/" if head else "") + match.group(1)
    parts = dotted.split("/")
    if parts[-1] == "__init__":
        parts.pop()
    if not parts or not all(part.isidentifier() for part in parts):
        return None
    return ".".join(parts)


def modules_of(names: Iterable[str]) -> dict[str, str]:
    """module: file name, for the files of a tree that are modules."""
    found = {}
    for name in sorted(names):
        module = module_name(name)
        if module and (module not in found or name.endswith(".py")):
            found[module] = name
    return found


def _guards_imports(handlers: list[ast.ExceptHandler]) -> bool:
    for handler in handlers:
        caught = handler.type
        names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
        if caught is None or any(getattr(n, "id", getattr(n, "attr", "")) in _IMPORT_ERRORS
                                 for n in names):
            return True
    return False


def _type_checking(test: ast.expr) -> bool:
    return getattr(test, "id", getattr(test, "attr", "")) == "TYPE_CHECKING"


def _dotted(node: ast.expr) -> str:
    return ast.unparse(node) if isinstance(node, (ast.Name, ast.Attribute)) else ""


def _other_platform(test: ast.expr) -> bool:
    """Whether ``test`` holds only off Linux (``sys.platform == "win32"``, ``os.name ==
    "nt"``, ``sys.platform.startswith("darwin")``): Lambda never runs that branch."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        for a, b in ((test.left, test.comparators[0]), (test.comparators[0], test.left)):
            if _dotted(a) in ("sys.platform", "os.name") and isinstance(b, ast.Constant):
                return b.value not in ("linux", "posix")
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) \
            and test.func.attr == "startswith" and _dotted(test.func.value) == "sys.platform" \
            and test.args and isinstance(test.args[0], ast.Constant) \
            and isinstance(test.args[0].value, str):
        return not "linux".startswith(test.args[0].value)
    return False


def edges(source: str, module: str, is_package: bool) -> tuple[list[Edge], list[int]]:
    """The imports of one module, and the lines of its computed imports."""
    package = module if is_package else module.rpartition(".")[0]
    found: list[Edge] = []
    computed: list[int] = []

    def absolute(base: str, level: int) -> str:
        if not level:
            return base
        parts = package.split(".")[:len(package.split(".")) - level + 1]
        return ".".join(parts + ([base] if base else []))

    def visit(node: ast.AST, kind: str) -> None:
        if isinstance(node, ast.If) and (_type_checking(node.test)
                                         or _other_platform(node.test)):
            for child in node.orelse:
                visit(child, kind)
            return
        if isinstance(node, ast.Try):
            inner = "optional" if _guards_imports(node.handlers) else kind
            for child in node.body:
                visit(child, inner)
            for child in [*node.handlers, *node.orelse, *node.finalbody]:
                visit(child, kind)
            return
        if isinstance(node, ast.Import):
            found.extend(Edge(alias.name, kind, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = absolute(node.module or "", node.level)
            found.append(Edge(base, kind, node.lineno))
            found.extend(Edge(f"{base}.{alias.name}", "optional" if kind == "optional"
                              else "submodule", node.lineno) for alias in node.names)
        elif isinstance(node, ast.Call) and getattr(
                node.func, "attr", getattr(node.func, "id", None)) in ("import_module",
                                                                       "__import__"):
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                level = len(first.value) - len(first.value.lstrip("."))
                found.append(Edge(absolute(first.value.lstrip("."), level), kind,
                                  node.lineno))
            else:
                computed.append(node.lineno)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and _DOTTED.fullmatch(node.value):
            found.append(Edge(node.value, "by name", node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child, kind)

    visit(ast.parse(source), "required")
    return found, computed


def _named_list(files: Mapping[str, Path], modules: dict[str, str], package: str,
                name: str) -> list[str]:
    tree = ast.parse(files[modules[package]].read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name
                                                for t in node.targets):
            return [f"{package}.{item}" for item in ast.literal_eval(node.value)]
    raise LookupError(f"{package} no longer assigns the list {name} (NAMED_LISTS)")


_STRENGTH = {"required": 3, "optional": 2, "by name": 1}


def _edges_of(name: str, path: Path, module: str, known: dict | None, keys: set[str]):
    data = path.read_bytes()
    key = f"{_EDGES_VERSION}:{name}:{hashlib.sha1(data, usedforsecurity=False).hexdigest()}"
    keys.add(key)
    if known is not None and key in known:
        listed, computed = known[key]
        return [Edge(*edge) for edge in listed], computed
    found, computed = edges(data.decode("utf-8", "replace"), module,
                            name.endswith("__init__.py"))
    if known is not None:
        known[key] = [[[e.target, e.kind, e.line] for e in found], computed]
    return found, computed


def reach(files: Mapping[str, Path], roots: Iterable[str], known: dict | None = None) -> Reach:
    """What the ``roots`` reach among the modules of ``files`` (name: where to read).

    ``known``: the imports of files already read, by name and content; filled in."""
    modules = modules_of(files)
    roots = set(roots)
    found = Reach()
    cache: dict[str, tuple[list[Edge], list[int]]] = {}
    work = [(root, "required", "root") for root in roots]
    while work:
        module, kind, via = work.pop()
        if kind == "by name" and module not in modules:
            # A dotted string names its longest prefix that is a module, if any.
            module = next((m for m in _prefixes(module) if m in modules), "")
        if module not in modules or _STRENGTH[kind] <= _STRENGTH.get(
                found.kinds.get(module, ""), 0):
            continue
        found.kinds[module] = kind
        found.via[module] = via       # how it was reached this strongly
        parents = module.split(".")
        work += [(".".join(parents[:i]), kind, module) for i in range(1, len(parents))]
        name = modules[module]
        if not name.endswith(".py"):
            work += [(target, kind, module) for target in EXTENSION_IMPORTS.get(module, ())]
            continue
        if module not in cache:
            cache[module] = _edges_of(name, files[name], module, known, found.keys)
            found.imports[module] = cache[module][0]
            if cache[module][1] and module not in DYNAMIC_IMPORTS and module not in roots:
                found.unaccounted += [f"{name}:{line}" for line in cache[module][1]]
        for edge in cache[module][0]:
            # ``from a import b`` imports a.b only when b is a module: as strongly as a.
            strength = kind if edge.kind == "submodule" else _weaker(kind, edge.kind)
            work.append((edge.target, strength, f"{module}:{edge.line}"))
        if module in NAMED_LISTS:
            package, list_name = NAMED_LISTS[module]
            work += [(target, _weaker(kind, "optional"), module)
                     for target in _named_list(files, modules, package, list_name)]
    return found


def _prefixes(dotted: str) -> list[str]:
    parts = dotted.split(".")
    return [".".join(parts[:i]) for i in range(len(parts) - 1, 1, -1)]


def _weaker(a: str, b: str) -> str:
    return a if _STRENGTH[a] <= _STRENGTH[b] else b


# ---- shared libraries -------------------------------------------------------------------

def needed(data: bytes) -> list[str]:
    """The libraries (``DT_NEEDED``) an ELF64 little-endian shared object links."""
    if data[:4] != b"\x7fELF" or data[4:6] != b"\x02\x01":
        raise ValueError("not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
                for i in range(shnum)]
    names = []
    for _, kind, _, _, offset, size, link, _, _, _ in sections:
        if kind != 6:                               # SHT_DYNAMIC
            continue
        strings = sections[link][4]
        for at in range(offset, offset + size, 16):
            tag, value = struct.unpack_from("<qQ", data, at)
            if tag == 0:
                break
            if tag == 1:                            # DT_NEEDED
                end = data.index(b"\0", strings + value)
                names.append(data[strings + value:end].decode())
    return names


def linked(files: Mapping[str, Path], extensions: Iterable[str]) -> set[str]:
    """File names of the shared libraries that ``extensions`` link, at any depth."""
    by_base = {}
    for name in files:
        if ".so" in name.rsplit("/", 1)[-1]:
            by_base.setdefault(name.rsplit("/", 1)[-1], name)
    found: set[str] = set()
    work = list(extensions)
    while work:
        for library in needed(files[work.pop()].read_bytes()):
            name = by_base.get(library)
            if name and name not in found:
                found.add(name)
                work.append(name)
    return found


# ---- what nothing reads ------------------------------------------------------------------

def distribution_files(files: Mapping[str, Path]) -> dict[str, set[str]]:
    """dist-info directory: the files its RECORD lists (empty when RECORD is gone)."""
    owned: dict[str, set[str]] = {}
    for name, path in files.items():
        if name.endswith(".dist-info/RECORD"):
            listed = {line.split(",", 1)[0] for line in path.read_text().splitlines()}
            owned[name.rsplit("/", 1)[0]] = listed
    return owned


def unread(files: Mapping[str, Path], found: Reach, candidates: Iterable[str],
           owners: Mapping[str, set[str]] | None = None) -> list[str]:
    """The ``candidates`` (names of ``files``) that nothing reads, given ``found``.

    ``owners``: which files each distribution installed (read off its RECORD before
    that goes); a distribution none of whose files is read needs no record either."""
    modules = modules_of(files)
    reached = {modules[m] for m in found.kinds}
    libraries = linked(files, [n for n in reached if not n.endswith(".py")])
    owners = owners if owners is not None else distribution_files(files)
    out = []
    read: set[str] = set()
    for name in sorted(candidates):
        if ".dist-info/" in name:
            continue
        if name in reached or name in libraries or any(
                fnmatch.fnmatch(name, pattern) and reader in found
                for pattern, reader in DATA_READERS):
            read.add(name)
        else:
            out.append(name)
    for name in sorted(candidates):
        if ".dist-info/" in name:
            record = name.split(".dist-info/")[0] + ".dist-info"
            if not (owners.get(record, set()) & read) or not _kept_record(name, files):
                out.append(name)
    return out


def _kept_record(name: str, files: Mapping[str, Path]) -> bool:
    tail = name.split(".dist-info/", 1)[1]
    if tail == "METADATA" or _LICENCE.search(tail):
        return True
    if tail == "entry_points.txt":
        groups = {line.strip()[1:-1] for line in files[name].read_text().splitlines()
                  if line.strip().startswith("[")}
        return bool(groups - _INSTALL_GROUPS)
    return False


def standard_library(module: str) -> bool:
    return module.split(".")[0] in sys.stdlib_module_names
