"""What the Lambda package carries is what the app reads (infra/unread.py), and the
AWS SDK it leaves to the Lambda runtime is found and good enough.

Measured on the zip as ``make package`` builds it (tests/lambda_package.py builds it
once per run), under a real Python 3.12 with the pinned SDK placed after the zip, where
the runtime puts its own: nothing in the zip is unread, no module in it imports one the
build left out, every module loads, and each binary imports only what the import graph
says; the binaries are stripped; the app reads no docstring, which its bytecode leaves
out.  The build's choice itself runs on a small tree: what is unread goes, a prune that
a kept module needs stops the build.
"""
from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from infra import package
from tests.lambda_package import (
    TARGET_VERSION,
    built_package,
    target_env,
    target_python,
    unpacked_package,
)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return built_package(tmp_path_factory)


@pytest.fixture(scope="module")
def names(built):
    import zipfile

    with zipfile.ZipFile(built.zip_path) as archive:
        return archive.namelist()


@pytest.fixture(scope="module")
def unpacked(built, tmp_path_factory):
    return unpacked_package(built, tmp_path_factory)


@pytest.fixture(scope="module")
def sdk(built):
    return built.installed.runtime


# ---- nothing in the zip that nothing reads (infra/unread.py) ---------------------------

def _zip_files(unpacked: Path, names: list[str]) -> dict[str, Path]:
    return {name: unpacked / name for name in names
            if not name.endswith("/") and "__pycache__/" not in name}


def _app(names: list[str]) -> list[str]:
    return [n for n in names if n == "app.py" or n.startswith(("chalicelib/", "chalice/"))]


def test_nothing_in_the_zip_is_unread(built, names, unpacked):
    """Measured on the zip as built, the runtime's SDK in the graph for what it imports
    from the zip: every module is reached from the app's modules (imports at any depth,
    by name, an extension's own), every library is linked by a reached binary, every
    data file has its reader, every record is a kept distribution's METADATA, licence
    or entry points."""
    from infra import dependencies, unread

    files = _zip_files(unpacked, names)
    tree = {**built.installed.runtime_files(), **files}
    found = unread.reach(tree, sorted(unread.modules_of(_app(names))),
                         dependencies.load_imports())
    assert found.unaccounted == []
    owners = unread.distribution_files(built.installed.files())
    assert unread.unread(tree, found, [n for n in files if n not in _app(names)],
                         owners) == []
    # What the build left out had been installed: the measure, not a list, decides.
    assert {"urllib3/contrib/pyopenssl.py", "jinja2/sandbox.py", "pygments/lexers/agile.py",
            "cryptography/x509/ocsp.py", "pyasn1_modules/rfc2459.py"} <= set(built.left_out)
    assert set(built.left_out.values()) == {"PRUNED", "unread"}


def test_no_module_in_the_zip_imports_one_the_build_left_out(built, names, unpacked):
    """Every module of the zip, reached or not: none imports a module the build left out
    (PRUNED or unread) outside a try that expects it missing, at any depth (a lazy
    import inside a function too).  What is loaded by name only (Pygments' formatters,
    mistune's plugins) is run by the tests that load those names."""
    from infra import unread

    present = unread.modules_of(_zip_files(unpacked, names))
    gone = set(unread.modules_of(built.installed.files())) - set(present)
    assert {"urllib3.contrib.pyopenssl", "PIL.ImageMath", "dulwich.porcelain",
            "yaml.cyaml"} <= gone
    found = []
    for module, name in present.items():
        if name.endswith(".py"):
            imports, _ = unread.edges((unpacked / name).read_text(encoding="utf-8"), module,
                                      name.endswith("__init__.py"))
            found += [f"{name}:{edge.line} {edge.target}" for edge in imports
                      if edge.kind in ("required", "submodule") and edge.target in gone]
    assert found == []


# Modules of the zip that cannot load, and why that is harmless.
UNLOADABLE = {
    # urllib3's HTTP/2 support needs h2, which nothing installs: urllib3 loads it only
    # when asked to (urllib3.http2.inject_into_urllib3), which nothing does.
    "urllib3.http2.connection": "No module named 'h2'",
}

EVERY_MODULE_IN_TARGET = textwrap.dedent('''
    import importlib, json, sys
    root, sdk = sys.argv[1], sys.argv[2]
    sys.path.insert(0, root)
    sys.path.append(sdk)
    failed = {}
    for name in json.loads(sys.stdin.read()):
        try:
            importlib.import_module(name)
        except Exception as exc:
            failed[name] = str(exc)
    print(json.dumps(failed))
''')

EXTENSION_IN_TARGET = textwrap.dedent('''
    import importlib, json, sys
    root, sdk, name = sys.argv[1], sys.argv[2], sys.argv[3]
    sys.path.insert(0, root)
    sys.path.append(sdk)
    if name.rpartition(".")[0]:
        importlib.import_module(name.rpartition(".")[0])
    before = set(sys.modules)
    importlib.import_module(name)
    print(json.dumps(sorted(set(sys.modules) - before - {name})))
''')


def test_every_module_in_the_zip_loads_and_each_binary_imports_what_the_graph_says(
        names, unpacked, sdk, tmp_path):
    """Under the Lambda Python, every module of the zip imports (but UNLOADABLE); each
    extension module, loaded alone, imports no module of the zip that EXTENSION_IMPORTS
    does not name (what no Python source shows, measured)."""
    from infra import unread

    python = target_python()
    if python is None:
        pytest.skip(f"no Python {TARGET_VERSION} here (PATH or pyenv) to run the package with")
    present = unread.modules_of(_zip_files(unpacked, names))
    env = target_env(tmp_path)
    done = subprocess.run([python, "-I", "-S", "-c", EVERY_MODULE_IN_TARGET, str(unpacked),
                           str(sdk)], check=False, input=json.dumps(sorted(set(present) - {"app"})),
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == UNLOADABLE
    extensions = sorted(m for m, name in present.items() if not name.endswith(".py"))
    assert {"_cffi_backend", "cryptography.hazmat.bindings._rust", "PIL._imaging"} <= set(
        extensions)
    for module in extensions:
        done = subprocess.run([python, "-I", "-S", "-c", EXTENSION_IN_TARGET, str(unpacked),
                               str(sdk), module], check=False, capture_output=True, text=True,
                              env=env, cwd=tmp_path, timeout=120)
        assert done.returncode == 0, done.stderr[-3000:]
        loaded = {m for m in json.loads(done.stdout) if m in present}
        assert loaded <= set(unread.EXTENSION_IMPORTS.get(module, ())), (module, loaded)


def test_binaries_keep_no_symbols_and_link_what_readelf_reads(built, names, unpacked):
    from infra import unread
    from infra.lambda_runtime import section_names

    binaries = [n for n in names if n.endswith(".so") or ".so." in n.rsplit("/", 1)[-1]]
    assert len(binaries) > 10
    if not built.stripped:
        pytest.skip("no strip (binutils or LLVM) here: the build keeps the symbols")
    for name in binaries:
        sections = section_names((unpacked / name).read_bytes())
        assert ".dynsym" in sections and not [s for s in sections if s == ".symtab"
                                              or s.startswith(".debug_")], name
    readelf = shutil.which("readelf")
    if readelf:
        imaging = next(n for n in binaries if n.startswith("PIL/_imaging."))
        shown = subprocess.run([readelf, "-d", str(unpacked / imaging)], capture_output=True,
                               text=True, check=True).stdout
        assert unread.needed((unpacked / imaging).read_bytes()) == re.findall(
            r"\(NEEDED\)\s+Shared library: \[([^]]+)\]", shown)


def test_the_app_reads_no_docstring(names, unpacked):
    """The app's bytecode leaves its docstrings out (infra/lambda_runtime.py): right while
    no packaged code reads them from the app's objects.  The app names none of the
    readers (``__doc__``, ``inspect.getdoc``, pydoc, ``help``, msgspec's JSON Schema,
    which describes a Struct by its docstring)."""
    readers = re.compile(r"__doc__|getdoc\(|\bpydoc\b|\bhelp\(|json\.schema|schema_components")
    found = [f"{name}: {match.group()}" for name in names
             if name.endswith(".py") and name.startswith(("chalicelib/", "app.py"))
             for match in [readers.search((unpacked / name).read_text(encoding="utf-8"))]
             if match]
    assert found == []


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_the_build_leaves_out_what_the_app_does_not_reach_and_stops_at_a_broken_prune(
        tmp_path):
    from infra import dependencies

    site = _tree(tmp_path / "site", {
        "lib/__init__.py": "",
        "lib/used.py": "def f():\n    from lib import lazy\n    return lazy\n",
        "lib/lazy.py": "",
        "lib/fast.py": "",
        "lib/slow.py": "try:\n    from lib import fast\nexcept ImportError:\n    fast = None\n",
        "lib/spare.py": "import lib.used\n",
        "lib/table.py": "NAMES = ['lib.by_name']\n",
        "lib/by_name.py": "",
        "lib/py.typed": "", "lib/used.pyi": "",
        "lib-1.0.dist-info/METADATA": "Name: lib\n",
        "lib-1.0.dist-info/LICENSE": "MIT\n",
        "lib-1.0.dist-info/RECORD": "lib/used.py,,\nlib/lazy.py,,\n",
        "lib-1.0.dist-info/entry_points.txt": "[console_scripts]\nlib = lib.used:f\n",
        "other-2.0.dist-info/METADATA": "Name: other\n",
        "other-2.0.dist-info/RECORD": "other.py,,\n",
        "other.py": "",
    })
    runtime = _tree(tmp_path / "runtime", {"sdk.py": "import lib.slow\n"})
    app = _tree(tmp_path / "app", {"app.py": "import sdk\nimport lib.used\nimport lib.table\n"})
    installed = dependencies.Installed(site, runtime, stripped=False)
    kept = dependencies.keep(installed, {"app.py": app / "app.py"}, ["lib/fast.py"])
    assert sorted(kept.files) == [
        "lib-1.0.dist-info/LICENSE", "lib-1.0.dist-info/METADATA", "lib/__init__.py",
        "lib/by_name.py", "lib/lazy.py", "lib/slow.py", "lib/table.py", "lib/used.py"]
    assert kept.left_out["lib/fast.py"] == "PRUNED" and kept.left_out["other.py"] == "unread"
    with pytest.raises(package.PackagingError, match=r"lib/lazy.py \(imported at lib.used:2\)"):
        dependencies.keep(installed, {"app.py": app / "app.py"}, ["lib/lazy.py"])


# ---- the runtime's AWS SDK (infra/README.md, "AWS SDK") --------------------------------

STREAMING_IN_TARGET = textwrap.dedent('''
    import json, os, sys
    # exec-wrapper runs `python3 -m chalicelib.streaming.bootstrap` in /var/task: the
    # working directory first on sys.path, the runtime's own directory nowhere.
    sys.path.insert(0, os.getcwd())
    from chalicelib.streaming import bootstrap
    try:
        import boto3
        before = True
    except ImportError:
        before = False
    bootstrap.find_runtime_sdk()
    from chalicelib.streaming.handler import handle_stream_event
    import boto3
    print(json.dumps({"before": before, "sdk": boto3.__file__}))
''')


def test_the_streaming_loop_finds_the_runtime_sdk(unpacked, sdk, tmp_path):
    python = target_python()
    if python is None:
        pytest.skip(f"no Python {TARGET_VERSION} here (PATH or pyenv) to run the package with")
    done = subprocess.run([python, "-I", "-S", "-c", STREAMING_IN_TARGET],
                          check=False, capture_output=True, text=True, cwd=unpacked, timeout=300,
                          env={**target_env(tmp_path), "LAMBDA_RUNTIME_DIR": str(sdk)})
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"before": False, "sdk": str(sdk / "boto3" / "__init__.py")}


# The literal parameters the app passes to AWS calls, each checked against the models of
# botocore 1.35.2 (chalicelib.aws.OLDEST_BOTOCORE, the floor the runtime's SDK must
# reach); 1.35.1's PutObject has no IfNoneMatch.  A call or parameter missing here must
# be checked against that version's models, or the floor raised, before it is added.
CHECKED_AGAINST_OLDEST_BOTOCORE = {
    "copy_object": {"Bucket", "ChecksumAlgorithm", "ContentType", "CopySource", "Key",
                    "MetadataDirective"},
    "delete_message_batch": {"Entries", "QueueUrl"},
    "delete_object": {"Bucket", "Key"},
    "delete_objects": {"Bucket", "Delete"},
    "generate_presigned_url": {"ExpiresIn", "Params"},
    "get_object": {"Bucket", "Key", "Range"},
    "get_parameter": {"Name", "WithDecryption"},
    "get_queue_url": {"QueueName"},
    "head_object": {"Bucket", "ChecksumMode", "Key"},
    "put_object": {"Body", "Bucket", "ChecksumAlgorithm", "ChecksumSHA256", "ContentLength",
                   "ContentType", "IfNoneMatch", "Key"},
    "put_events": {"Entries"},
    "put_parameter": {"Description", "Name", "Overwrite", "Type", "Value"},
    "receive_message": {"MaxNumberOfMessages", "QueueUrl", "WaitTimeSeconds"},
    "send_message_batch": {"Entries", "QueueUrl"},
    "upload_fileobj": {"ExtraArgs"},
}


def test_the_app_calls_aws_only_as_the_oldest_sdk_it_accepts_knows():
    from chalicelib import aws

    used: dict[str, set[str]] = {}
    for path, name in package.app_files():
        if name.endswith(".py") and not name.startswith("chalice/"):
            for node in ast.walk(ast.parse(path.read_text(), name)):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and re.fullmatch(r"[a-z]+(_[a-z0-9]+)+", node.func.attr):
                    given = {k.arg for k in node.keywords if k.arg and k.arg[0].isupper()}
                    if given:
                        used.setdefault(node.func.attr, set()).update(given)
    unchecked = {call: sorted(given - CHECKED_AGAINST_OLDEST_BOTOCORE.get(call, set()))
                 for call, given in used.items()
                 if given - CHECKED_AGAINST_OLDEST_BOTOCORE.get(call, set())}
    assert unchecked == {}
    assert aws.OLDEST_BOTOCORE == (1, 35, 2)
    assert aws.botocore_too_old("1.35.1") and not aws.botocore_too_old("1.35.2")
    assert not aws.botocore_too_old("1.44.5") and aws.botocore_too_old("1.34.162")
