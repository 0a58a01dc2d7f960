"""Keep each domain's ``__init__`` docstring true: the operations it serves, module by
module, and a table of its modules with the first lines of their docstrings.

Whoever looks for an operationId opens the domain's face and finds the routes module;
whoever opens a package sees what each module holds.  Both lists come from the code
(the generated route index, the modules' docstrings), so this script writes them and
``tests/test_structure.py`` checks they are current:

    python dev/domain_docs.py --write
    python dev/domain_docs.py --check
"""
from __future__ import annotations

import ast
import sys
import textwrap
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dev import generated as generated_files  # noqa: E402
from dev.import_contracts import PACKAGE, domains  # noqa: E402

WIDTH = 90           # operation lists wrap here
SUMMARY = 106        # a module's summary is cut (at a word) past this many characters
WRITE_COMMAND = "python dev/domain_docs.py --write"


def _operations() -> dict[str, list[str]]:
    """operationIds by the module that registers them, in the route table's order."""
    from chalicelib.http import route_index_data

    found: dict[str, list[str]] = defaultdict(list)
    for _method, _pattern, _raw, operation, module in route_index_data.ROUTES:
        if operation not in found[module]:
            found[module].append(operation)
    return found


def _summary(path: Path) -> str:
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    text = " ".join(doc.split("\n\n")[0].split())
    if len(text) <= SUMMARY:
        return text
    return text[:text.rfind(" ", 0, SUMMARY)] + " …"


def _split(doc: str) -> tuple[str, str]:
    """The docstring's own words before the generated part (operations, then the
    module table), and after it."""
    lines = doc.split("\n")
    start = next((i for i, line in enumerate(lines)
                  if line.startswith(("Operations (", "| module |"))), None)
    if start is None:
        return doc.rstrip(), ""
    table = next((i for i in range(start, len(lines)) if lines[i].startswith("| module |")), None)
    end = start
    if table is None:
        while end < len(lines) and lines[end].strip():
            end += 1
    else:
        end = table
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
    return "\n".join(lines[:start]).rstrip(), "\n".join(lines[end:]).strip()


def generated(domain, operations: dict[str, list[str]]) -> str:
    parts = []
    for module in domain.modules:
        ops = operations.get(domain.module(module))
        if ops:
            parts.append(textwrap.fill(f"Operations (``{module}.py``): {', '.join(ops)}.",
                                       WIDTH, break_on_hyphens=False))
    rows = ["| module | what it holds |", "|---|---|"]
    rows += [f"| ``{module}`` | {_summary(PACKAGE / domain.name / f'{module}.py')} |"
             for module in domain.modules]
    return ("\n".join(parts) + "\n\n" if parts else "") + "\n".join(rows)


def rendered(domain, operations) -> tuple[Path, str]:
    path = PACKAGE / domain.name / "__init__.py"
    source = path.read_text()
    tree = ast.parse(source)
    node = tree.body[0]
    doc = ast.get_docstring(tree, clean=False) or ""
    intro, outro = _split(doc)
    body = intro + "\n\n" + generated(domain, operations) + ("\n\n" + outro if outro else "") + "\n"
    rest = "\n".join(source.split("\n")[node.end_lineno:])
    return path, f'"""{body}"""\n{rest}'


def main(argv: list[str] | None = None) -> int:
    def wanted() -> dict[Path, str]:
        operations = _operations()
        return dict(rendered(domain, operations) for domain in domains())

    return generated_files.main(argv, "Write or check the domains' docstrings.", wanted,
                                WRITE_COMMAND)


if __name__ == "__main__":
    sys.exit(main())
