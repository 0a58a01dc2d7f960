"""The shape of the code: no import cycles, no private names across modules, no long modules.

The layer contracts themselves are in .importlinter (``make test`` runs lint-imports
before the tests); these are the rules it cannot express.
"""
from __future__ import annotations

import ast
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "chalicelib"


def _graph():
    return grimp.build_graph("chalicelib", cache_dir=None)


def _cycles(graph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(module: str) -> None:
        # Iterative Tarjan: the graph is a few hundred modules, but keep recursion flat.
        work = [(module, iter(sorted(graph.find_modules_directly_imported_by(module))))]
        index[module] = low[module] = counter[0]
        counter[0] += 1
        stack.append(module)
        on_stack.add(module)
        while work:
            node, children = work[-1]
            for child in children:
                if not child.startswith("chalicelib"):
                    continue
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))

    for module in sorted(graph.modules):
        if module.startswith("chalicelib") and module not in index:
            visit(module)
    return found


def _is_package_init_edge(importer: str, imported: str) -> bool:
    # A package's __init__ importing its own submodules is not a design cycle.
    return imported.startswith(importer + ".") or importer.startswith(imported + ".")


def test_no_import_cycles():
    graph = _graph()
    for importer in list(graph.modules):
        for imported in list(graph.find_modules_directly_imported_by(importer)):
            if _is_package_init_edge(importer, imported):
                graph.remove_import(importer=importer, imported=imported)
    assert _cycles(graph) == []


def _module_names() -> dict[Path, str]:
    return {path: ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            for path in PACKAGE.rglob("*.py")}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def test_no_private_name_crosses_a_module():
    offences = []
    for path, module in _module_names().items():
        tree = ast.parse(path.read_text(), str(path))
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("chalicelib"):
                for alias in node.names:
                    if _private(alias.name):
                        offences.append(f"{module}: from {node.module} import {alias.name}")
                    aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("chalicelib"):
                        aliases[alias.asname or alias.name.split(".")[0]] = alias.name
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and _private(node.attr)
                    and isinstance(node.value, ast.Name) and node.value.id in aliases
                    and aliases[node.value.id] != module):
                offences.append(f"{module}: {node.value.id}.{node.attr}")
    assert offences == []


# Past this a module holds a second subject; split it (docs/architecture.md).
LONGEST_MODULE = 450


def test_no_module_is_longer_than_450_lines():
    long = {str(path.relative_to(ROOT)): count for path in sorted(PACKAGE.rglob("*.py"))
            if (count := len(path.read_text().splitlines())) > LONGEST_MODULE}
    assert not long, f"split these modules (lines): {long}"
