"""Build the Lambda package: ``deployment.zip`` and the CloudFormation (SAM) template.

    python -m infra.package [OUT_DIR]      # make package; default .chalice/deployments/package
    python -m infra.package lock           # rewrite requirements-lambda.txt from requirements.txt
    python -m infra.package check ZIP      # check a zip's binaries against the template

Chalice writes the template (functions, schedules, queues, the REST API) merged with
``infra/template.py``; its own zip is discarded, because Chalice installs dependencies
for the interpreter that runs it (3.11 here) while the functions run on
``infra.template.LAMBDA_RUNTIME``.  The zip is built here instead: of the pinned
closure of ``requirements-lambda.txt``, installed for the template's runtime and
architecture (infra/dependencies.py), what the app reads, but the AWS SDK the runtime
carries; plus ``app.py``, ``chalicelib`` (without the local runtime and the operators'
commands) and Chalice's runtime module, which Chalice itself vendors the same way; with
bytecode for those and for what a cold start imports.  A binary for another Python
version or architecture stops the build.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from infra import dependencies, domain
from infra.dependencies import (  # noqa: F401
    CACHE,
    LOCK,
    REQUIREMENTS,
    RUNTIME_PROVIDED,
    Installed,
    install,
    lock,
    locked_requirements,
)
from infra.lambda_runtime import (
    ELF_MACHINE,
    PackagingError,
    Target,
    check_archive,
    cold_path_modules,
    compile_bytecode,
    find_python,
)

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / ".chalice" / "deployments" / "package"
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
# libyaml binding (``yaml/_yaml*``, ``_yaml``) is never loaded, 2.8 MB unpacked, nor its
# Python side (``yaml/cyaml.py``, which yaml imports in a try and cannot load without it).
#
# Command lines and what only they import: dulwich's ``cli`` and ``porcelain`` (the app
# works on dulwich's plumbing; only dulwich's own maintenance command reaches porcelain),
# segno's ``cli``; and OAuth 1 (``oauthlib/oauth1``), which the OAuth2 provider never
# imports: 0.9 MB unpacked.
# Security keys (webauthn) brought pyOpenSSL, cbor2 and pyasn1-modules; what nothing
# imports went out to keep the zip within its guard (tests/test_package_unimported.py
# proves that no module left imports any of these, lazily or not, and runs what loads
# by name):
# - urllib3's pyOpenSSL shim: botocore imports it whenever pyOpenSSL is installed, which
#   would put OpenSSL on every cold start; without it botocore takes the standard
#   library's SSLContext, as it did before (webauthn imports OpenSSL itself);
# - pyasn1-modules but RFC 5280, the one webauthn reads certificates with;
# - Pillow's drivers of formats avatars never open (``Image.open`` is limited to PNG,
#   JPEG, GIF and WebP; ``Image.init`` skips a driver that is not there), its fonts,
#   Tk, screen grabs, PDF and image math, with their binary modules;
# - dulwich's modules only its porcelain and servers import (both already out);
# - mistune's plugins and directives the renderer does not name, and its Markdown and
#   RST renderers; Pygments' formatters and styles other than the HTML formatter and
#   the default style, and its command line;
# - type stubs (``.pyi``), which only type checkers read, and the installers' file
#   lists (``RECORD``: what pip uninstalls; nothing in the zip asks for a
#   distribution's files).
UNIMPORTED = (
    "urllib3/contrib/pyopenssl.py", "**/*.pyi", "*.dist-info/RECORD",
    "pyasn1_modules/pem.py", "pyasn1_modules/rfc[!5]*", "pyasn1_modules/rfc5[!2]*",
    "pyasn1_modules/rfc52[!8]*", "pyasn1_modules/rfc528[!0]*",
    *(f"PIL/{name}.py" for name in (
        "AvifImagePlugin", "BdfFontFile", "BlpImagePlugin", "BufrStubImagePlugin",
        "ContainerIO", "CurImagePlugin", "DcxImagePlugin", "DdsImagePlugin",
        "EpsImagePlugin", "FitsImagePlugin", "FliImagePlugin", "FontFile",
        "FpxImagePlugin", "FtexImagePlugin", "GbrImagePlugin", "GdImageFile",
        "GribStubImagePlugin", "Hdf5StubImagePlugin", "IcnsImagePlugin", "IcoImagePlugin",
        "ImImagePlugin", "ImageEnhance", "ImageGrab", "ImageMath", "ImageMorph",
        "ImageStat", "ImageTk", "ImageTransform", "ImtImagePlugin", "IptcImagePlugin",
        "Jpeg2KImagePlugin", "McIdasImagePlugin", "MicImagePlugin", "MpegImagePlugin",
        "MspImagePlugin", "PSDraw", "PalmImagePlugin", "PcdImagePlugin", "PcfFontFile",
        "PcxImagePlugin", "PdfImagePlugin", "PdfParser", "PixarImagePlugin",
        "PsdImagePlugin", "QoiImagePlugin", "SgiImagePlugin", "SpiderImagePlugin",
        "SunImagePlugin", "TarIO", "TgaImagePlugin", "WalImageFile", "WmfImagePlugin",
        "XVThumbImagePlugin", "XbmImagePlugin", "XpmImagePlugin", "__main__",
        "_tkinter_finder", "features", "report")),
    "PIL/_imagingmath.*", "PIL/_imagingmorph.*",
    *(f"dulwich/{name}" for name in (
        "__main__.py", "aiohttp", "am.py", "bisect.py", "cloud", "diff.py", "diffstat.py",
        "fastexport.py", "filter_branch.py", "lfs_server.py", "mailmap.py",
        "maintenance.py", "mbox.py", "range_diff.py", "rerere.py", "stash.py",
        "stripspace.py", "subtree.py", "web.py", "whitespace.py")),
    "mistune/__main__.py", "mistune/directives", "mistune/toc.py",
    "mistune/renderers/markdown.py", "mistune/renderers/rst.py",
    *(f"mistune/plugins/{name}.py" for name in ("abbr", "math", "ruby", "speedup", "spoiler")),
    "pygments/__main__.py", "pygments/cmdline.py", "pygments/sphinxext.py",
    "pygments/formatters/[!_h]*.py",
    "pygments/styles/[!_d]*.py", "pygments/styles/d[!e]*.py",
)
PRUNED = ("bin", "dulwich/tests", "cffi", "pycparser", "pycparser-*.dist-info",
          "yaml/_yaml.*", "_yaml", "yaml/cyaml.py",
          "dulwich/cli.py", "dulwich/porcelain", "segno/cli.py", "oauthlib/oauth1",
          "PIL/_avif.*", "PIL/_imagingft.*", "PIL/_imagingcms.*", "PIL/_imagingtk.*",
          "pillow.libs/libavif-*", "pillow.libs/libfreetype-*", "pillow.libs/libharfbuzz-*",
          "pillow.libs/liblcms2-*", "pillow.libs/libpng16-*", "pillow.libs/libbrotli*",
          *UNIMPORTED)
# Locked distributions the zip does not carry at all (their files are all PRUNED).
PRUNED_DISTRIBUTIONS = ("pycparser",)
# Never run in Lambda: the local runtime (it imports moto), and what operators run from a
# clone (docs: README, infra/README.md): the admin command line, its bundle push for
# large pushes, the stored-record repair and the dump and restore it drives
# (chalicelib/backup), its dead letters and health check (chalicelib/upkeep).  No
# packaged module may import them (the build checks every import, lazy ones included).
APP_EXCLUDED = ("chalicelib/local", "chalicelib/cli.py", "chalicelib/push_bundle.py",
                "chalicelib/repair.py", "chalicelib/store/maintenance.py",
                "chalicelib/backup", "chalicelib/upkeep")
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
    stripped: bool = False  # the binaries carry no symbol tables nor debug information
    # Installed files the zip leaves out ("PRUNED" | "unread"), and where they are.
    left_out: dict[str, str] = field(default_factory=dict)
    installed: Installed | None = None


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
            check=False, cwd=tmp, env=env, capture_output=True, text=True)
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
        if domain.EDGE_SECRET_PARAMETER in template["Parameters"]:
            variables[domain.EDGE_SECRET_VARIABLE] = domain.edge_secret_variable()
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
            archive.writestr(info, data, compresslevel=9)
    return unpacked, len(files)


def build(out_dir: Path = DEFAULT_OUT, region: str | None = None) -> Package:
    template = finish_template(chalice_template(region))
    target = target_of(template)
    python = find_python(target.python)
    installed = install(target)
    ours = app_files()
    wrong = excluded_imports(ours)
    if wrong:
        raise PackagingError("packaged modules import modules the zip leaves out "
                             "(APP_EXCLUDED):\n  " + "\n  ".join(wrong))
    known = dependencies.load_imports()
    kept = dependencies.keep(installed, {name: path for path, name in ours}, PRUNED, known)
    dependencies.save_imports(known, kept.imports_read)
    if any(name.startswith("chalice/") for name in kept.files):
        raise PackagingError("chalice is in requirements-lambda.txt: the zip carries only "
                             "its runtime module (chalice/app.py), added here")
    files = [(path, name) for name, path in kept.files.items()]
    for source, name in ours:
        if name in kept.files:
            raise PackagingError(f"{name} is both a dependency file and an app file")
        files.append((source, name))
    out_dir.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="nimbus-pyc-"))
    try:
        if python:
            files += _bytecode(python, files, {name for _, name in ours}, installed, work)
        return _write_package(out_dir, files, template, target, bool(python), kept, installed)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _bytecode(python: str, files: list[tuple[Path, str]], ours: set[str],
              installed: Installed, work: Path) -> list[tuple[Path, str]]:
    """Bytecode of the app's modules (without docstrings) and of the dependency modules
    a cold start imports, found by running one against the zip's files staged at
    ``work/stage``."""
    staged = work / "stage"
    for source, name in files:
        (staged / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, staged / name)
    cold = set(cold_path_modules(python, staged, installed.runtime))
    sources = [(path, name) for path, name in files if name.endswith(".py")
               and (name in ours or name in cold)]
    return compile_bytecode(python, sources, work / "pyc",
                            bare=[name for name in ours if name.endswith(".py")])


def _write_package(out_dir: Path, files, template: dict, target: Target, bytecode: bool,
                   kept: dependencies.Kept, installed: Installed) -> Package:
    zip_path = out_dir / ZIP_NAME
    partial = out_dir / (ZIP_NAME + ".partial")
    unpacked, count = write_zip(partial, files)
    check_archive(partial, target)
    partial.replace(zip_path)
    template_path = out_dir / TEMPLATE_NAME
    template_path.write_text(json.dumps(template, indent=2) + "\n")
    return Package(zip_path, template_path, target, zip_path.stat().st_size, unpacked, count,
                   bytecode, installed.stripped, kept.left_out, installed)


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
            left = [made.installed.site / name for name in made.left_out]
            unread = sum(1 for why in made.left_out.values() if why == "unread")
            print(f"  left out: {len(left)} installed files, "
                  f"{_mb(sum(path.stat().st_size for path in left))} ({unread} that nothing "
                  f"reads, {len(left) - unread} PRUNED); and the AWS SDK, which the Lambda "
                  f"runtime carries ({', '.join(RUNTIME_PROVIDED)})")
            if not made.bytecode:
                print(f"  no {made.target.runtime} interpreter here (PATH or pyenv): built "
                      f"without bytecode, so cold starts compile every module")
            if not made.stripped:
                print("  no strip here (binutils or LLVM): binaries keep their symbols "
                      "and debug information")
            print(f"  template: {made.template_path}")
    except PackagingError as exc:
        print(f"make package: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
