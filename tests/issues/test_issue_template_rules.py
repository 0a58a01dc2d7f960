"""The rules of issue templates and the issue config (chalicelib/issues/issue_templates.py,
issue_forms.py): pure functions of a file's name and bytes, Forgejo's messages."""
from __future__ import annotations

import sys

import pytest

from chalicelib.issues import issue_forms, issue_templates as it
from chalicelib.issues.issue_forms import TemplateError


def form(body: str, head: str = "name: n\nabout: a\n") -> bytes:
    return (head + "body:\n" + body).encode()


def error_of(path: str, content: bytes) -> str:
    with pytest.raises(TemplateError) as caught:
        it.parse_template(path, content)
    return str(caught.value)


def test_which_files_may_be_templates():
    assert it.kind_of(".gitea/ISSUE_TEMPLATE/bug.md") == "md"
    assert it.kind_of("x/form.yaml") == it.kind_of("x/form.yml") == "yaml"
    assert it.kind_of("x/config.yaml") == it.kind_of("x/config.yml") == ""
    assert it.kind_of("x/notes.txt") == it.kind_of("x/README") == ""
    assert it.TEMPLATE_DIRS[:4] == ("ISSUE_TEMPLATE", "issue_template",
                                    ".forgejo/ISSUE_TEMPLATE", ".forgejo/issue_template")
    assert it.CONFIG_FILES[:2] == (".forgejo/ISSUE_TEMPLATE/config.yaml",
                                   ".forgejo/ISSUE_TEMPLATE/config.yml")


def test_markdown_front_matter_and_fallback():
    got = it.parse_template("t/a.md", b"---\nname: A\ndescription: via description\n"
                                      b"labels: [x, y]\nref: refs/tags/v1\n---\nbody\n")
    assert (got["name"], got["about"], got["labels"], got["ref"], got["content"]) == (
        "A", "via description", ["x", "y"], "refs/tags/v1", "body\n")
    # Spaces around the separators are allowed; a tab or "\r" is not.
    assert it.front_matter("  ---  \nname: x\n----\nrest") == ("name: x\n", "rest")
    assert it.front_matter("---\t\nname: x\n---\n") is None
    assert it.front_matter("---\n---\ntext") is None          # empty front matter
    assert it.front_matter("---\nname: x\n") is None           # never closed
    # Front matter that does not decode: the whole file is the text.
    got = it.parse_template("t/b.md", b"---\nname: [x\n---\nhello")
    assert got["name"] == "b.md" and got["content"] == "---\nname: [x\n---\nhello"
    assert error_of("t/blank.md", b"   \n") == "'about' is required"
    assert error_of("t/c.md", b"---\nabout: a\n---\n") == "'name' is required"


def test_about_is_cut_at_80_bytes_on_a_character():
    assert it.split_at_byte("short", 80) == "short"
    cut = it.split_at_byte("é" * 100, 80)
    assert cut == "é" * 38 + "…" and len(cut.encode()) == 79


def test_labels_from_text_or_list_and_ref_prefix():
    got = it.parse_template("t/a.md", b"---\nname: a\nabout: b\nlabels: ' x, ,y '\n---\n")
    assert got["labels"] == ["x", "y"] and got["ref"] == "refs/heads/"
    got = it.parse_template("t/a.md", b"---\nname: 1\nabout: b\nlabels: [1, true]\n"
                                      b"ref: main\n---\n")
    assert got["name"] == "1" and got["labels"] == ["1", "true"]
    assert got["ref"] == "refs/heads/main"


def test_form_defaults_ids_and_visibility():
    got = it.parse_template("f.yaml", form(
        "- type: markdown\n  attributes: {value: hi}\n"
        "- type: textarea\n  attributes: {label: L}\n"
        "- type: input\n  id: x\n  attributes: {label: L}\n  visible: [content]\n"
        "- type: input\n  id: y\n  attributes: {label: L}\n  visible: []\n"))
    ids = [f["id"] for f in got["body"]]
    assert ids == ["0", "1", "x", "y"]
    assert [f.get("visible") for f in got["body"]] == [["form"], ["form", "content"],
                                                       ["content"], None]
    assert "visible" not in got["body"][3]     # an empty list is left out, as Forgejo


@pytest.mark.parametrize("body, message", [
    ("", "'body' is required"),
    ("- type: nope\n  attributes: {label: L}\n", "body[0](nope): unknown type"),
    ("- type: input\n", "body[0](input): 'label' is required"),
    ("- type: input\n  attributes: {label: '  '}\n", "body[0](input): 'label' is required"),
    ("- type: input\n  attributes: {label: [1]}\n", "body[0](input): 'label' should be a string"),
    ("- type: input\n  id: a.b\n  attributes: {label: L}\n",
     "body[0](input): 'id' should contain only alphanumeric, '-' and '_'"),
    ("- {type: input, id: a, attributes: {label: L}}\n"
     "- {type: textarea, id: a, attributes: {label: L}}\n",
     "body[1](textarea): 'id' should be unique"),
    ("- type: markdown\n  attributes: {}\n", "body[0](markdown): 'value' is required"),
    ("- {type: input, attributes: {label: L}, validations: {is_number: 'x'}}\n",
     "body[0](input): 'is_number' should be a bool"),
    ("- {type: input, attributes: {label: L}, validations: {regex: 1}}\n",
     "body[0](input): 'regex' should be a string"),
    ("- {type: input, attributes: {label: L}, validations: {required: 1}}\n",
     "body[0](input): 'required' should be a bool"),
    ("- {type: input, attributes: {label: L}, validations: {required: true}, "
     "visible: [content]}\n", "body[0](input): can not require a hidden field"),
    ("- {type: dropdown, attributes: {label: L}}\n",
     "body[0](dropdown): 'options' is required and should be a array"),
    ("- {type: dropdown, attributes: {label: L, options: [a, [b]]}}\n",
     "body[0](dropdown), option[1]: should be a string"),
    ("- {type: dropdown, attributes: {label: L, multiple: 'x', options: [a]}}\n",
     "body[0](dropdown): 'multiple' should be a bool"),
    ("- {type: dropdown, attributes: {label: L, options: [a], default: 1}}\n",
     "body[0](dropdown): the value of 'default' is out of range"),
    ("- {type: dropdown, attributes: {label: L, options: [a], default: true}}\n",
     "body[0](dropdown): 'default' should be an int"),
    ("- {type: checkboxes, attributes: {label: L, options: [a]}}\n",
     "body[0](checkboxes), option[0]: should be a dictionary"),
    ("- {type: checkboxes, attributes: {label: L, options: [{label: ''}]}}\n",
     "body[0](checkboxes), option[0]: 'label' is required and should be a string"),
    ("- {type: checkboxes, attributes: {label: L, options: [{label: a, visible: x}]}}\n",
     "body[0](checkboxes), option[0]: 'visible' should be list"),
    ("- {type: checkboxes, attributes: {label: L, options: [{label: a, visible: [x]}]}}\n",
     "body[0](checkboxes), option[0]: 'visible' list can only contain strings of 'form' "
     "and 'content'"),
    ("- {type: checkboxes, attributes: {label: L, options: [{label: a, required: 1}]}}\n",
     "body[0](checkboxes), option[0]: 'required' should be a bool"),
    ("- {type: checkboxes, attributes: {label: L, options: "
     "[{label: a, required: true, visible: [content]}]}}\n",
     "body[0](checkboxes), option[0]: can not require a hidden checkbox"),
])
def test_form_rules_and_messages(body, message):
    assert error_of("f.yml", form(body)) == message


def test_form_metadata_and_yaml_errors():
    assert error_of("f.yaml", b"about: a\nbody: []\n") == "'name' is required"
    assert error_of("f.yaml", b"name: n\nbody: []\n") == "'about' is required"
    assert error_of("f.yaml", b"name: [\n").startswith("yaml: line ")
    assert error_of("f.yaml", b"- a\n") == ("yaml: unmarshal errors:\n  cannot unmarshal "
                                           "!!seq into structs.IssueTemplate")
    assert error_of("f.yaml", b"name: {a: 1}\nabout: a\n").endswith("into string")
    assert error_of("f.yaml", b"\xff\xfe") == "yaml: invalid leading UTF-8 octet"
    big = b"name: n\nabout: a\n#" + b"x" * it.MAX_FILE_BYTES
    assert error_of("f.yaml", big).startswith("too large: ")


def test_hostile_yaml_is_bounded():
    # Aliases repeating a node 9**7 times: refused, not expanded into the answer.
    levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for prev, name in zip("abcdef", "bcdefg"):
        levels.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    with pytest.raises(TemplateError, match="excessive aliasing"):
        it.parse_config("\n".join(levels).encode())
    with pytest.raises(TemplateError, match="max depth"):
        it.parse_config(b"x: &a [*a]\n")                # a list inside itself
    with pytest.raises(TemplateError, match="max depth"):
        it.parse_config(b"[" * 5000 + b"]" * 5000)
    # Values JSON cannot carry are made text.
    assert issue_forms.plain({1: float("nan"), "d": __import__("datetime").date(2020, 1, 2)}
                             ) == {"1": "nan", "d": "2020-01-02"}


def test_config_rules_and_messages():
    assert it.parse_config(b"") == {"blank_issues_enabled": True, "contact_links": []}
    assert it.parse_config(b"blank_issues_enabled: no\n") == {
        "blank_issues_enabled": False, "contact_links": []}
    link = {"name": "n", "url": "http://x.org/a", "about": "a"}
    assert it.parse_config(b"contact_links:\n- {name: n, url: 'http://x.org/a', about: a}\n"
                           )["contact_links"] == [link]
    for text, message in (
            (b"blank_issues_enabled: maybe\n",
             "yaml: unmarshal errors:\n  cannot unmarshal !!str `maybe` into bool"),
            (b"contact_links: 3\n", "yaml: unmarshal errors:\n  cannot unmarshal !!int `3` "
                                    "into []structs.IssueConfigContactLink"),
            (b"contact_links:\n- {url: u, about: a}\n",
             "contact_link at position 1 is missing name key"),
            (b"contact_links:\n- {name: n, url: 'https://a.org', about: a}\n"
             b"- {name: n, url: '/relative', about: a}\n", "/relative is not a valid URL"),
            (b"contact_links:\n- {name: n, url: 'https:// x.org', about: a}\n",
             "https:// x.org is not a valid URL")):
        with pytest.raises(TemplateError) as caught:
            it.parse_config(text)
        assert str(caught.value) == message


def test_yaml_is_not_imported_at_module_import():
    import subprocess

    done = subprocess.run([sys.executable, "-c",
                           "import sys, chalicelib.issues.issue_template_routes, "
                           "chalicelib.issues.template_files;"
                           "print('yaml' in sys.modules)"], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr[-2000:]
