"""The Lambda package (infra/package.py) and the deploy/destroy commands (infra/deploy.py,
infra/destroy.py).

The package is built once per run, exactly as ``make package`` builds it
(tests/lambda_package.py), then unpacked and run under a real Python 3.12 (the
template's runtime) that sees only the standard library, the zip's contents and, after
them, the AWS SDK the Lambda runtime carries (the pinned copy the build installs beside
the dependencies): every module loads (without loading Pygments, which only the pages
that highlight import), code is highlighted, and a commit is signed and written to a
bare repository that the git CLI checks.  That nothing in the zip is unread is
tests/test_package_reads.py's.  Deployment cannot reach AWS here: its argument and
region checks, the artifact upload and the change-set and delete paths run against moto.
"""
from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from infra import package
from infra.template import LAMBDA_RUNTIME
from tests.lambda_package import (
    TARGET_VERSION,
    built_package,
    target_python,
    unpacked_package,
)

ROOT = Path(__file__).resolve().parent.parent
# Never in the zip: packaging tools, the dev and test stack, Chalice's CLI side.
# PyYAML is a runtime dependency since issue templates (imported on their routes only).
FORBIDDEN_TOP = {"pip", "setuptools", "wheel", "_distutils_hack", "pkg_resources", "moto",
                 "pytest", "_pytest", "hypothesis", "schemathesis", "click", "inquirer",
                 "blessed", "readchar", "flask", "werkzeug", "tests", "bench",
                 "infra", "pyforgejo", "httpx", "importlinter", "grimp", "cfnlint"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return built_package(tmp_path_factory)


@pytest.fixture(scope="module")
def names(built):
    with zipfile.ZipFile(built.zip_path) as archive:
        return archive.namelist()


@pytest.fixture(scope="module")
def template(built):
    return json.loads(built.template_path.read_text())


@pytest.fixture(scope="module")
def unpacked(built, tmp_path_factory):
    return unpacked_package(built, tmp_path_factory)


@pytest.fixture(scope="module")
def sdk(built):
    """The pinned AWS SDK, standing in for the one in the Lambda runtime (/var/runtime)."""
    return built.installed.runtime


# ---- what the zip holds ----------------------------------------------------------------

def test_zip_holds_the_app_and_runtime_dependencies_only(built, names):
    tops = {name.split("/")[0] for name in names}
    assert not tops & FORBIDDEN_TOP
    assert {"app.py", "chalicelib", "chalice", "pynamodb", "dulwich", "urllib3",
            "cryptography", "pgpy", "nh3", "mistune"} <= tops
    # The AWS SDK is the Lambda runtime's (infra/README.md, "AWS SDK").
    assert not tops & {"boto3", "botocore", "s3transfer", "jmespath", "dateutil", "six.py"}
    # Chalice's runtime module only, as chalice package vendors it.
    assert sorted(n for n in names if n.startswith("chalice/") and "__pycache__" not in n) == [
        "chalice/__init__.py", "chalice/app.py"]
    assert not [n for n in names if n.startswith(("chalicelib/local/", "dulwich/tests/"))]
    # What operators run from a clone stays out; so does cffi's build side (its binary
    # backend, which cryptography loads, stays).
    assert not [n for n in names if package.excluded(n)]
    assert "chalicelib/cli.py" not in names and "chalicelib/repair.py" not in names
    assert not tops & {"cffi", "pycparser"} and "_cffi_backend" in {t.split(".")[0] for t in tops}
    # Bytecode only for the runtime's Python (Lambda cannot write it at run time), and
    # only for the app's own modules and the dependency modules a cold start imports:
    # nothing that only a page, a signature or a markdown render loads.
    tag = "cpython-" + TARGET_VERSION.replace(".", "")
    assert not [n for n in names if (n.endswith((".pyc", ".pyo")) or "__pycache__" in n)
                and not re.fullmatch(rf"(.*/)?__pycache__/[^/]+\.{tag}\.pyc", n)]
    assert not [n for n in names if n.endswith(".pyc")
                and n.startswith(("pygments/", "jinja2/", "pgpy/", "mistune/"))]
    assert not [n for n in names if re.search(r"(^|/)(tests?|testing)/", n)]
    # infra/README.md gives the measured size (14.6 MB and 44.5 MB on 2026-12-07).
    assert built.zipped <= 15e6 and built.unpacked < 47e6, (built.zipped, built.unpacked)


def test_zip_holds_exactly_the_locked_distributions(names):
    def norm(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()

    dists = {norm(n.split("/")[0].removesuffix(".dist-info").rsplit("-", 1)[0])
             for n in names if n.split("/")[0].endswith(".dist-info")}
    locked = {norm(pin.split("==")[0]) for pin in package.locked_requirements()}
    assert dists == locked - {norm(name) for name in package.PRUNED_DISTRIBUTIONS} - {
        norm(name) for name in package.RUNTIME_PROVIDED}


def test_every_binary_is_built_for_the_lambda_runtime(built, names):
    assert built.target == package.Target(tuple(map(int, TARGET_VERSION.split("."))), "x86_64")
    package.check_archive(built.zip_path, built.target)    # raises on any mismatch
    extensions = [n for n in names if n.endswith(".so")]
    assert any("_cffi_backend" in n for n in extensions)
    for name in extensions:
        tag = re.search(r"\.cpython-(\d+)-", name)
        assert tag is None or tag.group(1) == TARGET_VERSION.replace(".", ""), name


def test_zip_carries_bytecode_of_the_app_when_the_runtime_python_is_here(built, names):
    if target_python() is None:
        assert not built.bytecode
        pytest.skip(f"no Python {TARGET_VERSION} here: the package is built without bytecode")
    assert built.bytecode
    tag = "cpython-" + TARGET_VERSION.replace(".", "")
    present = set(names)
    for name in names:
        if name.endswith(".py"):
            head, _, tail = name.rpartition("/")
            cached = f"{head}/__pycache__/{tail[:-3]}.{tag}.pyc".lstrip("/")
            if name.startswith(("chalicelib/", "chalice/")) or name == "app.py":
                assert cached in present, name


def test_a_packaged_module_importing_a_left_out_one_stops_the_build(tmp_path):
    source = tmp_path / "tool.py"
    source.write_text("def run():\n    from chalicelib import repair\n"
                      "    from chalicelib import cli, markup\n")
    assert package.excluded_imports([(source, "chalicelib/repos/tool.py")]) == [
        "chalicelib/repos/tool.py:2 chalicelib.repair",
        "chalicelib/repos/tool.py:3 chalicelib.cli"]
    assert package.excluded_imports(package.app_files()) == []


def test_zip_keeps_executable_bits(built):
    with zipfile.ZipFile(built.zip_path) as archive:
        modes = {i.filename: (i.external_attr >> 16) & 0o777 for i in archive.infolist()}
    assert modes["app.py"] == 0o644
    checked = 0
    for source, name in package.app_files():
        if name in modes:       # files added to the tree since the build are not in it
            assert bool(modes[name] & 0o100) == os.access(source, os.X_OK), name
            checked += 1
    assert checked > 100


def test_the_same_files_give_the_same_zip(tmp_path):
    """Same inputs, same bytes: an unchanged package keeps its S3 key and the stack its
    code.  (Compared on a fixed set of files: the tree may change between two builds.)"""
    python = target_python()
    sources = [(p, p.relative_to(ROOT).as_posix()) for p in (ROOT / "infra").glob("*.py")]
    zips = []
    for attempt in ("first", "second"):
        files = list(sources)
        if python:
            files += package.compile_bytecode(python, sources, tmp_path / attempt)
        zips.append(tmp_path / f"{attempt}.zip")
        package.write_zip(zips[-1], files if attempt == "first" else files[::-1])
    assert zips[0].read_bytes() == zips[1].read_bytes()


# ---- running it under the Lambda runtime's Python --------------------------------------

RUN_IN_TARGET = textwrap.dedent('''
    import functools, importlib, importlib.util, json, sys
    root, repo_dir, sdk = sys.argv[1], sys.argv[2], sys.argv[4]
    sys.path.insert(0, root)
    sys.path.append(sdk)        # where the Lambda runtime puts its own SDK: after the zip
    stray = [p for p in sys.path if ("site-packages" in p or ".venv" in p) and p != sdk]
    assert not stray, stray
    modules, imported = json.loads(sys.stdin.read())
    for name in modules:
        importlib.import_module(name)
    # Syntax highlighting is loaded by the pages that show code, not by any import.
    lazy = sorted(name for name in ("pygments",) if name in sys.modules)
    from chalicelib.web import present
    highlighted = present.highlight("hello.py", "print('hi')\\n")
    # Lazy imports inside functions too: each top-level package the code names resolves.
    unresolved = sorted(name for name in imported if importlib.util.find_spec(name) is None)

    import boto3, pgpy
    from dulwich.objects import Blob, Tree
    from dulwich.repo import Repo
    from chalicelib.markup import render as markup
    from chalicelib.gitops.commits import Identity, write_commit
    from chalicelib.signing import service as signing

    armored = signing.generate_pgp_key("Nimbus", "nimbus@example.com")
    key, _ = pgpy.PGPKey.from_blob(armored)
    instance = signing.InstanceKey(
        format="openpgp", key_id=key.fingerprint.keyid.upper(), name="Nimbus",
        email="nimbus@example.com", public_text=str(key.pubkey), private=key,
        public=key.pubkey)
    repo = Repo.init_bare(repo_dir)
    blob = Blob.from_string(b"hello from the package\\n")
    tree = Tree()
    tree.add(b"README.md", 0o100644, blob.id)
    repo.object_store.add_objects([(blob, None), (tree, None)])
    commit = write_commit(repo.object_store, tree=tree.id,
                          author=Identity("Alice", "alice@example.com", 1700000000),
                          message="signed in the package",
                          sign=functools.partial(signing.sign_payload, instance))
    repo.refs[b"refs/heads/main"] = commit.id
    signature = pgpy.PGPSignature.from_blob(commit.gpgsig.decode())
    verified = bool(key.pubkey.verify(commit.raw_without_sig(), signature))
    clients = [boto3.client(name, region_name="eu-west-1").meta.service_model.service_name
               for name in sys.argv[3].split(",")]
    from chalicelib import aws
    print(json.dumps({"python": "%d.%d" % sys.version_info[:2], "commit": commit.id.decode(),
                      "docstrings": [aws.__doc__, aws.client.__doc__],
                      "verified": verified, "clients": clients, "modules": len(modules),
                      "unresolved": unresolved, "loaded_eagerly": lazy,
                      "highlighted": 'class="nb">print<' in highlighted,
                      "sanitized": markup.sanitize("<b>ok</b><script>x()</script>")}))
''')


def _module_names(names: list[str]) -> list[str]:
    modules = ["app"]
    for name in names:
        if name.startswith("chalicelib/") and name.endswith(".py"):
            dotted = name[:-3].replace("/", ".")
            modules.append(dotted.removesuffix(".__init__"))
        elif name.endswith(".so"):
            # Every extension module: these are what break on a wrong Python version.
            modules.append(name.split(".", 1)[0].replace("/", "."))
    return modules


def _imported_top_levels(root: Path, names: list[str]) -> list[str]:
    """Every absolute import in app.py and chalicelib, at any depth, by top-level name."""
    found = set()
    for name in names:
        if name == "app.py" or (name.startswith("chalicelib/") and name.endswith(".py")):
            for node in ast.walk(ast.parse((root / name).read_text(), name)):
                if isinstance(node, ast.Import):
                    found.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                    found.add(node.module.split(".")[0])
    return sorted(found - {"__future__"})


def _aws_services(root: Path, names: list[str]) -> list[str]:
    """The services app.py and chalicelib make clients for: the literal given to every
    ``client(...)`` call (chalicelib.aws.client makes them from its argument)."""
    found = set()
    for name in names:
        if name == "app.py" or (name.startswith("chalicelib/") and name.endswith(".py")):
            for node in ast.walk(ast.parse((root / name).read_text(), name)):
                if isinstance(node, ast.Call) and node.args and getattr(
                        node.func, "attr", getattr(node.func, "id", None)) == "client" \
                        and isinstance(node.args[0], ast.Constant):
                    found.add(node.args[0].value)
    return sorted(found)


def test_package_imports_and_signs_a_commit_under_the_lambda_python(names, unpacked, sdk,
                                                                     tmp_path):
    python = target_python()
    if python is None:
        pytest.skip(f"no Python {TARGET_VERSION} here (PATH or pyenv) to run the package with")
    modules = _module_names(names)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8",
           "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
           "AWS_DEFAULT_REGION": "eu-west-1"}
    repo_dir = tmp_path / "signed.git"
    repo_dir.mkdir()
    # -I -S: no site-packages, no user site, no PYTHON* variables: the zip or nothing.
    done = subprocess.run(
        [python, "-I", "-S", "-c", RUN_IN_TARGET, str(unpacked), str(repo_dir),
         ",".join(_aws_services(unpacked, names)), str(sdk)],
        check=False, input=json.dumps([modules, _imported_top_levels(unpacked, names)]),
        capture_output=True, text=True, env=env,
        cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["python"] == TARGET_VERSION
    assert result["verified"] is True
    assert result["modules"] == len(modules) > 100
    assert result["clients"] == _aws_services(unpacked, names) and {"s3", "sqs"} <= set(
        result["clients"])
    # The app's bytecode carries no docstrings (infra/lambda_runtime.py, "bytecode").
    assert result["docstrings"] == [None, None]
    assert "<script>" not in result["sanitized"] and "<b>ok</b>" in result["sanitized"]
    assert result["loaded_eagerly"] == [] and result["highlighted"] is True
    git = shutil.which("git")
    if git:
        shown = subprocess.run([git, "--git-dir", str(repo_dir), "cat-file", "-p", "main"],
                               capture_output=True, text=True, check=True).stdout
        assert result["commit"] in subprocess.run(
            [git, "--git-dir", str(repo_dir), "rev-parse", "main"],
            capture_output=True, text=True, check=True).stdout
        assert "gpgsig -----BEGIN PGP SIGNATURE-----" in shown
        subprocess.run([git, "--git-dir", str(repo_dir), "fsck", "--strict"], check=True,
                       capture_output=True)
    assert not result["unresolved"], (
        f"imported by app.py/chalicelib but not in the package: {result['unresolved']}; "
        "add them to requirements.txt, then run `python -m infra.package lock`")


# ---- refusing binaries for another runtime ----------------------------------------------

def _zip_with(path: Path, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return path


@pytest.fixture(scope="module")
def elf(built):
    with zipfile.ZipFile(built.zip_path) as archive:
        name = next(n for n in archive.namelist() if n.startswith("_cffi_backend."))
        return archive.read(name)


def test_check_refuses_binaries_for_another_python(built, elf, tmp_path):
    bad = _zip_with(tmp_path / "py311.zip", {
        "_cffi_backend.cpython-311-x86_64-linux-gnu.so": elf, "app.py": b""})
    with pytest.raises(package.PackagingError, match="built for Python 3.11"):
        package.check_archive(bad, built.target)
    wheel = _zip_with(tmp_path / "wheel.zip", {
        "cffi-2.1.1.dist-info/WHEEL": b"Wheel-Version: 1.0\nTag: cp311-cp311-manylinux_2_17_x86_64\n"})
    with pytest.raises(package.PackagingError, match="cffi-2.1.1.dist-info is a wheel for"):
        package.check_archive(wheel, built.target)


def test_check_refuses_binaries_for_another_processor(built, elf, tmp_path):
    arm = bytearray(elf)
    arm[18:20] = (183).to_bytes(2, "little")        # EM_AARCH64
    bad = _zip_with(tmp_path / "arm.zip", {"nh3/nh3.abi3.so": bytes(arm)})
    with pytest.raises(package.PackagingError, match="another processor than x86_64"):
        package.check_archive(bad, built.target)
    good = _zip_with(tmp_path / "good.zip", {
        "nh3/nh3.abi3.so": elf, "x-1.dist-info/WHEEL": b"Tag: py3-none-any\n"})
    package.check_archive(good, built.target)


def test_check_command_exits_non_zero_with_the_reason(elf, tmp_path):
    bad = _zip_with(tmp_path / "py311.zip", {"_cffi_backend.cpython-311-x86_64-linux-gnu.so": elf})
    done = subprocess.run([sys.executable, "-m", "infra.package", "check", str(bad)],
                          check=False, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "would not load on python3.12 on x86_64" in done.stderr
    assert "_cffi_backend.cpython-311-x86_64-linux-gnu.so is built for Python 3.11" in done.stderr


def test_a_mixed_template_is_refused():
    template = {"Resources": {
        "A": {"Type": "AWS::Serverless::Function", "Properties": {"Runtime": "python3.12"}},
        "B": {"Type": "AWS::Serverless::Function", "Properties": {"Runtime": "python3.11"}}}}
    with pytest.raises(package.PackagingError, match="one zip serves every function"):
        package.target_of(template)


# ---- the template -----------------------------------------------------------------------

def test_template_runs_every_function_on_the_runtime_under_its_own_roles(template):
    functions = package.functions(template)
    assert {"APIHandler", "EventWorker", "WebhookWorker", "OutboxRelay"} <= set(functions)
    roles = {name for name, r in template["Resources"].items() if r["Type"] == "AWS::IAM::Role"}
    used = set()
    for name, resource in functions.items():
        props = resource["Properties"]
        assert props["Runtime"] == LAMBDA_RUNTIME, name
        assert props.get("Architectures", ["x86_64"]) == ["x86_64"], name
        assert props["CodeUri"] == package.CODE_URI, name
        assert props["Environment"]["Variables"]["NIMBUS__SERVER__ROOT_URL"] == {
            "Ref": package.ROOT_URL_PARAMETER}, name
        used.add(props["Role"]["Fn::GetAtt"][0])
    assert used == roles        # no role without a function, no function without a role
    assert "DefaultRole" not in template["Resources"]
    assert template["Parameters"][package.ROOT_URL_PARAMETER]["Type"] == "String"


def test_an_unused_or_foreign_role_is_refused(template):
    extra = json.loads(json.dumps(template))
    extra["Resources"]["SpareRole"] = {"Type": "AWS::IAM::Role", "Properties": {}}
    with pytest.raises(package.PackagingError, match="IAM roles no function uses"):
        package.check_roles(extra)
    foreign = json.loads(json.dumps(template))
    foreign["Resources"]["APIHandler"]["Properties"]["Role"] = "arn:aws:iam::1:role/x"
    with pytest.raises(package.PackagingError, match="function APIHandler has role"):
        package.check_roles(foreign)


def test_template_passes_cfn_lint(built):
    lint = Path(sys.executable).parent / "cfn-lint"
    if not lint.exists():
        pytest.skip("cfn-lint is not installed in this virtualenv")
    done = subprocess.run([str(lint), str(built.template_path)], check=False, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_lock_pins_what_requirements_pin():
    def pins(lines) -> dict[str, str]:
        found = {}
        for line in lines:
            line = line.split("#", 1)[0].strip()
            if "==" in line:
                name, version = line.split("==", 1)
                found[re.sub(r"[-_.]+", "-", name.split("[")[0]).lower()] = version.strip()
        return found

    wanted = pins(package.REQUIREMENTS.read_text().splitlines())
    locked = pins(package.locked_requirements())
    assert "chalice" not in wanted          # the zip carries chalice/app.py itself
    drift = {name: (version, locked.get(name)) for name, version in wanted.items()
             if locked.get(name) != version}
    assert not drift, f"run `python -m infra.package lock`: {drift}"


COLD_START = textwrap.dedent('''
    import importlib.util, json, os, sys
    root = sys.argv[1]
    sys.path.insert(0, root)
    sys.path.append(sys.argv[2])
    import app
    from chalicelib.http.routes import load_routes
    load_routes()
    import boto3
    for name in ("s3", "dynamodb", "sqs"):
        boto3.client(name, region_name="eu-west-1")
    loaded = [m.__file__ for m in list(sys.modules.values())
              if (getattr(m, "__file__", None) or "").startswith(root + "/")
              and m.__file__.endswith(".py")]
    missing = [f[len(root) + 1:] for f in loaded
               if not os.path.exists(importlib.util.cache_from_source(f))]
    print(json.dumps({"loaded": len(loaded), "compiled_at_start": missing,
                      "packages": sorted({m.split(".")[0] for m in sys.modules})}))
''')


def test_a_cold_start_compiles_no_module(names, unpacked, sdk, tmp_path):
    """/var/task is read-only: every module a cold start imports (the app's and the
    dependencies') must come with its bytecode, or each cold start compiles it again."""
    python = target_python()
    if python is None:
        pytest.skip(f"no Python {TARGET_VERSION} here (PATH or pyenv) to run the package with")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8",
           "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}
    done = subprocess.run([python, "-I", "-S", "-B", "-c", COLD_START, str(unpacked), str(sdk)],
                          check=False, capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert result["loaded"] > 100 and result["compiled_at_start"] == [], result
    # pyOpenSSL is in the zip for security keys; botocore would import it through
    # urllib3's shim on every cold start, so the shim is left out (UNIMPORTED).
    assert not set(result["packages"]) & {"OpenSSL", "webauthn", "cbor2", "pyasn1_modules"}



AVATARS_IN_TARGET = """
import base64, json, sys
sys.path.insert(0, sys.argv[1])
from chalicelib.avatars import images
shown = {}
for name, data in json.loads(sys.stdin.read()).items():
    shown[name] = images.normalized(base64.b64decode(data), max_width=4096,
                                    max_height=4096).png[:8].hex()
shown["identicon"] = images.identicon("alice")[:8].hex()
print(json.dumps(shown))
"""


def test_the_packaged_pillow_decodes_every_accepted_format_and_draws(unpacked, tmp_path):
    """Pillow's fonts, colour management and AVIF are left out (infra/package.py): what
    avatars use still works with the zip's own Pillow under the Lambda Python."""
    import base64
    import io

    from PIL import Image

    python = target_python()
    if python is None:
        pytest.skip(f"no Python {TARGET_VERSION} here (PATH or pyenv) to run the package with")
    uploads = {}
    for name in ("PNG", "JPEG", "GIF", "WEBP"):
        out = io.BytesIO()
        Image.new("RGB", (40, 30), (200, 40, 90)).save(out, format=name)
        uploads[name] = base64.b64encode(out.getvalue()).decode()
    done = subprocess.run([python, "-I", "-S", "-c", AVATARS_IN_TARGET, str(unpacked)],
                          check=False, input=json.dumps(uploads), capture_output=True, text=True,
                          cwd=tmp_path, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-3000:]
    shown = json.loads(done.stdout.strip().splitlines()[-1])
    png_signature = b"\x89PNG\r\n\x1a\n".hex()
    assert shown == {**{name: png_signature for name in uploads}, "identicon": png_signature}
