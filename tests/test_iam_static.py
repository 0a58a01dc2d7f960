"""Every call path of the packaged code to S3, SSM, SQS and Lambda, read from the
source (tests/iam_static.py), is granted by its function's role: the paths the run in
tests/test_iam.py takes and those it cannot (a failed multipart upload, a key made after
a rotation), without running anything."""
from __future__ import annotations

import json

import pytest

from tests.iam_static import Check, resource_json


@pytest.fixture(scope="module")
def check() -> Check:
    return Check()


def _listing(found: dict) -> str:
    return "\n".join(f"  {function}: {action} on {json.loads(resource)}\n    via "
                     + " -> ".join(path)
                     for function, needs in sorted(found.items())
                     for (action, resource), path in sorted(needs.items()))


def test_every_path_is_granted(check):
    missing = check.missing()
    assert not missing, "grants missing from the roles (infra/iam.py):\n" + _listing(missing)
    assert not check.unresolved, (
        "calls whose resource the check could not follow (a key made some new way: teach "
        "tests/code_values.py, e.g. KEY_FIELDS; a queue or function: tests/iam_static.py, "
        "QUEUES, LAMBDA_TARGETS):\n"
        + "\n".join(f"  {f}: {node}: {text}" for f, node, text in sorted(set(check.unresolved))))


def test_a_grant_taken_away_is_found_with_its_path(check, monkeypatch):
    """The check is real: without s3:AbortMultipartUpload on archives/ (a path no test
    run takes: a large archive's upload failing), the API's role misses it, and the
    report shows the route that gets there."""
    rendered = check.statements
    trimmed = [{**s, "Action": [a for a in s["Action"] if a != "s3:AbortMultipartUpload"]}
               for s in rendered("APIHandler")]
    monkeypatch.setattr(check, "statements", lambda function: trimmed
                        if function == "APIHandler" else rendered(function))
    missing = check.missing()
    assert set(missing) == {"APIHandler"}, _listing(missing)
    archives = resource_json(check.iam.objects("archives/")[0])
    path = missing["APIHandler"][("s3:AbortMultipartUpload", archives)]
    assert path[0] == "chalicelib.contents.file_routes:get_archive" and \
        path[-1] == "upload_fileobj", path


def test_a_mirror_sync_cannot_reach_the_signing_key(check):
    """Its ref changes are planned without the protection rules (whose signature checks
    read the instance key), so its role needs no right on the key; the event worker,
    which merges and signs, does reach it."""
    roots = check.reader.roots()
    signing = "chalicelib.signing.service:signing_key"
    assert signing not in check.graph.reach(roots["MirrorSync"], check.avoid("MirrorSync"))
    assert signing in check.graph.reach(roots["EventWorker"], check.avoid("EventWorker"))
    key = resource_json(check.iam.parameter(check.settings.aws.SIGNING_KEY_PARAMETER))
    assert not any(resource == key for _, resource in check.needs("MirrorSync",
                                                                 roots["MirrorSync"]))


def test_every_function_and_route_has_roots(check):
    """The walk starts from every function of the template, and from the handler of
    every route the table holds, however it was registered."""
    import inspect

    from chalicelib.http.routes import load_routes
    from infra.template import FUNCTION_NAMES, STREAM_FUNCTION

    roots = check.reader.roots()
    assert set(roots) == {*FUNCTION_NAMES, STREAM_FUNCTION}
    handlers = roots["APIHandler"] | roots[STREAM_FUNCTION]
    unrooted = set()
    for route in load_routes().routes:
        handler = inspect.unwrap(route.handler)
        # A lambda or nested function is part of the function that defines it.
        node = f"{handler.__module__}:{handler.__qualname__.split('.<locals>')[0]}"
        if node not in handlers:
            unrooted.add(f"{route.operation_id}: {node}")
    assert not unrooted, sorted(unrooted)
    # Each scheduled function starts from the job its cron task runs, not every job.
    assert "chalicelib.jobs.schedules:sync_mirrors" in roots["MirrorSync"]
    assert "chalicelib.jobs.schedules:compact_packs" not in check.graph.reach(
        roots["MirrorSync"], check.avoid("MirrorSync"))
