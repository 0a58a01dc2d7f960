"""Scenarios and budgets for the instance's cron tasks (``/admin/cron``).

The list is the site admin's token and account, then one Query of the tasks' items
(one partition, a handful of items): 3.  Running one is the token and account, then
one asynchronous invocation of the task's own function (Lambda ``Invoke``, type
``Event``): 3.  The run itself is that function's, outside the request.
"""
from __future__ import annotations

import io
import json
import os
import zipfile

from scene import Req, Scene

BUDGETS = {
    ("adminCronList", "admin"): 3,
    ("adminCronRun", "admin"): 3,
}


def stand_in_functions(prefix: str) -> dict[str, str]:
    """Each cron task's function on moto's Lambda (without containers: an invocation is
    accepted, not run), named ``<prefix>-<function>``: task name -> function name, what
    infra/template.py gives the API's functions as ``NIMBUS_CRON_FUNCTIONS``."""
    import boto3
    from moto.core.models import default_user_config

    from chalicelib import instance

    default_user_config["lambda"] = {"use_docker": False}
    role = boto3.client("iam", region_name="us-east-1").create_role(
        RoleName=f"{prefix}-cron", AssumeRolePolicyDocument=json.dumps({
            "Version": "2012-10-17", "Statement": [{
                "Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"},
                "Action": "sts:AssumeRole"}]}))["Role"]["Arn"]
    code = io.BytesIO()
    with zipfile.ZipFile(code, "w") as archive:
        archive.writestr("app.py", "")
    functions = boto3.client("lambda", region_name="us-east-1")
    return {task.name: functions.create_function(
        FunctionName=f"{prefix}-{task.function}", Runtime="python3.12", Role=role,
        Handler=f"app.{task.name}", Code={"ZipFile": code.getvalue()})["FunctionName"]
        for task in instance.CRON_TASKS}


def cron_functions(s: Scene) -> dict:
    """The tasks' stand-in functions and the variable naming them (made once, not
    counted)."""
    def make() -> dict:
        names = stand_in_functions("bench")
        os.environ["NIMBUS_CRON_FUNCTIONS"] = json.dumps(names)
        return names
    return s.once("cron_functions", make)


def run_task(s: Scene) -> list[Req]:
    cron_functions(s)
    return [Req("POST", "/admin/cron/lfs_collect", "admin", expect=204)]


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {
        "adminCronList": lambda s: [Req("GET", "/admin/cron", "admin")],
        "adminCronRun": run_task,
    }
