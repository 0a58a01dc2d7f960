"""What the Lambda package leaves out as unimported (``infra/package.py`` UNIMPORTED, which
came with security keys' libraries): no module the zip keeps imports any of it, lazily
or not, and what loads by name still loads under the Lambda Python: a security key's
registration verified by the zip's webauthn, cbor2, pyOpenSSL and pyasn1-modules,
mistune's plugins, Pillow's WebP driver.  (That a cold start loads none of the security
keys' libraries is checked with the cold start itself, in tests/test_package.py.)"""
from __future__ import annotations

import ast
import json
import os
import subprocess
import textwrap
import zipfile
from pathlib import Path

import pytest

from infra import package
from tests.test_package import TARGET_VERSION, target_python


@pytest.fixture(scope="module")
def package_tree(tmp_path_factory) -> tuple[list[str], Path]:
    """The zip's names and where it is unpacked (built once for this module)."""
    made = package.build(tmp_path_factory.mktemp("lambda"))
    root = tmp_path_factory.mktemp("task")
    with zipfile.ZipFile(made.zip_path) as archive:
        archive.extractall(root)
        return archive.namelist(), root


def _pruned_modules() -> set[str]:
    """Dotted names of the modules UNIMPORTED takes out, read off this venv's copies of
    the same locked versions (the zip no longer holds them)."""
    import importlib.util

    site = Path(importlib.util.find_spec("pygments").origin).parents[1]
    gone = set()
    for pattern in package.UNIMPORTED:
        for path in site.glob(pattern):
            relative = path.relative_to(site).as_posix()
            if path.is_dir():
                gone.add(relative.replace("/", "."))
            elif path.suffix in (".py", ".so"):
                gone.add(relative.split(".", 1)[0].replace("/", ".").removesuffix(".__init__"))
    return gone


def _guarded(node: ast.AST, parents: dict) -> bool:
    """Whether an import sits in a ``try`` that catches its ImportError."""
    while node in parents:
        node, child = parents[node], node
        if isinstance(node, ast.Try) and child in node.body:
            for handler in node.handlers:
                caught = handler.type
                names = [e.id if isinstance(e, ast.Name) else getattr(e, "attr", "")
                         for e in (caught.elts if isinstance(caught, ast.Tuple) else [caught])
                         if e is not None] if caught is not None else ["BaseException"]
                if {"ImportError", "ModuleNotFoundError", "Exception",
                    "BaseException"} & set(names):
                    return True
    return False


def _imports(source: str, name: str):
    """(dotted names an import statement may load, node) for every import in a module."""
    tree = ast.parse(source)
    module = name[:-3].replace("/", ".").removesuffix(".__init__")
    package_name = module if name.endswith("__init__.py") else module.rpartition(".")[0]
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield [alias.name for alias in node.names], node, parents
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package_name.split(".")[:len(package_name.split(".")) -
                                                      (node.level - 1)])
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            yield [base, *(f"{base}.{alias.name}" for alias in node.names)], node, parents


def test_nothing_left_in_the_zip_imports_a_module_pruned_as_unimported(package_tree):
    """UNIMPORTED is dead weight only while no module the zip keeps imports it, at any
    depth (a lazy import inside a function too), outside a ``try`` that expects it to be
    missing (botocore's import of urllib3's pyOpenSSL shim is one)."""
    names, unpacked = package_tree
    gone = _pruned_modules()
    assert {"urllib3.contrib.pyopenssl", "pyasn1_modules.rfc2459", "dulwich.web",
            "PIL.ImageMath", "mistune.directives", "pygments.cmdline"} <= gone
    assert "pyasn1_modules.rfc5280" not in gone and "PIL.WebPImagePlugin" not in gone
    present = set(names)
    assert not [n for n in present if n.endswith((".pyi", ".dist-info/RECORD"))]
    tops = {module.split(".")[0] for module in gone}
    found = []
    for name in names:
        if not name.endswith(".py") or name.split("/")[0] not in tops:
            continue
        source = (unpacked / name).read_text(encoding="utf-8", errors="replace")
        for candidates, node, parents in _imports(source, name):
            hit = [c for c in candidates
                   if any(c == g or c.startswith(g + ".") for g in gone)]
            if hit and not _guarded(node, parents):
                found.append(f"{name}:{node.lineno} {hit[0]}")
    assert not found, found


SECURITY_KEYS_IN_TARGET = textwrap.dedent('''
    import base64, json, sys
    sys.path.insert(0, sys.argv[1])
    given = json.loads(sys.stdin.read())
    import webauthn
    from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
    verified = webauthn.verify_registration_response(
        credential=given["credential"], expected_challenge=base64url_to_bytes(given["challenge"]),
        expected_rp_id="nimbus.test", expected_origin="https://nimbus.test")
    import mistune
    # The plugins chalicelib/markup/render.py names, each loaded by its name.
    shown = mistune.create_markdown(plugins=["strikethrough", "table", "task_lists",
                                             "footnotes", "def_list", "url"])(given["markdown"])
    from PIL import Image
    Image.init()
    print(json.dumps({"credential_id": bytes_to_base64url(verified.credential_id),
                      "openssl": "OpenSSL" in sys.modules,
                      "markdown": ["<table>" in shown, "<del>" in shown, "<dl>" in shown,
                                   'type="checkbox"' in shown, "fnref" in shown],
                      "webp": "WEBP" in Image.OPEN}))
''')


def _target_env(tmp_path: Path) -> dict:
    return {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8",
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "eu-west-1"}


def test_the_zip_verifies_a_security_key_and_loads_what_it_names(package_tree, tmp_path):
    """The zip's webauthn, cbor2, pyOpenSSL and pyasn1-modules (RFC 5280 alone) verify a
    registration under the Lambda Python; mistune still finds the plugins the renderer
    names and Pillow the WebP driver, both loaded by name."""
    from tests.soft_key import SoftKey, b64url

    python = target_python()
    if python is None:
        pytest.skip(f"no Python {TARGET_VERSION} here (PATH or pyenv) to run the package with")
    unpacked = package_tree[1]
    key, challenge = SoftKey(), b64url(os.urandom(32))
    credential = key.register(json.dumps({"challenge": challenge, "rp": {"id": "nimbus.test"}}),
                              "https://nimbus.test")
    markdown = ("| a | b |\n|---|---|\n| 1 | 2 |\n\n~~gone~~\n\nterm\n: meaning\n\n"
                "- [x] done\n\nsee[^1]\n\n[^1]: a note\n")
    done = subprocess.run([python, "-I", "-S", "-c", SECURITY_KEYS_IN_TARGET, str(unpacked)],
                          check=False,
                          input=json.dumps({"credential": credential, "challenge": challenge,
                                            "markdown": markdown}),
                          capture_output=True, text=True, env=_target_env(tmp_path),
                          cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"credential_id": b64url(key.credential_id), "openssl": True,
                      "markdown": [True] * 5, "webp": True}
