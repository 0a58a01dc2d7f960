"""What the Lambda runtime can load: the packaging target (Python version and
architecture), the checks that every binary in the package was built for it, and
bytecode compiled by that runtime's own Python (infra/package.py builds with these).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import zipfile
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
        return "python%d.%d" % self.python

    @property
    def platforms(self) -> list[str]:
        # pip does not widen a manylinux_2_N platform to older glibc versions by itself.
        machine = UNAME_ARCH[self.arch]
        return [f"manylinux_2_{minor}_{machine}" for minor in range(GLIBC_MINOR, 16, -1)] + [
            f"manylinux2014_{machine}"]

    def pip_options(self) -> list[str]:
        options = []
        for platform in self.platforms:
            options += ["--platform", platform]
        return options + ["--python-version", "%d.%d" % self.python, "--implementation", "cp"]

    def supported_tags(self) -> frozenset:
        from packaging import tags

        return frozenset(tags.cpython_tags(self.python, platforms=self.platforms)) | frozenset(
            tags.compatible_tags(self.python, "cp%d%d" % self.python, self.platforms))

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


# ---- bytecode ---------------------------------------------------------------------------
# Lambda's code directory is read-only: without .pyc files in the zip, every cold start
# compiles every module it imports (about half the import time of app.py).  Only the
# runtime's own Python can write them; without one the zip is built without bytecode.

_COMPILE = """
import json, os, py_compile, sys
out, made = sys.argv[1], []
for source, name in json.load(sys.stdin):
    head, tail = os.path.split(name)
    cached = os.path.join(head, "__pycache__", tail[:-3] + "." + sys.implementation.cache_tag
                          + ".pyc")
    try:
        # Unchecked hash: valid whatever the files' times in the zip, never re-validated.
        py_compile.compile(source, cfile=os.path.join(out, cached), dfile=name, doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    except py_compile.PyCompileError:
        continue
    made.append(cached)
json.dump(made, sys.stdout)
"""


def find_python(version: tuple[int, int]) -> str | None:
    """An interpreter of ``version``: ``pythonX.Y`` on PATH or under pyenv (a pyenv shim
    on PATH answers only when that version is selected, so each candidate is asked)."""
    name = "python%d.%d" % version
    pyenv = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    candidates = [shutil.which(name), *sorted(
        Path(pyenv).glob("versions/%d.%d*/bin/%s" % (*version, name)), reverse=True)]
    for candidate in filter(None, candidates):
        try:
            done = subprocess.run([str(candidate), "-I", "-c",
                                   "import sys; print(*sys.version_info[:2])"],
                                  capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0 and done.stdout.split() == [str(part) for part in version]:
            return str(candidate)
    return None


def compile_bytecode(python: str, sources: list[tuple[Path, str]],
                     out: Path) -> list[tuple[Path, str]]:
    """Compile ``sources`` (path, name in the zip) with ``python`` under ``out``."""
    done = subprocess.run([python, "-I", "-S", "-c", _COMPILE, str(out)],
                          input=json.dumps([[str(p), n] for p, n in sources]),
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise PackagingError(f"compiling bytecode with {python} failed:\n{done.stderr[-2000:]}")
    return [(out / name, name) for name in json.loads(done.stdout)]


# What a cold start runs before its first request: the app, the route table (the area
# modules' imports) and the clients every request makes.  Run by the runtime's Python
# against the staged zip; what it imports from the dependencies gets bytecode.
_COLD_PATH = """
import json, sys
app_dir, site = sys.argv[1], sys.argv[2]
sys.path[:0] = [app_dir, site]
import app
from chalicelib.http.routes import load_routes
load_routes()
import boto3
for service in ("s3", "dynamodb", "sqs"):
    boto3.client(service, region_name="us-east-1", aws_access_key_id="x",
                 aws_secret_access_key="x")
json.dump(sorted({m.__file__ for m in list(sys.modules.values())
                  if (getattr(m, "__file__", None) or "").startswith(site + "/")}), sys.stdout)
"""


def cold_path_modules(python: str, site: Path, ours: list[tuple[Path, str]]
                      ) -> list[tuple[Path, str]]:
    """(path, name in the zip) of the dependency modules a cold start imports.

    ``/var/task`` is read-only, so a module without bytecode in the zip is compiled on
    every cold start: these are the ones that start pays for (about 0.3 s of CPU); the
    rest of the dependencies ship as sources (infra/README.md, "Bytecode")."""
    staged = Path(tempfile.mkdtemp(prefix="nimbus-app-"))
    try:
        for source, name in ours:
            target = staged / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
        done = subprocess.run([python, "-I", "-S", "-B", "-c", _COLD_PATH, str(staged),
                               str(site)], capture_output=True, text=True,
                              env={"PATH": os.environ.get("PATH", ""), "HOME": str(staged)})
    finally:
        shutil.rmtree(staged, ignore_errors=True)
    if done.returncode != 0:
        raise PackagingError(f"importing the app with {python} failed:\n{done.stderr[-2000:]}")
    found = [Path(p) for p in json.loads(done.stdout)]
    return [(p, p.relative_to(site).as_posix()) for p in found if p.suffix == ".py"]
