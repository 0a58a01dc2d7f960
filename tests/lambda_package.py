"""The Lambda package built once per test run, for the test modules that inspect it
(tests/test_package.py, tests/test_package_reads.py): the zip, unpacked as Lambda
unpacks it, and the Lambda Python to run it with.
"""
from __future__ import annotations

import os
import zipfile
from pathlib import Path

from infra import package
from infra.template import LAMBDA_RUNTIME

TARGET_VERSION = LAMBDA_RUNTIME.removeprefix("python")
_made: dict[str, object] = {}


def target_python() -> str | None:
    return package.find_python(tuple(int(part) for part in TARGET_VERSION.split(".")))


def built_package(tmp_path_factory) -> package.Package:
    """``make package``'s build, once per test process."""
    if "built" not in _made:
        _made["built"] = package.build(tmp_path_factory.mktemp("lambda"))
    return _made["built"]


def unpacked_package(built: package.Package, tmp_path_factory) -> Path:
    """The zip unpacked with its files' modes, as /var/task holds it."""
    if "unpacked" not in _made:
        where = tmp_path_factory.mktemp("task")
        with zipfile.ZipFile(built.zip_path) as archive:
            for info in archive.infolist():
                archive.extract(info, where)
                mode = info.external_attr >> 16
                if mode:
                    os.chmod(where / info.filename, mode & 0o777)
        _made["unpacked"] = where
    return _made["unpacked"]


def target_env(tmp_path: Path) -> dict:
    return {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8",
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "eu-west-1"}
