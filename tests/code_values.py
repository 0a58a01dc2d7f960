"""Where a string the code passes to AWS comes from, read from the source
(tests/iam_static.py asks it for object keys and parameter names).

``Tracer.starts(node, expr)`` gives the ways the string can begin: a literal, an
f-string's leading text, a key builder's returned f-string, a module constant, a
setting (``get_settings().aws.NAME`` read at test time), a value a table names for a
function (``known``), or, when the string is a parameter of the function, whatever
every reachable caller passes for it.  A collection stands for its elements (a list of
keys begins as its keys do), a listing's ``o["Key"]`` as the listing's ``Prefix``, and
a field named in ``KEY_FIELDS`` as whatever the code stores in it.  What it cannot
follow comes back as ``Unknown`` with the source text, so a check built on it fails
instead of guessing.
"""
from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from tests.code_graph import Graph, dotted

# Fields that carry object keys from where they are made to where they are used: a
# release asset's key (releases/models.py), a large event's (jobs/relay.py's message).
KEY_FIELDS = {"s3_key", "stored_at"}
# Calls that hand back (a collection of) the value they are given.
PASSING = {"str", "list", "sorted", "set", "tuple", "frozenset"}


@dataclass(frozen=True)
class Unknown:
    where: str
    text: str


class Tracer:
    """Follows strings through ``graph``; ``known``: function node -> the value it returns."""

    def __init__(self, graph: Graph, known: dict[str, Callable[[], str]]):
        self.graph, self.known = graph, known
        self._fields: dict[str, set] = {}
        self.sites: dict[str, list[tuple[str, ast.Call]]] = {}
        for node in graph.bodies:
            module = graph.owner[node]
            for call in graph.calls(node):
                if chain := dotted(call.func):
                    for callee in graph.resolve(module, chain, graph.class_of(node)):
                        self.sites.setdefault(callee, []).append((node, call))

    def starts(self, node: str, expr, reach: dict, depth: int = 0) -> set:
        """How the string ``expr`` in ``node`` can begin (see the module docstring);
        parameters are followed to the call sites among ``reach``'s nodes."""
        if expr is None or depth > 14:
            return {Unknown(node, "(nothing to follow)" if expr is None else "(too deep)")}
        found = set()
        for start in self._starts(node, expr, depth):
            if isinstance(start, tuple):          # ("param", name, index)
                found |= self._callers(node, start[1], start[2], reach, depth)
            else:
                found.add(start)
        return found

    def _callers(self, node: str, name: str, index: int, reach: dict, depth: int) -> set:
        found = set()
        for caller, call in self.sites.get(node, ()):
            if caller not in reach:
                continue
            arg = next((k.value for k in call.keywords if k.arg == name), None)
            if arg is None and index < len(call.args) and not any(
                    isinstance(a, ast.Starred) for a in call.args[:index + 1]):
                arg = call.args[index]
            if arg is None:
                found.add(Unknown(caller, f"(no argument {name} in its call of {node})"))
                continue
            found |= self.starts(caller, arg, reach, depth + 1)
        return found or {Unknown(node, f"(no reachable call passes {name})")}

    def _text(self, expr) -> str:
        return ast.unparse(expr)[:120]

    def _starts(self, node: str, expr, depth: int) -> set:
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return {expr.value}
        if isinstance(expr, ast.JoinedStr):
            first = expr.values[0] if expr.values else ast.Constant("")
            if isinstance(first, ast.FormattedValue):
                return self._starts(node, first.value, depth + 1)
            return {first.value}
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
            return self._starts(node, expr.left, depth + 1)
        if isinstance(expr, ast.IfExp):
            return self._starts(node, expr.body, depth + 1) | self._starts(node, expr.orelse,
                                                                           depth + 1)
        if isinstance(expr, ast.BoolOp):
            return set().union(*(self._starts(node, v, depth + 1) for v in expr.values))
        if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
            return set().union(set(), *(self._starts(node, e, depth + 1) for e in expr.elts))
        if isinstance(expr, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            return self._starts(node, expr.elt, depth + 1)
        if isinstance(expr, ast.Subscript):
            entry = expr.slice.value if isinstance(expr.slice, ast.Constant) else None
            if entry == "Key":
                return self._listed(node, depth)
            if entry in KEY_FIELDS:
                return {s for s in self._stored(entry, depth) if not isinstance(s, tuple)} \
                    or {Unknown(node, self._text(expr))}
            return self._starts(node, expr.value, depth + 1)
        if isinstance(expr, ast.Name):
            return self._name(node, expr.id, depth)
        if isinstance(expr, ast.Attribute):
            return self._attribute(node, expr, depth)
        if isinstance(expr, ast.Call):
            return self._call(node, expr, depth)
        return {Unknown(node, self._text(expr))}

    def _listed(self, node: str, depth: int) -> set:
        """A key read from a listing in ``node``: as the listing's ``Prefix`` begins."""
        found = set()
        for call in self.graph.calls(node):
            for keyword in call.keywords:
                if keyword.arg == "Prefix":
                    found |= self._starts(node, keyword.value, depth + 1)
        return found or {Unknown(node, "a listed key, with no listing in the function")}

    def _setting(self, chain: list[str]):
        from chalicelib.settings import get_settings

        section, name = chain[-2:]
        return getattr(getattr(get_settings(), section.lower(), None), name, None)

    def _attribute(self, node: str, expr: ast.Attribute, depth: int) -> set:
        chain, names, base = dotted(expr) or [], [], expr
        while isinstance(base, ast.Attribute):
            names.insert(0, base.attr)
            base = base.value
        if len(names) >= 2 and names[-1].isupper() and isinstance(
                value := self._setting(names), str):
            return {value}
        graph, module = self.graph, self.graph.owner[node]
        found = set()
        for ref in graph.resolve(module, chain, graph.class_of(node)) if chain else ():
            if ref in graph.functions:                       # a property or a method
                found |= {s for s in self._returns(ref, depth) if not isinstance(s, tuple)}
        if not found and expr.attr in KEY_FIELDS:
            found = {s for s in self._stored(expr.attr, depth) if not isinstance(s, tuple)}
        if not found:
            # A property of whatever object it is read from: the app's definitions of it.
            props = [n for n, d in graph.functions.items() if n.endswith("." + expr.attr)
                     and any(dotted(x) == ["property"] for x in d.decorator_list)]
            for prop in props:
                found |= {s for s in self._returns(prop, depth) if not isinstance(s, tuple)}
        return found or {Unknown(node, self._text(expr))}

    def _stored(self, field: str, depth: int) -> set:
        """What the code stores in a field that holds keys, wherever it does: a model's
        attribute (``Model(field=...)``, ``obj.field = ...``) or a message's entry
        (``{"field": ...}``)."""
        if field in self._fields:
            return self._fields[field]
        self._fields[field] = found = set()
        for node in self.graph.bodies:
            for stmt in self.graph.bodies[node]:
                for sub in ast.walk(stmt):
                    values = []
                    if (isinstance(sub, ast.keyword) and sub.arg == field) or (
                            isinstance(sub, ast.Assign) and any(
                                isinstance(t, ast.Attribute) and t.attr == field
                                for t in sub.targets)):
                        values = [sub.value]
                    elif isinstance(sub, ast.Dict):
                        values = [v for k, v in zip(sub.keys, sub.values)
                                  if isinstance(k, ast.Constant) and k.value == field]
                    for value in values:
                        if not _reads(value, field):   # a copy from field to field adds nothing
                            found |= self._starts(node, value, depth + 1)
        return found

    def _returns(self, function: str, depth: int) -> set:
        if function in self.known:
            return {self.known[function]()}
        found = set()
        for stmt in self.graph.bodies[function]:
            for ret in ast.walk(stmt):
                if isinstance(ret, (ast.Return, ast.Yield, ast.YieldFrom)) \
                        and ret.value is not None:
                    found |= self._starts(function, ret.value, depth + 1)
        return found

    def _call(self, node: str, call: ast.Call, depth: int) -> set:
        graph, module = self.graph, self.graph.owner[node]
        chain = dotted(call.func)
        if chain and chain[-1] in PASSING and call.args:
            return self._starts(node, call.args[0], depth + 1)
        found = set()
        for callee in graph.resolve(module, chain, graph.class_of(node)) if chain else ():
            if callee not in graph.functions:
                continue
            for start in self._returns(callee, depth):
                if isinstance(start, tuple):       # the callee's parameter: this call's argument
                    arg = next((k.value for k in call.keywords if k.arg == start[1]), None)
                    if arg is None and start[2] < len(call.args):
                        arg = call.args[start[2]]
                    found |= self._starts(node, arg, depth + 1) if arg is not None else \
                        {Unknown(node, self._text(call))}
                else:
                    found.add(start)
        return found or {Unknown(node, self._text(call))}

    def _name(self, node: str, name: str, depth: int) -> set:
        graph = self.graph
        function = graph.functions.get(node)
        if function is not None:
            params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
            if params[:1] in (["self"], ["cls"]):
                params = params[1:]
            keywords = [a.arg for a in function.args.kwonlyargs]
            found = set()
            for stmt in graph.bodies[node]:
                found |= self._assigned(node, stmt, name, depth)
            if found:
                return found
            if name in params:
                return {("param", name, params.index(name))}
            if name in keywords:
                return {("param", name, 10_000)}
        module = graph.modules[graph.owner[node]]
        for stmt in module.tree.body:
            if isinstance(stmt, ast.Assign) and any(getattr(t, "id", "") == name
                                                     for t in stmt.targets):
                return self._starts(f"{module.name}:", stmt.value, depth + 1)
        return {Unknown(node, name)}

    def _assigned(self, node: str, stmt, name: str, depth: int) -> set:
        """What ``name`` is bound to by assignments and loops in ``stmt``."""
        found = set()
        for sub in ast.walk(stmt):
            pairs = []
            if isinstance(sub, ast.Assign):
                pairs = [(t, sub.value) for t in sub.targets]
            elif isinstance(sub, (ast.AnnAssign, ast.NamedExpr)) and sub.value is not None:
                pairs = [(sub.target, sub.value)]
            elif isinstance(sub, (ast.For, ast.comprehension)):
                pairs = [(sub.target, sub.iter)]
            for target, value in pairs:
                if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Slice):
                    target = target.value            # names[:] = ... fills the list
                if isinstance(target, ast.Name) and target.id == name:
                    found |= self._starts(node, value, depth + 1)
                elif isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
                    for t, v in zip(target.elts, value.elts):
                        if isinstance(t, ast.Name) and t.id == name:
                            found |= self._starts(node, v, depth + 1)
                elif isinstance(target, ast.Tuple) and any(
                        getattr(t, "id", "") == name for t in target.elts):
                    found.add(Unknown(node, self._text(value)))
        return found


def _reads(expr, field: str) -> bool:
    """Whether ``expr`` is the field itself, read from another object."""
    if isinstance(expr, ast.Attribute):
        return expr.attr == field
    return isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) \
        and expr.slice.value == field
