"""A bounded local-disk cache of pack files (``.idx`` and ``.pack``).

Pack files are immutable and content-addressed, so a file cached under its name never
goes stale: warm Lambda invocations reuse what earlier ones downloaded.  The cache is
an LRU by total size.  Settings (environment):

* ``NIMBUS_CACHE_DIR`` - where files live (default ``/tmp/nimbus-cache``);
* ``NIMBUS_CACHE_MAX_BYTES`` - size bound (default 1 GiB; Lambda's /tmp is 512 MB
  unless the function's ephemeral storage is raised, so set this below it there).

Thread safety: one lock guards the index; a per-key lock makes concurrent misses
download once.  Files are written to a temporary name and renamed into place, so a
reader never sees a partial file.  Eviction unlinks files; a reader that already opened
or mapped one keeps a valid handle (POSIX semantics), and ``open`` re-fetches a file
that vanished between lookup and open (another process evicted it).
"""
from __future__ import annotations

import os
import tempfile
import threading
from collections import OrderedDict
from typing import BinaryIO, Callable, TypeVar

from chalicelib import clock

T = TypeVar("T")

DEFAULT_DIR = "/tmp/nimbus-cache"
DEFAULT_MAX_BYTES = 1 << 30


class DiskCache:
    def __init__(self, root: str, max_bytes: int):
        self.root = root
        self.max_bytes = max_bytes
        self.files_dir = os.path.join(root, "files")
        self.tmp_dir = os.path.join(root, "tmp")
        os.makedirs(self.files_dir, exist_ok=True)
        os.makedirs(self.tmp_dir, exist_ok=True)
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, int] = OrderedDict()  # key -> size, oldest first
        self._filling: dict[str, threading.Lock] = {}
        self.total_bytes = 0
        self.hits = 0
        self.misses = 0
        self._adopt_existing()

    def path(self, key: str) -> str:
        """Where ``key`` (``<pool>/<file name>``) lives; keys never contain ``..``."""
        return os.path.join(self.files_dir, key)

    def open(self, key: str, fill: Callable[[BinaryIO], None], opener: Callable[[str], T]) -> T:
        """``opener(path)`` of the cached file, downloading it with ``fill(file)`` first
        if it is not cached.  ``opener`` runs under the index lock, so eviction cannot
        unlink the file between the lookup and the open; keep it quick (open, mmap)."""
        for _ in range(3):
            found, result = self._open_cached(key, opener)
            if found:
                return result
            with self._lock:
                key_lock = self._filling.setdefault(key, threading.Lock())
            with key_lock:
                with self._lock:
                    filled_meanwhile = key in self._entries
                if not filled_meanwhile:
                    self.misses += 1
                    try:
                        self._fill(key, fill)
                    finally:
                        with self._lock:
                            # Waiters hold the lock object; newcomers find the file.
                            self._filling.pop(key, None)
        raise OSError(f"cache file {key} keeps disappearing")

    def open_cached(self, key: str, opener: Callable[[str], T]) -> T | None:
        found, result = self._open_cached(key, opener)
        return result if found else None

    def adopt(self, key: str, src_path: str) -> None:
        """Move a finished local file (one we just uploaded) into the cache."""
        self._install(key, src_path)

    def new_temp_file(self, prefix: str):
        """A named temporary file on the cache's file system (so ``adopt`` can rename)."""
        # /tmp may have been emptied under a long-lived process: recreate the folder.
        os.makedirs(self.tmp_dir, exist_ok=True)
        return tempfile.NamedTemporaryFile(dir=self.tmp_dir, prefix=prefix, delete=False)

    def _open_cached(self, key: str, opener: Callable[[str], T]) -> tuple[bool, T | None]:
        with self._lock:
            if key not in self._entries:
                return False, None
            try:
                result = opener(self.path(key))
            except FileNotFoundError:
                self._forget(key)
                return False, None
            self._entries.move_to_end(key)
            self.hits += 1
            return True, result

    def _fill(self, key: str, fill: Callable[[BinaryIO], None]) -> None:
        tmp = self.new_temp_file("fill-")
        try:
            with tmp:
                fill(tmp)
            self._install(key, tmp.name)
        except BaseException:
            _unlink(tmp.name)
            raise

    def _install(self, key: str, src_path: str) -> None:
        target = self.path(key)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        size = os.path.getsize(src_path)
        with self._lock:
            os.replace(src_path, target)
            self._forget(key)
            self._entries[key] = size
            self.total_bytes += size
            self._evict(keep=key)

    def _evict(self, keep: str) -> None:
        while self.total_bytes > self.max_bytes and len(self._entries) > 1:
            oldest = next(iter(self._entries))
            if oldest == keep:
                self._entries.move_to_end(keep)
                continue
            _unlink(self.path(oldest))
            self._forget(oldest)

    def _forget(self, key: str) -> None:
        size = self._entries.pop(key, None)
        if size is not None:
            self.total_bytes -= size

    def _adopt_existing(self) -> None:
        """Index files left by an earlier process (a warm container), oldest first, and
        drop temporary files a crashed process left behind."""
        stale_before = clock.now() - 3600
        for entry in os.scandir(self.tmp_dir):
            try:
                if entry.stat().st_mtime < stale_before:
                    _unlink(entry.path)
            except FileNotFoundError:
                pass
        found = []
        for dirpath, _, names in os.walk(self.files_dir):
            for name in names:
                path = os.path.join(dirpath, name)
                try:
                    st = os.stat(path)
                except FileNotFoundError:
                    continue
                found.append((st.st_mtime, os.path.relpath(path, self.files_dir), st.st_size))
        found.sort()
        with self._lock:
            for _, key, size in found:
                self._entries[key] = size
                self.total_bytes += size
            if found:
                self._evict(keep=found[-1][1])


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


_default: DiskCache | None = None
_default_lock = threading.Lock()


def default_cache() -> DiskCache:
    """The process-wide cache, configured from the environment on first use."""
    global _default
    root = os.environ.get("NIMBUS_CACHE_DIR") or DEFAULT_DIR
    max_bytes = int(os.environ.get("NIMBUS_CACHE_MAX_BYTES") or DEFAULT_MAX_BYTES)
    with _default_lock:
        if _default is None or _default.root != root or _default.max_bytes != max_bytes:
            _default = DiskCache(root, max_bytes)
        return _default
