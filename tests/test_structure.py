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


def _face_tables() -> dict[str, dict[str, tuple[str, str]]]:
    """Every domain's face: package -> {name: (module, attribute)}."""
    import importlib
    import pkgutil

    import chalicelib
    from chalicelib import faces

    for info in pkgutil.iter_modules(chalicelib.__path__):
        if info.ispkg:
            importlib.import_module(f"chalicelib.{info.name}")
    return dict(faces.TABLES)


def _names_used_from(tree: ast.AST, package: str) -> set[str]:
    """The names a module takes from ``package``: ``from package import a`` and, for
    ``from chalicelib import domain [as alias]``, every ``alias.a``."""
    names, aliases = set(), set()
    parent, _, leaf = package.rpartition(".")
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == package:
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module == parent:
            aliases.update(alias.asname or alias.name for alias in node.names
                           if alias.name == leaf)
    names.update(node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                 and isinstance(node.value, ast.Name) and node.value.id in aliases)
    return names


def _through_faces(graph) -> None:
    """Replace each import of a domain's face by imports of the modules behind the names
    taken from it: a face loads those lazily (chalicelib/faces.py), so the edge to the
    face alone would hide a cycle through it."""
    tables = _face_tables()
    modules = _module_names()
    trees = {module: ast.parse(path.read_text(), str(path)) for path, module in modules.items()}
    for importer in list(graph.modules):
        for package in set(graph.find_modules_directly_imported_by(importer)) & tables.keys():
            if importer == package or importer.startswith(package + "."):
                continue
            graph.remove_import(importer=importer, imported=package)
            for name in _names_used_from(trees[importer], package):
                if name in tables[package]:
                    graph.add_import(importer=importer, imported=tables[package][name][0])


def test_no_import_cycles():
    """No cycle among modules, seen through the faces."""
    graph = _graph()
    _through_faces(graph)
    for importer in list(graph.modules):
        for imported in list(graph.find_modules_directly_imported_by(importer)):
            if _is_package_init_edge(importer, imported):
                graph.remove_import(importer=importer, imported=imported)
    assert _cycles(graph) == []


def test_every_face_name_resolves_and_hides_no_module():
    """Each name a face lists is there, and none is the name of one of the package's
    modules (importing that module would replace the name on the package)."""
    import importlib

    wrong = []
    for package, table in _face_tables().items():
        face = importlib.import_module(package)
        submodules = {path.stem for path in (PACKAGE / package.split(".")[1]).glob("*.py")}
        for name, (module, attribute) in table.items():
            if name in submodules:
                wrong.append(f"{package}.{name} hides the module {package}.{name}")
            elif not hasattr(importlib.import_module(module), attribute):
                wrong.append(f"{package}.{name}: {module} has no {attribute}")
            elif getattr(face, name) is not getattr(importlib.import_module(module), attribute):
                wrong.append(f"{package}.{name} is not {module}.{attribute}")
    assert wrong == []


def test_every_model_lives_in_a_models_module():
    """Items are declared in ``<package>/models.py`` (or the store kernel's outbox): the
    table loads those modules to know every kind (store/table.py ``load_every_model``)."""
    from chalicelib.store import table

    table.load_every_model()
    allowed = {"chalicelib.store.table", *table.KERNEL_MODEL_MODULES}
    misplaced = sorted(f"{model.__module__}.{model.__name__}"
                       for model in table.Item.kind.get_registered_subclasses(table.Item)
                       if model.__module__ not in allowed
                       and not model.__module__.endswith(".models"))
    assert misplaced == []


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
# Generated tables are one subject however long they grow (a row per route).
GENERATED = {"chalicelib/http/route_index_data.py"}


def test_no_module_is_longer_than_450_lines():
    long = {str(path.relative_to(ROOT)): count for path in sorted(PACKAGE.rglob("*.py"))
            if (count := len(path.read_text().splitlines())) > LONGEST_MODULE
            and str(path.relative_to(ROOT)) not in GENERATED}
    assert not long, f"split these modules (lines): {long}"


def test_generated_contracts_and_domain_docstrings_are_current():
    """``.importlinter``'s generated contracts and each domain's docstring (operations,
    module table) match the tree (dev/import_contracts.py, dev/domain_docs.py)."""
    from dev import domain_docs, import_contracts

    assert import_contracts.main(["--check"]) == 0, import_contracts.WRITE_COMMAND
    assert domain_docs.main(["--check"]) == 0, domain_docs.WRITE_COMMAND
