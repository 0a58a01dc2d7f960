"""The issue reference parser (``issues/reference_parser.py``) on its own: Forgejo's
keywords and boundaries, cross-repository names, Markdown left out, and bounded work on
hostile input."""
from __future__ import annotations

import time

import pytest

from chalicelib.issues import reference_parser as parser
from chalicelib.issues.reference_parser import CLOSES, NONE, REOPENS, Reference


def refs(text: str) -> list[tuple]:
    return [(r.owner, r.name, r.number, r.action) for r in parser.find(text)]


@pytest.mark.parametrize("word", sorted(parser.CLOSE_WORDS))
def test_every_close_keyword_in_any_case(word):
    for spelled in (word, word.upper(), word.capitalize()):
        assert refs(f"{spelled} #12") == [("", "", 12, CLOSES)]


@pytest.mark.parametrize("word", sorted(parser.REOPEN_WORDS))
def test_every_reopen_keyword(word):
    assert refs(f"{word.upper()} #3") == [("", "", 3, REOPENS)]


@pytest.mark.parametrize("text, expected", [
    ("Closes: #1", [("", "", 1, CLOSES)]),              # a colon may follow the keyword
    ("Closes  #1", [("", "", 1, NONE)]),                # exactly one space
    ("Closes\t#1", [("", "", 1, NONE)]),
    ("Closes\n#1", [("", "", 1, NONE)]),
    ("unfixed #1", [("", "", 1, NONE)]),                # a longer word
    ("prefixes #1", [("", "", 1, NONE)]),
    ("xcloses #1", [("", "", 1, NONE)]),
    ("(fixes #1)", [("", "", 1, CLOSES)]),
    ("[Fix #1]", [("", "", 1, CLOSES)]),
    ("done.Fixes #1", [("", "", 1, NONE)]),             # keyword glued to a word
    ("fixes #1, #2", [("", "", 1, CLOSES), ("", "", 2, NONE)]),   # one reference each
    ("fixes #1 and fixes #2", [("", "", 1, CLOSES), ("", "", 2, CLOSES)]),
])
def test_keyword_rules(text, expected):
    assert refs(text) == expected


@pytest.mark.parametrize("text, numbers", [
    ("#1", [1]), ("see #2.", [2]), ("(#3)", [3]), ("[#4]", [4]), ("'#5'", [5]),
    ('"#6"', [6]), ("#7: x", [7]), ("#8; x", [8]), ("#9?", [9]), ("!10", [10]),
    ("#11 #12\t#13\n#14", [11, 12, 13, 14]),
    ("a#1", []), ("#1a", []), ("#1.5", []), ("#1#2", []), ("x(#1)", [1]),
    ("#", []), ("#x", []), ("# 1", []), ("&#39;", []), ("#1234567890123456789", []),
    ("https://host/o/r/issues/1#issuecomment-2", []),
])
def test_reference_boundaries(text, numbers):
    assert [r.number for r in parser.find(text)] == numbers


def test_cross_repository_references():
    assert refs("Fixes Owner/Repo.js#7") == [("owner", "repo.js", 7, CLOSES)]
    assert refs("see some-org/a_b#2, and x/y!3") == [("some-org", "a_b", 2, NONE),
                                                     ("x", "y", 3, NONE)]
    assert refs("a/b/c#1") == []                 # one slash only
    assert refs("/b#1") == refs("a/#1") == []    # both names
    assert refs("'o/r#1'") == []                 # a quote starts local references only
    assert refs(f"{'o' * 300}/r#1") == []        # past any name's length


def test_each_reference_once_in_order_and_at_most_fifty():
    assert refs("#2 #1 #2 fixes #2") == [("", "", 2, NONE), ("", "", 1, NONE),
                                         ("", "", 2, CLOSES)]
    many = " ".join(f"#{n}" for n in range(1, 200))
    assert [r.number for r in parser.find(many)] == list(range(1, 51))
    assert parser.MAX_REFERENCES == 50


def test_text_past_the_limit_is_not_read():
    assert parser.find("x" * parser.MAX_TEXT + " #1") == []
    assert parser.find("x" * (parser.MAX_TEXT - 4) + " #1") == [Reference(1)]


def test_markdown_leaves_out_code_comments_and_emphasis():
    body = "\n".join([
        "**Fixes #1**",
        "```",
        "Closes #2",
        "```",
        "~~~~python",
        "closes #3",
        "~~~",                       # shorter than the opening: still inside
        "~~~~",
        "<!-- Closes #4",
        "-->",
        "`closes #5` closes #6 ``a ` closes #7``",
        "",
        "    fixes #8",
        "\tfixes #9",
        "",
        "text",
        "    fixes #10",             # a paragraph continues: not code
        "> Resolves #11",
    ])
    assert [(r.number, r.action) for r in parser.find_in_markdown(body)] == [
        (1, CLOSES), (6, CLOSES), (10, CLOSES), (11, CLOSES)]
    # Plain text (commit messages, titles) reads code too, and marks are characters.
    assert [r.number for r in parser.find(body)] == [2, 3, 4, 6, 8, 9, 10, 11]


def test_unclosed_markdown_runs_to_the_end_or_is_literal():
    assert parser.find_in_markdown("```\nfixes #1") == []
    assert parser.find_in_markdown("<!-- fixes #1") == []
    assert [r.number for r in parser.find_in_markdown("` fixes #1")] == [1]


@pytest.mark.parametrize("hostile", [
    "#" * parser.MAX_TEXT,
    "a/" * (parser.MAX_TEXT // 2),
    ("o/r" * 100 + "#1 ") * 300,
    "fixes " * 20_000 + "#1",
    "`" * 5000 + "a``" * 10_000,
    " ".join("`" * n for n in range(1, 300)),
    "<!--" * 20_000,
    "```\n" * 20_000,
    "#1 " * 30_000,
])
def test_hostile_text_takes_bounded_time(hostile):
    started = time.perf_counter()
    parser.find(hostile)
    parser.find_in_markdown(hostile)
    assert time.perf_counter() - started < 1.0
