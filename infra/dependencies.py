"""The Lambda's dependencies: the lock, their install for the functions' runtime, the
SDK that runtime already carries, and what of the rest the zip keeps.

``install(target)`` installs the pinned closure of ``requirements-lambda.txt`` for the
template's runtime and architecture (manylinux wheels, whatever machine builds),
strips symbol tables and debug information from its binaries, and caches the result
per lock and target in ``.venv/lambda-build/``.  The AWS SDK (RUNTIME_PROVIDED: boto3
and what it needs) is installed into a directory of its own: the zip leaves it out,
because the Lambda Python runtime carries it, and the build and the tests put the
pinned copy after the package on ``sys.path``, where the runtime puts its own
(infra/README.md, "AWS SDK").

``keep(...)`` chooses what the zip carries of the rest: nothing a pattern of
``package.PRUNED`` names, and nothing the app's modules do not reach
(infra/unread.py): a module the import graph from the app never gets to, a library no
kept binary links, a data file whose reader is not kept, the installers' records.  A
pruned module that a kept one imports outside a ``try`` stops the build.
"""
from __future__ import annotations

import fnmatch
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from infra import unread
from infra.lambda_runtime import (
    PackagingError,
    Target,
    check_tree,
    find_strip,
    strip_binaries,
)

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS = ROOT / "requirements.txt"
LOCK = ROOT / "requirements-lambda.txt"
# Installed dependency sets, keyed by the lock and the target: `make clean` drops them.
CACHE = ROOT / ".venv" / "lambda-build"
# What each module of the installed sets imports, by file name and content: parsing
# every dependency again on each build took most of its time.
IMPORTS_CACHE = CACHE / "imports.json"
# The AWS SDK for Python as the Lambda Python runtime carries it (distribution names).
# The tests and the local runtime use the pinned versions; see infra/README.md.
RUNTIME_PROVIDED = ("boto3", "botocore", "s3transfer", "jmespath", "python-dateutil", "six")
# Changes with what install() leaves in the cache, so an older layout is not reused.
_LAYOUT = 2


@dataclass(frozen=True)
class Installed:
    site: Path              # what the zip may carry
    runtime: Path           # RUNTIME_PROVIDED, standing in for the runtime's own copy
    stripped: bool          # the binaries lost their symbol tables and debug information

    def files(self) -> dict[str, Path]:
        return _files(self.site)

    def runtime_files(self) -> dict[str, Path]:
        return _files(self.runtime)


@dataclass(frozen=True)
class Kept:
    files: dict[str, Path]          # name in the zip: the installed file
    left_out: dict[str, str]        # name: "PRUNED" | "unread"
    imports_read: set[str]          # the entries of the imports cache this choice used


def _files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}


def distribution(pin_or_name: str) -> str:
    """A distribution's normalised name (PEP 503), from a pin or a name."""
    return re.sub(r"[-_.]+", "-", pin_or_name.split("==")[0].split("[")[0]).strip().lower()


def pip(args: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", "pip", *args, "--disable-pip-version-check"],
                          check=False, capture_output=True, text=True)
    if done.returncode != 0:
        raise PackagingError("pip " + " ".join(args[:2]) + " failed:\n" + done.stderr[-4000:])


def locked_requirements() -> list[str]:
    if not LOCK.exists():
        raise PackagingError(f"{LOCK.name} is missing: run `python -m infra.package lock`")
    lines = [line.split("#", 1)[0].strip() for line in LOCK.read_text().splitlines()]
    return [line for line in lines if line]


def install(target: Target) -> Installed:
    """The locked dependencies installed for ``target``, as sources: no bytecode."""
    pins = locked_requirements()
    provided = {distribution(name) for name in RUNTIME_PROVIDED}
    ours = [pin for pin in pins if distribution(pin) not in provided]
    sdk = [pin for pin in pins if distribution(pin) in provided]
    strip = find_strip(target)
    key = hashlib.sha256(json.dumps([pins, target.pip_options(), RUNTIME_PROVIDED,
                                     bool(strip), _LAYOUT]).encode()).hexdigest()[:16]
    where = CACHE / f"{target.runtime}-{target.arch}-{key}"
    found = Installed(where / "site", where / "runtime", bool(strip))
    if where.is_dir():
        return found
    CACHE.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="site-", dir=CACHE))
    try:
        for part, wanted in (("site", ours), ("runtime", sdk)):
            # --no-deps: the lock is the whole closure.  A pure-Python package published
            # only as an sdist (PGPy) is built into a wheel by this interpreter; a binary
            # one built that way would carry this interpreter's tags and fails check_tree.
            pip(["install", "--no-deps", "--no-compile", "--prefer-binary", "--quiet",
                 "--target", str(work / part), *target.pip_options(), *wanted])
            # Dependencies ship without bytecode but for what a cold start imports: see
            # "Bytecode" in infra/README.md.
            for cache_dir in list((work / part).rglob("__pycache__")):
                shutil.rmtree(cache_dir, ignore_errors=True)
            check_tree(work / part, target)
        if strip:
            strip_binaries(work / "site", strip)
        try:
            work.rename(where)
        except OSError:
            if not where.is_dir():   # another build won the race: use its copy
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for stale in CACHE.glob(f"{target.runtime}-{target.arch}-*"):
        if stale != where:
            shutil.rmtree(stale, ignore_errors=True)
    return found


def pruned(name: str, patterns: Iterable[str]) -> bool:
    """Whether a pattern (a path, a directory or a glob) names ``name``."""
    return any(name == p or name.startswith(p + "/") or fnmatch.fnmatch(name, p)
               for p in patterns)


def load_imports() -> dict:
    try:
        return json.loads(IMPORTS_CACHE.read_text())
    except (OSError, ValueError):
        return {}


def save_imports(known: dict, used: set[str]) -> None:
    """Keep the imports of the files a build read (those of older sources go)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    partial = IMPORTS_CACHE.with_suffix(".partial")
    partial.write_text(json.dumps({key: known[key] for key in sorted(used) if key in known}))
    partial.replace(IMPORTS_CACHE)


def keep(installed: Installed, app: Mapping[str, Path], patterns: Iterable[str],
         known: dict | None = None) -> Kept:
    """What the zip carries of ``installed`` for the app's files ``app`` (name: path)."""
    patterns = tuple(patterns)
    site, sdk = installed.files(), installed.runtime_files()
    owners = unread.distribution_files(site)
    left_out = {name: "PRUNED" for name in site if pruned(name, patterns)}
    roots = sorted(unread.modules_of(app))
    # The runtime's SDK imports from the zip too (urllib3): its modules are in the graph.
    tree = {**sdk, **{n: p for n, p in site.items() if n not in left_out}, **dict(app)}
    found = unread.reach(tree, roots, known)
    if found.unaccounted:
        raise PackagingError(
            "imports of computed names that nothing accounts for, which could load any "
            "module the zip leaves out: read them and describe them in "
            "infra/unread.py DYNAMIC_IMPORTS:\n  " + "\n  ".join(found.unaccounted))
    for name in unread.unread(tree, found, [n for n in site if n not in left_out], owners):
        left_out[name] = "unread"
    everything = {**sdk, **site, **dict(app)}
    modules = unread.modules_of(everything)
    whole = unread.reach(everything, roots, known)
    broken = sorted(f"{modules[m]} (imported at {whole.via[m]})"
                    for m, kind in whole.kinds.items()
                    if kind == "required" and left_out.get(modules[m]) == "PRUNED")
    if broken:
        raise PackagingError("PRUNED leaves out modules that a packaged module imports "
                             "outside a try/except ImportError:\n  " + "\n  ".join(broken))
    return Kept({n: p for n, p in site.items() if n not in left_out}, left_out,
                found.keys | whole.keys)


def lock(target: Target) -> list[str]:
    """Resolve requirements.txt for ``target`` and write the pinned closure to the lock."""
    with tempfile.TemporaryDirectory(prefix="nimbus-lock-") as tmp:
        report = Path(tmp) / "report.json"
        common = ["install", "--dry-run", "--ignore-installed", "--quiet", "--report",
                  str(report), *target.pip_options()]
        # pip resolves dependencies for a foreign platform from wheels only; build the
        # pure-Python packages that publish no wheel first and offer them to it.
        pip([*common, "--no-deps", "--prefer-binary", "-r", str(REQUIREMENTS)])
        wheelhouse = Path(tmp) / "wheels"
        for item in json.loads(report.read_text())["install"]:
            if not item["download_info"]["url"].endswith(".whl"):
                meta = item["metadata"]
                pip(["wheel", "--no-deps", "--quiet", "--wheel-dir", str(wheelhouse),
                     f"{meta['name']}=={meta['version']}"])
        for wheel in wheelhouse.glob("*.whl") if wheelhouse.exists() else ():
            if not wheel.name.endswith("-none-any.whl"):
                raise PackagingError(f"{wheel.name}: no {target.describe()} wheel on the index "
                                     f"and not pure Python; pin another version")
        pip([*common, "--only-binary=:all:", "--find-links", str(wheelhouse),
             "-r", str(REQUIREMENTS)])
        items = json.loads(report.read_text())["install"]
    pins = sorted(f"{i['metadata']['name'].lower()}=={i['metadata']['version']}" for i in items)
    LOCK.write_text(
        f"# The Lambda's dependencies: the closure of requirements.txt for {target.runtime} "
        f"on {target.arch}.\n# Generated by `python -m infra.package lock`; "
        "`make package` installs exactly these.\n" + "\n".join(pins) + "\n")
    return pins
