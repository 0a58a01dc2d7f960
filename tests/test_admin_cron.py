"""/admin/cron end to end on moto: Forgejo's two operations over the project's
schedules, who may call them, a run started from the API as the invocation of the
task's own function (as Lambda gets it), the runs recorded, and two runs at once."""
from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

import pytest

from chalicelib import instance
from tests.conftest import ADMIN, admin_client, moto_world
from tests.iam_harness import schedule_event

ROOT = Path(__file__).resolve().parents[1]
ZERO = "0001-01-01T00:00:00Z"


@pytest.fixture
def moto_api():
    """The API on moto whatever NIMBUS_TEST_BACKEND says: the twin has no Lambda."""
    with moto_world(twin=False):
        yield admin_client()


def admin_token(api, scopes=("all",)) -> str:
    resp = api.post(f"/users/{ADMIN[0]}/tokens", auth=ADMIN,
                    json={"name": "-".join(scopes), "scopes": list(scopes)})
    assert resp.status == 201, resp
    return resp.json["sha1"]


def listed(api, token) -> dict[str, dict]:
    resp = api.get("/admin/cron", token=token)
    assert resp.status == 200, resp
    return {record["name"]: record for record in resp.json}


def test_the_tasks_are_app_py_s_schedules_with_their_functions_timeouts():
    import app
    from chalicelib.jobs.schedules import SCHEDULES
    from chalicelib.settings import get_settings
    from infra.template import FUNCTION_NAMES, resources

    rates = {source.name: source.schedule_expression.to_string()
             for source in app.app.event_sources if hasattr(source, "schedule_expression")}
    units = {60: "minute", 3600: "hour", 86400: "day"}

    def rate(seconds: int) -> str:
        unit = max(u for u in units if seconds % u == 0)
        count = seconds // unit
        return f"rate({count} {units[unit]}{'s' if count > 1 else ''})"

    assert {t.name: rate(t.every) for t in instance.CRON_TASKS} == rates
    assert {s.name: s.minutes * 60 for s in SCHEDULES} == \
        {t.name: t.every for t in instance.CRON_TASKS if t.name in {s.name for s in SCHEDULES}}
    template = resources(get_settings())["Resources"]
    default = json.loads((ROOT / ".chalice/config.json").read_text())["stages"]["prod"][
        "lambda_timeout"]
    for task in instance.CRON_TASKS:
        assert task.function in FUNCTION_NAMES
        assert template[task.function]["Properties"].get("Timeout", default) == task.timeout, \
            task.name
        # The function named for the task is the one chalice makes of its schedule.
        assert "".join(p.title() for p in task.name.split("_")) == task.function


def test_site_admins_list_forgejo_s_cron_records(api):
    token = admin_token(api)
    resp = api.get("/admin/cron", token=token)
    assert resp.status == 200 and resp.headers["x-total-count"] == str(len(instance.CRON_TASKS))
    assert [r["name"] for r in resp.json] == [t.name for t in instance.CRON_TASKS]
    for record in resp.json:
        assert set(record) == {"name", "schedule", "next", "prev", "exec_times"}
        assert record["schedule"].startswith("@every ")
        assert (record["prev"], record["next"], record["exec_times"]) == (ZERO, ZERO, 0)
    page = api.get("/admin/cron?page=3&limit=3", token=token)
    assert [r["name"] for r in page.json] == [t.name for t in instance.CRON_TASKS][6:9]
    assert 'rel="first"' in page.headers["link"]


def test_who_may_list_and_run_cron_tasks(api):
    api.create_user("alice")
    user = api.create_token("alice")
    reader = admin_token(api, ("read:admin",))
    stranger_scope = admin_token(api, ("read:user",))
    for method, path in (("GET", "/admin/cron"), ("POST", "/admin/cron/lfs_collect")):
        assert api.request(method, path).status == 401
        refused = api.request(method, path, token=user)
        assert refused.status == 403 and "message" in refused.json
        assert api.request(method, path, token=stranger_scope).status == 403
    assert api.get("/admin/cron", token=reader).status == 200
    assert api.post("/admin/cron/lfs_collect", token=reader).status == 403   # write:admin
    missing = api.post("/admin/cron/no_such_task", token=admin_token(api))
    assert missing.status == 404 and "message" in missing.json
    # Nothing ran or was recorded by any of these.
    assert all(r["exec_times"] == 0 for r in listed(api, reader).values())


@pytest.fixture
def cron_functions(monkeypatch):
    """The cron tasks' functions on moto's Lambda and the variable infra/template.py gives
    the API's functions (bench/scenarios_cron.py makes them for the benchmark too)."""
    from moto.core.models import default_user_config

    monkeypatch.setitem(default_user_config, "lambda", {"use_docker": False})
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import scenarios_cron
    finally:
        sys.path.remove(str(ROOT / "bench"))
    names = scenarios_cron.stand_in_functions("nimbus")
    monkeypatch.setenv("NIMBUS_CRON_FUNCTIONS", json.dumps(names))
    return names


def test_a_run_from_the_api_is_the_task_s_function_invoked(moto_api, cron_functions):
    from app import quota_check
    from chalicelib import aws

    token = admin_token(moto_api)
    invoked = []
    events = aws.client("lambda").meta.events

    def record(params, **_):
        invoked.append(params)

    events.register("provide-client-params.lambda.Invoke", record)
    try:
        resp = moto_api.post("/admin/cron/quota_check", token=token)
    finally:
        events.unregister("provide-client-params.lambda.Invoke", record)
    assert (resp.status, resp.body) == (204, b"")
    assert [(p["FunctionName"], p["InvocationType"]) for p in invoked] == \
        [(cron_functions["quota_check"], "Event")]
    event = json.loads(invoked[0]["Payload"])
    assert event["source"] == "nimbus.admin"
    assert event["detail"] == {"task": "quota_check", "doer": ADMIN[0]}
    # Queued, not run: nothing is recorded until the function runs.
    assert listed(moto_api, token)["quota_check"]["exec_times"] == 0

    # Lambda runs the invocation: the scheduled function, with that event.
    assert quota_check(event, None) == {"corrected": 0}
    manual = listed(moto_api, token)["quota_check"]
    assert manual["exec_times"] == 1 and manual["prev"] != ZERO
    assert manual["next"] == ZERO              # the schedule has not run it yet
    # EventBridge's run: the schedule's next run follows from it.
    quota_check(schedule_event(), None)
    scheduled = listed(moto_api, token)["quota_check"]
    assert scheduled["exec_times"] == 2
    prev = time.mktime(time.strptime(scheduled["prev"], "%Y-%m-%dT%H:%M:%SZ"))
    following = time.mktime(time.strptime(scheduled["next"], "%Y-%m-%dT%H:%M:%SZ"))
    assert following - prev == 24 * 3600


def test_without_its_functions_a_run_is_refused_and_nothing_recorded(moto_api, monkeypatch):
    monkeypatch.delenv("NIMBUS_CRON_FUNCTIONS", raising=False)
    token = admin_token(moto_api)
    assert moto_api.post("/admin/cron/lfs_collect", token=token).status == 500
    assert listed(moto_api, token)["lfs_collect"]["exec_times"] == 0


def test_of_runs_at_once_one_runs_the_others_are_skipped(api):
    """Four runs of one task start together (a schedule, admins): the conditional write
    lets exactly one run its job while it holds the task."""
    from chalicelib.jobs import cron

    started, release, results = [], threading.Event(), []
    barrier = threading.Barrier(4)

    def job() -> int:
        started.append(threading.current_thread().name)
        release.wait(30)
        return 1

    def run() -> None:
        barrier.wait()
        results.append(cron.run_task("lfs_collect", manual=True, job=job))

    threads = [threading.Thread(target=run, name=f"run{i}") for i in range(4)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 30
    while len(results) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        assert sorted(results) == [0, 0, 0] and len(started) == 1
    finally:
        release.set()
        for thread in threads:
            thread.join(30)
    assert sorted(results) == [0, 0, 0, 1]
    assert listed(api, admin_token(api))["lfs_collect"]["exec_times"] == 1
