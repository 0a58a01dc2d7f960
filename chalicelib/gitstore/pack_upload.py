"""A received pack's upload to S3, run while the pack is indexed.

A push into an empty pool (a first push: the biggest ones) stores its pack as it
arrived: nothing in the pool could be a delta base, so there is nothing to append.
Its name is its trailer checksum, known as soon as the trailer is checked, so the
upload need not wait for indexing: the two overlap (a 14 MB pack's PUT took a sixth
of such a push, spent waiting once indexing was done).  The upload starts only after
the checksum matches the bytes: a pack's name always stands for its content, so an
existing object of that name (``put_immutable``) holds the same bytes.

If the push is refused after all (a broken entry, unresolvable deltas), the uploaded
file has no index and no pack item: nobody reads it, and the sweeper deletes it with
the other orphans (``packdb.sweep_pool``).
"""
from __future__ import annotations

import contextvars
import threading

from chalicelib.gitstore import packdb
from chalicelib.gitstore.models import gitkeys

__all__ = ["EarlyUpload"]


class EarlyUpload:
    """``start(checksum)`` begins uploading ``path`` as ``pack-<checksum>.pack`` of the
    pool in a thread; ``wait()`` returns that name once it is up, or None if it never
    started, and raises what the upload raised."""

    def __init__(self, pool_id: object, path: str):
        self.pool_id = pool_id
        self.path = path
        self.name: str | None = None
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def start(self, checksum: bytes) -> None:
        self.name = f"pack-{checksum.hex()}"
        # The request's context (call hooks, request-scoped state) goes with the call.
        context = contextvars.copy_context()
        self._thread = threading.Thread(target=context.run, args=(self._run,),
                                        name=f"upload {self.name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            with open(self.path, "rb") as f:
                packdb.put_immutable(gitkeys.s3_key(self.pool_id, self.name, "pack"), f)
        except BaseException as exc:  # noqa: BLE001 - handed to the request by wait()
            self._error = exc

    def wait(self, *, raise_error: bool = True) -> str | None:
        if self._thread is None:
            return None
        self._thread.join()
        if self._error is not None and raise_error:
            raise self._error
        return self.name
