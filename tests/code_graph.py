"""What the packaged code can call, read from its source without running it: the graph
tests/iam_static.py walks from each Lambda function's entry points to its AWS calls.

A node is a module's import-time code (``"chalicelib.aws:"``), a top-level function
(``"chalicelib.aws:client"``), a class (``"m:Cls"``), a method (``"m:Cls.meth"``) or a
top-level table or constant (``"m:NAME"``: reached by the code that reads it).  A
node's edges are every name in it that resolves to another node, called or not: a
function passed as a callback or put in a registry counts as called.  Names resolve
through imports (at any depth of the module: the lazy imports inside functions are the
rule here), the domains' faces (``face(__name__, {...})`` tables, chalicelib/faces.py),
chalicelib.gitstore's lazy ``_EXPORTS``, re-exports, and ``self``/``cls`` inside a class.

Over-approximations, on purpose: nested functions and lambdas belong to their enclosing
function; a reachable class makes all its methods and its app bases reachable (dulwich
and PynamoDB call our methods back from code this graph does not read); a module named to
``importlib.import_module`` makes every function of it reachable; a name bound by two
imports in one module resolves to both.  Import-time code makes a class without calling
its methods, so it reaches the constructor only.  What it cannot see: a method called
on an object whose class no reachable code names, and ``getattr`` by a computed name.
"""
from __future__ import annotations

import ast
from collections import deque
from dataclasses import dataclass, field

CONSTRUCTORS = {"__init__", "__new__", "__post_init__"}


@dataclass
class Module:
    name: str
    source: str
    tree: ast.Module
    imports: dict[str, set[str]] = field(default_factory=dict)  # local -> "mod" | "mod:attr"
    defs: dict[str, ast.AST] = field(default_factory=dict)      # top-level functions, classes
    lazy: dict[str, str] = field(default_factory=dict)          # face name -> "mod:attr"
    strings: dict[str, str] = field(default_factory=dict)       # NAME = "text" at top level
    package: bool = False                                        # an __init__.py
    values: set[str] = field(default_factory=set)                # top-level assigned names


def module_name(arcname: str) -> str:
    return arcname.removesuffix(".py").replace("/", ".").removesuffix(".__init__")


def _absolute(module: Module, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    parts = module.name.split(".")
    base = parts[: len(parts) - node.level + (1 if module.package else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def _lazy_table(package: str, tree: ast.Module) -> dict[str, str]:
    """A package's face (``face(__name__, {...})``) or lazy ``_EXPORTS`` table."""
    table = {}
    for node in ast.walk(tree):
        found = None
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "face" \
                and len(node.args) == 2 and isinstance(node.args[1], ast.Dict):
            found = node.args[1]
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict) and any(
                getattr(t, "id", "") == "_EXPORTS" for t in node.targets):
            found = node.value
        for key, value in zip(found.keys, found.values) if found else ():
            if isinstance(key, ast.Constant) and isinstance(value, ast.Constant):
                inner_module, _, inner = value.value.partition(".")
                table[key.value] = f"{package}.{inner_module}:{inner or key.value}"
    return table


def parse(name: str, source: str, package: bool = False) -> Module:
    tree = ast.parse(source)
    module = Module(name, source, tree, package=package)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                target = alias.name if alias.asname else alias.name.split(".")[0]
                module.imports.setdefault(local, set()).add(target)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, node)
            for alias in node.names:
                module.imports.setdefault(alias.asname or alias.name, set()).add(
                    f"{base}:{alias.name}")
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            module.defs[node.name] = node
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    module.strings[target.id] = node.value.value
    if package:
        module.lazy = _lazy_table(name, tree)
    return module


def packaged_modules() -> dict[str, Module]:
    """app.py and chalicelib as infra/package.py zips them (Chalice's runtime aside)."""
    from infra.package import app_files

    return {module_name(arc): parse(module_name(arc), path.read_text(),
                                    arc.endswith("/__init__.py"))
            for path, arc in app_files()
            if arc.endswith(".py") and not arc.startswith("chalice/")}


def _targets(stmt) -> list:
    return stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]


def dotted(node: ast.AST) -> list[str] | None:
    """``a.b.c`` as ["a", "b", "c"]; None when it does not start with a plain name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


class Graph:
    def __init__(self, modules: dict[str, Module]):
        self.modules = modules
        self.bodies: dict[str, list[ast.AST]] = {}   # node -> the AST it runs
        self.owner: dict[str, str] = {}              # node -> its module
        self.functions: dict[str, ast.AST] = {}      # function or method node -> its def
        self._own: dict[str, list[str]] = {}         # class -> the methods it defines
        self._methods: dict[str, list[str]] = {}
        for module in modules.values():
            self._index(module)
        self.edges = {node: self._edges(node) for node in self.bodies}

    # --- nodes ---------------------------------------------------------------------------

    def _index(self, module: Module) -> None:
        top = []
        for stmt in module.tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._add(f"{module.name}:{stmt.name}", module, [*stmt.body, stmt.args])
                self.functions[f"{module.name}:{stmt.name}"] = stmt
                top.extend(stmt.decorator_list)
            elif isinstance(stmt, ast.ClassDef):
                rest = []
                for item in stmt.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        self._add(f"{module.name}:{stmt.name}.{item.name}", module,
                                  [*item.body, item.args])
                        self.functions[f"{module.name}:{stmt.name}.{item.name}"] = item
                        self._own.setdefault(f"{module.name}:{stmt.name}", []).append(item.name)
                        rest.extend(item.decorator_list)
                    else:
                        rest.append(item)
                self._add(f"{module.name}:{stmt.name}", module,
                          [*rest, *stmt.bases, *stmt.decorator_list])
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None and \
                    all(isinstance(t, ast.Name) for t in _targets(stmt)):
                # A table or constant is its own node, reached by the code that reads it;
                # the callables its value calls run at import (their arguments are the
                # table's entries, not calls).
                for target in _targets(stmt):
                    self._add(f"{module.name}:{target.id}", module, [stmt.value])
                    module.values.add(target.id)
                top.extend(n.func for n in ast.walk(stmt.value) if isinstance(n, ast.Call))
            else:
                top.append(stmt)
        self._add(f"{module.name}:", module, top)

    def _add(self, node: str, module: Module, body: list[ast.AST]) -> None:
        self.bodies[node], self.owner[node] = body, module.name

    def methods(self, cls: str) -> list[str]:
        """A class's methods, its app bases' included."""
        if cls not in self._methods:
            self._methods[cls] = []      # a class that names itself a base ends here
            found = [f"{cls}.{name}" for name in self._own.get(cls, ())]
            for base in self.bases(cls):
                found += self.methods(base)
            self._methods[cls] = found
        return self._methods[cls]

    def bases(self, cls: str) -> set[str]:
        module, name = cls.split(":")
        node = self.modules[module].defs.get(name)
        found = set()
        for base in getattr(node, "bases", ()):
            chain = dotted(base)
            found |= {r for r in self.resolve(module, chain) if r in self.bodies} if chain else set()
        return found - {cls}

    # --- names -----------------------------------------------------------------------------

    def attribute(self, module: str, name: str, depth: int = 0) -> set[str]:
        """What ``module.name`` is: a node, a module, or nothing the app defines."""
        found = self.modules.get(module)
        if found is None or depth > 8:
            return set()
        if name in found.defs or name in found.values:
            return {f"{module}:{name}"}
        if name in found.lazy:
            target, _, inner = found.lazy[name].partition(":")
            return self.attribute(target, inner, depth + 1)
        if f"{module}.{name}" in self.modules:
            return {f"{module}.{name}"}
        return set().union(*(self.target(t, depth + 1) for t in found.imports.get(name, ())))

    def target(self, target: str, depth: int = 0) -> set[str]:
        if ":" in target:
            module, _, name = target.partition(":")
            return self.attribute(module, name, depth)
        return {target} if target in self.modules else set()

    def resolve(self, module: str, chain: list[str], cls: str | None = None) -> set[str]:
        """The nodes (or modules) a dotted name in ``module`` names."""
        first, rest = chain[0], chain[1:]
        mod = self.modules[module]
        if first in ("self", "cls") and cls and rest:
            # self.name: a method, or an attribute of the instance (nothing to follow).
            refs, rest = {m for m in self.methods(cls) if m.endswith("." + rest[0])}, rest[1:]
        elif first in mod.defs or first in mod.values:
            refs = {f"{module}:{first}"}
        else:
            refs = set().union(*(self.target(t) for t in mod.imports.get(first, ())))
        for name in rest:
            step = set()
            for ref in refs:
                if ":" not in ref:                       # a module
                    step |= self.attribute(ref, name)
                elif ref in self.bodies and self.is_class(ref):
                    step |= {m for m in self.methods(ref) if m.endswith("." + name)} or {ref}
                else:
                    step.add(ref)                        # an attribute of a function
            refs = step
        return refs

    # --- edges -----------------------------------------------------------------------------

    def names(self, body: list[ast.AST]):
        """Every dotted name read in ``body`` (longest form), and every Call node."""
        stack = list(body)
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Attribute) and (chain := dotted(node)):
                yield chain
                continue
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                yield [node.id]
            stack.extend(ast.iter_child_nodes(node))

    def calls(self, node: str):
        for stmt in self.bodies[node]:
            for found in ast.walk(stmt):
                if isinstance(found, ast.Call):
                    yield found

    def class_of(self, node: str) -> str | None:
        module, _, qual = node.partition(":")
        return f"{module}:{qual.split('.')[0]}" if "." in qual else None

    def is_class(self, node: str) -> bool:
        module, _, qual = node.partition(":")
        return "." not in qual and isinstance(self.modules[module].defs.get(qual), ast.ClassDef)

    def _edges(self, node: str) -> set[str]:
        module = self.owner[node]
        edges = {f"{module}:"} - {node}
        for chain in self.names(self.bodies[node]):
            found = {r for r in self.resolve(module, chain, self.class_of(node))
                     if r in self.bodies}
            if node.endswith(":"):
                # At import a class is only made: its constructor runs, not its methods.
                found = {m for r in found for m in (
                    [m for m in self.methods(r) if m.rsplit(".", 1)[1] in CONSTRUCTORS]
                    if self.is_class(r) else [r])}
            edges |= found
        # importlib.import_module(NAME): the module whose name NAME holds, whole.
        for call in self.calls(node):
            if dotted(call.func) in (["importlib", "import_module"], ["import_module"]) \
                    and call.args:
                arg = call.args[0]
                name = arg.value if isinstance(arg, ast.Constant) else \
                    self.modules[module].strings.get(getattr(arg, "id", ""))
                edges |= {f"{name}:{d}" for d in getattr(self.modules.get(name), "defs", ())}
        if self.is_class(node):
            edges |= set(self.methods(node)) | self.bases(node)
        return edges - {node}

    def reach(self, roots: set[str], avoid: frozenset = frozenset()) -> dict[str, str | None]:
        """Every node reachable from ``roots`` (not through ``avoid``), each with the node
        it was reached from."""
        came = {root: None for root in roots}
        queue = deque(sorted(roots))
        while queue:
            node = queue.popleft()
            for nxt in sorted(self.edges.get(node, ())):
                if nxt not in came and nxt not in avoid:
                    came[nxt] = node
                    queue.append(nxt)
        return came


def path_to(came: dict[str, str | None], node: str) -> list[str]:
    path = [node]
    while came.get(path[-1]) is not None:
        path.append(came[path[-1]])
    return path[::-1]
