"""Telemetry's rules in milliseconds: who may read ``/metrics`` and where it exists,
the Prometheus text the lines' metrics become, a run's line when it fails, and a
streamed answer's tally (the in-memory twin; the wiring is tests/test_telemetry.py)."""
from __future__ import annotations

import pytest

from chalicelib import aws, telemetry
from chalicelib.telemetry import Metric, prometheus
from tests.conftest import ADMIN
from tests.test_telemetry import directives, lines, parsed  # noqa: F401 - lines: a fixture


@pytest.fixture
def kept():
    """Metrics kept in process, as the local runtime keeps them."""
    telemetry.keep_metrics()
    try:
        yield
    finally:
        telemetry.stop_keeping_metrics()


def test_metrics_answer_a_site_admin_only(fast_api, kept):
    fast_api.create_user("bob")
    bob = fast_api.create_token("bob")
    assert fast_api.get("/version").status == 200
    answer = fast_api.get("/metrics", raw=True, auth=ADMIN)
    assert answer.status == 200
    assert answer.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    text = answer.body.decode()
    assert 'nimbus_requests_total{operation="getVersion"} 1\n' in text
    assert '# TYPE nimbus_latency_seconds histogram' in text
    assert 'nimbus_aws_calls_total{service="dynamodb"}' in text
    admin_token = fast_api.create_token(ADMIN[0], ADMIN[1], name="metrics")
    assert fast_api.get("/metrics", raw=True, token=admin_token).status == 200
    narrow = fast_api.create_token(ADMIN[0], ADMIN[1], name="narrow", scopes=("read:user",))
    assert fast_api.get("/metrics", raw=True, token=narrow).status == 403
    assert fast_api.get("/metrics", raw=True, token=bob).status == 403
    assert fast_api.get("/metrics", raw=True, auth=("bob", "secret-pass-1")).status == 403
    anonymous = fast_api.get("/metrics", raw=True)
    assert anonymous.status == 401


def test_metrics_do_not_exist_where_no_metrics_are_kept(fast_api):
    """In AWS (no registry: CloudWatch has the metrics) the path is unknown, before
    anyone is asked who they are."""
    assert fast_api.get("/metrics", raw=True, auth=ADMIN).status == 404
    assert fast_api.get("/metrics", raw=True).status == 404


def test_lines_become_counters_and_histograms():
    registry = prometheus.Registry()
    registry.observe({"Function": "local", "Operation": "repoGet"},
                     [Metric("Requests", 1), Metric("ClientErrors", 0),
                      Metric("Latency", 30.0, telemetry.MILLISECONDS)], {"dynamodb": 3})
    registry.observe({"Function": "local", "Operation": "repoGet"},
                     [Metric("Requests", 1), Metric("ClientErrors", 1),
                      Metric("Latency", 2000.0, telemetry.MILLISECONDS)], {"dynamodb": 2, "s3": 1})
    registry.observe({"Function": "local", "Consumer": 'odd "name"\\'},
                     [Metric("GitBytesOut", 1500, telemetry.BYTES),
                      Metric("EventAge", 0.5, telemetry.SECONDS)], {})
    text = registry.render()
    assert text.startswith("# HELP nimbus_aws_calls_total AWS API calls made, by service\n"
                           "# TYPE nimbus_aws_calls_total counter\n"
                           'nimbus_aws_calls_total{service="dynamodb"} 5\n'
                           'nimbus_aws_calls_total{service="s3"} 1\n')
    assert 'nimbus_requests_total{operation="repoGet"} 2\n' in text
    assert 'nimbus_client_errors_total{operation="repoGet"} 1\n' in text
    assert 'nimbus_git_bytes_out_total{consumer="odd \\"name\\"\\\\"} 1500\n' in text
    assert ('nimbus_latency_seconds_bucket{operation="repoGet",le="0.025"} 0\n'
            'nimbus_latency_seconds_bucket{operation="repoGet",le="0.05"} 1\n') in text
    assert 'nimbus_latency_seconds_bucket{operation="repoGet",le="2.5"} 2\n' in text
    assert 'nimbus_latency_seconds_bucket{operation="repoGet",le="+Inf"} 2\n' in text
    assert 'nimbus_latency_seconds_sum{operation="repoGet"} 2.03\n' in text
    assert 'nimbus_latency_seconds_count{operation="repoGet"} 2\n' in text
    assert 'nimbus_event_age_seconds_count{consumer="odd \\"name\\"\\\\"} 1\n' in text
    assert text.endswith("\n") and prometheus.Registry().render() == ""


def test_a_failed_run_writes_its_line_and_raises(memory, lines):  # noqa: F811
    with pytest.raises(KeyError), telemetry.run("probe_run", "Probe", {"Probe": "one"}, item=7):
        telemetry.add("Things", 2)
        telemetry.add("Things", 3)
        raise KeyError("secret detail")
    [line] = parsed(lines)
    assert (line["event"], line["outcome"], line["error"], line["item"]) == (
        "probe_run", "failed", "KeyError", 7)
    assert (line["ProbeRuns"], line["ProbeFailures"], line["Things"]) == (1, 1, 5)
    assert directives(line) == {
        (("Probe",), ("Function",)): {"ProbeFailures": "Count"},
        (("Function",),): {"ProbeRuns": "Count", "ProbeLatency": "Milliseconds", "Things": "Count"}}
    assert "secret detail" not in lines[0]


def test_a_streamed_answer_counts_on_its_request_and_reports_once(memory, lines):  # noqa: F811
    """Its chunks are made after the request's block: their AWS calls and sums still
    count for it, and the report runs once, when the stream ends or is abandoned."""
    def chunks():
        for n in range(3):
            aws.client("s3").list_buckets()
            telemetry.add("Sent", n)
            yield b"x" * n

    for take in (3, 1):
        reported: list[int] = []
        with telemetry.watching() as tally:
            pass
        stream = telemetry.continued(chunks(), tally, lambda reported=reported, tally=tally:
                                     reported.append(tally.aws_calls))
        taken = [next(stream) for _ in range(take)]
        stream.close()
        assert len(taken) == take and reported == [take]
        assert tally.services == {"s3": take} and tally.sums["Sent"][0] == sum(range(take))
    aws.client("s3").list_buckets()         # outside any request: counted nowhere
    assert tally.aws_calls == 1
