"""Files of the local runtime's saved state that a crash never leaves half-written:
each is written under a temporary name, fsynced, renamed into place, and its directory
fsynced (``state.py`` says why that order)."""
from __future__ import annotations

import itertools
import json
import os
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Iterator

# A file being written: a name no reader takes for a finished one.
TMP_SUFFIX = ".tmp"


def fsync_dir(path: Path) -> None:
    """Make the names in directory ``path`` (renames, new files) durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, write: Callable[[IO[bytes]], None],
                 dirs: set[Path] | None = None) -> None:
    """Write ``path`` through ``write(fh)`` so that readers never see a partial file.
    Its directory is fsynced now, or added to ``dirs`` for the caller to fsync once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}{TMP_SUFFIX}")
    try:
        with open(tmp, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if dirs is None:
        fsync_dir(path.parent)
    else:
        dirs.add(path.parent)


def write_json(path: Path, data: Any, dirs: set[Path] | None = None) -> None:
    atomic_write(path, lambda fh: fh.write(json.dumps(data, indent=1, sort_keys=True).encode()),
                 dirs)


def read_json(path: Path, default: Any) -> Any:
    try:
        return json.loads(path.read_bytes())
    except FileNotFoundError:
        return default


def chunks(items: Iterable, size: int) -> Iterator[list]:
    iterator = iter(items)
    while chunk := list(itertools.islice(iterator, size)):
        yield chunk
