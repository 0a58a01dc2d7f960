"""DynamoDB's expression grammar: condition, filter and key-condition expressions,
update expressions and projection expressions, parsed into small tuple trees.

Parsing depends only on the text, and the same few hundred texts recur in every test
(PynamoDB generates them), so ``parse(kind, text)`` is cached; the names and values a
request supplies are bound later, per request (``evaluate.py``).

Trees (``kind`` is the expression's name in DynamoDB's messages, e.g.
"ConditionExpression"):

- path: ``("path", (element, ...))`` with elements ``("name", "#n")``, ``("attr",
  "plain")`` or ``("index", 3)``;
- value: ``("value", ":v")``; call: ``("call", "size", (args...))``;
- arithmetic (update only): ``("+", a, b)``, ``("-", a, b)``;
- condition: ``("cmp", op, a, b)``, ``("between", a, low, high)``, ``("in", a,
  (b, ...))``, ``("and", a, b)``, ``("or", a, b)``, ``("not", a)``, or a call;
- update: a dict of clause name to its actions, ``SET``: ``(path, operand)``,
  ``REMOVE``: ``path``, ``ADD``/``DELETE``: ``(path, value)``;
- projection: a tuple of paths.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

from tests.twin.errors import validation

RESERVED = frozenset(Path(__file__).with_name("reserved_words.txt").read_text().split())
CONDITION_FUNCTIONS = frozenset(("attribute_exists", "attribute_not_exists",
                                 "attribute_type", "begins_with", "contains"))
OPERAND_FUNCTIONS = {"size": 1, "if_not_exists": 2, "list_append": 2}
ARITY = {"attribute_exists": 1, "attribute_not_exists": 1, "attribute_type": 2,
         "begins_with": 2, "contains": 2, **OPERAND_FUNCTIONS}
COMPARATORS = frozenset(("=", "<>", "<", "<=", ">", ">="))
_KEYWORDS = frozenset(("AND", "OR", "NOT", "BETWEEN", "IN"))
_CLAUSES = ("SET", "REMOVE", "ADD", "DELETE")
_TOKEN = re.compile(r"""\s*(?:
    (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<hash>\#[A-Za-z0-9_]+)
  | (?P<value>:[A-Za-z0-9_]+)
  | (?P<number>[0-9]+)
  | (?P<op><>|<=|>=|=|<|>)
  | (?P<punct>[(),.\[\]+-])
)""", re.VERBOSE)


class Token:
    __slots__ = ("type", "text", "start")

    def __init__(self, type_: str, text: str, start: int):
        self.type, self.text, self.start = type_, text, start

    def word(self) -> str:
        return self.text.upper() if self.type == "name" else ""


def tokenize(kind: str, text: str) -> list[Token]:
    tokens, at, end = [], 0, len(text)
    while at < end:
        if text[at:].isspace():
            break
        match = _TOKEN.match(text, at)
        if not match or match.end() == at:
            bad = text[at:].lstrip()[:1]
            raise validation(f'Invalid {kind}: Syntax error; token: "{bad}", near: '
                             f'"{text[max(0, at - 5):at + 5].strip()}"')
        type_ = match.lastgroup
        tokens.append(Token(type_, match.group(type_), match.start(type_)))
        at = match.end()
    tokens.append(Token("eof", "<EOF>", len(text)))
    return tokens


class Parser:
    def __init__(self, kind: str, text: str):
        self.kind, self.text = kind, text
        self.tokens = tokenize(kind, text)
        self.at = 0

    # -- the token stream
    @property
    def token(self) -> Token:
        return self.tokens[self.at]

    def take(self) -> Token:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def is_punct(self, text: str) -> bool:
        return self.token.type in ("punct", "op") and self.token.text == text

    def expect(self, text: str) -> None:
        if not self.is_punct(text):
            self.fail()
        self.at += 1

    def fail(self, token: Token | None = None):
        token = token or self.token
        before = self.tokens[self.at - 1].start if self.at else 0
        after = self.tokens[min(self.at + 1, len(self.tokens) - 1)]
        near = self.text[before:after.start + len(after.text)] if after.type != "eof" \
            else self.text[before:]
        raise validation(f'Invalid {self.kind}: Syntax error; token: "{token.text}", '
                         f'near: "{near.strip()}"')

    def error(self, message: str):
        raise validation(f"Invalid {self.kind}: {message}")

    def done(self):
        if self.token.type != "eof":
            self.fail()

    # -- operands
    def path(self) -> tuple:
        elements = [self.element()]
        while True:
            if self.is_punct("."):
                self.at += 1
                elements.append(self.element())
            elif self.is_punct("["):
                self.at += 1
                if self.token.type != "number":
                    self.fail()
                elements.append(("index", int(self.take().text)))
                self.expect("]")
            else:
                return ("path", tuple(elements))

    def element(self) -> tuple:
        token = self.take()
        if token.type == "hash":
            return ("name", token.text)
        if token.type == "name":
            if token.text.upper() in RESERVED:
                self.error("Attribute name is a reserved keyword; reserved keyword: "
                           + token.text)
            return ("attr", token.text)
        self.at -= 1
        self.fail()

    def operand(self, update: bool = False) -> tuple:
        token = self.token
        if token.type == "value":
            self.at += 1
            return ("value", token.text)
        if token.type == "name" and self.tokens[self.at + 1].text == "(":
            return self.call(allowed=("if_not_exists", "list_append") if update else ("size",))
        if token.type in ("name", "hash"):
            if token.word() in _KEYWORDS:
                self.fail()
            return self.path()
        self.fail()

    def call(self, allowed) -> tuple:
        name = self.take().text
        if name not in ARITY:
            self.error(f"Invalid function name; function: {name}")
        if name not in allowed:
            self.error(f"The function is not allowed in a {self.kind_word()} expression; "
                       f"function: {name}")
        self.expect("(")
        args = [self.update_operand() if name in ("if_not_exists", "list_append")
                else self.operand()]
        while self.is_punct(","):
            self.at += 1
            args.append(self.update_operand() if name in ("if_not_exists", "list_append")
                        else self.operand())
        self.expect(")")
        if len(args) != ARITY[name]:
            self.error(f"Incorrect number of operands for operator or function; operator or "
                       f"function: {name}, number of operands: {len(args)}")
        needs_path = {"attribute_exists", "attribute_not_exists", "attribute_type", "size",
                      "if_not_exists"}
        if name in needs_path and args[0][0] != "path":
            self.error(f"Operator or function requires a document path; operator or "
                       f"function: {name}")
        return ("call", name, tuple(args))

    def kind_word(self) -> str:
        return {"UpdateExpression": "update"}.get(self.kind, "condition")

    # -- conditions
    def condition(self) -> tuple:
        left = self.conjunction()
        while self.token.word() == "OR":
            self.at += 1
            left = ("or", left, self.conjunction())
        return left

    def conjunction(self) -> tuple:
        left = self.negation()
        while self.token.word() == "AND":
            self.at += 1
            left = ("and", left, self.negation())
        return left

    def negation(self) -> tuple:
        if self.token.word() == "NOT":
            self.at += 1
            return ("not", self.negation())
        return self.primary()

    def primary(self) -> tuple:
        if self.is_punct("("):
            self.at += 1
            inner = self.condition()
            self.expect(")")
            return inner
        token = self.token
        if token.type == "name" and self.tokens[self.at + 1].text == "(" \
                and token.text in CONDITION_FUNCTIONS:
            return self.call(allowed=CONDITION_FUNCTIONS)
        left = self.operand()
        word = self.token.word()
        if self.token.type == "op":
            op = self.take().text
            return ("cmp", op, left, self.operand())
        if word == "BETWEEN":
            self.at += 1
            low = self.operand()
            if self.token.word() != "AND":
                self.fail()
            self.at += 1
            return ("between", left, low, self.operand())
        if word == "IN":
            self.at += 1
            self.expect("(")
            options = [self.operand()]
            while self.is_punct(","):
                self.at += 1
                options.append(self.operand())
            self.expect(")")
            if len(options) > 100:
                self.error("The IN operator is provided with too many operands; number of "
                           f"operands: {len(options)}")
            return ("in", left, tuple(options))
        self.fail()

    # -- update expressions
    def update(self) -> dict:
        clauses: dict[str, list] = {}
        while self.token.type != "eof":
            word = self.token.word()
            if word not in _CLAUSES:
                self.fail()
            self.at += 1
            if word in clauses:
                raise validation(f'Invalid UpdateExpression: The "{word}" section can only '
                                 'be used once in an update expression;')
            actions = clauses[word] = [self.action(word)]
            while self.is_punct(","):
                self.at += 1
                actions.append(self.action(word))
        if not clauses:
            self.fail()
        return {word: tuple(actions) for word, actions in clauses.items()}

    def action(self, clause: str):
        path = self.path()
        if clause == "REMOVE":
            return path
        if clause == "SET":
            self.expect("=")
            return (path, self.update_operand())
        if self.token.type != "value":
            self.fail()
        return (path, ("value", self.take().text))

    def update_operand(self) -> tuple:
        left = self.operand(update=True)
        if self.is_punct("+") or self.is_punct("-"):
            op = self.take().text
            return (op, left, self.operand(update=True))
        return left

    # -- projections
    def projection(self) -> tuple:
        paths = [self.path()]
        while self.is_punct(","):
            self.at += 1
            paths.append(self.path())
        return tuple(paths)


@functools.lru_cache(maxsize=4096)
def parse(kind: str, text: str):
    """The tree of ``text`` read as ``kind`` (ConditionExpression, FilterExpression,
    KeyConditionExpression, UpdateExpression or ProjectionExpression)."""
    if not text or not text.strip():
        raise validation(f"Invalid {kind}: The expression can not be empty;")
    parser = Parser(kind, text)
    if kind == "UpdateExpression":
        tree = parser.update()
    elif kind == "ProjectionExpression":
        tree = parser.projection()
    else:
        tree = parser.condition()
    parser.done()
    return tree
