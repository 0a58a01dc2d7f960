"""Telemetry: one JSON line for every request and every background run, carrying its
metrics in CloudWatch's Embedded Metric Format (EMF), and the same metrics kept in
process for ``/metrics`` on the local runtime.

    with telemetry.watching() as tally:      # the gateway around one request
        ...                                  # AWS calls are counted, add() sums into it
    telemetry.emit("request", tally, metrics=[Metric("Requests", 1, by=OPERATION)],
                   dimensions={"Operation": "repoGet"}, status=200)

    with telemetry.run("consumer_run", "Consumer", {"Consumer": name}) as run:
        ...                                  # a consumer, the relay, a webhook lane

A line is one JSON object: an ``_aws`` block naming which members are metrics and by
which dimension sets, the dimensions (``Function``, the Lambda's name or ``local``,
and the line's own, e.g. ``Operation``), the metric values, the fields (``event``
first), and the AWS calls made while it was measured (botocore's before-call hook,
counted by service).  Lambda sends stdout to CloudWatch Logs, which
turns the ``_aws`` block into metrics in namespace ``Nimbus``: nothing here makes an
AWS call, so no request pays for its telemetry with one.

What a line never holds: a token, a password, a cookie, a request or response body, a
query string.  The callers pass only ids, names of routes (the pattern, never the path
as sent), statuses and counts; ``docs/operations.md`` lists every field and metric.

Metrics cost by the (name, dimension value) pair and the hour: a metric published
``by`` ``Operation`` exists once per operation called in an hour, the others once per
function.  So only counts are published by operation (and errors only when there is
one); latencies and sizes are the function's, and the line itself answers "which
operation" in Logs Insights.

Where lines go: stdout inside Lambda (``AWS_LAMBDA_FUNCTION_NAME`` is set), nowhere
else unless asked (``write_lines_to``: the local runtime's ``NIMBUS_ACCESS_LOG=json``;
tests add a handler of their own).  The logger is ``nimbus.telemetry``; it does not propagate, so Lambda's own
handler never prints a line twice with a prefix that EMF cannot read.
"""
from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import IO


NAMESPACE = "Nimbus"
FUNCTION = "Function"
OPERATION = ("Operation",)
# CloudWatch's units for the metrics published here.
COUNT, MILLISECONDS, SECONDS, BYTES = "Count", "Milliseconds", "Seconds", "Bytes"

log = logging.getLogger("nimbus.telemetry")
log.setLevel(logging.INFO)
log.propagate = False


@dataclass(frozen=True)
class Metric:
    """One metric value of a line; ``by``: the dimensions it is also published by
    (besides ``Function``)."""
    name: str
    value: float
    unit: str = COUNT
    by: tuple[str, ...] = ()


class Tally:
    """What one request or run measured so far: when it started, its AWS calls, and
    the sums ``add`` made to it."""
    __slots__ = ("aws_calls", "services", "started", "sums")

    def __init__(self):
        self.started = time.perf_counter()
        self.aws_calls = 0
        self.services: dict[str, int] = {}
        self.sums: dict[str, list] = {}     # name -> [value, unit]

    def add(self, name: str, value: float, unit: str = COUNT) -> None:
        found = self.sums.get(name)
        if found is None:
            self.sums[name] = [value, unit]
        else:
            found[0] += value

    def elapsed_ms(self) -> float:
        return round((time.perf_counter() - self.started) * 1000, 1)


_current: ContextVar[Tally | None] = ContextVar("telemetry_tally", default=None)


def add(name: str, value: float = 1, unit: str = COUNT) -> None:
    """Add ``value`` to metric ``name`` of the request or run being measured in this
    context (nothing when none is: a CLI command, a test calling a rule directly)."""
    tally = _current.get()
    if tally is not None:
        tally.add(name, value, unit)


@contextlib.contextmanager
def watching() -> Iterator[Tally]:
    """Measure what runs inside the block: its AWS calls and what ``add`` adds."""
    _watch_aws_calls()
    tally = Tally()
    token = _current.set(tally)
    try:
        yield tally
    finally:
        _current.reset(token)


def continued(chunks: Iterator[bytes], tally: Tally, done: Callable[[], None]) -> Iterator[bytes]:
    """``chunks``, each made on ``tally``: a streamed answer is produced after the
    gateway returned (a clone's pack), and its AWS calls and bytes belong to the
    request.  ``done()`` runs once, when the stream ends or is abandoned."""
    try:
        while True:
            token = _current.set(tally)
            try:
                chunk = next(chunks, None)
            finally:
                _current.reset(token)
            if chunk is None:
                return
            yield chunk
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()
        done()


class Run:
    """A background run being measured (``run``): its outcome and fields."""

    def __init__(self, tally: Tally, fields: dict):
        self.tally = tally
        self.outcome = "ok"
        self.fields = fields
        self.published = True

    def quiet(self) -> None:
        """Nothing happened worth a metric (a sweep that found nothing): the line is
        written without its ``_aws`` block, so a schedule's idle runs cost no metric."""
        self.published = False

    def failed(self, exc: BaseException) -> None:
        """The run failed though its block goes on (an error it handles itself)."""
        self.outcome = "failed"
        self.fields["error"] = type(exc).__name__


@contextlib.contextmanager
def run(event: str, prefix: str, dimensions: dict[str, str] | None = None,
        **fields) -> Iterator[Run]:
    """One line for the block: ``<prefix>Runs`` (1), ``<prefix>Failures`` (1 when it
    raised or ``failed()`` was called: then also by the run's dimensions, else 0) and
    ``<prefix>Latency``, with whatever ``add`` added inside.  An exception passes on
    after the line is written; its type (never its text) is in ``error``."""
    with watching() as tally:
        measured = Run(tally, dict(fields))
        try:
            yield measured
        except BaseException as exc:
            measured.failed(exc)
            raise
        finally:
            failed = measured.outcome == "failed"
            by = tuple(dimensions or ()) if failed else ()
            emit(event, tally, dimensions=dimensions, metrics=[
                Metric(prefix + "Runs", 1), Metric(prefix + "Failures", int(failed), by=by),
                Metric(prefix + "Latency", tally.elapsed_ms(), MILLISECONDS)],
                published=measured.published or failed, outcome=measured.outcome,
                **measured.fields)


def emit(event: str, tally: Tally, *, metrics: list[Metric] = (),
         dimensions: dict[str, str] | None = None, published: bool = True, **fields) -> dict:
    """Write the line of a request or run measured by ``tally``; the record written.
    ``published=False``: the metrics' values stay in the line, but not as metrics."""
    every = list(metrics) + [Metric(name, value, unit) for name, (value, unit) in tally.sums.items()]
    directives: dict[tuple[str, ...], list[dict]] = {}
    for metric in every:
        directives.setdefault(metric.by, []).append({"Name": metric.name, "Unit": metric.unit})
    record: dict = {}
    if published:
        # The line's own time, not the service clock's: a test that drives the clock
        # must not have its instants spent by logging, and CloudWatch drops metrics
        # stamped far from now.
        record["_aws"] = {"Timestamp": int(time.time() * 1000), "CloudWatchMetrics": [
            {"Namespace": NAMESPACE, "Dimensions": [list(by), [FUNCTION]] if by else [[FUNCTION]],
             "Metrics": listed} for by, listed in directives.items()]}
    labels = {FUNCTION: function_name(), **(dimensions or {})}
    record.update(labels)
    record.update((metric.name, metric.value) for metric in every)
    record["event"] = event
    record.update(fields)
    record["aws_calls"] = tally.aws_calls
    record["aws_calls_by_service"] = dict(tally.services)
    log.info("%s", json.dumps(record, separators=(",", ":"), default=str))
    kept = _kept
    if kept is not None and published:
        kept.observe(labels, every, tally.services)
    return record


def function_name() -> str:
    """The ``Function`` dimension: the Lambda function's name, or ``local``."""
    return os.environ.get("AWS_LAMBDA_FUNCTION_NAME") or "local"


def write_lines_to(stream: IO[str]) -> logging.Handler:
    """Write every line to ``stream`` as it is made (the handler, to remove it again)."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(message)s"))
    log.addHandler(handler)
    return handler


if os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):
    # Inside Lambda: stdout is the log stream CloudWatch reads the metrics from.
    write_lines_to(sys.stdout)


# AWS calls: botocore's before-call hook on every client (chalicelib/aws.py) -----------------

_hook_lock = threading.Lock()
_hooked = False


def _watch_aws_calls() -> None:
    global _hooked
    if _hooked:
        return
    with _hook_lock:
        if not _hooked:
            from chalicelib import aws

            aws.add_call_hook(_count_call)
            _hooked = True


def _count_call(model=None, **_) -> None:
    """Count one AWS API call for the request or run being measured in this context
    (returns None: a before-call handler that returns something answers the call)."""
    tally = _current.get()
    if tally is None:
        return
    tally.aws_calls += 1
    service = model.service_model.service_name if model is not None else "unknown"
    tally.services[service] = tally.services.get(service, 0) + 1


# Metrics kept in process (the local runtime's /metrics) ------------------------------------

_kept = None


def keep_metrics():
    """Keep every line's metrics in this process from now on (the local runtime); the
    registry (``telemetry/prometheus.py``)."""
    global _kept
    if _kept is None:
        from chalicelib.telemetry.prometheus import Registry

        _kept = Registry()
    return _kept


def stop_keeping_metrics() -> None:
    global _kept
    _kept = None


def metrics_kept() -> bool:
    """Whether this process keeps metrics (``/metrics`` is served only then: 404 in AWS,
    where CloudWatch has them)."""
    return _kept is not None


def prometheus_text() -> str:
    """The kept metrics in Prometheus's text format (empty when none are kept)."""
    kept = _kept
    return kept.render() if kept is not None else ""
