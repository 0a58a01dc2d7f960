"""The telemetry lines' metrics kept in process, in Prometheus's text format
(``/metrics`` on the local runtime; in AWS, CloudWatch keeps them from the lines).

Each metric of a line feeds one series, labelled with the line's dimensions (but
``Function``, always ``local`` here) in lower case: counts and byte sizes become
counters (``Requests`` -> ``nimbus_requests_total{operation="repoGet"}``), durations and
ages histograms in seconds (``Latency`` in milliseconds ->
``nimbus_latency_seconds``).  The AWS calls of every line add to
``nimbus_aws_calls_total{service=...}``.  A process has one registry
(``telemetry.keep_metrics``); the lines come from every thread.
"""
from __future__ import annotations

import re
import threading
from collections.abc import Iterable

# Upper bounds (seconds) of the histograms' buckets: a fast read to a long consumer run.
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
           300.0, 900.0)
PREFIX = "nimbus_"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_WORD = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SECONDS_PER_UNIT = {"Milliseconds": 0.001, "Seconds": 1.0}

Labels = tuple[tuple[str, str], ...]


def series_name(metric: str) -> str:
    """``ClientErrors`` -> ``client_errors``."""
    return _WORD.sub("_", metric).lower()


class Histogram:
    __slots__ = ("counts", "observed", "total")

    def __init__(self):
        self.counts = [0] * len(BUCKETS)
        self.total = 0.0
        self.observed = 0

    def observe(self, value: float) -> None:
        for index, bound in enumerate(BUCKETS):
            if value <= bound:
                self.counts[index] += 1
                break
        self.total += value
        self.observed += 1


class Registry:
    def __init__(self):
        self._lock = threading.Lock()
        self._counters: dict[str, dict[Labels, float]] = {}
        self._histograms: dict[str, dict[Labels, Histogram]] = {}
        self._help: dict[str, str] = {}

    def observe(self, dimensions: dict[str, str], metrics: Iterable, services: dict[str, int]) -> None:
        """One line's metrics (``telemetry.Metric``) and AWS calls by service."""
        labels = tuple(sorted((key.lower(), str(value)) for key, value in dimensions.items()
                              if key != "Function"))
        with self._lock:
            for metric in metrics:
                scale = _SECONDS_PER_UNIT.get(metric.unit)
                if scale is None:
                    name = f"{PREFIX}{series_name(metric.name)}_total"
                    self._help.setdefault(name, f"{metric.name} ({metric.unit}), summed")
                    series = self._counters.setdefault(name, {})
                    series[labels] = series.get(labels, 0) + metric.value
                else:
                    name = f"{PREFIX}{series_name(metric.name)}_seconds"
                    self._help.setdefault(name, f"{metric.name}, in seconds")
                    self._histograms.setdefault(name, {}).setdefault(
                        labels, Histogram()).observe(metric.value * scale)
            name = f"{PREFIX}aws_calls_total"
            self._help.setdefault(name, "AWS API calls made, by service")
            series = self._counters.setdefault(name, {})
            for service, calls in services.items():
                key = (("service", service),)
                series[key] = series.get(key, 0) + calls

    def render(self) -> str:
        """Every series, in the text exposition format (version 0.0.4)."""
        out: list[str] = []
        with self._lock:
            for name in sorted(self._counters):
                out += [f"# HELP {name} {self._help[name]}", f"# TYPE {name} counter"]
                out += [f"{name}{_labels(labels)} {_number(value)}"
                        for labels, value in sorted(self._counters[name].items())]
            for name in sorted(self._histograms):
                out += [f"# HELP {name} {self._help[name]}", f"# TYPE {name} histogram"]
                for labels, histogram in sorted(self._histograms[name].items()):
                    cumulative = 0
                    for bound, count in zip(BUCKETS, histogram.counts):
                        cumulative += count
                        out.append(f"{name}_bucket{_labels(labels + (('le', _number(bound)),))} "
                                   f"{cumulative}")
                    out.append(f"{name}_bucket{_labels(labels + (('le', '+Inf'),))} "
                               f"{histogram.observed}")
                    out.append(f"{name}_sum{_labels(labels)} {_number(histogram.total)}")
                    out.append(f"{name}_count{_labels(labels)} {histogram.observed}")
        return "\n".join(out) + "\n" if out else ""


def _labels(labels: Labels) -> str:
    if not labels:
        return ""
    return "{" + ",".join(f'{key}="{_escaped(value)}"' for key, value in labels) + "}"


def _escaped(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _number(value: float) -> str:
    return repr(int(value)) if float(value).is_integer() else repr(float(value))
