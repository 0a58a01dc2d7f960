"""LocalRuntime: all of Nimbus in one process, for ``make run`` and for tests.

    with LocalRuntime(port=0, data_dir=tmp) as rt:      # port 0: any free port
        urllib.request.urlopen(rt.url + "/api/v1/version")

Start, in order: bind the HTTP port (a taken port fails before anything else);
lock the data dir; start embedded moto on a free loopback port; point
this process's AWS configuration at it with fake credentials (every AWS_* variable is
replaced, so a real profile or key can never be used); restore the saved state and
replay the journal (state.py; from then on every write is journaled before it is
acknowledged); create missing resources with infra.bootstrap, as a deployment does;
serve HTTP; start the background threads (compaction when the journal grows, and
whatever add_background() registered).

stop() undoes this in reverse, in a bounded time (``STOP_BUDGET``): no new requests or
connections; idle keep-alive connections are closed; running requests get
``DRAIN_TIMEOUT`` to finish, then their connections are cut (their clients were not
answered, so nothing acknowledged is lost); background threads get
``BACKGROUND_JOIN_TIMEOUT`` in all; a final snapshot is taken if the time left allows
(else the journal is replayed at the next start); writes are refused, the journal
flushed, moto stops, the environment is put back.

One runtime per process at a time: moto's state is process-global.

``aws_endpoint`` (``NIMBUS_AWS_ENDPOINT`` for ``python -m chalicelib.local``) uses the
AWS services another process serves there (moto, started by whoever runs both) instead
of embedded moto.  The state is then that process's: nothing is restored, journaled or
snapshotted here, and this process never imports moto, so its memory is the app's and
the HTTP server's alone (bench/large_repos.py measures a clone's that way).
"""
from __future__ import annotations

import contextlib
import fcntl
import gc
import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

from chalicelib.local.server import LambdaHandler, LocalHTTPServer

if TYPE_CHECKING:
    from chalicelib.local.moto_backend import MotoServer
    from chalicelib.local.state import StateDir

log = logging.getLogger("nimbus.local")

DEFAULT_DATA_DIR = ".nimbus"
# Requests paused this long: background work may run (``yield_to_requests``).
REQUESTS_IDLE_SECONDS = 0.1
SNAPSHOT_INTERVAL = 5.0   # seconds between checks whether the journal wants compacting
DRAIN_TIMEOUT = 2.0       # seconds stop() waits for running requests
BACKGROUND_JOIN_TIMEOUT = 1.0  # seconds stop() waits for all background threads
# Seconds after stop() began at which its final snapshot is abandoned (the next start
# replays the journal instead): the drain and the joins above take at most 3.
STOP_BUDGET = 3.5
# The cyclic collector's thresholds while the runtime serves with an embedded moto
# (_start_moto says why).
_GC_THRESHOLDS = (100_000, 50, 1000)

Background = Callable[[threading.Event], None]


# moto takes any credentials; these only let botocore sign (and can open no real account).
FAKE_CREDENTIAL = "testing"


def _aws_environment(region: str, endpoint: str) -> dict[str, str]:
    return {
        "AWS_ACCESS_KEY_ID": FAKE_CREDENTIAL,
        "AWS_SECRET_ACCESS_KEY": FAKE_CREDENTIAL,
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": region,
        "AWS_REGION": region,
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        "AWS_EC2_METADATA_DISABLED": "true",
        "NIMBUS__AWS__ENDPOINT_URL": endpoint,
    }


def _reload_settings():
    """Make chalicelib read the environment again: settings, boto3 clients and the
    PynamoDB models are set up once per process and may predate the moto endpoint."""
    from chalicelib import aws, settings
    from chalicelib.store import table

    settings.reset_settings_cache()
    aws.reset_clients()
    current = settings.get_settings()
    table.configure(current)
    return current


@contextlib.contextmanager
def _locked(data_dir: Path) -> Iterator[None]:
    """Hold the data dir: two processes snapshotting into it would undo each other."""
    data_dir.mkdir(parents=True, exist_ok=True)
    with open(data_dir / "lock", "a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RuntimeError(f"{data_dir} is in use by another Nimbus process") from None
        yield  # closing the file releases the lock


def _load_app() -> LambdaHandler:
    from app import app  # imported only now: chalicelib reads its settings on import
    return app


class LocalRuntime:
    def __init__(self, host: str = "127.0.0.1", port: int = 8000,
                 data_dir: str | os.PathLike = DEFAULT_DATA_DIR, *,
                 handler: LambdaHandler | None = None,
                 snapshot_interval: float = SNAPSHOT_INTERVAL, access_log: bool = True,
                 sync_journal: bool = True, aws_endpoint: str | None = None):
        """``handler`` replaces the app's Lambda handler (tests of the server itself).
        ``sync_journal=False`` skips the fsync of each journaled write (state.py).
        ``aws_endpoint``: AWS services served by another process (module docstring)."""
        self.host, self.port = host, port
        self.aws_endpoint = aws_endpoint or None
        self.data_dir = Path(data_dir).resolve()
        self.snapshot_interval = snapshot_interval
        self.access_log = access_log
        self.sync_journal = sync_journal
        self.settings = None
        self.moto: MotoServer | None = None
        self.state: StateDir | None = None
        self._handler = handler
        self._stop_started = 0.0
        self._server: LocalHTTPServer | None = None
        self._serving = False
        self._background: list[Background] = [] if self.aws_endpoint else [self._compact_when_due]
        self._threads: list[threading.Thread] = []
        self._stopping = threading.Event()
        self._stack = contextlib.ExitStack()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "LocalRuntime":
        self.prepare()
        self.serve()
        return self

    def prepare(self) -> None:
        """Everything but answering HTTP: port bound, moto running, state restored,
        resources created."""
        with self._undo_on_error():
            from chalicelib.settings import ServerSettings, load_settings, overridden

            # Reading the settings first also rejects a bad configuration before anything starts.
            configured = load_settings()
            region = configured.aws.REGION
            self._server = LocalHTTPServer((self.host, self.port), self.access_log)
            self._stack.callback(self._server.server_close)
            self._stack.enter_context(_locked(self.data_dir))
            if self.aws_endpoint is None:
                self._start_moto(region)
            self._stack.callback(_reload_settings)  # runs after the environment is restored
            environment = _aws_environment(region, self.endpoint)
            if configured.server.ROOT_URL == ServerSettings().ROOT_URL:
                # Unconfigured: links in records should point at where we actually listen.
                environment["NIMBUS__SERVER__ROOT_URL"] = self.url + "/"
            self._stack.enter_context(overridden(environment, dropping="AWS_"))
            self.settings = _reload_settings()

            if self.moto is not None:
                from chalicelib.local.state import StateDir

                self.state = StateDir(self.data_dir, self.moto.client, self.moto.backend,
                                      sync=self.sync_journal)
                # Closed after the final snapshot and before moto stops.
                self._stack.callback(self.state.close)
                self.state.open()
                self._stack.callback(self._final_snapshot)

            from infra.bootstrap import ensure_resources
            ensure_resources(self.settings)
            self._publish_endpoint()

    @property
    def endpoint(self) -> str:
        """Where the AWS services this runtime uses listen."""
        return self.aws_endpoint or self.moto.endpoint

    def _start_moto(self, region: str) -> None:
        from chalicelib.local.moto_backend import MotoServer  # imports all of moto

        self.moto = MotoServer(region)
        self.moto.start()
        self._stack.callback(self.moto.stop)
        self.moto.reset()
        # This process's own calls to it skip HTTP (moto_direct.py); until moto stops.
        from chalicelib.local import moto_direct

        moto_direct.attach(self.moto.endpoint, self.moto.backend)
        self._stack.callback(moto_direct.detach)
        # This process holds moto's state and moto's answers as well as the handler's
        # objects: with Python's thresholds (700, 10, 10), an ls-remote of 5,000 refs
        # took 0.15 s in one run and 0.35 s in the next, when the collector's full
        # pass fell in it (bench/README.md, git_transfer.py); with these, 0.14 s each.
        thresholds = gc.get_threshold()
        gc.set_threshold(*_GC_THRESHOLDS)
        self._stack.callback(gc.set_threshold, *thresholds)

    def _publish_endpoint(self) -> None:
        """Tell operator commands (chalicelib.cli, another process) where moto listens."""
        from chalicelib.cli import RUNTIME_FILE

        path = self.data_dir / RUNTIME_FILE
        path.write_text(json.dumps({"pid": os.getpid(), "moto_endpoint": self.endpoint}))
        self._stack.callback(path.unlink, missing_ok=True)

    def serve(self) -> None:
        """Answer HTTP on host:port and start the background threads."""
        with self._undo_on_error():
            from chalicelib import telemetry

            # The telemetry lines' metrics, kept for /metrics (404 in AWS: CloudWatch's).
            telemetry.keep_metrics()
            self._stack.callback(telemetry.stop_keeping_metrics)
            self._server.lambda_handler = self._handler or _load_app()
            if self._handler is None:
                from chalicelib.streaming.handler import handle_stream_event
                self._server.stream_handler = handle_stream_event
            self._stack.callback(self._stop_background)  # after HTTP has stopped
            thread = threading.Thread(target=self._server.serve_forever, name="nimbus-http",
                                      kwargs={"poll_interval": 0.1}, daemon=True)
            thread.start()
            self._stack.callback(self._stop_http, thread)
            self._serving = True
            for task in self._background:
                self._start_thread(task)

    def stop(self) -> None:
        """Stop everything; raises if the final snapshot failed (after stopping the rest:
        the journal still holds every write)."""
        self._stop_started = time.monotonic()
        self._stack.close()

    def __enter__(self) -> "LocalRuntime":
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def add_background(self, task: Background) -> None:
        """Run ``task(stopping)`` in a daemon thread while the runtime serves.
        ``stopping`` is a threading.Event set by stop(); the task should return soon after."""
        self._background.append(task)
        if self._serving and not self._stopping.is_set():
            self._start_thread(task)

    def yield_to_requests(self, at_most: float) -> None:
        """For background work that is another function's in AWS (the event relay and
        consumers, webhook delivery): wait until requests have paused
        (``REQUESTS_IDLE_SECONDS``), at most ``at_most`` seconds.  In AWS that work runs
        in its own Lambdas and takes nothing from a request; here it shares the process
        (and its interpreter lock) with them, so it lets them go first."""
        server = self._server
        if server is not None and self._serving:
            server.wait_until_idle(REQUESTS_IDLE_SECONDS, at_most)

    def snapshot(self) -> None:
        """Take a snapshot and empty the journal (state.py).  If it fails, the previous
        snapshot and the journal stay in use."""
        if self.state is None:
            raise RuntimeError("the state belongs to the process serving aws_endpoint")
        self.state.compact()

    @contextlib.contextmanager
    def _undo_on_error(self) -> Iterator[None]:
        try:
            yield
        except BaseException:
            self._stack.close()
            raise

    def _compact_when_due(self, stopping: threading.Event) -> None:
        while not stopping.wait(self.snapshot_interval):
            if not self.state.should_compact():
                continue
            try:
                self.snapshot()
            except Exception:  # noqa: BLE001 - keep serving; the next round retries
                log.exception("snapshot failed; retrying in %ss", self.snapshot_interval)

    def _final_snapshot(self) -> None:
        """Compact at stop, if there is something to compact and it can be done within
        STOP_BUDGET; if not, the next start replays the journal."""
        journal = self.state.journal
        if journal is None or not journal.records:
            return
        started = self._stop_started or time.monotonic()  # or a start that failed
        if not self.state.compact(deadline=started + STOP_BUDGET):
            log.warning("no time left for a final snapshot: the next start replays %d "
                        "journaled writes", journal.records)

    def _start_thread(self, task: Background) -> None:
        def run() -> None:
            try:
                task(self._stopping)
            except Exception:  # noqa: BLE001 - one failed task must not go unnoticed
                log.exception("background task %s failed", getattr(task, "__name__", task))

        thread = threading.Thread(target=run, daemon=True,
                                  name=f"nimbus-{getattr(task, '__name__', 'task')}")
        thread.start()
        self._threads.append(thread)

    def _stop_http(self, thread: threading.Thread) -> None:
        self._server.shutdown()
        thread.join()
        self._server.server_close()  # refuse connections now, not after the final snapshot
        if not self._server.close_connections(DRAIN_TIMEOUT):
            log.warning("requests still running after %ss: their connections were cut",
                        DRAIN_TIMEOUT)

    def _stop_background(self) -> None:
        self._stopping.set()
        deadline = time.monotonic() + BACKGROUND_JOIN_TIMEOUT
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        late = [thread.name for thread in self._threads if thread.is_alive()]
        if late:
            # Daemon threads: they end with the process; their writes are still journaled
            # until the journal closes, and refused after.
            log.warning("%s still running after %ss", ", ".join(late), BACKGROUND_JOIN_TIMEOUT)
