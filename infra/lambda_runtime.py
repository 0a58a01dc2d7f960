"""What the Lambda runtime can load: the packaging target (Python version and
architecture), the checks that every binary in the package was built for it, its
binaries stripped of what only debuggers read, and bytecode compiled by that runtime's
own Python (infra/package.py builds with these).
"""
from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

# glibc of the Amazon Linux 2023 images behind python3.12 and later.
GLIBC_MINOR = 34
ELF_MACHINE = {"x86_64": 62, "arm64": 183}
UNAME_ARCH = {"x86_64": "x86_64", "arm64": "aarch64"}
_EXT_SUFFIX = re.compile(r"\.cpython-(\d)(\d+)-([a-z0-9_]+)-linux-gnu\.so$")


class PackagingError(Exception):
    """The package cannot be built as asked; the message says why and what to do."""


@dataclass(frozen=True)
class Target:
    python: tuple[int, int]
    arch: str               # Lambda's spelling: x86_64 | arm64

    @property
    def runtime(self) -> str:
        return "python{}.{}".format(*self.python)

    @property
    def platforms(self) -> list[str]:
        # pip does not widen a manylinux_2_N platform to older glibc versions by itself.
        machine = UNAME_ARCH[self.arch]
        return [f"manylinux_2_{minor}_{machine}" for minor in range(GLIBC_MINOR, 16, -1)] + [
            f"manylinux2014_{machine}"]

    def pip_options(self) -> list[str]:
        options = []
        for tag in self.platforms:
            options += ["--platform", tag]
        return options + ["--python-version", "{}.{}".format(*self.python),
                          "--implementation", "cp"]

    def supported_tags(self) -> frozenset:
        from packaging import tags

        return frozenset(tags.cpython_tags(self.python, platforms=self.platforms)) | frozenset(
            tags.compatible_tags(self.python, "cp{}{}".format(*self.python), self.platforms))

    def describe(self) -> str:
        return f"{self.runtime} on {self.arch}"


# ---- checks ----------------------------------------------------------------------------

def _binary_problem(name: str, head: bytes, target: Target) -> str | None:
    """Why the shared object ``name`` (first bytes ``head``) cannot load on ``target``."""
    suffix = _EXT_SUFFIX.search(name)
    if suffix and (int(suffix.group(1)), int(suffix.group(2))) != target.python:
        return f"{name} is built for Python {suffix.group(1)}.{suffix.group(2)}"
    if suffix and suffix.group(3) != UNAME_ARCH[target.arch]:
        return f"{name} is built for {suffix.group(3)}"
    if head[:4] != b"\x7fELF":
        return f"{name} is not a Linux (ELF) binary"
    order = "little" if head[5:6] == b"\x01" else "big"
    if int.from_bytes(head[18:20], order) != ELF_MACHINE[target.arch]:
        return f"{name} is built for another processor than {target.arch}"
    return None


def _wheel_problem(name: str, text: str, supported: frozenset) -> str | None:
    from packaging.tags import parse_tag

    declared = set()
    for line in text.splitlines():
        if line.startswith("Tag:"):
            declared |= parse_tag(line.split(":", 1)[1].strip())
    if declared and not declared & supported:
        return f"{name.split('/')[0]} is a wheel for {sorted(str(t) for t in declared)}"
    return None


def _problems(entries, target: Target) -> list[str]:
    """``entries``: (name, read_head, read_text) per file."""
    supported = target.supported_tags()
    found = []
    for name, head, text in entries:
        if name.endswith(".so") or ".so." in name.rsplit("/", 1)[-1]:
            found.append(_binary_problem(name, head(), target))
        elif name.endswith(".dist-info/WHEEL"):
            found.append(_wheel_problem(name, text(), supported))
    return [problem for problem in found if problem]


def _refuse(problems: list[str], target: Target) -> None:
    if problems:
        raise PackagingError(
            f"the package would not load on {target.describe()}:\n  " + "\n  ".join(problems)
            + "\nIts binaries must be built for the template's runtime (infra/template.py "
              "LAMBDA_RUNTIME): pin versions with wheels for it in requirements.txt and run "
              "`python -m infra.package lock`.")


def check_tree(root: Path, target: Target) -> None:
    files = sorted(p for p in root.rglob("*") if p.is_file())
    _refuse(_problems(((p.relative_to(root).as_posix(), lambda p=p: p.open("rb").read(64),
                        lambda p=p: p.read_text(errors="replace")) for p in files),
                      target), target)


def check_archive(path: Path, target: Target) -> None:
    with zipfile.ZipFile(path) as archive:
        names = [n for n in archive.namelist() if not n.endswith("/")]
        _refuse(_problems(((n, lambda n=n: archive.open(n).read(64),
                            lambda n=n: archive.read(n).decode("utf-8", "replace"))
                           for n in names), target), target)


# ---- symbols ---------------------------------------------------------------------------
# Wheels' binaries keep their symbol tables, some their DWARF debug information too
# (Pillow's core module: 2.7 MB of its 3.5): what debuggers and profilers read, never
# the dynamic loader, which needs only the dynamic symbols that `--strip-unneeded` keeps.

def section_names(data: bytes) -> list[str]:
    """The section names of an ELF64 little-endian file ([] for any other file)."""
    if data[:4] != b"\x7fELF" or data[4:6] != b"\x02\x01":
        return []
    shoff = int.from_bytes(data[0x28:0x30], "little")
    shentsize, shnum, shstrndx = (int.from_bytes(data[at:at + 2], "little")
                                  for at in (0x3A, 0x3C, 0x3E))
    headers = [data[shoff + i * shentsize:shoff + (i + 1) * shentsize] for i in range(shnum)]
    if not headers:
        return []
    strings = int.from_bytes(headers[shstrndx][24:32], "little")
    names = []
    for header in headers:
        start = strings + int.from_bytes(header[:4], "little")
        names.append(data[start:data.index(b"\0", start)].decode("ascii", "replace"))
    return names


def find_strip(target: Target) -> str | None:
    """A strip that reads ``target``'s binaries: LLVM's reads any ELF, binutils' the
    build machine's own architecture (unless built for more)."""
    names = ["llvm-strip"]
    if platform.machine() == UNAME_ARCH[target.arch]:
        names.insert(0, "strip")
    for name in names:
        path = shutil.which(name)
        if not path:
            continue
        try:
            done = subprocess.run([path, "--version"], check=False, capture_output=True,
                                  text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0 and ("GNU" in done.stdout or "LLVM" in done.stdout):
            return path
    return None


def strip_binaries(root: Path, strip: str) -> list[str]:
    """Strip every shared object under ``root`` that has symbols or debug information
    (libraries auditwheel vendored come stripped and are left as they are)."""
    done = []
    for path in sorted(root.rglob("*")):
        if not (path.is_file() and (path.name.endswith(".so") or ".so." in path.name)):
            continue
        if not any(name == ".symtab" or name.startswith(".debug_")
                   for name in section_names(path.read_bytes())):
            continue
        stripped = subprocess.run([strip, "--strip-unneeded", str(path)],
                                  check=False, capture_output=True, text=True)
        if stripped.returncode != 0:
            raise PackagingError(f"{strip} failed on {path.relative_to(root)}:\n"
                                 f"{stripped.stderr[-2000:]}")
        done.append(path.relative_to(root).as_posix())
    return done


# ---- bytecode ---------------------------------------------------------------------------
# Lambda's code directory is read-only: without .pyc files in the zip, every cold start
# compiles every module it imports (about half the import time of app.py).  Only the
# runtime's own Python can write them; without one the zip is built without bytecode.
# Compiled with -X no_debug_ranges: a traceback keeps each frame's file and line but
# not the column marks under it, which took a fifth of the bytecode.  The app's own
# modules are compiled without their docstrings (``bare``): nothing in the package
# reads an app object's ``__doc__`` (tests/test_package.py checks the app for readers),
# and the sources beside the bytecode keep them for people and tracebacks.

_COMPILE = """
import ast, importlib.util, json, marshal, os, sys
out, made = sys.argv[1], []
DEFINITIONS = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)

def without_docstrings(tree):
    for node in ast.walk(tree):
        first = node.body[0] if isinstance(node, DEFINITIONS) and node.body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \\
                and isinstance(first.value.value, str):
            # The other statements keep their line numbers; a body never goes empty.
            node.body[:1] = [ast.copy_location(ast.Pass(), first)] if len(node.body) == 1 \\
                else []
    return tree

for source, name, bare in json.load(sys.stdin):
    head, tail = os.path.split(name)
    cached = os.path.join(head, "__pycache__", tail[:-3] + "." + sys.implementation.cache_tag
                          + ".pyc")
    with open(source, "rb") as file:
        data = file.read()
    try:
        tree = ast.parse(data, name)
        code = compile(without_docstrings(tree) if bare else tree, name, "exec",
                       dont_inherit=True)
    except (SyntaxError, ValueError):
        continue
    # PEP 552, unchecked hash: valid whatever the files' times in the zip, never re-read.
    os.makedirs(os.path.dirname(os.path.join(out, cached)), exist_ok=True)
    with open(os.path.join(out, cached), "wb") as file:
        file.write(importlib.util.MAGIC_NUMBER + (1).to_bytes(4, "little")
                   + importlib.util.source_hash(data) + marshal.dumps(code))
    made.append(cached)
json.dump(made, sys.stdout)
"""


def find_python(version: tuple[int, int]) -> str | None:
    """An interpreter of ``version``: ``pythonX.Y`` on PATH or under pyenv (a pyenv shim
    on PATH answers only when that version is selected, so each candidate is asked)."""
    name = "python{}.{}".format(*version)
    pyenv = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    candidates = [shutil.which(name), *sorted(
        Path(pyenv).glob("versions/{}.{}*/bin/{}".format(*version, name)), reverse=True)]
    for candidate in filter(None, candidates):
        try:
            done = subprocess.run([str(candidate), "-I", "-c",
                                   "import sys; print(*sys.version_info[:2])"],
                                  check=False, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0 and done.stdout.split() == [str(part) for part in version]:
            return str(candidate)
    return None


def compile_bytecode(python: str, sources: list[tuple[Path, str]], out: Path,
                     bare: Iterable[str] = ()) -> list[tuple[Path, str]]:
    """Compile ``sources`` (path, name in the zip) with ``python`` under ``out``; the
    names in ``bare`` without their docstrings."""
    bare = set(bare)
    done = subprocess.run([python, "-I", "-S", "-X", "no_debug_ranges", "-c", _COMPILE,
                           str(out)],
                          input=json.dumps([[str(p), n, n in bare] for p, n in sources]),
                          check=False, capture_output=True, text=True)
    if done.returncode != 0:
        raise PackagingError(f"compiling bytecode with {python} failed:\n{done.stderr[-2000:]}")
    return [(out / name, name) for name in json.loads(done.stdout)]


# What a cold start runs before its first request: the app, the route table (the area
# modules' imports) and the clients every request makes.  Run by the runtime's Python
# against the staged zip, the SDK after it as the runtime places its own; what it
# imports from the zip gets bytecode.
_COLD_PATH = """
import json, sys
staged, sdk = sys.argv[1], sys.argv[2]
sys.path.insert(0, staged)
sys.path.append(sdk)
import app
from chalicelib.http.routes import load_routes
load_routes()
import boto3
for service in ("s3", "dynamodb", "sqs"):
    boto3.client(service, region_name="us-east-1", aws_access_key_id="x",
                 aws_secret_access_key="x")
json.dump(sorted({m.__file__ for m in list(sys.modules.values())
                  if (getattr(m, "__file__", None) or "").startswith(staged + "/")}), sys.stdout)
"""


def cold_path_modules(python: str, staged: Path, sdk: Path) -> list[str]:
    """Names (in the zip) of the modules a cold start imports from the package staged
    at ``staged``, with the runtime's SDK at ``sdk``.

    ``/var/task`` is read-only, so a module without bytecode in the zip is compiled on
    every cold start: these are the ones that start pays for; the rest of the
    dependencies ship as sources (infra/README.md, "Bytecode")."""
    done = subprocess.run([python, "-I", "-S", "-B", "-c", _COLD_PATH, str(staged), str(sdk)],
                          check=False, capture_output=True, text=True,
                          env={"PATH": os.environ.get("PATH", ""), "HOME": str(staged)})
    if done.returncode != 0:
        raise PackagingError(f"importing the app with {python} failed:\n{done.stderr[-2000:]}")
    return [Path(p).relative_to(staged).as_posix() for p in json.loads(done.stdout)
            if p.endswith(".py")]
