"""Build the Lambda package: ``deployment.zip`` and the CloudFormation (SAM) template.

    python -m infra.package [OUT_DIR]      # make package; default .chalice/deployments/package
    python -m infra.package lock           # rewrite requirements-lambda.txt from requirements.txt
    python -m infra.package check ZIP      # check a zip's binaries against the template

Chalice writes the template (functions, schedules, queues, the REST API) merged with
``infra/template.py``; its own zip is discarded, because Chalice installs dependencies
for the interpreter that runs it (3.11 here) while the functions run on
``infra.template.LAMBDA_RUNTIME``.  The zip is built here instead: the pinned closure of
``requirements-lambda.txt`` installed by pip for the template's runtime and architecture
(manylinux wheels, whatever machine packages), pruned, plus ``app.py``, ``chalicelib``
(without the local runtime and the operators' commands) and Chalice's runtime module,
which Chalice itself vendors the same way, with bytecode for those alone.  A binary for
another Python version or architecture stops the build.
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from infra.lambda_runtime import (ELF_MACHINE, PackagingError, Target, check_archive,
                                  check_tree, cold_path_modules, compile_bytecode,
                                  find_python)

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS = ROOT / "requirements.txt"
LOCK = ROOT / "requirements-lambda.txt"
DEFAULT_OUT = ROOT / ".chalice" / "deployments" / "package"
# Installed dependency sets, keyed by the lock and the target: `make clean` drops them.
CACHE = ROOT / ".venv" / "lambda-build"
STAGE = "prod"
ZIP_NAME = "deployment.zip"
TEMPLATE_NAME = "sam.json"
CODE_URI = "./" + ZIP_NAME
FUNCTION_TYPES = ("AWS::Serverless::Function", "AWS::Lambda::Function")
# What pip leaves that nothing imports at run time (globs): console scripts, dulwich's
# test helpers, and the build side of cffi: its Python package (the FFI builder) and
# pycparser (its C declaration parser).  cryptography's compiled bindings load only
# cffi's binary backend, ``_cffi_backend``, which stays.
#
# Pillow (avatars) keeps what decoding PNG, JPEG, GIF and WebP and drawing shapes need:
# its core module and WebP's, with the libraries they link.  Fonts (FreeType, HarfBuzz
# and their PNG and Brotli), colour management (LittleCMS), AVIF and Tk are optional
# modules nothing imports: 8.5 MB unpacked.  tests/test_package.py decodes and draws
# with the zip's own Pillow.
#
# PyYAML (issue templates) is read with ``yaml.safe_load``, its pure-Python loader: the
# libyaml binding (``yaml/_yaml*``, ``_yaml``) is never loaded, 2.8 MB unpacked.
#
# Command lines and what only they import: dulwich's ``cli`` and ``porcelain`` (the app
# works on dulwich's plumbing; only dulwich's own maintenance command reaches porcelain),
# segno's ``cli``; and OAuth 1 (``oauthlib/oauth1``), which the OAuth2 provider never
# imports: 0.9 MB unpacked.
PRUNED = ("bin", "dulwich/tests", "cffi", "pycparser", "pycparser-*.dist-info",
          "yaml/_yaml.*", "_yaml",
          "dulwich/cli.py", "dulwich/porcelain", "segno/cli.py", "oauthlib/oauth1",
          "PIL/_avif.*", "PIL/_imagingft.*", "PIL/_imagingcms.*", "PIL/_imagingtk.*",
          "pillow.libs/libavif-*", "pillow.libs/libfreetype-*", "pillow.libs/libharfbuzz-*",
          "pillow.libs/liblcms2-*", "pillow.libs/libpng16-*", "pillow.libs/libbrotli*")
# Locked distributions the zip does not carry at all (their files are all PRUNED).
PRUNED_DISTRIBUTIONS = ("pycparser",)
# Never run in Lambda: the local runtime (it imports moto), and what operators run from a
# clone (docs: README, infra/README.md): the admin command line, its bundle push for
# large pushes, and the stored-record repair it drives.  No packaged module may import
# them (the build checks every import, lazy ones included).
APP_EXCLUDED = ("chalicelib/local", "chalicelib/cli.py", "chalicelib/push_bundle.py",
                "chalicelib/repair.py", "chalicelib/store/maintenance.py")
# botocore ships the models of every AWS service (60% of the zip); the zip
# keeps those the code names (aws_services) and these: PynamoDB's, and STS for credentials.
AWS_SERVICES_ALWAYS = ("dynamodb", "sts")
# The one place that creates clients from a variable: chalicelib.aws.client(service).
CLIENT_FACTORY = "chalicelib/aws.py"
ROOT_URL_PARAMETER = "RootUrl"
ROOT_URL_VARIABLE = "NIMBUS__SERVER__ROOT_URL"
# Zip entries carry a fixed time so the same inputs give the same bytes (and S3 key).
_EPOCH = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class Package:
    zip_path: Path
    template_path: Path
    target: Target
    zipped: int
    unpacked: int
    files: int
    bytecode: bool          # .pyc files of the app for the runtime's Python are included


def functions(template: dict) -> dict[str, dict]:
    return {name: resource for name, resource in template.get("Resources", {}).items()
            if resource.get("Type") in FUNCTION_TYPES}


def target_of(template: dict) -> Target:
    """The one runtime and architecture every function of the template runs on."""
    runtimes, archs = set(), set()
    for resource in functions(template).values():
        props = resource.get("Properties", {})
        runtimes.add(props.get("Runtime"))
        archs.update(props.get("Architectures") or ["x86_64"])
    if len(runtimes) != 1 or len(archs) != 1:
        raise PackagingError(f"one zip serves every function, but the template asks for "
                             f"runtimes {sorted(map(str, runtimes))} and architectures "
                             f"{sorted(archs)}")
    runtime, arch = runtimes.pop(), archs.pop()
    match = re.fullmatch(r"python3\.(\d+)", str(runtime))
    if not match or arch not in ELF_MACHINE:
        raise PackagingError(f"cannot package for runtime {runtime!r} on {arch!r}")
    return Target((3, int(match.group(1))), arch)


# ---- the template ----------------------------------------------------------------------

def chalice_template(region: str | None = None) -> dict:
    """``chalice package`` of app.py with infra/template.py merged in, as a dict.

    Chalice runs in a staging project without requirements.txt, so it installs nothing:
    its zip only carries the app and is thrown away."""
    from chalicelib.settings import get_settings
    from infra.template import resources

    chalice = Path(sys.executable).parent / "chalice"
    if not chalice.exists():
        raise PackagingError(f"chalice is not installed next to {sys.executable}: run "
                             f"`make install` (requirements-dev.txt)")
    with tempfile.TemporaryDirectory(prefix="nimbus-chalice-") as tmp:
        stage = Path(tmp) / "project"
        (stage / ".chalice").mkdir(parents=True)
        shutil.copy2(ROOT / ".chalice" / "config.json", stage / ".chalice" / "config.json")
        shutil.copy2(ROOT / "app.py", stage / "app.py")
        (stage / "chalicelib").symlink_to(ROOT / "chalicelib", target_is_directory=True)
        merge = Path(tmp) / "resources.json"
        merge.write_text(json.dumps(resources(get_settings())))
        out = Path(tmp) / "out"
        # Chalice opens a boto3 session even to package; the template itself names the
        # region only through AWS::Region, so any region gives the same output.
        env = {**os.environ, "AWS_DEFAULT_REGION": region or os.environ.get(
            "AWS_DEFAULT_REGION") or "us-east-1"}
        done = subprocess.run(
            [str(chalice), "--project-dir", str(stage), "package", "--stage", STAGE,
             "--merge-template", str(merge), str(out)],
            cwd=tmp, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise PackagingError("chalice package failed:\n" + done.stdout + done.stderr)
        return json.loads((out / TEMPLATE_NAME).read_text())


def finish_template(template: dict) -> dict:
    """ROOT_URL becomes a stack parameter shared by every function, so a redeploy keeps
    it and the workers (webhook payloads, mails) use the same URL as the API."""
    template.setdefault("Parameters", {})[ROOT_URL_PARAMETER] = {
        "Type": "String", "AllowedPattern": "^https?://[^/]+/.*$",
        "Description": "Public base URL of the instance (Forgejo's ROOT_URL), ending in /"}
    for resource in functions(template).values():
        props = resource["Properties"]
        variables = props.setdefault("Environment", {}).setdefault("Variables", {})
        variables[ROOT_URL_VARIABLE] = {"Ref": ROOT_URL_PARAMETER}
        if "CodeUri" in props:
            props["CodeUri"] = CODE_URI
    check_roles(template)
    return template


def check_roles(template: dict) -> None:
    """Every function runs under a role the template defines, and every role is used."""
    resources = template.get("Resources", {})
    roles = {name for name, r in resources.items() if r.get("Type") == "AWS::IAM::Role"}
    used = set()
    for name, resource in functions(template).items():
        role = resource.get("Properties", {}).get("Role")
        ref = role.get("Fn::GetAtt", [None])[0] if isinstance(role, dict) else None
        if ref not in roles:
            raise PackagingError(f"function {name} has role {role!r}, not one of the "
                                 f"template's roles {sorted(roles)}: give it one in "
                                 f"infra/template.py")
        used.add(ref)
    if roles - used:
        raise PackagingError(f"IAM roles no function uses: {sorted(roles - used)} "
                             f"(check manage_iam_role in .chalice/config.json)")


# ---- dependencies ----------------------------------------------------------------------

def _pip(args: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", "pip", *args, "--disable-pip-version-check"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise PackagingError("pip " + " ".join(args[:2]) + " failed:\n" + done.stderr[-4000:])


def locked_requirements() -> list[str]:
    if not LOCK.exists():
        raise PackagingError(f"{LOCK.name} is missing: run `python -m infra.package lock`")
    lines = [line.split("#", 1)[0].strip() for line in LOCK.read_text().splitlines()]
    return [line for line in lines if line]


def aws_services() -> list[str]:
    """The AWS services the packaged code makes clients for: the string literal given to
    every ``client(...)``/``resource(...)`` call in app.py and chalicelib."""
    found = set(AWS_SERVICES_ALWAYS)
    for source, name in app_files():
        if not name.endswith(".py") or name.startswith("chalice/"):
            continue
        for node in ast.walk(ast.parse(source.read_text(), name)):
            if not (isinstance(node, ast.Call) and node.args and getattr(
                    node.func, "attr", getattr(node.func, "id", None)) in ("client", "resource")):
                continue
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.add(first.value)
            elif name != CLIENT_FACTORY:
                raise PackagingError(
                    f"{name}:{node.lineno}: an AWS client whose service is not a string "
                    f"literal; the package keeps only the botocore models of named services")
    return sorted(found)


def prune_botocore(site: Path, services: list[str]) -> None:
    data = site / "botocore" / "data"
    for model in data.iterdir() if data.is_dir() else ():
        if model.is_dir() and model.name not in services:
            shutil.rmtree(model)


def dependencies(target: Target) -> Path:
    """The locked dependencies installed for ``target``, as sources: no bytecode (cached
    per lock, target, the AWS services kept and what is pruned)."""
    pins = locked_requirements()
    services = aws_services()
    key = hashlib.sha256(json.dumps([pins, target.pip_options(), services,
                                     PRUNED]).encode()).hexdigest()[:16]
    site = CACHE / f"{target.runtime}-{target.arch}-{key}"
    if site.is_dir():
        return site
    CACHE.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="site-", dir=CACHE))
    try:
        # --no-deps: the lock is the whole closure.  A pure-Python package published
        # only as an sdist (PGPy) is built into a wheel by this interpreter; a binary
        # one built that way would carry this interpreter's tags and fails check_tree.
        _pip(["install", "--no-deps", "--no-compile", "--prefer-binary", "--quiet",
              "--target", str(work), *target.pip_options(), *pins])
        for pattern in PRUNED:
            for path in list(work.glob(pattern)):
                if path.is_dir():
                    shutil.rmtree(path)
                else:
                    path.unlink()
        prune_botocore(work, services)
        # Dependencies ship without bytecode (7 MB zipped for every module of every
        # package, most never imported): see "Bytecode" in infra/README.md.
        for cache_dir in list(work.rglob("__pycache__")):
            shutil.rmtree(cache_dir, ignore_errors=True)
        check_tree(work, target)
        try:
            work.rename(site)
        except OSError:
            if not site.is_dir():   # another build won the race: use its copy
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for stale in CACHE.glob(f"{target.runtime}-{target.arch}-*"):
        if stale != site:
            shutil.rmtree(stale, ignore_errors=True)
    return site


def lock(target: Target) -> list[str]:
    """Resolve requirements.txt for ``target`` and write the pinned closure to the lock."""
    with tempfile.TemporaryDirectory(prefix="nimbus-lock-") as tmp:
        report = Path(tmp) / "report.json"
        common = ["install", "--dry-run", "--ignore-installed", "--quiet", "--report",
                  str(report), *target.pip_options()]
        # pip resolves dependencies for a foreign platform from wheels only; build the
        # pure-Python packages that publish no wheel first and offer them to it.
        _pip([*common, "--no-deps", "--prefer-binary", "-r", str(REQUIREMENTS)])
        wheelhouse = Path(tmp) / "wheels"
        for item in json.loads(report.read_text())["install"]:
            if not item["download_info"]["url"].endswith(".whl"):
                meta = item["metadata"]
                _pip(["wheel", "--no-deps", "--quiet", "--wheel-dir", str(wheelhouse),
                      f"{meta['name']}=={meta['version']}"])
        for wheel in wheelhouse.glob("*.whl") if wheelhouse.exists() else ():
            if not wheel.name.endswith("-none-any.whl"):
                raise PackagingError(f"{wheel.name}: no {target.describe()} wheel on the index "
                                     f"and not pure Python; pin another version")
        _pip([*common, "--only-binary=:all:", "--find-links", str(wheelhouse),
              "-r", str(REQUIREMENTS)])
        items = json.loads(report.read_text())["install"]
    pins = sorted(f"{i['metadata']['name'].lower()}=={i['metadata']['version']}" for i in items)
    LOCK.write_text(
        f"# The Lambda's dependencies: the closure of requirements.txt for {target.runtime} "
        f"on {target.arch}.\n# Generated by `python -m infra.package lock`; "
        "`make package` installs exactly these.\n" + "\n".join(pins) + "\n")
    return pins


# ---- the zip ---------------------------------------------------------------------------

def app_files() -> list[tuple[Path, str]]:
    """app.py, chalicelib (without the local runtime) and Chalice's runtime module."""
    import chalice
    import chalice.app

    found = [(ROOT / "app.py", "app.py"),
             (Path(chalice.__file__), "chalice/__init__.py"),
             (Path(chalice.app.__file__), "chalice/app.py")]
    for path in sorted((ROOT / "chalicelib").rglob("*")):
        name = path.relative_to(ROOT).as_posix()
        if (not path.is_file() or "__pycache__" in path.parts or path.suffix in (".pyc", ".pyo")
                or excluded(name)):
            continue
        found.append((path, name))
    return found


def excluded(name: str) -> bool:
    """Whether ``name`` (a path in the zip) is left out as APP_EXCLUDED."""
    return any(name == ex or name.startswith(ex + "/") for ex in APP_EXCLUDED)


def _module_of(name: str) -> str:
    return name.removesuffix(".py").replace("/", ".").removesuffix(".__init__")


def excluded_imports(files: list[tuple[Path, str]]) -> list[str]:
    """``file:line module`` for each import of a left-out module by a packaged one, at any
    depth of the code (a lazy import fails only when its path runs)."""
    left_out = {_module_of(ex) for ex in APP_EXCLUDED}
    found = []
    for source, name in files:
        if not name.endswith(".py") or name.startswith("chalice/"):
            continue
        package = _module_of(name).rpartition(".")[0] if not name.endswith("__init__.py") \
            else _module_of(name)
        for node in ast.walk(ast.parse(source.read_text(), name)):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
                targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            else:
                continue
            found += [f"{name}:{node.lineno} {target}" for target in targets
                      if any(target == m or target.startswith(m + ".") for m in left_out)]
    return sorted(set(found))


def write_zip(path: Path, files: list[tuple[Path, str]]) -> tuple[int, int]:
    """Deterministic zip of ``files``; (unpacked bytes, file count)."""
    unpacked = 0
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for source, name in sorted(files, key=lambda item: item[1]):
            info = zipfile.ZipInfo(name, _EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            executable = os.access(source, os.X_OK)
            info.external_attr = ((0o100755 if executable else 0o100644) & 0xFFFF) << 16
            data = source.read_bytes()
            unpacked += len(data)
            archive.writestr(info, data, compresslevel=6)
    return unpacked, len(files)


def build(out_dir: Path = DEFAULT_OUT, region: str | None = None) -> Package:
    template = finish_template(chalice_template(region))
    target = target_of(template)
    python = find_python(target.python)
    site = dependencies(target)
    files = [(p, p.relative_to(site).as_posix()) for p in site.rglob("*") if p.is_file()]
    if any(name.startswith("chalice/") for _, name in files):
        raise PackagingError("chalice is in requirements-lambda.txt: the zip carries only "
                             "its runtime module (chalice/app.py), added here")
    taken = {name for _, name in files}
    ours = app_files()
    wrong = excluded_imports(ours)
    if wrong:
        raise PackagingError("packaged modules import modules the zip leaves out "
                             "(APP_EXCLUDED):\n  " + "\n  ".join(wrong))
    for source, name in ours:
        if name in taken:
            raise PackagingError(f"{name} is both a dependency file and an app file")
        files.append((source, name))
    out_dir.mkdir(parents=True, exist_ok=True)
    bytecode_dir = Path(tempfile.mkdtemp(prefix="nimbus-pyc-"))
    try:
        if python:
            sources = [item for item in ours if item[1].endswith(".py")]
            sources += cold_path_modules(python, site, ours)
            files += compile_bytecode(python, sources, bytecode_dir)
        return _write_package(out_dir, files, template, target, bool(python))
    finally:
        shutil.rmtree(bytecode_dir, ignore_errors=True)


def _write_package(out_dir: Path, files, template: dict, target: Target,
                   bytecode: bool) -> Package:
    zip_path = out_dir / ZIP_NAME
    partial = out_dir / (ZIP_NAME + ".partial")
    unpacked, count = write_zip(partial, files)
    check_archive(partial, target)
    partial.replace(zip_path)
    template_path = out_dir / TEMPLATE_NAME
    template_path.write_text(json.dumps(template, indent=2) + "\n")
    return Package(zip_path, template_path, target, zip_path.stat().st_size, unpacked, count,
                   bytecode)


def _mb(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infra.package")
    parser.add_argument("command", nargs="?", default=str(DEFAULT_OUT.relative_to(ROOT)),
                        help="an output directory (default: %(default)s), `lock` or `check`")
    parser.add_argument("zip", nargs="?", help="with `check`: the zip to check")
    args = parser.parse_args(argv)
    try:
        if args.command == "lock":
            pins = lock(target_of(finish_template(chalice_template())))
            print(f"{LOCK.name}: {len(pins)} packages")
        elif args.command == "check":
            if not args.zip:
                parser.error("check needs the zip to check")
            target = target_of(finish_template(chalice_template()))
            check_archive(Path(args.zip), target)
            print(f"{args.zip}: every binary loads on {target.describe()}")
        else:
            made = build(Path(args.command).resolve())
            print(f"Lambda package for {made.target.describe()}: {made.zip_path}")
            print(f"  {_mb(made.zipped)} zipped, {_mb(made.unpacked)} unpacked, "
                  f"{made.files} files")
            if not made.bytecode:
                print(f"  no {made.target.runtime} interpreter here (PATH or pyenv): built "
                      f"without bytecode, so cold starts compile every module")
            print(f"  template: {made.template_path}")
    except PackagingError as exc:
        print(f"make package: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
